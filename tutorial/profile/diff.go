package profile

import (
	"fmt"
	"math"
	"slices"

	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
)

// DiffRow is one figure of two profiles side by side, per training step where it is a time or a count.
type DiffRow struct {
	What          string
	Unit          string
	Before, After float64 // NaN where a profile lacks the figure
}

// Change is After ÷ Before ("1.25×"), or "" when either is missing or Before is zero.
func (r DiffRow) Change() string {
	if math.IsNaN(r.Before) || math.IsNaN(r.After) || r.Before == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", r.After/r.Before)
}

// Diff lines up what a rung's optimisation changed between the profile before it and the profile after it: the
// step's split (measured by the loop), the GPU's busy share, kernels and kernel time per step, the time per kernel
// category, the tensor-core share, memsets, and memory — the figures each notebook's story is told from.
func Diff(before, after *Report) []DiffRow {
	var rows []DiffRow
	add := func(what, unit string, get func(*Report) (float64, bool)) {
		b, okB := get(before)
		a, okA := get(after)
		if !okB && !okA {
			return
		}
		if !okB {
			b = math.NaN()
		}
		if !okA {
			a = math.NaN()
		}
		rows = append(rows, DiffRow{what, unit, b, a})
	}
	step := func(part func(StepBreakdown) float64) func(*Report) (float64, bool) {
		return func(r *Report) (float64, bool) {
			if r == nil || r.Step == nil {
				return 0, false
			}
			return part(r.Step.Mean()), true
		}
	}
	add("step time", "ms", step(func(s StepBreakdown) float64 { return s.Total().Seconds() * 1e3 }))
	add("  data wait", "ms", step(func(s StepBreakdown) float64 { return s.DataWait.Seconds() * 1e3 }))
	add("  host→device", "ms", step(func(s StepBreakdown) float64 { return s.Transfer.Seconds() * 1e3 }))
	add("  compute (Execute)", "ms", step(func(s StepBreakdown) float64 { return s.Compute.Seconds() * 1e3 }))
	kern := func(f func(*KernelSummary) float64) func(*Report) (float64, bool) {
		return func(r *Report) (float64, bool) {
			if r == nil || r.Kernels == nil || r.Kernels.Steps <= 0 {
				return 0, false
			}
			return f(r.Kernels), true
		}
	}
	perStep := func(k *KernelSummary, v float64) float64 { return v / float64(k.Steps) }
	add("GPU busy (capture)", "%", kern(func(k *KernelSummary) float64 { return k.BusyPct }))
	add("kernels per step", "", kern(func(k *KernelSummary) float64 { return perStep(k, float64(k.KernelCount)) }))
	add("kernel time per step", "ms", kern(func(k *KernelSummary) float64 { return perStep(k, k.KernelTimeUs) / 1e3 }))
	var cats []string
	for _, r := range []*Report{before, after} {
		if r != nil && r.Kernels != nil {
			for _, c := range r.Kernels.Categories {
				if !slices.Contains(cats, c.Category) && c.TimeUs > 0 {
					cats = append(cats, c.Category)
				}
			}
		}
	}
	for _, cat := range cats {
		add("  "+cat, "ms", kern(func(k *KernelSummary) float64 {
			for _, c := range k.Categories {
				if c.Category == cat {
					return perStep(k, c.TimeUs) / 1e3
				}
			}
			return 0
		}))
	}
	add("tensor-core share of kernel time", "%", kern(func(k *KernelSummary) float64 { return k.TensorCorePct }))
	add("memset per step", "MB", kern(func(k *KernelSummary) float64 { return perStep(k, float64(k.Memset.Bytes)) / 1e6 }))
	add("host→device copies per step", "MB", kern(func(k *KernelSummary) float64 { return perStep(k, float64(k.H2D.Bytes)) / 1e6 }))
	add("compiled memory plan", "GB", func(r *Report) (float64, bool) {
		if r == nil || r.Memory == nil || len(r.Memory.Compiled) == 0 {
			return 0, false
		}
		return float64(r.Memory.Compiled[0].Device.Total()) / 1e9, true
	})
	return rows
}

// DiffHTML is Diff as an HTML table headed by the two profiles' names (e.g. "rung 3", "rung 4").
func DiffHTML(beforeName, afterName string, rows []DiffRow, caption string) string {
	num := func(v float64, unit string) string {
		switch {
		case math.IsNaN(v):
			return "—"
		case unit == "" || unit == "%":
			return fmt.Sprintf("%.0f", v)
		default:
			return fmt.Sprintf("%.2f", v)
		}
	}
	var cells [][]string
	for _, r := range rows {
		what := r.What
		if r.Unit != "" {
			what += " (" + r.Unit + ")"
		}
		cells = append(cells, []string{what, num(r.Before, r.Unit), num(r.After, r.Unit), r.Change()})
	}
	return plot.HTMLTable([]string{"per training step", beforeName, afterName, "after ÷ before"}, cells, caption)
}
