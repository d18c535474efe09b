package ladder

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
	"github.com/gomlx-tutorials/trainopt/tutorial/pipeline"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// Options are the measurement settings shared by every step.
type Options struct {
	Warmup   int // steps after the first (compiling) call before the timed window
	Steps    int // timed steps (≥ 50 for reported numbers)
	Progress io.Writer
	// ProgressEvery is the interval between progress lines in the timed window (default 5 s).
	ProgressEvery time.Duration
	// Window, if set, is called when the timed window starts; the function it returns when it ends (e.g. an
	// NVML sampler).
	Window func() (end func())
	// After, if set, is called after the timed window with a function that runs n more steps of the same
	// configuration (e.g. inside a profiler capture).
	After func(runSteps func(n int) error) error
	// Trainers, if set, keeps the last step's trainer (its state and compiled executables) by training
	// configuration: a later step with the same configuration — steps 4, 5, 5b and 6 only change the host
	// pipeline — reuses it instead of compiling (and autotuning) the same XLA program again.
	Trainers map[TrainerKey]*train.Trainer
	// OnTrainer, if set, is called with each step's trainer after its timed window (memory statistics,
	// profiling).
	OnTrainer func(Config, *train.Trainer, *Result)
}

// DefaultOptions are the measurement the README reports: 10 warm-up steps, then 60 timed ones.
func DefaultOptions() Options { return Options{Warmup: 10, Steps: 60} }

// SmokeOptions are the measurement at smoke sizes: enough steps to see the loss fall.
func SmokeOptions() Options { return Options{Warmup: 3, Steps: 25} }

// Result is one step's measurement. Times are per training step (a call of K steps counts K).
type Result struct {
	ID, Name, Why string
	Precision     string `json:"precision"`
	Batch         int    `json:"batch"`
	StepsPerCall  int    `json:"steps_per_call"`
	Input         string `json:"input"`
	Workers       int    `json:"workers"`
	// ReductionRow is the model's batch-norm row width (step 11 on; 0: the plain form).
	ReductionRow int `json:"reduction_row,omitempty"`
	// Formulation is how the model is computed, when it is not the plain form (mobilenet.Config.Formulation).
	Formulation   string  `json:"formulation,omitempty"`
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
	DevicePeakBytes int64  `json:"device_peak_bytes,omitempty"`
	Error           string `json:"error,omitempty"`
}

// FirstExecutionS is the part of the first call after compiling: module loading and, on the GPU, cuDNN building
// its execution plans. For results written before CompileS was measured it is the whole first call.
func (r Result) FirstExecutionS() float64 { return r.FirstCallS - r.CompileS }

