package ladder

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// Result is one step's measurement. Times are per training step (a call of K steps counts K).
type Result struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Why          string `json:"why"`
	Precision    string `json:"precision"`
	Batch        int    `json:"batch"`
	StepsPerCall int    `json:"steps_per_call"`
	Input        string `json:"input"`
	Workers      int    `json:"workers"`
	// ReductionRow is the model's batch-norm row width (step 11 on; 0: the plain form).
	ReductionRow int `json:"reduction_row,omitempty"`
	// Formulation is how the model is computed, when it is not the plain form (mobilenet.Config.Formulation).
	Formulation string `json:"formulation,omitempty"`
	// FastStart: fast-start mode ran the step with the Triton depthwise kernels ([Config.WithFastStart]; they
	// are in Formulation too): a first call of seconds, and a step that differs from the rung's own (README,
	// "Executable cache and fast start").
	FastStart     bool    `json:"fast_start,omitempty"`
	SamplesPerSec float64 `json:"samples_per_sec"` // timed window: samples ÷ wall time
	StepMedianMs  float64 `json:"step_median_ms"`
	StepP10Ms     float64 `json:"step_p10_ms"`
	StepP90Ms     float64 `json:"step_p90_ms"`
	FirstCallS    float64 `json:"first_call_s"` // compile + autotune + first step
	// CompileS is the compiling part of FirstCallS (0 when the executable was reused); the rest is the first
	// execution.
	CompileS float64 `json:"compile_s,omitempty"`
	// ReusedExecutable: an earlier step compiled the same program; FirstCallS is then one plain step.
	ReusedExecutable bool `json:"reused_executable,omitempty"`
	// Split of the median step: waiting for the host pipeline, host→device copies on the critical path, the
	// Execute call (device compute; go-xla waits for the device), and the rest (loss read-back, bookkeeping).
	DataWaitMs float64 `json:"data_wait_ms"`
	TransferMs float64 `json:"transfer_ms"`
	ComputeMs  float64 `json:"compute_ms"`
	OtherMs    float64 `json:"other_ms"`
	// H2DBytesPerStep is what crosses the bus per step for the batch.
	H2DBytesPerStep int       `json:"h2d_bytes_per_step"`
	LossFirst       float64   `json:"loss_first"`       // the untrained model's loss (first call)
	LossLast        float64   `json:"loss_last"`        // mean of the last 5 losses read
	Losses          []float64 `json:"losses,omitempty"` // every loss read, from the first call on
	LossScale       float64   `json:"loss_scale,omitempty"`
	SkippedSteps    int       `json:"skipped_steps"`
	// Compiled memory statistics of the step's executable, when the backend reports them (bytes).
	Memory map[string]int64 `json:"memory,omitempty"`
	// DevicePeakBytes is the PJRT allocator's peak bytes in use after the timed window: the process's high-water
	// mark, so it is this configuration's peak only when it ran in a process of its own (or was the largest);
	// torch.cuda.max_memory_allocated is the PyTorch counterpart. 0 when the backend does not report it.
	DevicePeakBytes int64 `json:"device_peak_bytes,omitempty"`
	// Process names the process that measured it (a random ID per process): a file can hold results of several
	// processes — the notebooks' runs file (a process per cell), a [Combine]d file — and an allocator peak only
	// speaks of the results of its own process. "" in files written before the field: one process.
	Process string `json:"process,omitempty"`
	Error   string `json:"error,omitempty"`
}

// FirstExecutionS is the part of the first call after compiling: module loading and, on the GPU, cuDNN building
// its execution plans. For results written before CompileS was measured it is the whole first call.
func (r Result) FirstExecutionS() float64 { return r.FirstCallS - r.CompileS }

// measured fills the result's throughput, step-time quantiles and split from a timed window of calls of k steps
// at batch size batch; times are per training step.
func (r *Result) measured(w train.Window, k, batch int) {
	r.SamplesPerSec = float64(len(w.Timings)*k*batch) / w.Wall.Seconds()
	med := func(get func(train.Timing) time.Duration) []float64 {
		v := make([]float64, len(w.Timings))
		for i, t := range w.Timings {
			v[i] = get(t).Seconds() * 1e3 / float64(k)
		}
		return v
	}
	totals := med(func(t train.Timing) time.Duration { return t.Total })
	r.StepMedianMs, r.StepP10Ms, r.StepP90Ms = quantile(totals, 0.5), quantile(totals, 0.1), quantile(totals, 0.9)
	r.DataWaitMs = quantile(med(func(t train.Timing) time.Duration { return t.Wait }), 0.5)
	r.TransferMs = quantile(med(func(t train.Timing) time.Duration { return t.Transfer }), 0.5)
	r.ComputeMs = quantile(med(func(t train.Timing) time.Duration { return t.Compute }), 0.5)
	r.OtherMs = max(0, r.StepMedianMs-r.DataWaitMs-r.TransferMs-r.ComputeMs)
}

// trained fills the losses and the loss scaler's outcome; skippedBefore is the trainer's count before this step.
// It returns the trainer's count of skipped steps so far.
func (r *Result) trained(losses []float64, tr *train.Trainer, skippedBefore int) (int, error) {
	r.Losses = slices.Clone(losses)
	if len(losses) > 0 {
		// The first loss is the untrained model's (the compiling call); the last is averaged over 5 reads.
		r.LossFirst, r.LossLast = losses[0], mean(losses[max(0, len(losses)-5):])
	}
	sc, skipped, err := tr.ScalerState()
	if err != nil {
		return 0, err
	}
	if tr.Config.Precision.Scaled() {
		r.LossScale = sc.Scale
	}
	r.SkippedSteps = skipped - skippedBefore
	return skipped, nil
}

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// compiledMemory is XLA's compiled memory statistics of the step (nil on other backends): what the executable's
// arguments, outputs and temporaries take on the device, known before it runs.
func compiledMemory(tr *train.Trainer) (mem map[string]int64) {
	defer func() {
		if r := recover(); r != nil { // statistics are a bonus: never lose a measured step over them
			mem = nil
		}
	}()
	g, err := tr.StepGraph()
	if err != nil {
		return nil
	}
	st, err := memory.Compiled(g)
	if err != nil {
		return nil
	}
	d := st.Device
	return map[string]int64{"arguments": d.Arguments, "outputs": d.Outputs, "aliases": d.Aliases,
		"temporary": d.Temporary, "generated_code": d.GeneratedCode, "total": d.Total()}
}

// Trained checks that the step trained: every loss finite, and the last ones below the untrained model's.
func (r Result) Trained() error {
	if len(r.Losses) < 2 {
		return fmt.Errorf("step %s: only %d losses read", r.ID, len(r.Losses))
	}
	if err := r.finiteLosses(); err != nil {
		return err
	}
	if !(r.LossLast < r.LossFirst) {
		return fmt.Errorf("step %s: loss did not fall (%.3f → %.3f)", r.ID, r.LossFirst, r.LossLast)
	}
	return nil
}

// finiteLosses fails at the first loss that is NaN or infinite: the step diverged or computed garbage (a kernel
// writing past its buffers once trained to NaN at full speed: assets/gpu-runs/2026-12-07-h100-run70/), so its
// throughput measures nothing.
func (r Result) finiteLosses() error {
	for i, l := range r.Losses {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return fmt.Errorf("step %s: loss %v at read %d of %d — the step diverged or computes garbage; its samples/s are not a measurement", r.ID, l, i+1, len(r.Losses))
		}
	}
	return nil
}
