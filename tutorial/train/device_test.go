package train

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
)

// TestDeviceResidentSteps: the dataset lives on the device, batches are shuffled and gathered there, and with
// StepsPerCall > 1 several steps run inside one Execute (a While loop). Both must train.
func TestDeviceResidentSteps(t *testing.T) {
	backend := goBackend(t)
	images, labels := tinySet(64, 4)
	for _, k := range []int{1, 3} {
		if k > 1 && !IsXLA(backend) {
			cfg := DefaultConfig()
			cfg.Input, cfg.StepsPerCall = InputDeviceData, k
			if _, err := NewTrainer(backend, smallModel(), cfg); err == nil {
				t.Errorf("K=%d on %s: want a clear error", k, backend)
			}
			continue // the While path is checked by the GPU test binary on XLA
		}
		cfg := DefaultConfig()
		cfg.Precision, cfg.Batch, cfg.ImageSize, cfg.Input, cfg.StepsPerCall, cfg.LR = BF16, 8, 32, InputDeviceData, k, 0.01
		tr, err := NewTrainer(backend, smallModel(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.SetDeviceData(images, labels, 64); err != nil {
			t.Fatal(err)
		}
		before := tensors.MustCopyFlatData[float32](tr.Params()[0])
		var losses []float64
		for range 12 / k {
			lossT, err := tr.StepDevice()
			if err != nil {
				t.Fatalf("K=%d: %v", k, err)
			}
			loss, _ := Loss(lossT)
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				t.Fatalf("K=%d: loss %v", k, loss)
			}
			losses = append(losses, loss)
		}
		after := tensors.MustCopyFlatData[float32](tr.Params()[0])
		changed := 0
		for i := range before {
			if before[i] != after[i] {
				changed++
			}
		}
		if changed == 0 {
			t.Errorf("K=%d: parameters did not change", k)
		}
		t.Logf("K=%d losses %.3v", k, losses)
	}
}

// TestConfigErrors: configurations that cannot be built say why.
func TestConfigErrors(t *testing.T) {
	cfg := DefaultConfig()
	cfg.StepsPerCall = 4
	if err := cfg.Validate(); err == nil {
		t.Error("StepsPerCall 4 with host input should be rejected")
	}
	cfg = DefaultConfig()
	cfg.Batch = 0
	if err := cfg.Validate(); err == nil {
		t.Error("batch 0 should be rejected")
	}
	if _, err := ParsePrecision("fp8"); err == nil {
		t.Error("fp8 should be rejected")
	}
}

// TestStepGraphAfterDeviceSteps: the compiled step can be fetched (for its memory statistics) after device-data
// steps, whose state tensors were donated — a regression: shapes read after donation were invalid.
func TestStepGraphAfterDeviceSteps(t *testing.T) {
	images, labels := tinySet(64, 4)
	cfg := DefaultConfig()
	cfg.Precision, cfg.Batch, cfg.ImageSize, cfg.Input = BF16, 8, 32, InputDeviceData
	tr, err := NewTrainer(goBackend(t), smallModel(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.StepGraph(); err == nil {
		t.Error("StepGraph before the first step should say it is not compiled yet")
	}
	if err := tr.SetDeviceData(images, labels, 64); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := tr.StepDevice(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.StepGraph(); err != nil {
		t.Fatal(err)
	}
}

// TestWhileStepsStayInTheirFunction builds (without running) the K-steps-per-call program and checks what XLA's
// builder requires and the pure-Go backend does not: no operation uses a value of another function (a While body
// reading the enclosing function's nodes, or a constant cached in one scope reused in another).
// It runs for the plain model and for one with every formulation of the ladder's later steps (and the
// experiments), whose shifted products and pads build constants of their own inside the loop body.
func TestWhileStepsStayInTheirFunction(t *testing.T) {
	buildOnlyWhile = true
	defer func() { buildOnlyWhile = false }()
	models := []*mobilenet.Model{smallModel()}
	for _, f := range []string{
		"reduction-row=64,relu6=masked,bn=float32,stem-channels=8",        // the ladder's last step
		"dw-forward=shifted,dw-input-grad=shifted,dw-kernel-grad=shifted", // the experiments
		"dw-input-grad=phases",
		"reduction-row=256,bn-sums=joint,stem=patches", // options measured past the ladder
	} {
		cfg := smallModel().Config
		if err := cfg.SetFormulation(f); err != nil {
			t.Fatal(err)
		}
		models = append(models, mobilenet.New(cfg))
	}
	for _, model := range models {
		name := model.Formulation()
		if name == "" {
			name = "plain"
		}
		t.Run(name, func(t *testing.T) { checkWhileStaysInFunction(t, model, false) })
	}
	t.Run("state=flat", func(t *testing.T) { checkWhileStaysInFunction(t, models[1], true) })
}

func checkWhileStaysInFunction(t *testing.T, model *mobilenet.Model, flat bool) {
	images, labels := tinySet(64, 4)
	cfg := DefaultConfig()
	cfg.Precision, cfg.Batch, cfg.ImageSize, cfg.Input, cfg.StepsPerCall = F16, 8, 32, InputDeviceData, 3
	cfg.FlatState = flat
	tr, err := NewTrainer(goBackend(t), model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.SetDeviceData(images, labels, 64); err != nil {
		t.Fatal(err)
	}
	var argShapes []shapes.Shape
	for _, s := range tr.state {
		argShapes = append(argShapes, s.Shape())
	}
	argShapes = append(argShapes, tr.data.images.Shape(), tr.data.labels.Shape(), tr.data.perm.Shape(), shapes.Make(dtypes.Int32))
	g, err := tr.step.Compile(argShapes...)
	if err != nil {
		t.Fatal(err)
	}
	closures := 0
	for _, n := range g.Nodes() {
		if n == nil {
			continue
		}
		if !n.Function().IsMain() {
			closures++
		}
		for _, in := range n.Inputs() {
			if in.Function() != n.Function() {
				t.Fatalf("node %s in function %q uses %s from function %q", n, n.Function().Name(), in, in.Function().Name())
			}
		}
	}
	if closures == 0 {
		t.Fatal("no node inside a closure: the While loop was not built")
	}
}
