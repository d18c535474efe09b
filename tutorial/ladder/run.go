package ladder

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
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
	// Trainers, if set, is where Run looks for a trainer of the same compiled program before building one, and
	// where it leaves the one it built; the caller owns them (see [Trainers]). Nil: Run closes its trainer.
	Trainers *Trainers
	// OnTrainer, if set, is called with each step's trainer after its timed window (memory statistics,
	// profiling).
	OnTrainer func(Config, *train.Trainer, *Result)
	// FastStart runs every step as fast-start mode does ([Config.WithFastStart]): set it from the backend's
	// choice (backend.Choice.FastStartKernels), since the kernels need XLA on a CUDA GPU.
	FastStart bool
}

// AsRun is c as Run runs it with these options (fast start applied, see [Config.WithFastStart]), and whether
// that changed it: its TrainerKey is the one Run keeps in [Trainers].
func (o Options) AsRun(c Config) (Config, bool) {
	if !o.FastStart {
		return c, false
	}
	return c.WithFastStart()
}

// DefaultOptions are the measurement the README reports: 10 warm-up steps, then 60 timed ones.
func DefaultOptions() Options { return Options{Warmup: 10, Steps: 60} }

// SmokeOptions are the measurement at smoke sizes: enough steps to see the loss fall.
func SmokeOptions() Options { return Options{Warmup: 3, Steps: 25} }

// Run measures one configuration on the backend with the training set: build (or reuse) its trainer and
// input, then train.Loop does the first (compiling) call, the warm-up and the timed window, and the result is
// what they measured.
func Run(backend compute.Backend, c Config, set *cifar.Set, opt Options) (res Result, err error) {
	c, fast := opt.AsRun(c)
	res = c.result()
	res.FastStart = fast
	logf := func(format string, args ...any) {
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, format, args...)
		}
	}
	tr, reused, err := opt.Trainers.trainer(backend, c, set)
	if err != nil {
		return res, err
	}
	if opt.Trainers == nil {
		defer tr.Close() // free its device memory now: the next step (or batch size) needs it
	}
	loop, closeFeed, err := newLoop(backend, c, tr, set)
	if err != nil {
		return res, err
	}
	defer closeFeed()
	if opt.Progress != nil {
		loop.Progress(opt.Progress, opt.progressEvery())
	}
	if opt.Window != nil {
		loop.OnWindow(opt.Window)
	}
	if !c.DeviceData() {
		res.H2DBytesPerStep = c.Feed().Bytes()
	}
	k := c.StepsPerCall
	calls := func(steps int) int { return max(1, (steps+k-1)/k) }
	if reused {
		logf("  step %s: %s — same XLA program as an earlier step: reusing its executable\n", res.ID, c.Name)
	} else {
		logf("  step %s: %s — compiling…\n", res.ID, c.Name)
	}
	_, skippedBefore, err := tr.ScalerState()
	if err != nil {
		return res, err
	}
	t0 := time.Now()
	if err := loop.Run(1); err != nil {
		return res, err
	}
	res.FirstCallS, res.ReusedExecutable = time.Since(t0).Seconds(), reused
	if !reused {
		res.CompileS = tr.CompileTime().Seconds()
	}
	logf("  step %s: first call %.1fs (compile %.1fs + first execution %.1fs); warm-up %d steps, timing %d steps\n",
		res.ID, res.FirstCallS, res.CompileS, res.FirstExecutionS(), opt.Warmup, opt.Steps)
	if err := loop.Run(calls(opt.Warmup)); err != nil {
		return res, err
	}
	window, err := loop.TimeWindow(calls(opt.Steps))
	if err != nil {
		return res, err
	}
	res.measured(window, k, c.Batch)
	skipped, err := res.trained(loop.Losses, tr, skippedBefore)
	if err != nil {
		return res, err
	}
	if err := res.finiteLosses(); err != nil {
		logf("  step %s: %.0f samples/s, loss %.3f → %.3f\n", res.ID, res.SamplesPerSec, res.LossFirst, res.LossLast)
		return res, err
	}
	res.Memory = compiledMemory(tr)
	if dm, err := profile.DeviceMemory(backend, 0); err == nil && dm.PeakBytesInUse > 0 {
		res.DevicePeakBytes = dm.PeakBytesInUse
	}
	if opt.After != nil {
		if err := opt.After(func(steps int) error { return loop.Run(calls(steps)) }); err != nil {
			return res, err
		}
	}
	if opt.OnTrainer != nil {
		opt.OnTrainer(c, tr, &res)
	}
	logf("  step %s: %.0f samples/s, step %.1f ms (p10 %.1f, p90 %.1f), loss %.3f → %.3f, skipped %d\n",
		res.ID, res.SamplesPerSec, res.StepMedianMs, res.StepP10Ms, res.StepP90Ms, res.LossFirst, res.LossLast, skipped)
	return res, nil
}

