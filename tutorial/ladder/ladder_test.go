package ladder

import (
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
	"github.com/gomlx-tutorials/trainopt/tutorial/pipeline"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

func params(workers int, batches []int, k int) Params {
	p := DefaultParams()
	p.WorkersMax, p.Batches, p.StepsPerCall = workers, batches, k
	return p
}

func TestLadderIsCumulative(t *testing.T) {
	steps := Ladder(params(4, []int{128, 256}, 10))
	ids := []string{}
	for _, s := range steps {
		ids = append(ids, s.ID.String())
	}
	if got := strings.Join(ids, ","); got != "1,2,3,4,5,5b,6,7,8,9@128,10@128,11@128,12@128,13@128,14@128,9@256,10@256,11@256,12@256,13@256,14@256" {
		t.Fatalf("steps %s", got)
	}
	s6, s10 := steps[6], steps[10]
	if s6.Precision != train.F16 || s6.Batch != 128 || s6.Feed().Workers != 4 || !s6.Feed().Upload ||
		s6.Input != train.InputUint8 || s6.Feed().Format != pipeline.Uint8 || s6.Feed().Batch != 128 {
		t.Errorf("step 6 does not carry steps 2-5: %+v %+v", s6.Train(), s6.Feed())
	}
	if s10.Train().Precision != train.BF16 || s10.Train().StepsPerCall != 10 || s10.Train().Input != train.InputDeviceData {
		t.Errorf("step 10@128: %+v", s10.Train())
	}
	base := mobilenet.Default()
	if m := s10.Model; m != base {
		t.Errorf("step 10 changes the model: %+v", m)
	}
	row := DefaultParams().ReductionRow
	s11, s13 := steps[11], steps[13]
	if m := s11.Model; m.ReductionRow != row || m.Width != 1 || m.MaskedReLU6 || s11.Train() != s10.Train() {
		t.Errorf("step 11@128 should only widen batch norm's rows: %+v %+v", m, s11.Train())
	}
	if m := s13.Model; m.ReductionRow != row || !m.MaskedReLU6 || !m.NormalizeFloat32 || s13.Train() != s10.Train() {
		t.Errorf("step 13@128 does not carry steps 11 and 12: %+v %+v", m, s13.Train())
	}
	s14 := steps[14]
	want := s13.Model
	want.StemChannels = 8
	if m := s14.Model; m != want || s14.Train() != s10.Train() {
		t.Errorf("step 14@128 should be step 13 with an 8-channel stem: %+v", m)
	}
	if s := steps[len(steps)-1]; s.ID.String() != "14@256" || s.Train().Batch != 256 || s.Model != want {
		t.Errorf("last step %s: batch %d, model %+v", s.ID, s.Train().Batch, s.Model)
	}
}

// TestRung: Rung(n) is rung n−1 plus its one edit, and the same configuration the ladder holds.
func TestRung(t *testing.T) {
	ladder := Ladder(params(DefaultParams().WorkersMax, []int{128}, 10))
	for i, c := range ladder {
		if c.ID.Rung == "5b" {
			continue
		}
		n, _ := strconv.Atoi(c.ID.Rung)
		if got := Rung(n); got != c {
			t.Errorf("Rung(%d) = %+v, want the ladder's %+v", n, got, c)
		}
		if i > 0 && c.ID.Rung == "2" {
			prev := ladder[i-1]
			prev.Precision, prev.ID, prev.Name, prev.Why = train.F16, c.ID, c.Name, c.Why
			if prev != c {
				t.Errorf("rung 2 is not rung 1 with f16: %+v", c)
			}
		}
	}
	if Rung(6).Workers != DefaultParams().WorkersMax || !Rung(6).Upload {
		t.Errorf("rung 6 should carry 5b's workers and add the upload: %+v", Rung(6))
	}
}

// TestIdentify: the visible edits a notebook cell makes are the ladder's rungs, and anything else is not one.
func TestIdentify(t *testing.T) {
	cfg := Rung(3)
	cfg.Input = train.InputUint8 // rung 4's edit, made by hand
	if id, ok := Identify(cfg); !ok || id.String() != "4" {
		t.Errorf("Rung(3) + uint8 input = %v, %v; want rung 4", id, ok)
	}
	cfg = Rung(10)
	cfg.Batch = 512
	if id, ok := Identify(cfg); !ok || id.String() != "10@512" {
		t.Errorf("Rung(10) at batch 512 = %v, %v; want 10@512", id, ok)
	}
	if id, ok := Identify(Rung(12)); !ok || id.String() != "12@128" {
		t.Errorf("Rung(12) = %v, %v; want 12@128 (the default ladder has three batches)", id, ok)
	}
	// Rungs 5 and 5b are one configuration where "all cores" is two: the edit of rung 5 is 5b, of rung 4 is 5.
	cfg = Rung(5)
	cfg.Workers = 2
	p := DefaultParams()
	if p.WorkersMax == 2 {
		if id, _ := Identify(cfg); id.String() != "5b" {
			t.Errorf("Rung(5) with all (2) cores = %v, want 5b", id)
		}
	}
	cfg = Rung(4)
	cfg.Workers = 2
	if id, ok := Identify(cfg); !ok || id.String() != "5" {
		t.Errorf("Rung(4) with 2 workers = %v, %v; want 5", id, ok)
	}
	cfg = Rung(2)
	cfg.Batch = 64 // not a rung
	if id, ok := Identify(cfg); ok {
		t.Errorf("batch 64 identified as rung %v", id)
	}
}

func TestParseStepID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want StepID
	}{{"12", StepID{Rung: "12"}}, {"12@512", StepID{Rung: "12", Batch: 512}}, {"5b", StepID{Rung: "5b"}},
		{"13@512+dw-input-grad=phases", StepID{Rung: "13", Batch: 512, Formulation: "dw-input-grad=phases"}},
		{"13+relu6=clip,bn=f32", StepID{Rung: "13", Formulation: "relu6=clip,bn=f32"}}} {
		got, err := ParseStepID(c.in)
		if err != nil || got != c.want || got.String() != c.in {
			t.Errorf("ParseStepID(%q) = %+v (%q), %v; want %+v", c.in, got, got.String(), err, c.want)
		}
	}
	for _, bad := range []string{"", "@512", "10@x", "10@0", "1 0"} {
		if _, err := ParseStepID(bad); err == nil {
			t.Errorf("ParseStepID(%q): no error", bad)
		}
	}
	thirteen, _ := ParseStepID("13")
	for _, got := range []string{"13", "13@512", "13+dw-input-grad=phases", "13@256+relu6=clip"} {
		id, _ := ParseStepID(got)
		if !thirteen.Matches(id) {
			t.Errorf("13 does not match %s", got)
		}
	}
	at512, _ := ParseStepID("13@512")
	if other, _ := ParseStepID("13@256"); at512.Matches(other) || thirteen.Matches(StepID{Rung: "14"}) {
		t.Error("13@512 matches 13@256, or 13 matches 14")
	}
}

