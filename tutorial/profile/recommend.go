package profile

// Recommendations in the spirit of the TensorBoard profile plugin's "Performance Recommendation" box, each rule
// tied to a rung of the tutorial's optimization ladder: find where the step's time goes, then take the rung that
// removes it. The thresholds are the constants below; tests probe them just above and just below.

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

// Rule thresholds.
const (
	// DataWaitThreshold: the training loop waits for the next batch more than this fraction of the step.
	DataWaitThreshold = 0.05
	// TransferThreshold: host→device transfer takes more than this fraction of the step.
	TransferThreshold = 0.05
	// GPUBusyThresholdPct: kernels keep the GPU busy less than this percentage of the window.
	GPUBusyThresholdPct = 50.0
	// ConvMatmulDominantPct: convolutions and matmuls take at least this percentage of kernel time ...
	ConvMatmulDominantPct = 30.0
	// TensorCoreMinPct: ... while tensor-core kernels take less than this percentage: "no tensor cores".
	TensorCoreMinPct = 1.0
	// MemoryThreshold: the program uses more than this fraction of the device's memory.
	MemoryThreshold = 0.90
	// GPUBoundBusyPct: kernels keep the GPU busy at least this percentage of the window, and no other rule
	// fired: the ladder's rungs are spent and only cheaper kernels make the step faster.
	GPUBoundBusyPct = 90.0
)

// StepBreakdown is the per-step time split measured by the training loop: waiting for the batch (DataWait),
// moving it to the device (Transfer), the step's Exec call until its results are ready (Compute), and the rest
// (logging, loss fetch, Go overhead). Accumulate with Add, then take Mean.
type StepBreakdown struct {
	DataWait time.Duration
	Transfer time.Duration
	Compute  time.Duration
	Other    time.Duration
	Steps    int // Number of steps accumulated; 0 is treated as 1.
}

// Total is the sum of the parts.
func (s StepBreakdown) Total() time.Duration { return s.DataWait + s.Transfer + s.Compute + s.Other }

// Add accumulates another breakdown (one step if o.Steps is 0).
func (s *StepBreakdown) Add(o StepBreakdown) {
	s.DataWait += o.DataWait
	s.Transfer += o.Transfer
	s.Compute += o.Compute
	s.Other += o.Other
	s.Steps += max(o.Steps, 1)
}

// Mean is the average step (Steps = 1).
func (s StepBreakdown) Mean() StepBreakdown {
	n := time.Duration(max(s.Steps, 1))
	return StepBreakdown{DataWait: s.DataWait / n, Transfer: s.Transfer / n, Compute: s.Compute / n, Other: s.Other / n, Steps: 1}
}

// Fraction returns part/Total (0 if the total is 0).
func (s StepBreakdown) Fraction(part time.Duration) float64 {
	if t := s.Total(); t > 0 {
		return float64(part) / float64(t)
	}
	return 0
}

type stepBreakdownJSON struct {
	DataWaitMs float64 `json:"data_wait_ms"`
	TransferMs float64 `json:"transfer_ms"`
	ComputeMs  float64 `json:"compute_ms"`
	OtherMs    float64 `json:"other_ms"`
	TotalMs    float64 `json:"total_ms"`
	Steps      int     `json:"steps"`
}

func ms(d time.Duration) float64     { return float64(d) / 1e6 }
func fromMs(x float64) time.Duration { return time.Duration(x * 1e6) }

// MarshalJSON writes milliseconds, for humans reading report.json.
func (s StepBreakdown) MarshalJSON() ([]byte, error) {
	return json.Marshal(stepBreakdownJSON{ms(s.DataWait), ms(s.Transfer), ms(s.Compute), ms(s.Other), ms(s.Total()), s.Steps})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *StepBreakdown) UnmarshalJSON(b []byte) error {
	var j stepBreakdownJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = StepBreakdown{fromMs(j.DataWaitMs), fromMs(j.TransferMs), fromMs(j.ComputeMs), fromMs(j.OtherMs), j.Steps}
	return nil
}

// Recommendation is one finding: which rule fired, the numbers behind it, and what to do.
type Recommendation struct {
	Rule     string `json:"rule"`
	Evidence string `json:"evidence"`
	Advice   string `json:"advice"`
}

// RecommendInput gathers what the rules look at; nil or zero parts are skipped.
type RecommendInput struct {
	Step    StepBreakdown // Per-step mean or a total: only ratios are used.
	Kernels *KernelSummary
	Memory  *memory.Use
}

