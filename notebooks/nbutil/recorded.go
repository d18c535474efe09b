package nbutil

import (
	"path/filepath"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
)

// Recorded shows the H200 (or other GPU) results recorded under assets/results for the given ladder steps (all
// steps when none are given), each from the newest file that measured it: per file a table, throughput, step-time
// split and memory charts, captioned with its GPU, date and conditions. It says plainly when nothing has been
// recorded yet. ([Profile] shows the profiles.)
func Recorded(ids ...string) { withRoot(func(root string) { ShowRecorded(root, ids...) }) }

// ShowRecorded is [Recorded] with the repository root given.
func ShowRecorded(root string, ids ...string) {
	files, bad := ladder.RecordedResults(root)
	for _, b := range bad {
		printf("note: skipped a results file: %s\n", b)
	}
	groups := ladder.GroupRecorded(files, ids...)
	switch {
	case len(files) == 0:
		printf("recorded H200 results: none in %s yet — `trainopt ladder` writes them there on the GPU machine\n",
			filepath.Join(root, "assets", "results"))
	case len(groups) == 0:
		printf("recorded H200 results: none of %s in the %d recorded file(s) yet\n", stepsWords(ids), len(files))
	}
	for _, g := range groups {
		printf("%s", g.Words())
		sub := g.File
		displayHTML(sub.HTMLTable(""))
		chart("recorded throughput", sub, sub.ThroughputChart)
		chart("recorded step-time split", sub, sub.SplitChart)
		chart("recorded memory", sub, sub.MemoryChart)
	}
}

// Profile shows the GPU profiles recorded under assets/profiles for the given ladder steps (all for no ids), the
// newest of each step: the step-time split, XLA's kernel trace summary (GPU busy, SM efficiency, occupancy, tensor
// cores), the top kernels, memory and the profiler's recommendations. It says plainly when there is none.
func Profile(ids ...string) { withRoot(func(root string) { ShowProfiles(root, ids...) }) }

// ShowProfiles is [Profile] with the repository root given.
func ShowProfiles(root string, ids ...string) {
	reps, bad := ladder.RecordedProfiles(root)
	for _, b := range bad {
		printf("note: skipped a profile: %s\n", b)
	}
	newest := ladder.NewestProfiles(reps, ids...)
	if len(newest) == 0 {
		printf("recorded profiles: none for %s in %s yet (`trainopt profile -step N` writes them)\n", stepsWords(ids),
			filepath.Join(root, "assets", "profiles"))
	}
	for _, p := range newest {
		printf("%s", p.Words())
		displayHTML(p.Report.HTML())
	}
}

// stepsWords names the steps a cell asked for: "steps 1, 2", or "all steps" for none.
func stepsWords(ids []string) string {
	if len(ids) == 0 {
		return "all steps"
	}
	return "steps " + strings.Join(ids, ", ")
}

// ProfileDiff shows what a rung changed on the GPU: the newest recorded H200 profile of step before beside the
// newest of step after ([profile.Diff]) — step split, GPU busy, kernels and kernel time per step, time per kernel
// category, tensor-core share, memsets, memory — then what the after profile recommends. A step ID without a
// batch ("9") means its batch-128 variant.
func ProfileDiff(before, after string) {
	withRoot(func(root string) { ShowProfileDiff(root, before, after) })
}

// ShowProfileDiff is [ProfileDiff] with the repository root given.
func ShowProfileDiff(root, before, after string) {
	reps, _ := ladder.RecordedProfiles(root)
	b, a := ladder.NewestProfile(reps, before), ladder.NewestProfile(reps, after)
	if b == nil || a == nil {
		printf("profile diff %s → %s: no recorded profile of step %s in %s\n", before, after,
			map[bool]string{true: before, false: after}[b == nil], filepath.Join(root, "assets", "profiles"))
		return
	}
	printf("H200 profiles: step %s (%s) → step %s (%s)\n", b.Step(), filepath.Base(b.Dir), a.Step(), filepath.Base(a.Dir))
	displayHTML(ladder.ProfileDiffTable(b, a))
	for _, rec := range a.Report.Recommendations {
		printf("  step %s's profile says: %s — %s\n", a.Step(), rec.Rule, rec.Evidence)
	}
}

// SeedLadder shows the original tutorial's six steps in Go and in PyTorch from one recorded device call
// ([ladder.SeedFile]), each with × its own step 1, beside the original's table on a Quadro RTX 4000.
func SeedLadder() { withRoot(ShowSeedLadder) }

// ShowSeedLadder is [SeedLadder] with the repository root given.
func ShowSeedLadder(root string) {
	files, _ := ladder.RecordedResults(root)
	rf := ladder.SeedFile(files)
	if rf == nil {
		printf("seed ladder: no recorded file holds steps 1–6 of both Go and PyTorch yet\n")
		return
	}
	displayHTML(rf.SeedLadderTable())
}

// RecordedTrainRuns shows the single-configuration training runs recorded under assets/gpu-runs (f32 / f16 / bf16
// at batch 128 with the data resized on the device): a table and a throughput chart.
func RecordedTrainRuns() { withRoot(func(root string) { ShowRecordedTrain(root) }) }

// ShowRecordedTrain is [RecordedTrainRuns] with the repository root given.
func ShowRecordedTrain(root string) {
	runs := ladder.RecordedTrain(root)
	if len(runs) == 0 {
		printf("recorded training runs: none in %s\n", filepath.Join(root, "assets", "gpu-runs"))
		return
	}
	printf("recorded training runs: %d (trainopt train, from %s)\n", len(runs), filepath.Join(root, "assets", "gpu-runs"))
	for _, t := range runs {
		printf("%s\n", t.Line())
	}
	displayHTML(ladder.TrainRunsTable(runs))
	svg, err := ladder.TrainRunsChart(runs)
	show("recorded training runs", svg, err)
}

// MaxBatch shows the recorded checks of the largest-batch prediction: the memory model fitted to compiled
// statistics, the predicted maximum, and the batches run just below and above it.
func MaxBatch() { withRoot(func(root string) { ShowMaxBatch(root) }) }

// ShowMaxBatch is [MaxBatch] with the repository root given.
func ShowMaxBatch(root string) {
	recs, bad := ladder.RecordedMaxBatches(root)
	for _, b := range bad {
		printf("note: skipped a memory check: %s\n", b)
	}
	if len(recs) == 0 {
		printf("recorded max-batch checks: none in %s yet (`trainopt memory` on a GPU writes them)\n",
			filepath.Join(root, "assets", "profiles"))
		return
	}
	for _, r := range recs {
		printf("%s", r.Words())
		displayHTML(r.HTMLTable())
	}
}
