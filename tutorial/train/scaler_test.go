package train

import (
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestScalerHostRule: GradScaler's growth after GrowthInterval finite steps, backoff and skip on inf/NaN.
func TestScalerHostRule(t *testing.T) {
	ls := LossScaler{InitScale: 8, GrowthFactor: 2, GrowthInterval: 3, BackoffFactor: 0.5}
	s := ScalerState{Scale: ls.InitScale}
	var skip bool
	for i := range 2 {
		if s, skip = ls.Update(s, true); skip || s.Scale != 8 || s.Tracker != i+1 {
			t.Fatalf("finite step %d: %+v skip=%v, want scale 8 tracker %d", i, s, skip, i+1)
		}
	}
	if s, skip = ls.Update(s, true); skip || s.Scale != 16 || s.Tracker != 0 {
		t.Fatalf("third finite step: %+v, want growth to 16 and tracker reset", s)
	}
	s, _ = ls.Update(s, true)
	if s, skip = ls.Update(s, false); !skip || s.Scale != 8 || s.Tracker != 0 {
		t.Fatalf("inf step: %+v skip=%v, want skip, backoff to 8, tracker reset", s, skip)
	}
}

// TestScalerGraphMatchesHost runs the compiled rule on a sequence of finite/inf steps beside the host rule.
func TestScalerGraphMatchesHost(t *testing.T) {
	ls := LossScaler{InitScale: 4, GrowthFactor: 2, GrowthInterval: 2, BackoffFactor: 0.5}
	exec := MustNewExec(goBackend(t), func(scale, tracker, finite *Node) (*Node, *Node) {
		return ls.updateGraph(scale, tracker, finite)
	})
	host := ScalerState{Scale: ls.InitScale}
	scale, tracker := tensors.FromScalar(float32(ls.InitScale)), tensors.FromScalar(int32(0))
	for i, finite := range []bool{true, true, true, false, true, true, false, false, true} {
		host, _ = ls.Update(host, finite)
		outs := exec.MustCall(scale, tracker, finite)
		scale, tracker = outs[0], outs[1]
		gs, gt := tensors.ToScalar[float32](scale), tensors.ToScalar[int32](tracker)
		if float64(gs) != host.Scale || int(gt) != host.Tracker {
			t.Fatalf("step %d (finite=%v): graph scale %v tracker %d, host %+v", i, finite, gs, gt, host)
		}
	}
}

// TestF16SkipsNonFiniteSteps: with a loss scale so large that float16 gradients overflow, the step is skipped —
// parameters and momenta unchanged, the scale halved, the skip counted — and training goes on once the scale has
// backed off, as with torch.amp.GradScaler.
func TestF16SkipsNonFiniteSteps(t *testing.T) {
	backend := goBackend(t)
	cfg := DefaultConfig()
	cfg.Precision, cfg.Batch, cfg.ImageSize, cfg.Input = F16, 8, 32, InputUint8Small
	cfg.Scaler.InitScale = 0x1p20 // overflows float16 (max 65504) in the backward pass; a power of 2 is exact
	tr, err := NewTrainer(backend, smallModel(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	images, labels := tinySet(8, 3)
	y := make([]int32, 8)
	for i := range y {
		y[i] = int32(labels[i])
	}
	x, yt := tensors.FromFlatDataAndDimensions(images, 8, 32, 32, 3), tensors.FromFlatDataAndDimensions(y, 8)
	before := tensors.MustCopyFlatData[float32](tr.Params()[0])
	if _, err := tr.Step(x, yt); err != nil {
		t.Fatal(err)
	}
	s, skipped, err := tr.ScalerState()
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 || s.Scale != 0x1p19 {
		t.Fatalf("after an overflowing step: skipped %d, scale %g; want 1 and 2¹⁹", skipped, s.Scale)
	}
	after := tensors.MustCopyFlatData[float32](tr.Params()[0])
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("a skipped step changed the stem kernel at %d: %v → %v", i, before[i], after[i])
		}
	}
	// Each overflowing step halves the scale; within a few dozen steps one must be taken (PyTorch's scaler settles
	// the same way), and then the loss is finite.
	for step := range 40 {
		_, skippedBefore, _ := tr.ScalerState()
		lossT, err := tr.Step(x, yt)
		if err != nil {
			t.Fatal(err)
		}
		s, skippedAfter, _ := tr.ScalerState()
		if skippedAfter == skippedBefore {
			loss, _ := Loss(lossT)
			if loss != loss {
				t.Fatalf("a step was taken with loss NaN")
			}
			t.Logf("first step taken at scale %g after %d skipped steps (loss %.3f)", s.Scale, skippedAfter, loss)
			return
		}
		if step == 39 {
			t.Fatalf("still skipping after 40 steps, scale %g", s.Scale)
		}
	}
}