// thisProcess is Result.Process for every result this process measures.
var thisProcess = sync.OnceValue(func() string {
	id, err := artifact.NewRunID()
	if err != nil {
		id = strconv.Itoa(os.Getpid())
	}
	return id
})

// result is a Result that describes c, before anything is measured.
func (c Config) result() Result {
	r := Result{ID: c.ID.String(), Name: c.Name, Why: c.Why, Precision: string(c.Precision), Batch: c.Batch,
		StepsPerCall: c.StepsPerCall, Input: c.Input.String(), Workers: c.Workers,
		ReductionRow: c.Model.ReductionRow, Formulation: c.Formulation(), Process: thisProcess()}
	if c.DeviceData() {
		r.Workers = 0 // no host pipeline: the dataset is on the device
	}
	return r
}

// newLoop is the training loop of c over tr: fed by a host pipeline (whose Close is returned), or by the
// device-resident dataset.
func newLoop(backend compute.Backend, c Config, tr *train.Trainer, set *cifar.Set) (*train.Loop, func(), error) {
	if c.DeviceData() {
		return train.NewLoop(tr, nil, c.SyncEvery), func() {}, nil
	}
	src, err := pipeline.New(set, c.Feed(), backend)
	if err != nil {
		return nil, nil, err
	}
	next := func() (x, labels *tensors.Tensor, transfer time.Duration, err error) {
		b, err := src.Next()
		return b.X, b.Labels, b.Transfer, err
	}
	return train.NewLoop(tr, next, c.SyncEvery), src.Close, nil
}

func (o Options) progressEvery() time.Duration {
	if o.ProgressEvery > 0 {
		return o.ProgressEvery
	}
	return 5 * time.Second
}

// Trainers keeps trainers by the compiled program they run ([TrainerKey]), so a later step with the same
// program — rungs 4, 5, 5b and 6 only change the host pipeline — reuses one (its state and compiled
// executables) instead of compiling and autotuning the same XLA program again. Run only adds to it; freeing
// device memory is the owner's decision: [Trainers.KeepOnly] before a step whose allocator peak should read as
// its own, [Trainers.Close] at the end.
type Trainers struct{ m map[TrainerKey]*train.Trainer }

// NewTrainers is an empty cache.
func NewTrainers() *Trainers { return &Trainers{m: map[TrainerKey]*train.Trainer{}} }

// KeepOnly closes and forgets every trainer but the one for key.
func (t *Trainers) KeepOnly(key TrainerKey) {
	for k, tr := range t.m {
		if k != key {
			tr.Close()
			delete(t.m, k)
		}
	}
}

// Close closes and forgets every trainer.
func (t *Trainers) Close() {
	for k, tr := range t.m {
		tr.Close()
		delete(t.m, k)
	}
}

// trainer returns the cached trainer for c, or a new one (with the dataset on the device where c needs it),
// added to the cache when there is one.
func (t *Trainers) trainer(backend compute.Backend, c Config, set *cifar.Set) (tr *train.Trainer, reused bool, err error) {
	key := c.TrainerKey()
	if t != nil {
		if tr, ok := t.m[key]; ok {
			return tr, true, nil
		}
	}
	if tr, err = train.NewTrainer(backend, mobilenet.New(c.Model), key.Train); err != nil {
		return nil, false, err
	}
	if c.DeviceData() {
		if err := tr.SetDeviceData(set.Images, set.Labels, set.Len()); err != nil {
			tr.Close()
			return nil, false, err
		}
	}
	if t != nil {
		t.m[key] = tr
	}
	return tr, false, nil
}
