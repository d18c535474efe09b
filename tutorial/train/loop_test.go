package train

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/core/tensors"
)

// TestLoop: the loop reads the loss every SyncEvery calls and at the end of a window, times each call of the
// window, runs the hooks in order (window start before the calls, its end after them) and prints progress.
func TestLoop(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Batch, cfg.ImageSize, cfg.Input, cfg.LR = 4, 32, InputDeviceData, 0.01
	tr, err := NewTrainer(goBackend(t), smallModel(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	images, labels := tinySet(16, 1)
	if err := tr.SetDeviceData(images, labels, 16); err != nil {
		t.Fatal(err)
	}
	loop := NewLoop(tr, nil, 3)
	var events []string
	loop.OnWindow(func() func() {
		events = append(events, "start")
		return func() { events = append(events, "end") }
	})
	loop.OnStep(func(s StepInfo) error {
		if s.InWindow {
			events = append(events, "step")
		}
		return nil
	})
	var progress bytes.Buffer
	loop.Progress(&progress, time.Nanosecond)
	if err := loop.Run(4); err != nil {
		t.Fatal(err)
	}
	if len(loop.Losses) != 3 || len(events) != 0 {
		t.Fatalf("after 4 untimed calls at SyncEvery 3: %d losses, events %v; want 3 and none", len(loop.Losses), events)
	}
	w, err := loop.TimeWindow(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Timings) != 2 || w.Wall <= 0 || len(loop.Losses) != 6 {
		t.Errorf("window: %d timings, wall %v, %d losses; want 2, > 0, 6 (the pending ones read)", len(w.Timings), w.Wall, len(loop.Losses))
	}
	if got := strings.Join(events, ","); got != "start,step,step,end" {
		t.Errorf("hooks ran as %s", got)
	}
	for _, tm := range w.Timings {
		if tm.Compute <= 0 || tm.Wait != 0 || tm.Total < tm.Compute {
			t.Errorf("timing %+v: device data has compute and no wait", tm)
		}
	}
	if !strings.Contains(progress.String(), "    step 2/2  ") {
		t.Errorf("progress: %q", progress.String())
	}
}

// TestLoopHostFed: a host-fed loop takes its batches from Next, and counts their critical-path upload as transfer.
func TestLoopHostFed(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Batch, cfg.ImageSize, cfg.Input = 4, 32, InputUint8Small
	tr, err := NewTrainer(goBackend(t), smallModel(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	images, labels := tinySet(4, 2)
	l32 := make([]int32, 4)
	for i, l := range labels {
		l32[i] = int32(l)
	}
	next := func() (x, y *tensors.Tensor, transfer time.Duration, err error) {
		return tensors.FromFlatDataAndDimensions(images, 4, 32, 32, 3), tensors.FromFlatDataAndDimensions(l32, 4),
			time.Millisecond, nil
	}
	w, err := NewLoop(tr, next, 1).TimeWindow(1)
	if err != nil || len(w.Timings) != 1 || w.Timings[0].Transfer != time.Millisecond {
		t.Errorf("host-fed window: %+v, %v", w, err)
	}
}
