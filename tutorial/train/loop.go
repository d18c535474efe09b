package train

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gomlx/gomlx/core/tensors"
)

// Loop runs a Trainer's compiled step again and again: where the batches come from, when the loss is read back,
// what is timed, and the hooks around each call. The Trainer is the step (one Execute); the Loop is the training
// loop around it — the split GoMLX's ml/train makes between Trainer and Loop, for this tutorial's hand-built step.
type Loop struct {
	Trainer *Trainer
	// Next gives a host-fed step (every Input but InputDeviceData) its batch, on the device or not, with the time
	// a copy to the device took on the step's critical path (0 when a worker made it while the device computed).
	// Nil for the device-resident dataset.
	Next func() (x, labels *tensors.Tensor, transfer time.Duration, err error)
	// SyncEvery reads the loss back every N calls of a run (1: after every call, like loss.item()); the losses
	// still pending are read at the end of a timed window.
	SyncEvery int
	// Losses is every loss read, in order, from the loop's first call on.
	Losses []float64

	pending []*tensors.Tensor
	onStep  []func(StepInfo) error
	window  []func() (end func())
}

// NewLoop is a loop over t's step; next is nil for InputDeviceData (see Loop.Next).
func NewLoop(t *Trainer, next func() (x, labels *tensors.Tensor, transfer time.Duration, err error), syncEvery int) *Loop {
	return &Loop{Trainer: t, Next: next, SyncEvery: max(1, syncEvery)}
}

// Timing splits one call's wall time: waiting for the host pipeline, host→device copies on the critical path, the
// Execute call (go-xla waits for the device), and the rest (the loss read-back, bookkeeping).
type Timing struct{ Wait, Transfer, Compute, Other, Total time.Duration }

// StepInfo is what an after-step hook sees: which call of how many in the current run, its timing, and whether it
// ran inside a timed window (and how long that window has run).
type StepInfo struct {
	Call, Calls int
	Timing      Timing
	InWindow    bool
	Elapsed     time.Duration // since the window (or run) began
}

// OnStep adds an after-step hook, called after every call in order of registration; an error stops the run.
func (l *Loop) OnStep(fn func(StepInfo) error) { l.onStep = append(l.onStep, fn) }

// OnWindow adds a timing-window hook: start is called when a timed window begins and the function it returns
// when the window ends (e.g. an NVML sampler over exactly the timed steps).
func (l *Loop) OnWindow(start func() (end func())) { l.window = append(l.window, start) }

// Progress adds an after-step hook that prints, at most once per every inside a timed window, the steps done,
// the throughput so far, the last loss read and (with loss scaling) the scaler's state.
func (l *Loop) Progress(w io.Writer, every time.Duration) {
	var last time.Duration // into the window, of the last line
	cfg := l.Trainer.Config
	l.OnStep(func(s StepInfo) error {
		if s.Call == 0 {
			last = 0
		}
		if !s.InWindow || s.Elapsed-last <= every {
			return nil
		}
		last = s.Elapsed
		k := cfg.StepsPerCall
		line := fmt.Sprintf("    step %d/%d  %.0f samples/s", (s.Call+1)*k, s.Calls*k,
			float64((s.Call+1)*k*cfg.Batch)/s.Elapsed.Seconds())
		if len(l.Losses) > 0 {
			line += fmt.Sprintf("  loss %.4f", l.Losses[len(l.Losses)-1])
		}
		if sc, skipped, err := l.Trainer.ScalerState(); err == nil && cfg.Precision.Scaled() {
			line += fmt.Sprintf("  loss scale %g  skipped %d", sc.Scale, skipped)
		}
		_, err := fmt.Fprintf(w, "%s\n", line)
		return err
	})
}

// Run makes calls untimed calls of the step (the compiling first call, warm-up, steps inside a profiler capture).
func (l *Loop) Run(calls int) error {
	_, err := l.run(calls, false)
	return err
}

// Window is a timed window's measurement: its wall time (losses read included) and every call's timing.
type Window struct {
	Wall    time.Duration
	Timings []Timing
}

// TimeWindow makes calls timed calls: the window hooks around them, the pending losses read before it ends.
func (l *Loop) TimeWindow(calls int) (Window, error) {
	var ends []func()
	for _, start := range l.window {
		if end := start(); end != nil {
			ends = append(ends, end)
		}
	}
	w, err := l.run(calls, true)
	if err == nil {
		err = l.readLosses()
		w.Wall = time.Since(w.start)
	}
	for _, end := range ends {
		end()
	}
	return w.Window, err
}

type runResult struct {
	Window
	start time.Time
}

func (l *Loop) run(calls int, window bool) (runResult, error) {
	r := runResult{start: time.Now()}
	for i := range calls {
		t, err := l.call(i)
		if err != nil {
			return r, err
		}
		if window {
			r.Timings = append(r.Timings, t)
		}
		info := StepInfo{Call: i, Calls: calls, Timing: t, InWindow: window, Elapsed: time.Since(r.start)}
		for _, fn := range l.onStep {
			if err := fn(info); err != nil {
				return r, err
			}
		}
	}
	return r, nil
}

// call is one Execute with its batch, timed part by part; every SyncEvery calls it reads the losses back.
func (l *Loop) call(i int) (Timing, error) {
	start := time.Now()
	var t Timing
	var loss *tensors.Tensor
	var err error
	if l.Next == nil {
		t0 := time.Now()
		loss, err = l.Trainer.StepDevice()
		t.Compute = time.Since(t0)
	} else {
		x, labels, transfer, nextErr := l.Next()
		if nextErr != nil {
			return t, nextErr
		}
		t.Transfer = transfer
		t.Wait = time.Since(start) - transfer
		t0 := time.Now()
		loss, err = l.Trainer.Step(x, labels)
		t.Compute = time.Since(t0)
		// The step has run (go-xla's Execute returns when the device is done), so the batch is free now: without
		// this its device buffers waited for the garbage collector, and uploaded batches piled up on the GPU above
		// the compiled plan's peak, which the process carried into the next rung
		// (assets/gpu-runs/2026-12-04-h200-run29).
		err = errors.Join(err, x.FinalizeAll(), labels.FinalizeAll())
	}
	if err != nil {
		return t, err
	}
	l.pending = append(l.pending, loss)
	if (i+1)%l.SyncEvery == 0 {
		if err := l.readLosses(); err != nil {
			return t, err
		}
	}
	t.Total = time.Since(start)
	t.Other = t.Total - t.Wait - t.Transfer - t.Compute
	return t, nil
}

// readLosses reads the pending losses back: a device→host copy, and a sync.
func (l *Loop) readLosses() error {
	for _, p := range l.pending {
		v, err := Loss(p)
		if err != nil {
			return err
		}
		l.Losses = append(l.Losses, v)
	}
	l.pending = l.pending[:0]
	return nil
}
