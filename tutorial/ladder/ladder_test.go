package ladder

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

func TestLadderIsCumulative(t *testing.T) {
	steps := Ladder(4, []int{128, 256}, 10)
	ids := []string{}
	for _, s := range steps {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, ","); got != "1,2,3,4,5,5b,6,7,8,9@128,10@128,11@128,12@128,13@128,9@256,10@256,11@256,12@256,13@256" {
		t.Fatalf("steps %s", got)
	}
	s6, s10 := steps[6], steps[10]
	if s6.Train.Precision != train.F16 || s6.Train.Batch != 128 || s6.Feed.Workers != 4 || !s6.Feed.Upload ||
		s6.Train.Input != train.InputUint8 {
		t.Errorf("step 6 does not carry steps 2-5: %+v %+v", s6.Train, s6.Feed)
	}
	if s10.Train.Precision != train.BF16 || s10.Train.StepsPerCall != 10 || s10.Train.Input != train.InputDeviceData {
		t.Errorf("step 10@128: %+v", s10.Train)
	}
	base := mobilenet.Default()
	if m := s10.ModelConfig(base); m != base {
		t.Errorf("step 10 changes the model: %+v", m)
	}
	s11, s13 := steps[11], steps[13]
	if m := s11.ModelConfig(base); m.ReductionRow != ReductionRow || m.Width != 1 || m.MaskedReLU6 || s11.Train != s10.Train {
		t.Errorf("step 11@128 should only widen batch norm's rows: %+v %+v", m, s11.Train)
	}
	if m := s13.ModelConfig(base); m.ReductionRow != ReductionRow || !m.MaskedReLU6 || !m.NormalizeFloat32 || s13.Train != s10.Train {
		t.Errorf("step 13@128 does not carry steps 11 and 12: %+v %+v", m, s13.Train)
	}
}

func TestSelect(t *testing.T) {
	steps := Ladder(2, []int{128, 256}, 10)
	sel, err := Select(steps, "1,10")
	if err != nil || len(sel) != 3 || sel[1].ID != "10@128" || sel[2].ID != "10@256" {
		t.Fatalf("Select(1,10) = %v, %v", sel, err)
	}
	if _, err := Select(steps, "1,42"); err == nil || !strings.Contains(err.Error(), "42") {
		t.Errorf("unknown step: want an error naming it, got %v", err)
	}
}

func TestResultsRoundTrip(t *testing.T) {
	f := &File{Conditions: Conditions{Date: "2026-12-02", GPU: "NVIDIA H200", Synthetic: true, ImageSize: 224},
		Results: []Result{{ID: "1", SamplesPerSec: 900, Batch: 32, StepMedianMs: 35, StepP10Ms: 30, StepP90Ms: 40},
			{ID: "6", SamplesPerSec: 6900, Batch: 128, StepMedianMs: 18, StepP10Ms: 17, StepP90Ms: 20}}}
	dir := t.TempDir()
	jsonPath, mdPath, err := f.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(jsonPath) != "h200-2026-12-02.json" {
		t.Errorf("results file name %s", jsonPath)
	}
	g, err := Read(jsonPath)
	if err != nil || len(g.Results) != 2 || g.Results[1].SamplesPerSec != 6900 {
		t.Fatalf("Read: %+v, %v", g, err)
	}
	if md := g.Markdown(); !strings.Contains(md, "7.67×") || !strings.Contains(md, "SYNTHETIC") {
		t.Errorf("markdown lacks the ratio to step 1 or the data kind:\n%s", md)
	}
	_ = mdPath
	if charts, err := f.WriteCharts(dir); err != nil || len(charts) != 2 {
		t.Errorf("charts: %v %v", charts, err)
	}
	if _, err := Read(mdPath); err == nil {
		t.Error("reading a markdown file as results: want an error")
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
