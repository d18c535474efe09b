package ladder

// What the notebooks show of a results file beside the README's Markdown (results.go) and charts (charts.go):
// the HTML table, the compile-time and memory charts, and what the profile's rules say about a step; and the
// tables of what else the GPU machine recorded (training runs, max-batch checks, two profiles compared).

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

// HTMLTable is the HTML table (for a notebook) of a results file's steps, with the conditions as its caption.
func (f *File) HTMLTable(highlight string) string {
	headers := []string{"step", "configuration", "batch", "samples/s", "× step 1", "step ms (p10–p90)", "data wait ms",
		"host→device ms", "compute ms", "other ms", "H2D per step", "first call s", "loss first→last"}
	var rows [][]string
	var base float64
	for _, r := range f.Results {
		if r.ID == "1" && r.Error == "" {
			base = r.SamplesPerSec
		}
	}
	for _, r := range f.Results {
		id := r.ID
		if highlight != "" && r.ID == highlight {
			id = "▶ " + id
		}
		if r.Error != "" {
			rows = append(rows, []string{id, r.Name, fmt.Sprint(r.Batch), "failed: " + r.Error})
			continue
		}
		ratio := ""
		if base > 0 {
			ratio = fmt.Sprintf("%.2f×", r.SamplesPerSec/base)
		}
		first := fmt.Sprintf("%.2f", r.FirstCallS)
		if r.ReusedExecutable {
			first += " (reused)"
		}
		rows = append(rows, []string{id, r.Name, fmt.Sprint(r.Batch), fmt.Sprintf("%.1f", r.SamplesPerSec), ratio,
			fmt.Sprintf("%.2f (%.2f–%.2f)", r.StepMedianMs, r.StepP10Ms, r.StepP90Ms), fmt.Sprintf("%.2f", r.DataWaitMs),
			fmt.Sprintf("%.2f", r.TransferMs), fmt.Sprintf("%.2f", r.ComputeMs), fmt.Sprintf("%.2f", r.OtherMs),
			plot.FormatBytes(int64(r.H2DBytesPerStep)), first, fmt.Sprintf("%.3f→%.3f", r.LossFirst, r.LossLast)})
	}
	return plot.HTMLTable(headers, rows, f.Conditions.Caption())
}

// CompileChart is the first call of each step, in seconds: compilation (XLA's passes, autotuning what the cache
// lacks, code generation) and the first execution (module loading and, on the GPU, cuDNN building its execution
// plans — most of a warm first call, see tutorial/backend/autotune.go) stacked, where the results split them;
// results written before the split was measured show the whole first call as one part.
func (f *File) CompileChart() ([]byte, error) {
	notSplit := func(r Result) bool { return r.Error == "" && r.CompileS <= 0 && !r.ReusedExecutable }
	names := []string{"compile", "first execution"}
	unsplit := slices.ContainsFunc(f.Results, notSplit)
	if unsplit {
		names = append(names, "first call (not split)")
	}
	var stacks []plot.Stack
	for _, r := range f.Results {
		if r.Error != "" {
			continue
		}
		label := r.ID
		if r.ReusedExecutable {
			label += " (reused)"
		}
		parts := []float64{r.CompileS, r.FirstExecutionS()}
		if unsplit {
			parts = append(parts, 0)
			if notSplit(r) {
				parts = []float64{0, 0, r.FirstCallS}
			}
		}
		stacks = append(stacks, plot.Stack{Label: label, Parts: parts})
	}
	return plot.StackedBars("First call per step: compile, then the first execution", "seconds",
		f.Conditions.Caption(), names, stacks)
}

// MemoryChart is XLA's compiled device memory of each step's executable (GiB), split into its parts; an error
// when no step has memory statistics (the pure-Go backend reports none).
func (f *File) MemoryChart() ([]byte, error) {
	var stacks []plot.Stack
	const gib = 1 << 30
	for _, r := range f.Results {
		m := r.Memory
		if r.Error != "" || m == nil {
			continue
		}
		outputs := max(0, m["outputs"]-m["aliases"])
		stacks = append(stacks, plot.Stack{Label: r.ID, Parts: []float64{float64(m["arguments"]) / gib,
			float64(outputs) / gib, float64(m["temporary"]) / gib, float64(m["generated_code"]) / gib}})
	}
	if len(stacks) == 0 {
		return nil, fmt.Errorf("no compiled memory statistics in these results (the pure-Go backend reports none)")
	}
	return plot.StackedBars("Compiled device memory of the training step (XLA)", "GiB", f.Conditions.Caption(),
		[]string{"arguments (state; batch or dataset)", "outputs not donated", "temporaries (activations)", "generated code"}, stacks)
}

// Recommendations are what the profile package's rules say about one result's step-time split.
func (r Result) Recommendations() []profile.Recommendation {
	d := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return profile.Recommend(profile.RecommendInput{Step: profile.StepBreakdown{DataWait: d(r.DataWaitMs),
		Transfer: d(r.TransferMs), Compute: d(r.ComputeMs), Other: d(r.OtherMs), Steps: 1}})
}

