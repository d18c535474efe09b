package ladder

// What the notebooks show of a results file beside the README's Markdown (results.go) and charts (charts.go):
// the HTML table, the compile-time and memory charts, and what the profile's rules say about a step.

import (
	"fmt"
	"slices"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
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
