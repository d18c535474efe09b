package profile

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

func rules(recs []Recommendation) map[string]bool {
	m := map[string]bool{}
	for _, r := range recs {
		m[r.Rule] = true
		if r.Evidence == "" || r.Advice == "" {
			m["incomplete:"+r.Rule] = true
		}
	}
	return m
}

func TestRecommendThresholds(t *testing.T) {
	const step = 100 * time.Millisecond
	pct := func(p float64) time.Duration { return time.Duration(p * float64(step) / 100) }
	kernels := func(busy, convPct, tcPct float64) *KernelSummary {
		return &KernelSummary{KernelCount: 10, WindowUs: 1000, BusyUs: busy * 10, BusyPct: busy, TensorCorePct: tcPct,
			Categories: []CategoryTime{{Category: "convolution", Pct: convPct / 2}, {Category: "matmul", Pct: convPct / 2},
				{Category: "fusion", Pct: 100 - convPct}}}
	}
	mem := func(frac float64) *memory.Use {
		return &memory.Use{UsedBytes: int64(frac * 1e9), CapacityBytes: 1e9, Source: "test"}
	}
	cases := []struct {
		name string
		in   RecommendInput
		rule string
		want bool
	}{
		{"data wait above", RecommendInput{Step: StepBreakdown{DataWait: pct(5.1), Compute: pct(94.9)}}, "input-bound", true},
		{"data wait below", RecommendInput{Step: StepBreakdown{DataWait: pct(4.9), Compute: pct(95.1)}}, "input-bound", false},
		{"transfer above", RecommendInput{Step: StepBreakdown{Transfer: pct(5.1), Compute: pct(94.9)}}, "transfer-bound", true},
		{"transfer below", RecommendInput{Step: StepBreakdown{Transfer: pct(4.9), Compute: pct(95.1)}}, "transfer-bound", false},
		{"busy below", RecommendInput{Kernels: kernels(49.9, 0, 0)}, "gpu-underused", true},
		{"busy above", RecommendInput{Kernels: kernels(50.1, 0, 0)}, "gpu-underused", false},
		{"no tensor cores", RecommendInput{Kernels: kernels(90, 30.1, 0.99)}, "no-tensor-cores", true},
		{"convs not dominant", RecommendInput{Kernels: kernels(90, 29.9, 0)}, "no-tensor-cores", false},
		{"tensor cores used", RecommendInput{Kernels: kernels(90, 80, 1.01)}, "no-tensor-cores", false},
		{"gpu-bound", RecommendInput{Kernels: kernels(90, 20, 5)}, "gpu-bound", true},
		{"gpu busy but below", RecommendInput{Kernels: kernels(89.9, 20, 5)}, "gpu-bound", false},
		{"gpu-bound only when nothing else fires", RecommendInput{Kernels: kernels(95, 80, 0)}, "gpu-bound", false},
		{"memory above", RecommendInput{Memory: mem(0.901)}, "memory-pressure", true},
		{"memory below", RecommendInput{Memory: mem(0.899)}, "memory-pressure", false},
	}
	for _, c := range cases {
		got := rules(Recommend(c.in))
		if got[c.rule] != c.want {
			t.Errorf("%s: rule %q fired = %v, want %v (fired: %v)", c.name, c.rule, got[c.rule], c.want, got)
		}
		for r := range got {
			if len(r) > 11 && r[:11] == "incomplete:" {
				t.Errorf("%s: %s", c.name, r)
			}
		}
	}
	if recs := Recommend(RecommendInput{}); len(recs) != 0 {
		t.Errorf("empty input fired %v", recs)
	}
}

func TestStepBreakdown(t *testing.T) {
	var total StepBreakdown
	total.Add(StepBreakdown{DataWait: 2 * time.Millisecond, Compute: 10 * time.Millisecond})
	total.Add(StepBreakdown{DataWait: 4 * time.Millisecond, Compute: 12 * time.Millisecond, Other: 2 * time.Millisecond})
	if total.Steps != 2 || total.Total() != 30*time.Millisecond {
		t.Fatalf("%+v", total)
	}
	m := total.Mean()
	want := StepBreakdown{DataWait: 3 * time.Millisecond, Compute: 11 * time.Millisecond, Other: time.Millisecond, Steps: 1}
	if m != want {
		t.Errorf("mean %+v, want %+v", m, want)
	}
	if f := total.Fraction(total.DataWait); f != 0.2 {
		t.Errorf("fraction %v", f)
	}
	b, err := json.Marshal(total)
	if err != nil {
		t.Fatal(err)
	}
	var back StepBreakdown
	if err := json.Unmarshal(b, &back); err != nil || back != total {
		t.Errorf("JSON round trip %s → %+v (%v)", b, back, err)
	}
}