// BestAndBase are the fastest successful step and step 1 (nil when missing).
func (f *File) BestAndBase() (best, base *Result) {
	for i := range f.Results {
		r := &f.Results[i]
		if r.Error != "" {
			continue
		}
		if r.ID == "1" {
			base = r
		}
		if best == nil || r.SamplesPerSec > best.SamplesPerSec {
			best = r
		}
	}
	return best, base
}

// trainCaption is what the recorded training runs were measured under (the last run's conditions).
func trainCaption(runs []RecordedTrainRun) string {
	c := runs[len(runs)-1].Conditions
	return fmt.Sprintf("%s, %s, driver %s, %s, %d timed steps — trainopt train", c.GPU, c.Date, cmp.Or(ShortDriver(c.Driver), "—"),
		c.DataKind(), c.TimedSteps)
}

// TrainRunsTable is the recorded `trainopt train` summaries as an HTML table ("" for none).
func TrainRunsTable(runs []RecordedTrainRun) string {
	if len(runs) == 0 {
		return ""
	}
	var rows [][]string
	for _, t := range runs {
		r := t.Result
		rows = append(rows, []string{t.Config, fmt.Sprintf("%.0f", r.SamplesPerSec),
			fmt.Sprintf("%.2f (%.2f–%.2f)", r.StepMedianMs, r.StepP10Ms, r.StepP90Ms), fmt.Sprintf("%.2f", r.ComputeMs),
			fmt.Sprintf("%.1f", r.FirstCallS), fmt.Sprint(r.SkippedSteps), fmt.Sprintf("%.3f→%.3f", r.LossFirst, r.LossLast),
			filepath.Base(t.Path)})
	}
	return plot.HTMLTable([]string{"configuration", "samples/s", "step ms (p10–p90)", "compute ms", "first call s",
		"skipped steps", "loss", "file"}, rows, trainCaption(runs))
}

// TrainRunsChart is the recorded `trainopt train` throughputs as bars, with the p10/p90 spread.
func TrainRunsChart(runs []RecordedTrainRun) ([]byte, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no recorded training runs")
	}
	var bars []plot.Bar
	for _, t := range runs {
		r := t.Result
		label, _, _ := strings.Cut(t.Config, ",")
		bar := plot.Bar{Label: label, Value: r.SamplesPerSec}
		if r.StepP10Ms > 0 && r.StepP90Ms > 0 {
			bar.Low, bar.High = float64(r.Batch)*1e3/r.StepP90Ms, float64(r.Batch)*1e3/r.StepP10Ms
		}
		bars = append(bars, bar)
	}
	return plot.Bars("Recorded training runs: one configuration each", "samples/s", trainCaption(runs), bars)
}

// HTMLTable is a recorded max-batch check's trials (the batches run just below and above the prediction) as an
// HTML table, captioned with its verdict and the backend it ran on.
func (r RecordedMaxBatch) HTMLTable() string {
	backend := strings.Join(strings.Fields(r.Backend), " ") // on one line, for a caption
	return plot.HTMLTable(memory.TrialHeaders, r.Check.TrialRows(), r.Check.Verdict()+" — "+backend)
}

// ProfileDiffTable is two recorded profiles side by side ([profile.Diff]) as an HTML table: what the rung of
// after changed on the GPU since before's, per training step.
func ProfileDiffTable(before, after *RecordedProfile) string {
	return profile.DiffHTML("step "+before.Step().String(), "step "+after.Step().String(),
		profile.Diff(before.Report, after.Report), "per training step; the split is the loop's median over the timed "+
			"window, the kernel figures are from the capture (XLA's profiler), divided by the steps it held")
}

// RecordedTable lists what the GPU machine recorded: the ladder results files, the profiles and the training runs.
func RecordedTable(files []RecordedFile, reps []RecordedProfile, trains []RecordedTrainRun) string {
	var rows [][]string
	for _, f := range files {
		c := f.File.Conditions
		rows = append(rows, []string{"ladder", filepath.Base(f.Path), c.GPU, c.Date,
			fmt.Sprintf("%d steps, %s", len(f.File.Results), c.DataKind())})
	}
	for _, p := range reps {
		c := p.Report.Conditions
		rows = append(rows, []string{"profile", filepath.Base(p.Dir), cmp.Or(c.GPU, "—"), c.Date, p.Report.Title})
	}
	for _, t := range trains {
		rows = append(rows, []string{"train", filepath.Base(filepath.Dir(t.Path)) + "/" + filepath.Base(t.Path),
			t.Conditions.GPU, t.Conditions.Date, t.Config})
	}
	return plot.HTMLTable([]string{"kind", "file", "GPU", "date", "what"}, rows,
		"recorded on the GPU machine, shown beside every run")
}