// Recommend applies the rules.
func Recommend(in RecommendInput) []Recommendation {
	var recs []Recommendation
	step := in.Step
	total := step.Total()
	perStep := step.Mean()

	if total > 0 && step.Fraction(step.DataWait) > DataWaitThreshold {
		recs = append(recs, Recommendation{
			Rule: "input-bound",
			Evidence: fmt.Sprintf("waiting for data is %.1f%% of the step (%.2f ms of %.2f ms; threshold %.0f%%)",
				100*step.Fraction(step.DataWait), ms(perStep.DataWait), ms(perStep.Total()), 100*DataWaitThreshold),
			Advice: "Prepare batches ahead of the step: more loader goroutines and a prefetch queue (the \"more DataLoader " +
				"workers\" rung), overlap the host→device copy with the running step, or keep the dataset on the device " +
				"and sample/augment batches there so no data crosses PCIe per step.",
		})
	}
	if total > 0 && step.Fraction(step.Transfer) > TransferThreshold {
		recs = append(recs, Recommendation{
			Rule: "transfer-bound",
			Evidence: fmt.Sprintf("host→device transfer is %.1f%% of the step (%.2f ms; threshold %.0f%%)",
				100*step.Fraction(step.Transfer), ms(perStep.Transfer), 100*TransferThreshold),
			Advice: "Send less and overlap it: transfer uint8 images and convert/resize on the device, start the next " +
				"batch's transfer while the current step runs (the \"pin_memory + non_blocking\" rung), or make the data " +
				"device-resident so a step only receives indices.",
		})
	}
	if k := in.Kernels; k != nil && k.KernelCount > 0 {
		var convMM float64
		for _, c := range k.Categories {
			if c.Category == "convolution" || c.Category == "matmul" {
				convMM += c.Pct
			}
		}
		if convMM >= ConvMatmulDominantPct && k.TensorCorePct < TensorCoreMinPct {
			recs = append(recs, Recommendation{
				Rule: "no-tensor-cores",
				Evidence: fmt.Sprintf("convolutions and matmuls take %.1f%% of kernel time, but tensor-core kernels only %.2f%%",
					convMM, k.TensorCorePct),
				Advice: "Use mixed precision (the AMP rung): run the model in bfloat16 — parameters cast at use, loss and " +
					"optimizer state in float32 — so cuDNN/cuBLAS pick tensor-core (xmma/gmma) kernels; keep channel " +
					"counts multiples of 8.",
			})
		}
		if k.WindowUs > 0 && k.BusyPct < GPUBusyThresholdPct {
			ev := fmt.Sprintf("kernels keep the GPU busy %.1f%% of the measured window (%.1f ms of %.1f ms; threshold %.0f%%)",
				k.BusyPct, k.BusyUs/1e3, k.WindowUs/1e3, GPUBusyThresholdPct)
			if m := in.Memory; m != nil && m.CapacityBytes > 0 {
				ev += fmt.Sprintf("; memory use %.0f%% of the device", 100*float64(m.UsedBytes)/float64(m.CapacityBytes))
			}
			recs = append(recs, Recommendation{
				Rule:     "gpu-underused",
				Evidence: ev,
				Advice: "The GPU waits for the host between steps. Give each launch more work (a larger batch, within " +
					"memory: see the predicted maximum batch) and stop synchronizing every step: fetch the loss every N " +
					"steps, and run several training steps per Exec call (a While loop over device-resident data) so " +
					"per-call host cost is paid once for many steps.",
			})
		}
	}
	if k := in.Kernels; len(recs) == 0 && k != nil && k.KernelCount > 0 && k.WindowUs > 0 && k.BusyPct >= GPUBoundBusyPct {
		var top []string
		for i, c := range k.Categories {
			if i == 3 {
				break
			}
			top = append(top, fmt.Sprintf("%s %.0f%%", c.Category, c.Pct))
		}
		recs = append(recs, Recommendation{
			Rule: "gpu-bound",
			Evidence: fmt.Sprintf("kernels keep the GPU busy %.1f%% of the window (threshold %.0f%%); kernel time: %s",
				k.BusyPct, GPUBoundBusyPct, strings.Join(top, ", ")),
			Advice: "The ladder's rungs are spent: nothing waits for the host any more. The step gets faster only with " +
				"cheaper kernels — read the kernel table from the top: fewer passes over activations in the largest " +
				"categories (batch-norm statistics and their gradients are reductions; elementwise fusions and " +
				"depthwise convolutions are memory-bound), or a cheaper formulation of the op behind the top kernels.",
		})
	}
	if m := in.Memory; m != nil && m.CapacityBytes > 0 && float64(m.UsedBytes) > MemoryThreshold*float64(m.CapacityBytes) {
		recs = append(recs, Recommendation{
			Rule: "memory-pressure",
			Evidence: fmt.Sprintf("%.2f GB of %.2f GB in use (%.1f%%, %s; threshold %.0f%%)", float64(m.UsedBytes)/1e9,
				float64(m.CapacityBytes)/1e9, 100*float64(m.UsedBytes)/float64(m.CapacityBytes), m.Source, 100*MemoryThreshold),
			Advice: "Halve activation memory with bfloat16, or lower the batch size (PredictMaxBatch gives the largest " +
				"that fits with headroom); donate the parameter buffers to the update so old and new weights do not " +
				"coexist.",
		})
	}
	return recs
}
