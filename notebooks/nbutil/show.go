package nbutil

import (
	"fmt"
	"slices"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
)

// Display hooks (tests replace them to see what a notebook would show). Each display waits until GoNB has taken
// it (gonbui.Sync): a cell's program exits right after its last display, and GoNB drops what it had not read yet.
var (
	displaySVG  = plot.Display
	displayHTML = plot.DisplayHTML
)

// show displays an SVG chart, or says in one line why there is none.
func show(what string, svg []byte, err error) {
	if err != nil {
		printf("(no %s chart: %v)\n", what, err)
		return
	}
	displaySVG(svg)
}

// subset is a copy of f with only the results that one of ids names ([ladder.StepID.Matches]: "13" keeps
// 13@512 and 13+dw-input-grad=phases); all of them for no ids.
func subset(f *ladder.File, ids ...string) *ladder.File {
	g := *f
	if len(ids) == 0 {
		return &g
	}
	var want []ladder.StepID
	for _, id := range ids {
		if w, err := ladder.ParseStepID(id); err == nil {
			want = append(want, w)
		}
	}
	g.Results = nil
	for _, r := range f.Results {
		if got, err := ladder.ParseStepID(r.ID); err == nil && len(want) > 0 && ladder.MatchesAny(want, got) {
			g.Results = append(g.Results, r)
		}
	}
	return &g
}

// ResultsTable is the HTML table of a results file's steps, with the conditions as its caption.
func ResultsTable(f *ladder.File, highlight string) string {
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
			fmtBytes(int64(r.H2DBytesPerStep)), first, fmt.Sprintf("%.3f→%.3f", r.LossFirst, r.LossLast)})
	}
	return plot.HTMLTable(headers, rows, f.Conditions.Caption())
}

// CompileChart is the first call of each step, in seconds: compilation (XLA's passes, autotuning what the cache
// lacks, code generation) and the first execution (module loading and, on the GPU, cuDNN building its execution
// plans — most of a warm first call, see tutorial/backend/autotune.go) stacked, where the results split them;
// results written before the split was measured show the whole first call as one part.
func CompileChart(f *ladder.File) ([]byte, error) {
	notSplit := func(r ladder.Result) bool { return r.Error == "" && r.CompileS <= 0 && !r.ReusedExecutable }
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
func MemoryChart(f *ladder.File) ([]byte, error) {
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

// showRuns displays the notebooks' own results so far: table, throughput, split and compile charts.
func showRuns(f *ladder.File, highlight string) {
	displayHTML(ResultsTable(f, highlight))
	chart("throughput", f, f.ThroughputChart)
	chart("step-time split", f, f.SplitChart)
	chart("compile time", f, func() ([]byte, error) { return CompileChart(f) })
	if svg, err := MemoryChart(f); err == nil { // the pure-Go backend has none: say nothing
		displaySVG(svg)
	}
}

// chart displays the chart make draws from f, or says in one line why there is none (no successful step, or no
// memory statistics).
func chart(what string, f *ladder.File, make func() ([]byte, error)) {
	for _, r := range f.Results {
		if r.Error == "" {
			svg, err := make()
			show(what, svg, err)
			return
		}
	}
	printf("(no %s chart: no successful step)\n", what)
}

// Recommendations are what the profile package's rules say about one result's step-time split.
func Recommendations(r ladder.Result) []profile.Recommendation {
	d := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return profile.Recommend(profile.RecommendInput{Step: profile.StepBreakdown{DataWait: d(r.DataWaitMs),
		Transfer: d(r.TransferMs), Compute: d(r.ComputeMs), Other: d(r.OtherMs), Steps: 1}})
}

func printRecommendations(r ladder.Result, smoke bool) {
	recs := Recommendations(r)
	total := r.DataWaitMs + r.TransferMs + r.ComputeMs + r.OtherMs
	if total > 0 {
		printf("step-time split of step %s: data wait %.0f%%, host→device %.0f%%, compute %.0f%%, other %.0f%%\n", r.ID,
			100*r.DataWaitMs/total, 100*r.TransferMs/total, 100*r.ComputeMs/total, 100*r.OtherMs/total)
	}
	if smoke {
		printf("(on the CPU the loaders and the step share the same %s; the H200's split below is the one that decides)\n", "cores")
	}
	if len(recs) == 0 {
		printf("profile rules: nothing on the host side stands out — the step is compute-bound\n")
	}
	for _, rec := range recs {
		printf("profile rules: %s — %s\n", rec.Rule, rec.Evidence)
	}
}
