package nbutil

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func TestResolveID(t *testing.T) {
	smoke := &Session{Smoke: true, Steps: ladder.Ladder(2, []int{128}, 1)}
	gpu := &Session{Steps: ladder.Ladder(16, gpuBatches, gpuK)}
	for _, c := range []struct {
		s          *Session
		id, want   string
		wantNote   bool
		wantFailed bool
	}{
		{smoke, "1", "1", false, false},
		{smoke, "5b", "5b", false, false},
		{smoke, "10", "10", false, false},
		{smoke, "10@512", "10", true, false},
		{gpu, "9", "9@128", false, false},
		{gpu, "10@512", "10@512", false, false},
		{gpu, "6", "6", false, false},
		{gpu, "13", "13@128", false, false},
		{smoke, "13@512", "13", true, false},
		{gpu, "14", "14@128", false, false},
		{gpu, "15", "", false, true},
		{smoke, "10@x", "10", true, false},
	} {
		st, note, err := c.s.ResolveID(c.id)
		if c.wantFailed {
			if err == nil {
				t.Errorf("ResolveID(%q): no error", c.id)
			}
			continue
		}
		if err != nil || st.ID != c.want || (note != "") != c.wantNote {
			t.Errorf("ResolveID(%q) smoke=%v = %q, note %q, %v; want %q (note: %v)", c.id, c.s.Smoke, st.ID, note, err, c.want, c.wantNote)
		}
	}
}

