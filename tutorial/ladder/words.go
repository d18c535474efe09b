package ladder

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
)

// The one-line summaries the notebooks print under their charts. They live here, beside the tables and charts
// they summarise, so that nbutil only displays.

// FirstCalls is title and each successful step's first call in seconds (format, e.g. "%.1f"), one line each,
// saying whether an executable was reused or how compile and first execution split it.
func (f *File) FirstCalls(title, format string) string {
	var b strings.Builder
	b.WriteString(title + "\n")
	for _, r := range f.Results {
		if r.Error != "" {
			continue
		}
		how := ""
		switch {
		case r.ReusedExecutable:
			how = " (executable reused from an earlier step)"
		case r.CompileS > 0:
			how = fmt.Sprintf(" (compile %.1f s + first execution %.1f s)", r.CompileS, r.FirstExecutionS())
		}
		fmt.Fprintf(&b, "  step %s: first call "+format+" s%s\n", r.ID, r.FirstCallS, how)
	}
	return b.String()
}

// SlowestFirstCall is the longest first call of f's steps, in seconds (0 for none): what a smoke run's compile
// times come to in one figure, where a chart of them would say nothing of the GPU's.
func (f *File) SlowestFirstCall() float64 {
	slowest := 0.0
	for _, r := range f.Results {
		slowest = max(slowest, r.FirstCallS)
	}
	return slowest
}

// SplitWords is the step-time split of r in percent and what its rules say ([Result.Recommendations]); smoke adds
// that on the CPU the split does not decide.
func (r Result) SplitWords(smoke bool) string {
	var b strings.Builder
	if total := r.DataWaitMs + r.TransferMs + r.ComputeMs + r.OtherMs; total > 0 {
		fmt.Fprintf(&b, "step-time split of step %s: data wait %.0f%%, host→device %.0f%%, compute %.0f%%, other %.0f%%\n",
			r.ID, 100*r.DataWaitMs/total, 100*r.TransferMs/total, 100*r.ComputeMs/total, 100*r.OtherMs/total)
	}
	if smoke {
		b.WriteString("(on the CPU the loaders and the step share the same cores; the H200's recorded split is the one that decides)\n")
	}
	recs := r.Recommendations()
	if len(recs) == 0 {
		b.WriteString("profile rules: nothing on the host side stands out — the step is compute-bound\n")
	}
	for _, rec := range recs {
		fmt.Fprintf(&b, "profile rules: %s — %s\n", rec.Rule, rec.Evidence)
	}
	return b.String()
}

// ReadDir reads every results file (*.json) in dir that has results; files that do not read are skipped.
func ReadDir(dir string) []*File {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var files []*File
	for _, p := range paths {
		if f, err := Read(p); err == nil && len(f.Results) > 0 {
			files = append(files, f)
		}
	}
	return files
}

// Line is the "result:" line every measured run prints: throughput, step time and split, the first call, the
// bytes sent per step and where it ran (a smoke run says it is not a speed measurement).
func (r Result) Line(c artifact.Conditions) string {
	first := fmt.Sprintf("first call (compile %.2f s + first execution %.2f s) %.2f s", r.CompileS,
		r.FirstExecutionS(), r.FirstCallS)
	if r.ReusedExecutable {
		first = fmt.Sprintf("first call %.2f s (executable reused)", r.FirstCallS)
	}
	label := c.GPU
	if c.Smoke {
		label += ", smoke sizes: not a speed measurement"
	}
	return fmt.Sprintf("result: step %s: %.1f samples/s, step %.2f ms median (p10 %.2f, p90 %.2f); split: data wait %.2f, "+
		"host→device %.2f, compute %.2f, other %.2f ms; %s; host→device %s per step [%s]",
		r.ID, r.SamplesPerSec, r.StepMedianMs, r.StepP10Ms, r.StepP90Ms, r.DataWaitMs, r.TransferMs, r.ComputeMs,
		r.OtherMs, first, plot.FormatBytes(int64(r.H2DBytesPerStep)), label)
}