func TestWithFormulation(t *testing.T) {
	steps := Ladder(params(2, []int{128}, 10))
	out, err := WithFormulation(steps, "dw-kernel-grad=shifted,relu6=clip")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range out {
		m := s.Model
		want := steps[i].Model
		want.Depthwise.Kernel, want.MaskedReLU6 = mobilenet.KernelGradShiftedProducts, false
		if m != want {
			t.Errorf("step %s: model %+v, want %+v", s.ID, m, want)
		}
		if !strings.HasSuffix(s.Name, " [dw-kernel-grad=shifted,relu6=clip]") || s.ID.String() != steps[i].ID.String()+"+dw-kernel-grad=shifted,relu6=clip" {
			t.Errorf("step %s (%q) does not say it is an experiment", s.ID, s.Name)
		}
	}
	if steps[12].Model.MaskedReLU6 != true {
		t.Error("WithFormulation changed the steps it was given")
	}
	if _, err := WithFormulation(steps, "relu6=fast"); err == nil || !strings.Contains(err.Error(), "clip, masked") {
		t.Errorf("a bad formulation: want an error listing the values, got %v", err)
	}
	if same, err := WithFormulation(steps, ""); err != nil || len(same) != len(steps) || same[0].Name != steps[0].Name {
		t.Errorf("an empty formulation should change nothing: %v", err)
	}
}

