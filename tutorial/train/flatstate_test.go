package train

import (
	"math"
	"os"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	_ "github.com/gomlx/gomlx/backends/default" // XLA, for the GPU machine's run of this test (GOMLX_BACKEND)
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestFlatLayout: pack puts each group's tensors end to end in order, unpack gives back every tensor with its
// shape and values, and the state past the two groups passes untouched.
func TestFlatLayout(t *testing.T) {
	a := tensors.FromFlatDataAndDimensions([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := tensors.FromFlatDataAndDimensions([]float32{7, 8}, 2)
	c := tensors.FromFlatDataAndDimensions([]float32{9, 10, 11, 12}, 1, 2, 1, 2)
	d := tensors.FromFlatDataAndDimensions([]int32{13}, 1)
	l := flatLayout{groups: [2][]shapes.Shape{{a.Shape(), b.Shape()}, {c.Shape()}}}
	exec, err := NewExec(goBackend(t), func(a, b, c, d *Node) []*Node {
		state := []*Node{a, b, c, d}
		packed := l.pack(state)
		return append(packed, l.unpack(packed)...)
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := exec.Call(a, b, c, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 3+4 {
		t.Fatalf("%d outputs, want 3 packed + 4 unpacked", len(outs))
	}
	if got := tensors.MustCopyFlatData[float32](outs[0]); !equal(got, []float32{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("parameters packed %v", got)
	}
	if got := tensors.MustCopyFlatData[float32](outs[1]); !equal(got, []float32{9, 10, 11, 12}) {
		t.Errorf("momenta packed %v", got)
	}
	for i, want := range []*tensors.Tensor{a, b, c, d} {
		got := outs[3+i]
		if !got.Shape().Equal(want.Shape()) {
			t.Errorf("tensor %d unpacked as %s, want %s", i, got.Shape(), want.Shape())
		}
	}
	if got := tensors.MustCopyFlatData[float32](outs[5]); !equal(got, []float32{9, 10, 11, 12}) {
		t.Errorf("c unpacked %v", got)
	}
	if got := tensors.MustCopyFlatData[int32](outs[6]); got[0] != 13 {
		t.Errorf("the rest of the state changed: %v", got)
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTrainerFlatLayout: the trainer's layout names its state as NewTrainer builds it — every parameter, then
// every trainable one's momentum, all float32, in order — and a flat state without a While loop is refused.
func TestTrainerFlatLayout(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Input, cfg.StepsPerCall, cfg.FlatState = InputDeviceData, 1, true
	if err := cfg.Validate(); err == nil {
		t.Error("FlatState with 1 step per call: want an error")
	}
	buildOnlyWhile = true
	defer func() { buildOnlyWhile = false }()
	cfg.StepsPerCall = 3
	tr, err := NewTrainer(goBackend(t), smallModel(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := tr.flatLayout()
	if l.size() != len(tr.Model.Params)+len(tr.trainable) || len(tr.state) != l.size()+4 {
		t.Fatalf("layout of %d tensors for %d parameters, %d momenta and %d state tensors", l.size(),
			len(tr.Model.Params), len(tr.trainable), len(tr.state))
	}
	for i, s := range append(l.groups[0], l.groups[1]...) {
		if !s.Equal(tr.state[i].Shape()) {
			t.Errorf("state tensor %d is %s, the layout says %s", i, tr.state[i].Shape(), s)
		}
	}
}

// TestFlatStateMatchesTensors trains the same K-step calls with the state as tensors and packed flat: the same
// arithmetic in another layout, so the losses and parameters must agree. It needs a backend that runs While
// loops: the GPU machine runs this package's test binary with GOMLX_BACKEND pointing at the CUDA plugin.
func TestFlatStateMatchesTensors(t *testing.T) {
	if os.Getenv("GOMLX_BACKEND") == "" {
		t.Skip("needs XLA (GOMLX_BACKEND): the pure-Go backend runs no While loop")
	}
	backend, err := compute.New()
	if err != nil {
		t.Fatal(err)
	}
	if !IsXLA(backend) { // GOMLX_BACKEND=go, the CPU path the tests are run with
		t.Skipf("needs XLA: %s runs no While loop", backend.Description())
	}
	images, labels := tinySet(96, 4)
	run := func(flat bool) (losses []float64, params [][]float32) {
		cfg := DefaultConfig()
		cfg.Precision, cfg.Batch, cfg.ImageSize, cfg.Input, cfg.StepsPerCall, cfg.LR = BF16, 8, 48, InputDeviceData, 4, 0.01
		cfg.FlatState = flat
		tr, err := NewTrainer(backend, smallModel(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		if err := tr.SetDeviceData(images, labels, 96); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			l, err := tr.StepDevice()
			if err != nil {
				t.Fatalf("flat %v: %v", flat, err)
			}
			v, _ := Loss(l)
			losses = append(losses, v)
		}
		for _, p := range tr.Params() {
			params = append(params, tensors.MustCopyFlatData[float32](p))
		}
		return losses, params
	}
	lossT, paramsT := run(false)
	lossF, paramsF := run(true)
	for i := range lossT {
		if math.Abs(lossT[i]-lossF[i]) > 1e-4*math.Max(1, math.Abs(lossT[i])) {
			t.Errorf("call %d: loss %.6f as tensors, %.6f flat", i, lossT[i], lossF[i])
		}
	}
	worst := 0.0
	for i := range paramsT {
		for j := range paramsT[i] {
			worst = math.Max(worst, math.Abs(float64(paramsT[i][j]-paramsF[i][j])))
		}
	}
	if worst > 1e-4 {
		t.Errorf("parameters differ by up to %g", worst)
	}
	t.Logf("losses %.5f (tensors) %.5f (flat); largest parameter difference %g", lossT, lossF, worst)
}