// DataWords names a training set loudly: the synthetic stand-in is never mistaken for CIFAR-10.
func DataWords(set *cifar.Set) string {
	if set.Synthetic {
		return fmt.Sprintf("SYNTHETIC CIFAR-10-shaped data (%d images; %s) — not the real CIFAR-10: run `trainopt data -download` "+
			"(or 00-setup with network) for it", set.Len(), set.Source)
	}
	return fmt.Sprintf("real CIFAR-10 (%d training images; %s)", set.Len(), set.Source)
}

// DataTable is [DataWords] at length, for 00-setup: the training images per class as an HTML table, captioned
// with what the set is.
func DataTable(set *cifar.Set) string {
	var rows [][]string
	for i, n := range set.ClassCounts() {
		rows = append(rows, []string{cifar.ClassNames[i], fmt.Sprint(n)})
	}
	return plot.HTMLTable([]string{"class", "training images"}, rows, DataWords(set))
}

// Words is what a recorded group says above its table: the file, the steps it supplies, where and how they were
// measured, and one line per step (a failed step says why).
func (g RecordedGroup) Words() string {
	var b strings.Builder
	c := g.File.Conditions
	var got []string
	for _, r := range g.File.Results {
		got = append(got, r.ID)
	}
	driver := ShortDriver(c.Driver)
	if driver == "" {
		driver = "—"
	}
	fmt.Fprintf(&b, "recorded H200 results: %s (steps %s)\n", filepath.Base(g.Path), strings.Join(got, ", "))
	fmt.Fprintf(&b, "recorded on %s, %s; %s; %d warm-up + %d timed steps; %s; driver %s\n", c.GPU, c.Date, c.Model,
		c.Warmup, c.TimedSteps, c.DataKind(), driver)
	for _, r := range g.File.Results {
		if r.Error != "" {
			fmt.Fprintf(&b, "recorded step %s: failed: %s\n", r.ID, r.Error)
			continue
		}
		fmt.Fprintf(&b, "recorded step %s: %.0f samples/s, step %.2f ms (data wait %.2f, host→device %.2f, compute %.2f, "+
			"other %.2f), first call %.1f s\n", r.ID, r.SamplesPerSec, r.StepMedianMs, r.DataWaitMs, r.TransferMs,
			r.ComputeMs, r.OtherMs, r.FirstCallS)
	}
	return b.String()
}

// Words is a recorded max-batch check in one line: the memory model fitted to compiled statistics (and the
// batches it was fitted at), the allocator's limit and the largest batch it predicts.
func (r RecordedMaxBatch) Words() string {
	c := r.Check
	var fitted []string
	for _, p := range c.Points {
		fitted = append(fitted, fmt.Sprint(p.Batch))
	}
	return fmt.Sprintf("recorded max-batch check: %s — step %s, memory = %.0f MB + %.2f MB × batch (fitted at %s), "+
		"allocator limit %.2f GB → predicted max batch %d\n", filepath.Base(r.Dir), r.Step, c.Model.FixedBytes/1e6,
		c.Model.PerSampleBytes/1e6, strings.Join(fitted, " and "), float64(c.LimitBytes)/1e9, c.Predicted)
}

// Words is what a recorded profile says above its report: its folder, the GPU and date it was captured on, and
// what the profile's rules found (their advice is in the report).
func (p RecordedProfile) Words() string {
	var b strings.Builder
	c := p.Report.Conditions
	fmt.Fprintf(&b, "recorded profile: %s (%s, %s)\n", filepath.Base(p.Dir), cmp.Or(c.GPU, "—"), c.Date)
	for _, rec := range p.Report.Recommendations {
		fmt.Fprintf(&b, "  profile says: %s — %s\n", rec.Rule, rec.Evidence)
	}
	return b.String()
}