// TestWithStateFlat: state=flat is the training step's key, not the model's: it sets FlatState, reaches the
// compiled step's configuration and the results' formulation, leaves the model as it was, and is refused where
// there is no K-step loop to pack.
func TestWithStateFlat(t *testing.T) {
	twelve := Rung(12)
	twelve.StepsPerCall = 50
	c, err := twelve.WithFormulation("reduction-row=256," + StateFlat)
	if err != nil {
		t.Fatal(err)
	}
	if !c.FlatState || !c.Train().FlatState || c.Model.ReductionRow != 256 {
		t.Errorf("flat %v, train flat %v, reduction row %d", c.FlatState, c.Train().FlatState, c.Model.ReductionRow)
	}
	if !strings.HasSuffix(c.Formulation(), ","+StateFlat) || c.ID.String() != "12+reduction-row=256,state=flat" {
		t.Errorf("formulation %q, ID %s", c.Formulation(), c.ID)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("12 with K = 50 and a flat state: %v", err)
	}
	if one, err := Rung(1).WithFormulation(StateFlat); err != nil || one.Validate() == nil {
		t.Errorf("rung 1 (one step per call) with a flat state: want a validation error, got %v", err)
	}
	if _, err := twelve.WithFormulation("state=packed"); err == nil || !strings.Contains(err.Error(), StateFlat) {
		t.Errorf("state=packed: want an error naming the values, got %v", err)
	}
}

func TestSelect(t *testing.T) {
	steps := Ladder(params(2, []int{128, 256}, 10))
	sel, err := Select(steps, "1,10")
	if err != nil || len(sel) != 3 || sel[1].ID.String() != "10@128" || sel[2].ID.String() != "10@256" {
		t.Fatalf("Select(1,10) = %v, %v", sel, err)
	}
	if _, err := Select(steps, "1,42"); err == nil || !strings.Contains(err.Error(), "42") {
		t.Errorf("unknown step: want an error naming it, got %v", err)
	}
	// The CLI's default: the tutorial's six rungs and the best rung at the largest batch; at smoke sizes, where
	// the ladder has one batch, the best rung at that one.
	for _, c := range []struct {
		batches []int
		want    string
	}{{[]int{128, 256, 512}, "1 2 3 4 5 6 12@512"}, {[]int{128}, "1 2 3 4 5 6 12"}} {
		sel, err := Select(Ladder(params(4, c.batches, 10)), DefaultSteps)
		var ids []string
		for _, s := range sel {
			ids = append(ids, s.ID.String())
		}
		if got := strings.Join(ids, " "); err != nil || got != c.want {
			t.Errorf("Select(default) at batches %v = %q, %v; want %q", c.batches, got, err, c.want)
		}
	}
}

// TestEstimate: first calls counted once per program (rungs 4–6 share one), windows from the recorded step times.
func TestEstimate(t *testing.T) {
	steps, _ := Select(Ladder(params(4, []int{512}, 10)), DefaultSteps) // 1–6 and 12@512
	rec := &File{}
	for _, s := range steps {
		rec.Results = append(rec.Results, Result{ID: s.ID.String(), StepMedianMs: 100})
	}
	rec.Results[len(rec.Results)-1].StepMedianMs = 0 // 12@512 unrecorded
	opt := Options{Warmup: 10, Steps: 90}
	e := Estimate(steps, rec, opt, false)
	// Programs: 1 (f32 b32), 2 (f16 b32), 3 (f16 b128, host f32), 4=5=6 (uint8 input), 12@512.
	if e.Steps != 7 || e.Programs != 5 {
		t.Fatalf("steps %d, programs %d; want 7 and 5", e.Steps, e.Programs)
	}
	if e.Windows != 6*10*time.Second || e.Warm != e.Windows+5*WarmFirstCall || e.Cold != e.Windows+5*ColdFirstCall {
		t.Errorf("windows %v warm %v cold %v", e.Windows, e.Warm, e.Cold)
	}
	if len(e.Missing) != 1 || e.Missing[0] != "12@512" {
		t.Errorf("missing %v, want [12@512]", e.Missing)
	}
	words := e.Words(false)
	for _, w := range []string{"7 steps", "5 programs", "2.7 min", "9.3 min", "cache is empty", "12@512"} {
		if !strings.Contains(words, w) {
			t.Errorf("Words() = %q lacks %q", words, w)
		}
	}
	if w := Estimate(steps, nil, opt, true).Words(true); !strings.Contains(w, "smoke sizes: about 1.8 min") {
		t.Errorf("smoke words %q", w)
	}
}

