package profile

import (
	"math"
	"strings"
	"testing"
	"time"
)

// Diff divides capture totals by the captured steps, keeps a category only one profile has (0 in the other), and
// marks what a profile lacks as missing rather than zero.
func TestDiff(t *testing.T) {
	before := &Report{Step: &StepBreakdown{Compute: 15810 * time.Microsecond, Steps: 1},
		Kernels: &KernelSummary{Steps: 10, KernelCount: 9171, KernelTimeUs: 148100, BusyPct: 89,
			Categories: []CategoryTime{{Category: "reduction", TimeUs: 49200}, {Category: "fusion", TimeUs: 45100}}}}
	after := &Report{Step: &StepBreakdown{Compute: 12130 * time.Microsecond, Steps: 1},
		Kernels: &KernelSummary{Steps: 10, KernelCount: 9171, KernelTimeUs: 113000, BusyPct: 88,
			Categories: []CategoryTime{{Category: "reduction", TimeUs: 29500}, {Category: "memset", TimeUs: 100}}}}
	rows := Diff(before, after)
	get := func(what string) DiffRow {
		for _, r := range rows {
			if strings.TrimSpace(r.What) == what {
				return r
			}
		}
		t.Fatalf("no row %q in %+v", what, rows)
		return DiffRow{}
	}
	if r := get("kernels per step"); r.Before != 917.1 || r.After != 917.1 || r.Change() != "1.00×" {
		t.Errorf("kernels per step: %+v", r)
	}
	if r := get("kernel time per step"); math.Abs(r.Before-14.81) > 1e-9 || math.Abs(r.After-11.3) > 1e-9 {
		t.Errorf("kernel time per step: %+v", r)
	}
	if r := get("reduction"); math.Abs(r.After-2.95) > 1e-9 || r.Change() != "0.60×" {
		t.Errorf("reduction: %+v %s", r, r.Change())
	}
	if r := get("fusion"); r.After != 0 || r.Change() != "0.00×" {
		t.Errorf("a category the after profile lacks: %+v", r)
	}
	if r := get("compute (Execute)"); math.Abs(r.Before-15.81) > 1e-9 {
		t.Errorf("compute: %+v", r)
	}
	for _, r := range rows {
		if r.What == "compiled memory plan" {
			t.Errorf("neither profile has memory, yet a row: %+v", r)
		}
	}
	noKernels := Diff(&Report{Step: &StepBreakdown{Compute: time.Millisecond}}, after)
	for _, r := range noKernels {
		if r.What == "kernels per step" && (!math.IsNaN(r.Before) || r.Change() != "") {
			t.Errorf("a profile without kernels: %+v", r)
		}
	}
	html := DiffHTML("rung 11", "rung 12", rows, "c")
	for _, want := range []string{"rung 11", "rung 12", "kernels per step", "0.60×", "917"} {
		if !strings.Contains(html, want) {
			t.Errorf("DiffHTML lacks %q:\n%s", want, html)
		}
	}
}