func TestMergeResultKeepsLadderOrder(t *testing.T) {
	steps := ladder.Ladder(2, []int{128}, 1)
	f := &ladder.File{}
	for i, id := range []string{"6", "1", "10", "5b", "1"} {
		mergeResult(f, steps, ladder.Result{ID: id, SamplesPerSec: float64(i)})
	}
	var ids []string
	for _, r := range f.Results {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "1,5b,6,10" {
		t.Errorf("order %s, want 1,5b,6,10", got)
	}
	if r := findResult(f, "1"); r == nil || r.SamplesPerSec != 4 {
		t.Errorf("step 1 not replaced by the later run: %+v", r)
	}
}

func TestRunsName(t *testing.T) {
	if n := runsName(ladder.Conditions{Smoke: true, GPU: "CPU (2 cores)", Date: "2026-12-02"}); n != "smoke" {
		t.Errorf("smoke runs file %q", n)
	}
	if n := runsName(ladder.Conditions{GPU: "NVIDIA H200", Date: "2026-12-02"}); n != "h200" {
		t.Errorf("GPU runs file %q, want h200 (one file per device, no date)", n)
	}
}

const trainLog = `backend: xla:cuda (plugin /opt/x/xla_cuda_plugin.so) on NVIDIA H200 — GOMLX_BACKEND is set
data: no CIFAR-10 in "data" — using SYNTHETIC class-dependent data generated in memory
  step train: f16 batch 128, 32×32 uint8, resize+normalise on device — compiling…
W1202 12:04:10.532992    2772 cuda_timer.cc:88] Delay kernel timed out
    step 285/300  7272 samples/s  loss 0.0343  loss scale 16384  skipped 2
summary: f16 batch 128, 32×32 uint8, resize+normalise on device on NVIDIA H200 (SYNTHETIC data)
  first call (compile + autotune + 1 step): 64.2 s
  throughput: 7262 samples/s; step 17.74 ms median (p10 16.78, p90 18.33) over 300 steps
  step split: data wait 0.01 ms, transfer 0.00 ms, compute 17.18 ms, other 0.55 ms
  loss: 2.3148 → 0.0409; loss scale 16384, 2 skipped steps
`

func TestParseTrainLog(t *testing.T) {
	r, ok := ParseTrainLog(trainLog)
	if !ok {
		t.Fatal("no summary parsed")
	}
	want := TrainRun{Config: "f16 batch 128, 32×32 uint8, resize+normalise on device", GPU: "NVIDIA H200", Data: "SYNTHETIC data",
		FirstCallS: 64.2, SamplesPerSec: 7262, StepMs: 17.74, P10Ms: 16.78, P90Ms: 18.33, Steps: 300, DataWaitMs: 0.01,
		ComputeMs: 17.18, OtherMs: 0.55, LossFirst: 2.3148, LossLast: 0.0409, Skipped: 2}
	if r != want {
		t.Errorf("parsed\n%+v\nwant\n%+v", r, want)
	}
	// `trainopt train` now adds the compile/first-execution split after the first call; the parse keeps working.
	split := strings.Replace(trainLog, "1 step): 64.2 s\n", "1 step): 64.2 s (compile 50.1 s + first execution 14.1 s)\n", 1)
	if r, ok := ParseTrainLog(split); !ok || r != want {
		t.Errorf("with the split: parsed %+v (ok %v), want %+v", r, ok, want)
	}
	if _, ok := ParseTrainLog("=== RUN TestDepthwise\n--- PASS\n"); ok {
		t.Error("a test log parsed as a training run")
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
	f := &ladder.File{Conditions: ladder.Conditions{Date: "2026-12-02", GPU: "NVIDIA H200", ImageSize: 224, Model: "MobileNetV2",
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
	rep := profile.Report{Title: "Profile of ladder step 1", Conditions: profile.Conditions{GPU: "NVIDIA H200", Date: "2026-12-02T12:00:00Z"},
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
	write("assets/gpu-runs/2026-12-02-h200-train/train-f16.log", trainLog)
	write("assets/gpu-runs/2026-12-02-h200-train/nvidia-smi.txt", "name, driver_version\nNVIDIA H200, 580.159.04\n")
	write("assets/gpu-runs/2026-12-02-h200-train/depthwise.log", "--- PASS\n")
	return root
}

func TestRecordedReaders(t *testing.T) {
	root := fakeAssets(t, true)
	files, bad := RecordedResults(root)
	if len(files) != 1 || files[0].File.Conditions.Smoke || len(bad) != 1 {
		t.Errorf("RecordedResults: %d files, bad %v; want the one non-smoke file and one bad file", len(files), bad)
	}
	reps, bad := RecordedProfiles(root)
	if len(reps) != 1 || reps[0].StepID != "1" || len(bad) != 0 {
		t.Errorf("RecordedProfiles: %+v, bad %v", reps, bad)
	}
	if !profileMatches(reps[0], []string{"1", "2"}) || profileMatches(reps[0], []string{"10"}) ||
		!profileMatches(RecordedProfile{StepID: "10-256"}, []string{"10"}) {
		t.Error("profileMatches")
	}
	runs := RecordedTrain(root)
	if len(runs) != 1 || runs[0].Date != "2026-12-02" || runs[0].Driver != "580.159.04" {
		t.Errorf("RecordedTrain: %+v", runs)
	}
}

func TestShowMaxBatch(t *testing.T) {
	c := captureOutput(t)
	root := fakeAssets(t, true)
	recs, bad := RecordedMaxBatches(root)
	if len(recs) != 1 || recs[0].Check.Predicted != 826 || len(bad) != 1 {
		t.Fatalf("RecordedMaxBatches: %+v, bad %v", recs, bad)
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
	local := &ladder.File{Conditions: ladder.Conditions{GPU: "CPU (2 cores)", Smoke: true, Date: "2026-12-02"},
		Results: []ladder.Result{{ID: "1", SamplesPerSec: 40, StepMedianMs: 400, ComputeMs: 390, DataWaitMs: 10, FirstCallS: 0.5},
			{ID: "8", SamplesPerSec: 50, StepMedianMs: 320, ComputeMs: 320, FirstCallS: 1.1}}}
	if _, _, err := local.Write(runs); err != nil {
		t.Fatal(err)
	}
	c := captureOutput(t)
	ShowSummary(root)
	text := c.text.String()
	for _, want := range []string{"this machine: 2 steps", "this machine: step 1 40.0 samples/s → best step 8 50.0 samples/s (1.25×) — smoke",
		"summary: on NVIDIA H200 the ladder goes from 900 samples/s (step 1) to 9000 samples/s (step 10@256): 10.0× (one device call: h200-2026-12-02.json)",
		"PyTorch comparison at batch 256: Go + XLA step 10@256 9000 samples/s vs PyTorch step 10 (torch.compile) 8000 samples/s: 1.12×",
		"PyTorch comparison, fastest Go step beside PyTorch in one call: Go + XLA 9000 samples/s (step 10@256) vs PyTorch 8000 samples/s (step 10), batch 256: 1.12× (h200-2026-12-02.json)",
		"recorded training runs: 1",
		"what is left: profile of step 1", "profile says: input-bound"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if len(c.svgs) < 8 {
		t.Errorf("summary showed %d SVG charts, want ≥ 8 (local 3, recorded 4, training runs 1)", len(c.svgs))
	}

	c2 := captureOutput(t)
	CompileTimes()
	if text := c2.text.String(); !strings.Contains(text, "step 8: first call 1.10 s") || !strings.Contains(text, "compile time, recorded on NVIDIA H200") {
		t.Errorf("CompileTimes output:\n%s", text)
	}
}

func TestGroupRecorded(t *testing.T) {
	file := func(date string, ids ...string) RecordedFile {
		f := &ladder.File{Conditions: ladder.Conditions{Date: date}}
		for _, id := range ids {
			f.Results = append(f.Results, ladder.Result{ID: id, Name: date})
		}
		return RecordedFile{Path: date + ".json", File: f}
	}
	// Newest first, as RecordedResults returns them: the newer run re-measured step 2 and added 10@128/10@256.
	files := []RecordedFile{file("run5", "2", "10@128", "10@256"), file("run2", "1", "2", "3")}
	describe := func(groups []RecordedGroup) string {
		var parts []string
		for _, g := range groups {
			var ids []string
			for _, r := range g.File.Results {
				ids = append(ids, r.ID+"<"+r.Name)
			}
			parts = append(parts, g.Path+":"+strings.Join(ids, ","))
		}
		return strings.Join(parts, " ")
	}
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{nil, "run5.json:2<run5,10@128<run5,10@256<run5 run2.json:1<run2,3<run2"},
		{[]string{"1", "2"}, "run5.json:2<run5 run2.json:1<run2"},
		{[]string{"10"}, "run5.json:10@128<run5,10@256<run5"},
		{[]string{"7"}, ""},
	} {
		if got := describe(GroupRecorded(files, c.ids...)); got != c.want {
			t.Errorf("GroupRecorded(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
	if len(files[1].File.Results) != 3 {
		t.Error("GroupRecorded changed the files it was given")
	}
}

func TestStepRank(t *testing.T) {
	ids := []string{"1", "5", "5b", "6", "10", "10-512"}
	for i := 1; i < len(ids); i++ {
		if !(stepRank(ids[i-1]) < stepRank(ids[i])) {
			t.Errorf("stepRank(%q) ≥ stepRank(%q)", ids[i-1], ids[i])
		}
	}
}

// TestRunStep runs one ladder step end to end at smoke sizes on the backend found (the pure-Go one without a GPU),
// with a tiny timed window: the result line, the results file and the charts.
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
	for _, want := range []string{"backend: ", "mode: ", "step 4: ", "data: ", "result: step 4: ", "results so far: "} {
		if !strings.Contains(text, "\n"+want) && !strings.HasPrefix(text, want) {
			t.Errorf("output lacks a line starting %q:\n%s", want, text)
		}
	}
	if res.ID != "4" || res.H2DBytesPerStep == 0 {
		t.Errorf("result %+v", res)
	}
	f, err := ladder.Read(filepath.Join(runs, "smoke.json"))
	if err != nil || len(f.Results) != 1 || f.Results[0].ID != "4" || !f.Conditions.Smoke {
		t.Fatalf("runs file: %v %+v", err, f)
	}
	if len(c.svgs) < 3 || len(c.html) < 1 {
		t.Errorf("%d SVG charts and %d HTML outputs, want ≥ 3 and ≥ 1", len(c.svgs), len(c.html))
	}
	if _, err := os.Stat(filepath.Join(runs, "smoke.md")); err != nil {
		t.Errorf("no Markdown beside the runs file: %v", err)
	}
}

func TestNaturalCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"h200-2026-12-02-run2.json", "h200-2026-12-02-run11b.json", -1},
		{"run11b", "run11", 1}, {"run11", "run11", 0}, {"run9", "run10", -1}, {"step007", "step7", 0},
		{"a", "b", -1}, {"2026-12-03", "2026-12-02", 1}, {"x1y", "x1", 1},
	} {
		if got := naturalCompare(c.a, c.b); got != c.want {
			t.Errorf("naturalCompare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// The compile chart stacks compile and first execution where the results split them, and shows a first call
// that was not split (results written before compile_s existed) as a part of its own rather than as compile time.
func TestCompileChartSplit(t *testing.T) {
	split := ladder.Result{ID: "12@128", SamplesPerSec: 1, FirstCallS: 20.8, CompileS: 6.6}
	old := ladder.Result{ID: "10@128", SamplesPerSec: 1, FirstCallS: 17.5}
	reusedRun := ladder.Result{ID: "5", SamplesPerSec: 1, FirstCallS: 0.1, ReusedExecutable: true}
	if got := reused(split); got != " (compile 6.6 s + first execution 14.2 s)" {
		t.Errorf("reused(split) = %q", got)
	}
	for _, tc := range []struct {
		results []ladder.Result
		unsplit bool
	}{{[]ladder.Result{split, reusedRun}, false}, {[]ladder.Result{old, split}, true}} {
		svg, err := CompileChart(&ladder.File{Results: tc.results})
		if err != nil {
			t.Fatal(err)
		}
		s := string(svg)
		if !strings.Contains(s, "first execution") || strings.Contains(s, "not split") != tc.unsplit {
			t.Errorf("results %v: legend wrong (want \"not split\" %v)", tc.results, tc.unsplit)
		}
	}
}
