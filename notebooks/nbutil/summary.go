package nbutil

import (
	"cmp"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
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
	printf("%s", s.Choice.Details()) // the backend line first (NewSession says it only on a GPU)
	g := s.Choice.Plan.GPU
	if g.Found {
		printf("gpu: %s (%d device(s); evidence %s); driver: %s\n", cmp.Or(g.Model, "—"), g.Count, g.Evidence, cmp.Or(ladder.DriverVersion(), "—"))
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
	displayHTML(ladder.DataTable(set))

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
	for _, f := range LocalRuns(root) {
		if f.Conditions.Smoke { // one line: the pure-Go backend compiles nothing like XLA does
			printf("compile time, this machine: %d smoke runs on %s, first calls up to %.1f s (no chart: not the GPU's)\n",
				len(f.Results), f.Conditions.GPU, f.SlowestFirstCall())
			continue
		}
		printf("%s", f.FirstCalls(fmt.Sprintf("compile time, this machine (%s):", f.Conditions.GPU), "%.2f"))
		chart("compile time", f, f.CompileChart)
	}
	files, _ := ladder.RecordedResults(root)
	if len(files) == 0 {
		printf("compile time, recorded: no recorded results in assets/results yet\n")
		return
	}
	f := files[0].File // the canonical measurement: every rung, one process
	printf("%s", f.FirstCalls(fmt.Sprintf("compile time, recorded on %s (%s, %s):", f.Conditions.GPU,
		f.Conditions.Date, filepath.Base(files[0].Path)), "%.1f"))
	chart("recorded compile time", f, f.CompileChart)
}

// LocalRuns reads the notebooks' own results files (RunsDir), smoke first.
func LocalRuns(root string) []*ladder.File { return ladder.ReadDir(RunsDir(root)) }

// Summary is 08-summary's cell: the canonical H200 measurement as one table (with what each rung's profile says
// it did) and one chart; Go against PyTorch's strongest step and JAX in one device call; the seed ladder in both
// frameworks; and what the last rung's profile says is left. This machine's own runs are one line: at smoke sizes
// their speeds mean nothing.
func Summary() { withRoot(func(root string) { ShowSummary(root) }) }

// ShowSummary is [Summary] with the repository root given.
func ShowSummary(root string) {
	for _, f := range LocalRuns(root) {
		best, base := f.BestAndBase()
		if best != nil && base != nil {
			// The caption says "smoke sizes on the CPU: not a speed measurement" where they were.
			printf("this machine: notebooks 01–07 ran %d steps (%s)\n", len(f.Results), f.Conditions.Caption())
		}
	}
	files, _ := ladder.RecordedResults(root)
	if len(files) == 0 {
		printf("recorded H200 results: none in assets/results yet — `trainopt ladder` writes them on the GPU machine\n")
		return
	}
	printf("%s", files[0].Headline())
	f, highlight := files[0].File, ""
	if best, _ := f.BestAndBase(); best != nil {
		highlight = best.ID // the story table marks the fastest step
	}
	displayHTML(f.StoryTable(ladder.Verdicts, highlight))
	chart("recorded throughput", f, f.ThroughputChart)
	rf := ladder.ComparedFile(files)
	if rf != nil {
		displayHTML(rf.ComparisonTable())
		svg, err := rf.File.TorchChart()
		show("comparison", svg, err)
	}
	if jf := ladder.JAXFile(files); jf != nil && jf != rf {
		displayHTML(jf.JAXTable()) // JAX was measured in another call: its own table, its own Go figures
	}
	ShowSeedLadder(root)
	showLeft(root, files)
}

// showLeft is what the profile of the last (most optimised) profiled step says is left.
func showLeft(root string, files []ladder.RecordedFile) {
	reps, _ := ladder.RecordedProfiles(root)
	if last := ladder.LastRungProfile(reps); last != nil {
		printf("%s", last.LeftWords())
		displayHTML(last.Report.HTML())
		return
	}
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
	if best, _ := f.BestAndBase(); best != nil {
		printf("%s", best.SplitWords(f.Conditions.Smoke))
	}
}