// LeftWords is what the profile of the most optimised step ([LastRungProfile]) says is left: each rule that
// fires with its advice, or that none does.
func (p RecordedProfile) LeftWords() string {
	var b strings.Builder
	c := p.Report.Conditions
	fmt.Fprintf(&b, "what is left: profile of step %s (%s, %s)\n", cmp.Or(p.StepID, "—"), cmp.Or(c.GPU, "—"), c.Date)
	if len(p.Report.Recommendations) == 0 {
		b.WriteString("  profile says: no rule fires — the step is compute-bound on the GPU\n")
	}
	for _, rec := range p.Report.Recommendations {
		fmt.Fprintf(&b, "  profile says: %s — %s\n  advice: %s\n", rec.Rule, rec.Evidence, rec.Advice)
	}
	return b.String()
}

// Line is a recorded training run in one line.
func (t TrainRun) Line() string {
	r, c := t.Result, t.Conditions
	return fmt.Sprintf("recorded train: %s on %s, %s: %.0f samples/s, step %.2f ms (p10 %.2f, p90 %.2f, %d steps), "+
		"first call %.1f s, loss %.3f → %.3f", t.Config, c.GPU, c.Date, r.SamplesPerSec, r.StepMedianMs, r.StepP10Ms,
		r.StepP90Ms, c.TimedSteps, r.FirstCallS, r.LossFirst, r.LossLast)
}

// TrainedWords says whether a measured run trained: the loss from first to last read, or a warning naming why it
// did not show (a smoke window of timed steps can be too short).
func (r Result) TrainedWords(timed int) string {
	if err := r.Trained(); err != nil {
		return fmt.Sprintf("WARNING: %v (at %d timed steps a smoke run can be too short to show learning)", err, timed)
	}
	return fmt.Sprintf("trained: loss %.3f → %.3f over %d losses read", r.LossFirst, r.LossLast, len(r.Losses))
}

// SmokeLine is a smoke run in one line — that the step runs and trains, with its loss from first to last read —
// said so that it is not taken for a speed measurement (synthetic: the run used the synthetic data).
func (r Result) SmokeLine(synthetic bool) string {
	data := ""
	if synthetic {
		data = ", synthetic data"
	}
	return fmt.Sprintf("CPU smoke run (pure-Go backend, tiny sizes%s; not a speed measurement): step %s runs and trains, "+
		"loss %.2f → %.2f", data, r.ID, r.LossFirst, r.LossLast)
}

// Verdicts is what each rung's H200 profile, beside the previous rung's, says the rung did — the last column
// of the summary's [File.StoryTable]; notebooks 01–07 and the README tell it with the figures. Keyed by rung
// ("9" for every 9@batch).
var Verdicts = map[string]string{
	"1":  "input-bound: the loop waits for one loader; the GPU is busy a tenth of the step",
	"2":  "slower: f16 adds casts and the scaler's kernels, at batch 32 launch-bound; the data wait is untouched",
	"3":  "4× the images per launch; now the loader is the wall",
	"4":  "a quarter of the bytes: the copy and the loader's work shrink",
	"5":  "two loaders: the data wait is gone",
	"5b": "one loader per core: the host keeps up",
	"6":  "the copy leaves the critical path; the step is the Execute",
	"7":  "the host only gathers bytes; the GPU still idles between kernels",
	"8":  "no host work per step (little gain by itself; enables rung 10)",
	"9":  "bf16: no loss scaler, but cuDNN's bf16 convolutions are slower than f16's (slower at 128)",
	"10": "K steps per Execute: the gaps between calls go",
	"11": "wide-row batch-norm sums: cheaper reductions at 512, not at 128",
	"12": "ReLU6's gradient as a mask: reductions and fusions about 40% cheaper",
	"13": "float32 batch-norm apply: better sums, more reduction time (slower)",
	"14": "8-channel stem on tensor cores: cheaper first convolution",
}