// TestFlags: one registration turns a command line into a configuration, with the value's fields as defaults.
func TestFlags(t *testing.T) {
	cfg := Rung(7)
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.RegisterFlags(fs)
	if err := fs.Parse([]string{"-precision", "bf16", "-input", "device-data", "-batch", "256", "-k", "4"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Precision != train.BF16 || cfg.Input != train.InputDeviceData || cfg.Batch != 256 || cfg.Train().StepsPerCall != 4 ||
		cfg.Workers != Rung(7).Workers {
		t.Errorf("parsed %+v", cfg)
	}
	if err := fs.Parse([]string{"-input", "pigeon"}); err == nil {
		t.Error("-input pigeon parsed")
	}
	p := DefaultParams()
	fs = flag.NewFlagSet("y", flag.ContinueOnError)
	p.RegisterFlags(fs)
	if fs.Lookup("batches").DefValue != "128,256,512" {
		t.Errorf("-batches default %q", fs.Lookup("batches").DefValue)
	}
	if err := fs.Parse([]string{"-batches", "64,32", "-k", "5"}); err != nil || len(p.Batches) != 2 || p.StepsPerCall != 5 {
		t.Errorf("parsed %+v, %v", p, err)
	}
	// Rung 11's row width has one route, an experiment's -model reduction-row=N; no flag of its own.
	if fs.Lookup("reduction-row") != nil {
		t.Error("-reduction-row is registered beside -model reduction-row=")
	}
}

func TestResultsRoundTrip(t *testing.T) {
	f := &File{Conditions: artifact.Conditions{Date: "2026-12-02", GPU: "NVIDIA H200", Synthetic: true, ImageSize: 224},
		Results: []Result{{ID: "1", SamplesPerSec: 900, Batch: 32, StepMedianMs: 35, StepP10Ms: 30, StepP90Ms: 40},
			{ID: "6", SamplesPerSec: 6900, Batch: 128, StepMedianMs: 18, StepP10Ms: 17, StepP90Ms: 20,
				FirstCallS: 20.8, CompileS: 6.6, FastStart: true}}}
	dir := t.TempDir()
	jsonPath, mdPath, err := f.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^h200-\d{4}-\d\d-\d\dT\d{6}Z-[0-9a-f]{6}\.json$`).MatchString(filepath.Base(jsonPath)) {
		t.Errorf("results file name %s, want h200-<date>T<time>Z-<id>.json", jsonPath)
	}
	if _, ok := NameTime(jsonPath); !ok {
		t.Errorf("NameTime(%s): no time", jsonPath)
	}
	smoke := artifact.Conditions{Date: "2026-12-03", GPU: "CPU (2 cores)", Smoke: true}
	if n := DeviceName(smoke); n != "smoke-cpu-2-cores" {
		t.Errorf("smoke results name %q, want smoke-cpu-2-cores", n)
	}
	g, err := Read(jsonPath)
	if err != nil || len(g.Results) != 2 || g.Results[1].SamplesPerSec != 6900 {
		t.Fatalf("Read: %+v, %v", g, err)
	}
	md := g.Markdown()
	if !strings.Contains(md, "7.67×") || !strings.Contains(md, "SYNTHETIC") {
		t.Errorf("markdown lacks the ratio to step 1 or the data kind:\n%s", md)
	}
	if !strings.Contains(md, "| 20.8 (6.6 + 14.2) |") || !strings.Contains(md, "First call s: compile + first execution") {
		t.Errorf("markdown lacks the first call's compile/execution split:\n%s", md)
	}
	if !g.Results[1].FastStart || g.Results[0].FastStart || strings.Count(md, "fast start: depthwise by Triton kernels") != 1 {
		t.Errorf("fast start lost in the round trip or not marked on its row only:\n%s", md)
	}
	_ = mdPath
	if charts, err := f.WriteCharts(dir); err != nil || len(charts) != 2 {
		t.Errorf("charts: %v %v", charts, err)
	}
	if _, err := Read(mdPath); err == nil {
		t.Error("reading a markdown file as results: want an error")
	}
}

// TestReadOldResults: results files written with the keys "ID", "Name" and "Why" (before every key was
// snake_case) still read, as the README's results blocks need.
func TestReadOldResults(t *testing.T) {
	f, err := Read("../../assets/results/h200-2026-12-03-run20.json")
	if err != nil || len(f.Results) == 0 || f.Results[0].ID == "" || f.Results[0].Name == "" || f.Results[0].Why == "" {
		t.Fatalf("old results file: %v", err)
	}
}

func TestTrained(t *testing.T) {
	if err := (Result{Losses: []float64{2.3, 2.0, 1.5}, LossFirst: 2.3, LossLast: 1.75}).Trained(); err != nil {
		t.Errorf("falling loss: %v", err)
	}
	if err := (Result{Losses: []float64{2.3, 2.4}, LossFirst: 2.3, LossLast: 2.4}).Trained(); err == nil {
		t.Error("rising loss passed")
	}
	if err := (Result{Losses: []float64{2.3, math.NaN()}, LossFirst: 2.3, LossLast: 1}).Trained(); err == nil {
		t.Error("NaN loss passed")
	}
}

func TestQuantile(t *testing.T) {
	v := []float64{5, 1, 3, 2, 4}
	if quantile(v, 0.5) != 3 || quantile(v, 0) != 1 || quantile(v, 1) != 5 || quantile(v, 0.25) != 2 {
		t.Errorf("quantiles of %v wrong", v)
	}
}

func TestSyncResultBlocks(t *testing.T) {
	dir := t.TempDir()
	f := &File{Conditions: artifact.Conditions{Date: "2026-12-03", GPU: "NVIDIA H200", Synthetic: true, ImageSize: 224,
		Model: "MobileNetV2 width 1.00, 2236682 params", Versions: "go1.27.3"},
		Results:   []Result{{ID: "12@256", Name: "+ ReLU6 gradient as a mask", Batch: 256, SamplesPerSec: 12750}},
		Reference: []Reference{{Step: "10", Name: "torch", Batch: 256, SamplesPerSec: 10169, PeakMemGB: 7.45}}}
	jsonPath, _, err := f.Write(filepath.Join(dir, "assets"))
	if err != nil {
		t.Fatal(err)
	}
	rel := "assets/" + filepath.Base(jsonPath)
	doc := "# Title\n\nprose\n\n<!-- results: " + rel + " -->\nstale numbers\n<!-- end results -->\n\nmore prose\n"
	out, n, err := SyncResultBlocks(doc, dir)
	if err != nil || n != 1 {
		t.Fatalf("SyncResultBlocks: %d blocks, %v", n, err)
	}
	for _, want := range []string{"# Title\n\nprose\n\n<!-- results: " + rel + " -->\n*`" + rel + "`: NVIDIA H200, 2026-12-03, SYNTHETIC data, 224px",
		"| 12@256 | + ReLU6 gradient as a mask | 256 | 12750 |", "| PyTorch step 10 | torch | 256 | 10169 | 7.45 | 12750 (step 12@256) | 1.25× |",
		"<!-- end results -->\n\nmore prose\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("regenerated document lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "stale numbers") {
		t.Error("the block's old content survived")
	}
	if charts, err := f.WriteCharts(dir); err != nil || len(charts) != 3 || !strings.HasSuffix(charts[2], "-vs-pytorch.svg") {
		t.Errorf("a file with PyTorch numbers: want throughput, split and vs-pytorch charts, got %v %v", charts, err)
	}
	if again, _, err := SyncResultBlocks(out, dir); err != nil || again != out {
		t.Errorf("a regenerated document is not stable: %v", err)
	}
	if _, n, err := SyncResultBlocks("no blocks here", dir); err != nil || n != 0 {
		t.Errorf("a document without blocks: %d, %v", n, err)
	}
	missing := "<!-- results: assets/nope.json -->\nx\n<!-- end results -->"
	if got, _, err := SyncResultBlocks(missing, dir); err == nil || !strings.Contains(err.Error(), "assets/nope.json") || got != missing {
		t.Errorf("a block naming a missing file: want an error naming it and the document unchanged, got %v", err)
	}
}

// TestPeakAttribution: a results file is one process and the allocator's peak is the process's high-water mark,
// so only a step that raised it reports its own peak; the others show theirs in parentheses in the table, and
// the compiled plan in a comparison.
func TestPeakAttribution(t *testing.T) {
	f := &File{Results: []Result{
		{ID: "12@512", Batch: 512, DevicePeakBytes: 14.15e9, Memory: map[string]int64{"total": 14.04e9}},
		{ID: "12@256", Batch: 256, DevicePeakBytes: 14.15e9, Memory: map[string]int64{"total": 7.12e9}},
		{ID: "14@512", Batch: 512, DevicePeakBytes: 14.40e9, Memory: map[string]int64{"total": 14.29e9}},
		{ID: "x", Batch: 64},
	}}
	for i, want := range []string{"14.04 / 14.15", "7.12 / (14.15)", "14.29 / 14.40", ""} {
		if got := f.memoryWords(i); got != want {
			t.Errorf("memoryWords(%s) = %q, want %q", f.Results[i].ID, got, want)
		}
	}
	for i, want := range []string{"14.15", "7.12 (plan)", "14.40", ""} {
		if got := f.PeakWords(&f.Results[i]); got != want {
			t.Errorf("PeakWords(%s) = %q, want %q", f.Results[i].ID, got, want)
		}
	}
	if got := f.PeakWords(&Result{DevicePeakBytes: 1e9}); got != "" {
		t.Errorf("PeakWords of a result from another file = %q, want empty", got)
	}
}

// TestWriteNeverReplacesAnotherRun: two Files with the same conditions written into one folder (two runs on the
// same day, or at once) get two files; a File's later Writes replace its own file only; Latest picks the newest.
func TestWriteNeverReplacesAnotherRun(t *testing.T) {
	dir := t.TempDir()
	c := artifact.Conditions{Date: "2026-12-02", GPU: "NVIDIA H200"}
	a := &File{Conditions: c, Results: []Result{{ID: "1"}}}
	b := &File{Conditions: c, Results: []Result{{ID: "6"}}}
	pa, _, err := a.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	pb, _, err := b.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	a.Results = append(a.Results, Result{ID: "2"})
	if again, _, err := a.Write(dir); err != nil || again != pa {
		t.Fatalf("a's second Write: %s, %v; want %s again", again, err, pa)
	}
	if pa == pb {
		t.Fatalf("two runs wrote the same file %s", pa)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 2 {
		t.Fatalf("want 2 results files, got %v", files)
	}
	if ra, err := Read(pa); err != nil || len(ra.Results) != 2 {
		t.Errorf("a's file: %+v, %v", ra, err)
	}
	if rb, err := Read(pb); err != nil || len(rb.Results) != 1 {
		t.Errorf("b's file: %+v, %v", rb, err)
	}
	latest, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ta, _ := NameTime(pa)
	tb, _ := NameTime(pb)
	if want := map[bool]string{true: pb, false: pa}[!tb.Before(ta)]; latest != want && !ta.Equal(tb) {
		t.Errorf("Latest = %s, want %s", latest, want)
	}
}

// TestReadRefusesWhatIsNotResults: JSON that is not a results file ({}, null, a list) is refused with
// ErrNotResults.
func TestReadRefusesWhatIsNotResults(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"empty-object": "{}", "null": "null", "list": "[]", "empty": "",
		"no-results": `{"conditions":{"gpu":"CPU","date":"2026-12-02"},"results":[]}`} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(p); !errors.Is(err, ErrNotResults) {
			t.Errorf("%s (%q): got %v, want ErrNotResults", name, body, err)
		}
	}
}