// Run measures one step on the backend with the training set.
func Run(backend compute.Backend, step Config, set *cifar.Set, opt Options) (res Result, err error) {
	cfg := step.Train()
	feed := step.Feed()
	id := step.ID.String()
	res = Result{ID: id, Name: step.Name, Why: step.Why, Precision: string(cfg.Precision), Batch: cfg.Batch,
		StepsPerCall: cfg.StepsPerCall, Input: cfg.Input.String(), Workers: feed.Workers}
	logf := func(format string, args ...any) {
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, format, args...)
		}
	}
	model := step.Model
	res.ReductionRow, res.Formulation = model.ReductionRow, model.Formulation()
	key := step.TrainerKey()
	tr, reused := opt.Trainers[key]
	if !reused {
		tr, err = train.NewTrainer(backend, mobilenet.New(model), cfg)
		if err != nil {
			return res, err
		}
		if opt.Trainers != nil {
			// Only consecutive steps share a configuration (5, 5b, 6): free the others' device memory, so
			// that the allocator's peak reads as this configuration's.
			for k, other := range opt.Trainers {
				other.Close()
				delete(opt.Trainers, k)
			}
			opt.Trainers[key] = tr
		} else {
			defer tr.Close() // free its device memory now: the next step (or batch size) needs it
		}
	}
	device := cfg.Input == train.InputDeviceData
	if device {
		res.Workers = 0 // no host pipeline: the dataset is on the device
	}
	var src *pipeline.Source
	if device && !reused {
		if err := tr.SetDeviceData(set.Images, set.Labels, set.Len()); err != nil {
			return res, err
		}
	}
	if !device {
		src, err = pipeline.New(set, feed, backend)
		if err != nil {
			return res, err
		}
		defer src.Close()
		res.H2DBytesPerStep = feed.Bytes()
	}
	k := cfg.StepsPerCall
	sync := max(1, step.SyncEvery)
	calls := func(steps int) int { return max(1, (steps+k-1)/k) }

	type timing struct{ wait, transfer, compute, other, total time.Duration }
	var timings []timing
	var losses []float64
	pending := []*tensors.Tensor{}
	one := func(record bool, i int) error {
		start := time.Now()
		var t timing
		var loss *tensors.Tensor
		var stepErr error
		if device {
			t0 := time.Now()
			loss, stepErr = tr.StepDevice()
			t.compute = time.Since(t0)
		} else {
			b, err := src.Next()
			if err != nil {
				return err
			}
			t.wait = time.Since(start)
			if !b.OnDevice {
				t0 := time.Now()
				if err := pipeline.Upload(backend, b.X, b.Labels); err != nil {
					return err
				}
				t.transfer = time.Since(t0)
			}
			t0 := time.Now()
			loss, stepErr = tr.Step(b.X, b.Labels)
			t.compute = time.Since(t0)
		}
		if stepErr != nil {
			return stepErr
		}
		pending = append(pending, loss)
		if (i+1)%sync == 0 {
			for _, l := range pending { // reading the loss back: a device→host copy (and sync)
				v, err := train.Loss(l)
				if err != nil {
					return err
				}
				losses = append(losses, v)
			}
			pending = pending[:0]
		}
		t.total = time.Since(start)
		t.other = t.total - t.wait - t.transfer - t.compute
		if record {
			timings = append(timings, t)
		}
		return nil
	}

	if reused {
		logf("  step %s: %s — same XLA program as an earlier step: reusing its executable\n", id, step.Name)
	} else {
		logf("  step %s: %s — compiling…\n", id, step.Name)
	}
	_, skippedBefore, err := tr.ScalerState()
	if err != nil {
		return res, err
	}
	t0 := time.Now()
	if err := one(false, 0); err != nil {
		return res, err
	}
	res.FirstCallS, res.ReusedExecutable = time.Since(t0).Seconds(), reused
	if !reused {
		res.CompileS = tr.CompileTime().Seconds()
	}
	logf("  step %s: first call %.1fs (compile %.1fs + first execution %.1fs); warm-up %d steps, timing %d steps\n",
		id, res.FirstCallS, res.CompileS, res.FirstExecutionS(), opt.Warmup, opt.Steps)
	for i := range calls(opt.Warmup) {
		if err := one(false, i+1); err != nil {
			return res, err
		}
	}
	n := calls(opt.Steps)
	var endWindow func()
	if opt.Window != nil {
		endWindow = opt.Window()
	}
	windowStart := time.Now()
	lastReport := windowStart
	for i := range n {
		if err := one(true, i); err != nil {
			return res, err
		}
		if time.Since(lastReport) > opt.progressEvery() {
			lastReport = time.Now()
			line := fmt.Sprintf("    step %d/%d  %.0f samples/s", (i+1)*k, n*k,
				float64((i+1)*k*cfg.Batch)/time.Since(windowStart).Seconds())
			if len(losses) > 0 {
				line += fmt.Sprintf("  loss %.4f", losses[len(losses)-1])
			}
			if sc, skipped, err := tr.ScalerState(); err == nil && cfg.Precision.Scaled() {
				line += fmt.Sprintf("  loss scale %g  skipped %d", sc.Scale, skipped)
			}
			logf("%s\n", line)
		}
	}
	for _, l := range pending {
		v, err := train.Loss(l)
		if err != nil {
			return res, err
		}
		losses = append(losses, v)
	}
	window := time.Since(windowStart)
	if endWindow != nil {
		endWindow()
	}
	res.SamplesPerSec = float64(n*k*cfg.Batch) / window.Seconds()

	totals := make([]float64, len(timings))
	for i, t := range timings {
		totals[i] = t.total.Seconds() * 1e3 / float64(k)
	}
	res.StepMedianMs, res.StepP10Ms, res.StepP90Ms = quantile(totals, 0.5), quantile(totals, 0.1), quantile(totals, 0.9)
	med := func(get func(timing) time.Duration) float64 {
		v := make([]float64, len(timings))
		for i, t := range timings {
			v[i] = get(t).Seconds() * 1e3 / float64(k)
		}
		return quantile(v, 0.5)
	}
	res.DataWaitMs = med(func(t timing) time.Duration { return t.wait })
	res.TransferMs = med(func(t timing) time.Duration { return t.transfer })
	res.ComputeMs = med(func(t timing) time.Duration { return t.compute })
	res.OtherMs = max(0, res.StepMedianMs-res.DataWaitMs-res.TransferMs-res.ComputeMs)
	res.Losses = losses
	if len(losses) > 0 {
		// The first loss is the untrained model's (the compiling call); the last is averaged over 5 reads.
		res.LossFirst, res.LossLast = losses[0], mean(losses[max(0, len(losses)-5):])
	}
	sc, skipped, err := tr.ScalerState()
	if err != nil {
		return res, err
	}
	if cfg.Precision.Scaled() {
		res.LossScale = sc.Scale
	}
	res.SkippedSteps = skipped - skippedBefore
	res.Memory = compiledMemory(tr)
	if dm, err := profile.DeviceMemory(backend, 0); err == nil && dm.PeakBytesInUse > 0 {
		res.DevicePeakBytes = dm.PeakBytesInUse
	}
	if opt.After != nil {
		err := opt.After(func(steps int) error {
			for i := range calls(steps) {
				if err := one(false, i); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return res, err
		}
	}
	if opt.OnTrainer != nil {
		opt.OnTrainer(step, tr, &res)
	}
	logf("  step %s: %.0f samples/s, step %.1f ms (p10 %.1f, p90 %.1f), loss %.3f → %.3f, skipped %d\n",
		id, res.SamplesPerSec, res.StepMedianMs, res.StepP10Ms, res.StepP90Ms, res.LossFirst, res.LossLast, skipped)
	return res, nil
}

func (o Options) progressEvery() time.Duration {
	if o.ProgressEvery > 0 {
		return o.ProgressEvery
	}
	return 5 * time.Second
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
	st, err := profile.CompiledMemory(g)
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
	for i, l := range r.Losses {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return fmt.Errorf("step %s: loss %v at read %d", r.ID, l, i)
		}
	}
	if !(r.LossLast < r.LossFirst) {
		return fmt.Errorf("step %s: loss did not fall (%.3f → %.3f)", r.ID, r.LossFirst, r.LossLast)
	}
	return nil
}
