package nbutil

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
)

// Setup is 00-setup's cell: the backend and why, the GPU, the versions, the mode the other notebooks will run in,
// the data (real CIFAR-10 if present or downloadable, else the synthetic stand-in, said loudly) and the recorded
// GPU results found under assets/.
func Setup() {
	if err := setup(); err != nil {
		fail(err)
	}
}

func setup() error {
	s, err := NewSession()
	if err != nil {
		return err
	}
	printf("repository: %s\n", s.Root)
	_, details, _ := strings.Cut(s.Choice.Details(), "\n") // its first line is the backend line printed above
	printf("%s", details)
	g := s.Choice.Plan.GPU
	if g.Found {
		printf("gpu: %s (%d device(s); evidence %s); driver: %s\n", orDash(g.Model), g.Count, g.Evidence, orDash(ladder.DriverVersion()))
	} else {
		printf("gpu: none found (%s)\n", g.Hint)
	}
	printf("versions: %s\n", backend.Versions())
	printf("host: %d cores, %s/%s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	printf("%s\n", s.Mode())
	for _, n := range s.Notes {
		printf("note: %s\n", n)
	}
	printf("data: %s\n", s.Download())
	set, err := s.LoadData()
	if err != nil {
		return err
	}
	if set.Synthetic {
		printf("WARNING: SYNTHETIC DATA — every result these notebooks produce says so in its caption\n")
	}
	counts := set.ClassCounts()
	var rows [][]string
	for i, n := range counts {
		rows = append(rows, []string{cifar.ClassNames[i], fmt.Sprint(n)})
	}
	displayHTML(plot.HTMLTable([]string{"class", "training images"}, rows, dataWords(set)))

	files, bad := ladder.RecordedResults(s.Root)
	for _, b := range bad {
		printf("note: skipped a results file: %s\n", b)
	}
	reps, _ := ladder.RecordedProfiles(s.Root)
	trains := ladder.RecordedTrain(s.Root)
	printf("recorded H200 results: %d ladder results file(s), %d profile(s), %d training run(s) under %s\n",
		len(files), len(reps), len(trains), filepath.Join(s.Root, "assets"))
	if len(files)+len(reps)+len(trains) == 0 {
		printf("recorded: nothing under assets/ yet — the notebooks will show only this machine's runs\n")
	} else {
		displayHTML(ladder.RecordedTable(files, reps, trains))
	}
	printf("runs: the notebooks write their own results to %s\n", RunsDir(s.Root))
	return nil
}

// CompileTimes shows what each step's first call cost (compilation, autotuning, one step): the notebooks' own runs
// and the recorded GPU results.
func CompileTimes() { withRoot(showCompileTimes) }

func showCompileTimes(root string) {
	runs := LocalRuns(root)
	if len(runs) == 0 {
		printf("compile time: no runs of this machine in %s yet\n", RunsDir(root))
	}
	for _, f := range runs {
		printFirstCalls(fmt.Sprintf("compile time, this machine (%s):", f.Conditions.GPU), f, "%.2f")
		chart("compile time", f, f.CompileChart)
	}
	files, _ := ladder.RecordedResults(root)
	groups := ladder.GroupRecorded(files)
	if len(groups) == 0 {
		printf("compile time, recorded: no recorded results in assets/results yet\n")
		return
	}
	for _, g := range groups {
		f := g.File
		printFirstCalls(fmt.Sprintf("compile time, recorded on %s (%s, %s):", f.Conditions.GPU, f.Conditions.Date,
			filepath.Base(g.Path)), f, "%.1f")
		chart("recorded compile time", f, f.CompileChart)
	}
}

// printFirstCalls prints a title and each successful step's first call (seconds in format).
func printFirstCalls(title string, f *ladder.File, format string) {
	printf("%s\n", title)
	for _, r := range f.Results {
		if r.Error == "" {
			printf("  step %s: first call "+format+" s%s\n", r.ID, r.FirstCallS, reused(r))
		}
	}
}

// reused says how a first call was made up: an executable reused from an earlier step, or compile + first
// execution where the results split them (the first execution is where cuDNN builds its plans on the GPU).
func reused(r ladder.Result) string {
	switch {
	case r.ReusedExecutable:
		return " (executable reused from an earlier step)"
	case r.CompileS > 0:
		return fmt.Sprintf(" (compile %.1f s + first execution %.1f s)", r.CompileS, r.FirstExecutionS())
	}
	return ""
}

// LocalRuns reads the notebooks' own results files (RunsDir), smoke first.
func LocalRuns(root string) []*ladder.File {
	paths, _ := filepath.Glob(filepath.Join(RunsDir(root), "*.json"))
	var files []*ladder.File
	for _, p := range paths {
		if f, err := ladder.Read(p); err == nil && len(f.Results) > 0 {
			files = append(files, f)
		}
	}
	return files
}

// Summary is 08-summary's cell: this machine's runs from notebooks 01–07, the recorded ladder (table, throughput,
// step-time split, memory, compile time), PyTorch on the same GPU, and what the last step's profile says is left.
func Summary() { withRoot(func(root string) { ShowSummary(root) }) }

// ShowSummary is [Summary] with the repository root given.
func ShowSummary(root string) {
	runs := LocalRuns(root)
	if len(runs) == 0 {
		printf("this machine: no runs in %s — run notebooks 01–07 first\n", RunsDir(root))
	}
	for _, f := range runs {
		printf("this machine: %d steps measured by the notebooks (%s)\n", len(f.Results), f.Conditions.Caption())
		best, base := f.BestAndBase()
		if best != nil && base != nil {
			printf("this machine: step 1 %.1f samples/s → best step %s %.1f samples/s (%.2f×)%s\n", base.SamplesPerSec,
				best.ID, best.SamplesPerSec, best.SamplesPerSec/base.SamplesPerSec, smokeWords(f.Conditions))
		}
		showRuns(f, "")
	}

	files, _ := ladder.RecordedResults(root)
	groups := ladder.GroupRecorded(files)
	if len(groups) == 0 {
		printf("recorded H200 results: none in assets/results yet — the table, the PyTorch comparison and the GPU " +
			"profile appear here once `trainopt ladder` and `trainopt profile` have run on the GPU machine\n")
	}
	// The ladder end to end: step 1 and the fastest step of the newest file that has step 1 — one device call,
	// since numbers from different calls are never compared (the machine is shared and they move).
	var best *ladder.Result
	for _, rf := range files {
		b, s1 := rf.File.BestAndBase()
		if s1 == nil || b == nil {
			continue
		}
		best = b
		printf("summary: on %s the ladder goes from %.0f samples/s (step 1) to %.0f samples/s (step %s): %.1f× "+
			"(one device call: %s)\n", rf.File.Conditions.GPU, s1.SamplesPerSec, b.SamplesPerSec, b.ID,
			b.SamplesPerSec/s1.SamplesPerSec, filepath.Base(rf.Path))
		break
	}
	for _, g := range groups {
		f := g.File
		printf("recorded H200 results: %s — %d steps — %s\n", filepath.Base(g.Path), len(f.Results), f.Conditions.Caption())
		displayHTML(f.HTMLTable(idOf(best)))
		chart("recorded throughput", f, f.ThroughputChart)
		chart("recorded step-time split", f, f.SplitChart)
		chart("recorded memory", f, f.MemoryChart)
		chart("recorded compile time", f, f.CompileChart)
	}
	showTorch(files)
	ShowRecordedTrain(root)
	showLeft(root, files)
}

func idOf(r *ladder.Result) string {
	if r == nil {
		return ""
	}
	return r.ID
}

func smokeWords(c artifact.Conditions) string {
	if c.Smoke {
		return " — smoke sizes on the CPU: not a speed measurement"
	}
	return ""
}

// showTorch compares Go with PyTorch's ladder measured in the same device call ([ladder.TorchComparison]).
func showTorch(files []ladder.RecordedFile) {
	pairs := ladder.TorchComparison(files)
	if len(pairs) == 0 {
		printf("PyTorch comparison: no recorded file has PyTorch numbers beside Go ones yet (`trainopt ladder -torch " +
			"<torch_ladder.py output>` adds them)\n")
		return
	}
	printf("PyTorch comparison: %d batch size(s), each measured beside Go in one device call\n", len(pairs))
	fastest := pairs[0]
	for _, p := range pairs {
		printf("PyTorch comparison at batch %d: Go + XLA step %s %.0f samples/s vs PyTorch step %s (%s) %.0f samples/s: %.2f× (%s)\n",
			p.Torch.Batch, p.Go.ID, p.Go.SamplesPerSec, p.Torch.Step, p.Torch.Name, p.Torch.SamplesPerSec, p.Ratio(), p.From)
		if p.Go.SamplesPerSec > fastest.Go.SamplesPerSec {
			fastest = p
		}
	}
	printf("PyTorch comparison, fastest Go step beside PyTorch in one call: Go + XLA %.0f samples/s (step %s) vs "+
		"PyTorch %.0f samples/s (step %s), batch %d: %.2f× (%s)\n", fastest.Go.SamplesPerSec, fastest.Go.ID,
		fastest.Torch.SamplesPerSec, fastest.Torch.Step, fastest.Torch.Batch, fastest.Ratio(), fastest.From)
	displayHTML(ladder.TorchTable(pairs))
	svg, err := ladder.TorchPairsChart(pairs)
	show("PyTorch comparison", svg, err)
}

// showLeft is what the profile of the last (most optimised) profiled step says is left.
func showLeft(root string, files []ladder.RecordedFile) {
	reps, _ := ladder.RecordedProfiles(root)
	if len(reps) == 0 {
		printf("what is left: no recorded GPU profile in assets/profiles yet; from the step-time split alone:\n")
		f := (*ladder.File)(nil)
		if len(files) > 0 {
			f = files[0].File
		} else if runs := LocalRuns(root); len(runs) > 0 {
			f = runs[0]
		}
		if f == nil {
			printf("  (no results at all yet)\n")
			return
		}
		best, _ := f.BestAndBase()
		if best != nil {
			printRecommendations(*best, f.Conditions.Smoke)
		}
		return
	}
	// The most optimised step that was profiled: the highest step number.
	pick := reps[0]
	for _, p := range reps {
		if p.Step().Order() > pick.Step().Order() {
			pick = p
		}
	}
	printf("what is left: profile of step %s (%s, %s)\n", orDash(pick.StepID), orDash(pick.Report.Conditions.GPU), pick.Report.Conditions.Date)
	if len(pick.Report.Recommendations) == 0 {
		printf("  profile says: no rule fires — the step is compute-bound on the GPU\n")
	}
	for _, rec := range pick.Report.Recommendations {
		printf("  profile says: %s — %s\n  advice: %s\n", rec.Rule, rec.Evidence, rec.Advice)
	}
	displayHTML(pick.Report.HTML())
}
