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
		printf("%s", f.FirstCalls(fmt.Sprintf("compile time, this machine (%s):", f.Conditions.GPU), "%.2f"))
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
		printf("%s", f.FirstCalls(fmt.Sprintf("compile time, recorded on %s (%s, %s):", f.Conditions.GPU,
			f.Conditions.Date, filepath.Base(g.Path)), "%.1f"))
		chart("recorded compile time", f, f.CompileChart)
	}
}

// LocalRuns reads the notebooks' own results files (RunsDir), smoke first.
func LocalRuns(root string) []*ladder.File { return ladder.ReadDir(RunsDir(root)) }

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
	line, best := ladder.LadderWords(files)
	printf("%s", line)
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
	printf("%s", ladder.TorchWords(pairs))
	if len(pairs) > 0 {
		displayHTML(ladder.TorchTable(pairs))
		svg, err := ladder.TorchPairsChart(pairs)
		show("PyTorch comparison", svg, err)
	}
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
