package train

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/gobackend"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
)

func goBackend(t testing.TB) compute.Backend {
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tinySet is a learnable 32×32 uint8 set: each class has its own mean colour, plus noise.
func tinySet(n int, seed uint64) (images, labels []uint8) {
	rng := rand.New(rand.NewPCG(seed, 1))
	colors := [10][3]float64{}
	crng := rand.New(rand.NewPCG(99, 2))
	for c := range colors {
		for k := range 3 {
			colors[c][k] = 40 + 176*crng.Float64()
		}
	}
	images = make([]uint8, n*32*32*3)
	labels = make([]uint8, n)
	for i := range n {
		c := i % 10
		labels[i] = uint8(c)
		for p := range 32 * 32 {
			for k := range 3 {
				v := colors[c][k] + 30*rng.NormFloat64()
				images[(i*1024+p)*3+k] = uint8(min(255, max(0, math.Round(v))))
			}
		}
	}
	return
}

func smallModel() *mobilenet.Model {
	return mobilenet.New(mobilenet.Config{NumClasses: 10, Width: 0.25, Dropout: 0.2})
}

// TestTrainingLearns trains a narrow MobileNetV2 at 48×48 (resized on the device) on a learnable set for 50 steps
// on the pure-Go backend: the loss must fall and the held-out accuracy must end clearly above chance (10%).
// (At 32×32 the last blocks see 1×1 feature maps, batch norm's statistics over 16 values differ too much between
// training and evaluation, and accuracy measures that rather than learning.)
func TestTrainingLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few seconds")
	}
	backend := goBackend(t)
	images, labels := tinySet(640, 1)
	testImages, testLabels := tinySet(200, 2)
	cfg := DefaultConfig()
	cfg.Batch, cfg.ImageSize, cfg.Input, cfg.LR = 16, 48, InputUint8Small, 0.01
	tr, err := NewTrainer(backend, smallModel(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tr.CompileTime() != 0 {
		t.Errorf("CompileTime before the first step: %v, want 0", tr.CompileTime())
	}
	var losses []float64
	for step := range 50 {
		start := (step * cfg.Batch) % 640
		x := tensors.FromFlatDataAndDimensions(images[start*3072:(start+cfg.Batch)*3072], cfg.Batch, 32, 32, 3)
		y := make([]int32, cfg.Batch)
		for i := range y {
			y[i] = int32(labels[start+i])
		}
		lossT, err := tr.Step(x, tensors.FromFlatDataAndDimensions(y, cfg.Batch))
		if err != nil {
			t.Fatal(err)
		}
		loss, err := Loss(lossT)
		if err != nil || math.IsNaN(loss) || math.IsInf(loss, 0) {
			t.Fatalf("step %d: loss %v, err %v", step, loss, err)
		}
		losses = append(losses, loss)
		if step == 0 && tr.CompileTime() <= 0 {
			t.Errorf("CompileTime after the first step: %v, want > 0", tr.CompileTime())
		}
	}
	first, last := mean(losses[:5]), mean(losses[len(losses)-5:])
	t.Logf("loss %.3f → %.3f", first, last)
	if !(last < first*0.7) {
		t.Errorf("loss did not fall enough: first 5 steps %.3f, last 5 %.3f", first, last)
	}
	acc, err := tr.Evaluate(testImages, testLabels, 200)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held-out accuracy %.1f%%", 100*acc)
	if acc < 0.35 {
		t.Errorf("held-out accuracy %.1f%%, want clearly above chance (≥ 35%%)", 100*acc)
	}

	// Close frees the device state now; the trainer then says so instead of crashing.
	tr.Close()
	tr.Close() // twice is harmless
	x := tensors.FromFlatDataAndDimensions(images[:cfg.Batch*3072], cfg.Batch, 32, 32, 3)
	if _, err := tr.Step(x, tensors.FromFlatDataAndDimensions(make([]int32, cfg.Batch), cfg.Batch)); !errors.Is(err, errClosed) {
		t.Errorf("Step after Close: %v", err)
	}
	if _, err := tr.Evaluate(testImages, testLabels, 200); !errors.Is(err, errClosed) {
		t.Errorf("Evaluate after Close: %v", err)
	}
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
