package memory

import (
	"math"
	"strings"
	"testing"
)

func TestPredictMaxBatch(t *testing.T) {
	const fixed, perSample = 2e9, 25e6
	var pts []Point
	for _, b := range []int{32, 64, 128} {
		pts = append(pts, Point{Batch: b, Bytes: int64(fixed + perSample*float64(b))})
	}
	m, err := Fit(pts)
	if err != nil || math.Abs(m.FixedBytes-fixed) > 1 || math.Abs(m.PerSampleBytes-perSample) > 1e-3 {
		t.Fatalf("fit %+v, %v", m, err)
	}
	// 141 GB with 10% headroom: (126.9e9 - 2e9) / 25e6 = 4996.
	if got := PredictMaxBatch(pts, 141e9, 0.1); got != 4996 {
		t.Errorf("PredictMaxBatch = %d, want 4996", got)
	}
	// Exactly at the budget boundary: budget = 2e9 + 100·25e6 = 4.5e9.
	if got := PredictMaxBatch(pts, 5e9, 0.1); got != 100 {
		t.Errorf("boundary: %d, want 100", got)
	}
	if got := PredictMaxBatch(pts, 1e9, 0.1); got != 0 {
		t.Errorf("fixed part does not fit: %d, want 0", got)
	}
	if got := PredictMaxBatch(pts[:1], 141e9, 0.1); got != 0 {
		t.Errorf("one point: %d, want 0", got)
	}
	if got := PredictMaxBatch([]Point{{32, 5e9}, {64, 4e9}}, 141e9, 0.1); got != 0 {
		t.Errorf("decreasing memory: %d, want 0", got)
	}
	if got := PredictMaxBatch(pts, 141e9, 1.5); got != 0 {
		t.Errorf("bad headroom: %d, want 0", got)
	}
	// Noisy points: least squares.
	noisy := []Point{{32, 2.8e9 + 1e6}, {64, 3.6e9 - 2e6}, {128, 5.2e9 + 1e6}}
	if got := PredictMaxBatch(noisy, 141e9, 0.1); got < 4980 || got > 5010 {
		t.Errorf("noisy: %d", got)
	}
}

// Fakes with the field layout of go-xla v0.4.13 (compute/xla.Executable.exec → pjrt.LoadedExecutable).
type fakeUsage struct{ GeneratedCode, Inputs, Outputs, Aliases, Temporary int64 }
type fakeLoaded struct{ OnDeviceMemoryUsageStats, OnHostMemoryUsageStats fakeUsage }
type fakeExec struct {
	name string
	exec *fakeLoaded
}
type fakeGraph struct{ e *fakeExec }

func (g *fakeGraph) Executable() any { return g.e }

func TestCompiledMemory(t *testing.T) {
	e := &fakeExec{name: "train_step", exec: &fakeLoaded{
		OnDeviceMemoryUsageStats: fakeUsage{GeneratedCode: 1, Inputs: 1000, Outputs: 900, Aliases: 800, Temporary: 3_460_000_000},
		OnHostMemoryUsageStats:   fakeUsage{Inputs: 7},
	}}
	for _, arg := range []any{e, &fakeGraph{e}} {
		st, err := Compiled(arg)
		if err != nil {
			t.Fatal(err)
		}
		want := Stats{Name: "train_step", Device: Usage{GeneratedCode: 1, Arguments: 1000, Outputs: 900, Aliases: 800,
			Temporary: 3_460_000_000}, Host: Usage{Arguments: 7}}
		if st != want {
			t.Errorf("CompiledMemory(%T) = %+v, want %+v", arg, st, want)
		}
		if got := st.Device.Total(); got != 1+1000+900-800+3_460_000_000 {
			t.Errorf("total %d", got)
		}
	}
	for _, bad := range []any{nil, 42, &fakeExec{}, struct{ exec *fakeLoaded }{}} {
		if _, err := Compiled(bad); err == nil || !strings.Contains(err.Error(), "XLA") {
			t.Errorf("CompiledMemory(%T): %v", bad, err)
		}
	}
}

func TestMemoryReport(t *testing.T) {
	m := &Report{CapacityBytes: 141e9}
	for _, b := range []int{64, 128} {
		m.Compiled = append(m.Compiled, CompiledAt{Batch: b, Stats: Stats{
			Device: Usage{Arguments: 1e9, Temporary: int64(b) * 27e6}}})
	}
	if err := m.Predict(0.1); err != nil {
		t.Fatal(err)
	}
	if m.PredictedMaxBatch != 4662 { // (126.9e9 - 1e9) / 27e6 = 4662.96
		t.Errorf("predicted %d", m.PredictedMaxBatch)
	}
	u := m.Use(128)
	if u == nil || u.UsedBytes != 1e9+128*27e6 || !strings.Contains(u.Source, "128") {
		t.Errorf("use %+v", u)
	}
	m.Device = &DeviceStats{PeakBytesInUse: 7e9}
	if u := m.Use(128); u.UsedBytes != 7e9 {
		t.Errorf("use with allocator peak %+v", u)
	}
	var nilReport *Report
	if nilReport.Use(1) != nil {
		t.Error("nil report use")
	}
}
