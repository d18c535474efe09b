package nbutil

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
)

// capture redirects what the notebook functions print and display; it returns the printed text and counts the
// SVG charts and HTML outputs.
type capture struct {
	text       bytes.Buffer
	svgs, html []string
}

func captureOutput(t *testing.T) *capture {
	t.Helper()
	c := &capture{}
	oldOut, oldSVG, oldHTML, oldExit := out, displaySVG, displayHTML, exit
	out = &c.text
	displaySVG = func(svg []byte) { c.svgs = append(c.svgs, string(svg)) }
	displayHTML = func(h string) { c.html = append(c.html, h) }
	exit = func(code int) { t.Fatalf("exit(%d) called: %s", code, c.text.String()) }
	t.Cleanup(func() { out, displaySVG, displayHTML, exit = oldOut, oldSVG, oldHTML, oldExit })
	return c
}

func repoRoot(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRoot(t *testing.T) {
	want := repoRoot(t)
	t.Setenv(EnvRoot, "")
	t.Setenv("GONB_DIR", filepath.Join(want, "notebooks"))
	if got, err := Root(); err != nil || got != want {
		t.Errorf("Root() from GONB_DIR = %q, %v; want %q", got, err, want)
	}
	t.Setenv("GONB_DIR", "")
	if got, err := Root(); err != nil || got != want { // from the working directory (notebooks/nbutil)
		t.Errorf("Root() from the working directory = %q, %v; want %q", got, err, want)
	}
	t.Setenv(EnvRoot, t.TempDir())
	if _, err := Root(); err == nil || !strings.Contains(err.Error(), EnvRoot) {
		t.Errorf("Root() with a wrong %s: err %v", EnvRoot, err)
	}
	t.Setenv(EnvRoot, want)
	if got, err := Root(); err != nil || got != want {
		t.Errorf("Root() from %s = %q, %v", EnvRoot, got, err)
	}
}

func TestRunsName(t *testing.T) {
	if n := runsName(artifact.Conditions{Smoke: true, GPU: "CPU (2 cores)", Date: "2026-12-02"}); n != "smoke" {
		t.Errorf("smoke runs file %q", n)
	}
	if n := runsName(artifact.Conditions{GPU: "NVIDIA H200", Date: "2026-12-02"}); n != "h200" {
		t.Errorf("GPU runs file %q, want h200 (one file per device, no date)", n)
	}
}

// fakeAssets writes a recorded results file (and a smoke one and a broken one), a profile and a training log under
// a temporary root holding the module's go.mod.
func fakeAssets(t *testing.T, withRecorded bool) string {
	t.Helper()
	root := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module "+Module+"\n\ngo 1.27.3\n")
	if !withRecorded {
		return root
	}
	res := func(id string, sps float64, mem bool) ladder.Result {
		r := ladder.Result{ID: id, Name: "step " + id, Batch: 128, SamplesPerSec: sps, StepMedianMs: 128e3 / sps,
			StepP10Ms: 120e3 / sps, StepP90Ms: 136e3 / sps, DataWaitMs: 5, TransferMs: 1, ComputeMs: 10, OtherMs: 1,
			FirstCallS: 30, LossFirst: 2.3, LossLast: 1.9}
		if mem {
			r.Memory = map[string]int64{"arguments": 1 << 30, "outputs": 1 << 29, "aliases": 1 << 28, "temporary": 3 << 30,
				"generated_code": 1 << 20, "total": 5 << 30}
		}
		return r
	}
	f := &ladder.File{Conditions: artifact.Conditions{Date: "2026-12-02", GPU: "NVIDIA H200", ImageSize: 224, Model: "MobileNetV2",
		Versions: "go1.27.3", Synthetic: true},
		Results:   []ladder.Result{res("1", 900, true), res("2", 700, true), res("10@256", 9000, false)},
		Reference: []ladder.Reference{{Step: "10", Name: "torch.compile", Batch: 256, SamplesPerSec: 8000, PeakMemGB: 12}}}
	f.Results[2].Batch = 256
	// Named like the recorded files (by hand, per device call), not by File.Write's rule.
	if _, err := f.WriteAs(filepath.Join(root, "assets", "results", "h200-2026-12-02.json")); err != nil {
		t.Fatal(err)
	}
	smoke := *f
	smoke.Conditions.Smoke = true
	if _, err := smoke.WriteAs(filepath.Join(root, "assets", "results", "smoke-h200-2026-12-02.json")); err != nil {
		t.Fatal(err)
	}
	write("assets/results/broken.json", "{")
	rep := profile.Report{Title: "Profile of ladder step 1", Conditions: artifact.Conditions{GPU: "NVIDIA H200", Date: "2026-12-02T12:00:00Z"},
		Recommendations: []profile.Recommendation{{Rule: "input-bound", Evidence: "waiting for data is 55% of the step", Advice: "more workers"}}}
	js, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	write("assets/profiles/h200-2026-12-02-step1/report.json", string(js))
	write("assets/profiles/smoke-step1/report.json", string(js))
	write("assets/profiles/h200-2026-12-02-memory-step10/memory.json", `{"backend": "backend: xla:cuda on NVIDIA H200",
		"step": "10", "check": {"points": [{"batch": 256, "bytes": 7120000000}, {"batch": 512, "bytes": 14030000000}],
		"model": {"fixed_bytes": 203000000, "per_sample_bytes": 27010000}, "limit_bytes": 22520000000, "predicted": 826,
		"trials": [{"batch": 785, "fits": true, "peak_bytes": 21430000000, "predicted_bytes": 21410000000},
		{"batch": 867, "fits": false, "predicted_bytes": 23620000000, "error": "Out of memory"}],
		"largest_fit": 785, "smallest_fail": 867, "error_bound_pct": 4.96}}`)
	write("assets/profiles/h200-2026-12-01-memory-step10/memory.json", "{")
	train := ladder.TrainRun{Conditions: artifact.Conditions{Date: "2026-12-02", GPU: "NVIDIA H200", Driver: "580.159.04",
		Synthetic: true, TimedSteps: 300}, Config: "f16 batch 128, 32×32 uint8, resize+normalise on device",
		Result: ladder.Result{ID: "train", Batch: 128, SamplesPerSec: 7262, StepMedianMs: 17.74, StepP10Ms: 16.78,
			StepP90Ms: 18.33, FirstCallS: 64.2, ComputeMs: 17.18, LossFirst: 2.3148, LossLast: 0.0409, SkippedSteps: 2}}
	if err := train.Write(filepath.Join(root, "assets/gpu-runs/2026-12-02-h200-train/train-f16.json")); err != nil {
		t.Fatal(err)
	}
	write("assets/gpu-runs/2026-12-02-h200-train/train-f16.log", "summary: f16 batch 128 … (a log: not read)\n")
	write("assets/gpu-runs/2026-12-02-h200-train/depthwise.log", "--- PASS\n")
	return root
}

func TestRecordedReaders(t *testing.T) {
	root := fakeAssets(t, true)
	files, bad := ladder.RecordedResults(root)
	if len(files) != 1 || files[0].File.Conditions.Smoke || len(bad) != 1 {
		t.Errorf("ladder.RecordedResults: %d files, bad %v; want the one non-smoke file and one bad file", len(files), bad)
	}
	reps, bad := ladder.RecordedProfiles(root)
	if len(reps) != 1 || reps[0].StepID != "1" || len(bad) != 0 {
		t.Errorf("ladder.RecordedProfiles: %+v, bad %v", reps, bad)
	}
	if !reps[0].Matches([]string{"1", "2"}...) || reps[0].Matches([]string{"10"}...) ||
		!(ladder.RecordedProfile{StepID: "10-256"}).Matches("10") {
		t.Error("RecordedProfile.Matches")
	}
	runs := ladder.RecordedTrain(root)
	if len(runs) != 1 || runs[0].Conditions.Date != "2026-12-02" || runs[0].Conditions.Driver != "580.159.04" ||
		runs[0].Result.SamplesPerSec != 7262 {
		t.Errorf("ladder.RecordedTrain: %+v", runs)
	}
}

func TestShowMaxBatch(t *testing.T) {
	c := captureOutput(t)
	root := fakeAssets(t, true)
	recs, bad := ladder.RecordedMaxBatches(root)
	if len(recs) != 1 || recs[0].Check.Predicted != 826 || len(bad) != 1 {
		t.Fatalf("ladder.RecordedMaxBatches: %+v, bad %v", recs, bad)
	}
	ShowMaxBatch(root)
	text := c.text.String()
	for _, want := range []string{"note: skipped a memory check", "203 MB + 27.01 MB × batch (fitted at 256 and 512)",
		"predicted max batch 826"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if len(c.html) != 1 || !strings.Contains(c.html[0], "out of memory") || !strings.Contains(c.html[0], "within 5.0%") {
		t.Errorf("HTML: %q", c.html)
	}
	c2 := captureOutput(t)
	ShowMaxBatch(fakeAssets(t, false))
	if !strings.Contains(c2.text.String(), "recorded max-batch checks: none") {
		t.Errorf("no checks: %q", c2.text.String())
	}
}

func TestShowRecorded(t *testing.T) {
	c := captureOutput(t)
	root := fakeAssets(t, true)
	ShowRecorded(root, "1", "2")
	ShowProfiles(root, "2", "1")
	text := c.text.String()
	for _, want := range []string{"recorded H200 results: h200-2026-12-02.json (steps 1, 2)", "recorded step 1: 900 samples/s",
		"recorded step 2: 700", "recorded profile: h200-2026-12-02-step1", "profile says: input-bound"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "recorded step 10") {
		t.Error("step 10 shown though only 1 and 2 were asked for")
	}
	if len(c.svgs) != 3 { // throughput, split, memory
		t.Errorf("%d SVG charts, want 3", len(c.svgs))
	}
	if len(c.html) != 2 || !strings.Contains(c.html[0], "NVIDIA H200, 2026-12-02, SYNTHETIC data") {
		t.Errorf("HTML outputs %d (want the table with its caption, and the profile)", len(c.html))
	}

	c2 := captureOutput(t)
	ShowRecorded(fakeAssets(t, false), "1")
	ShowProfiles(root, "10")
	if text := c2.text.String(); !strings.Contains(text, "recorded H200 results: none in") || !strings.Contains(text, "recorded profiles: none") {
		t.Errorf("no recorded results: output %q", text)
	}
}

func TestShowSummaryAndCompileTimes(t *testing.T) {
	root := fakeAssets(t, true)
	runs := filepath.Join(t.TempDir(), "runs")
	t.Setenv(EnvRuns, runs)
	t.Setenv(EnvRoot, root)
	local := &ladder.File{Conditions: artifact.Conditions{GPU: "CPU (2 cores)", Smoke: true, Date: "2026-12-02"},
		Results: []ladder.Result{{ID: "1", SamplesPerSec: 40, StepMedianMs: 400, ComputeMs: 390, DataWaitMs: 10, FirstCallS: 0.5},
			{ID: "8", SamplesPerSec: 50, StepMedianMs: 320, ComputeMs: 320, FirstCallS: 1.1}}}
	if _, _, err := local.Write(runs); err != nil {
		t.Fatal(err)
	}
	c := captureOutput(t)
	ShowSummary(root)
	text := c.text.String()
	for _, want := range []string{"this machine: notebooks 01–07 ran 2 steps",
		"the newest H200 measurement (the canonical h200-2026-12-04-run26.json is missing): h200-2026-12-02.json",
		"step 1 900 samples/s → step 10@256 9000 samples/s (10.0×)",
		"what is left: profile of step 1", "profile says: input-bound"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if len(c.html) < 2 || !strings.Contains(c.html[0], "what its profile says it did") || !strings.Contains(c.html[1], "strongest") {
		t.Errorf("summary tables: want the story table, then the comparison; got %d HTML outputs: %.200q", len(c.html), c.html)
	}
	if len(c.svgs) != 2 { // one throughput chart, one comparison chart; no smoke chart
		t.Errorf("summary showed %d SVG charts, want 2 (recorded throughput, comparison)", len(c.svgs))
	}

	c2 := captureOutput(t)
	CompileTimes()
	if text := c2.text.String(); !strings.Contains(text, "compile time, this machine: 2 smoke runs on CPU (2 cores), first calls up to 1.1 s (no chart") || !strings.Contains(text, "compile time, recorded on NVIDIA H200") ||
		len(c2.svgs) != 1 { // the recorded chart only: no chart of smoke runs
		t.Errorf("CompileTimes output (%d charts):\n%s", len(c2.svgs), text)
	}
}

// TestRunStep runs one ladder step end to end at smoke sizes on the backend found (the pure-Go one without a GPU),
// with a tiny timed window: one line that says it runs and trains, no chart (a smoke chart's speeds mean
// nothing), and the results file.
func TestRunStep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	runs := filepath.Join(t.TempDir(), "runs")
	t.Setenv(EnvRuns, runs)
	t.Setenv(EnvRoot, repoRoot(t))
	t.Setenv(EnvSmoke, "1")
	t.Setenv(EnvTimed, "2")
	t.Setenv(EnvWarmup, "0")
	c := captureOutput(t)
	res, err := RunStep("4")
	if err != nil {
		t.Fatalf("RunStep: %v\n%s", err, c.text.String())
	}
	text := c.text.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "CPU smoke run (pure-Go backend, tiny sizes") ||
		!strings.Contains(last, "step 4 runs and trains, loss ") || len(lines) > 2 { // 2: a WARNING that the loss did not fall
		t.Errorf("want one smoke line (and at most a warning), got:\n%s", text)
	}
	if res.ID != "4" || res.H2DBytesPerStep == 0 {
		t.Errorf("result %+v", res)
	}
	f, err := ladder.Read(filepath.Join(runs, "smoke.json"))
	if err != nil || len(f.Results) != 1 || f.Results[0].ID != "4" || !f.Conditions.Smoke {
		t.Fatalf("runs file: %v %+v", err, f)
	}
	if len(c.svgs) != 0 || len(c.html) != 0 {
		t.Errorf("%d SVG charts and %d HTML outputs, want none in a smoke run", len(c.svgs), len(c.html))
	}
	if _, err := os.Stat(filepath.Join(runs, "smoke.md")); err != nil {
		t.Errorf("no Markdown beside the runs file: %v", err)
	}
}

// ProfileDiff over the repository's own H200 profiles (run26): rung 11 → 12 at batch 128 ("11" means 11@128), the
// table and the after profile's recommendations; a step without a profile is said in one line.
func TestProfileDiffRecorded(t *testing.T) {
	root := repoRoot(t)
	c := captureOutput(t)
	ShowProfileDiff(root, "11", "12@128")
	text := c.text.String()
	if !strings.Contains(text, "H200 profiles: step 11@128 (") || !strings.Contains(text, "→ step 12@128 (") ||
		len(c.html) != 1 || !strings.Contains(c.html[0], "kernels per step") || !strings.Contains(c.html[0], "step 12@128") {
		t.Errorf("ProfileDiff 11 → 12@128:\n%s\n%v", text, c.html)
	}
	c2 := captureOutput(t)
	ShowProfileDiff(root, "12@128", "99")
	if text := c2.text.String(); !strings.Contains(text, "no recorded profile of step 99") || len(c2.html) != 0 {
		t.Errorf("a step without a profile:\n%s", text)
	}
}

// SeedLadder finds the repository's own run27 file (Go 1–6 and PyTorch 1–6 in one call) and shows its table.
func TestSeedLadderRecorded(t *testing.T) {
	c := captureOutput(t)
	ShowSeedLadder(repoRoot(t))
	if len(c.html) != 1 || !strings.Contains(c.html[0], "h200-2026-12-04-run27.json") || !strings.Contains(c.html[0], "1381.6") {
		t.Errorf("SeedLadder:\n%s\n%v", c.text.String(), c.html)
	}
}
