package train_test

import (
	"fmt"
	"math"

	"github.com/gomlx/compute/gobackend"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// ParsePrecision reads a precision policy as the CLI's -precision flag takes it.
func ExampleParsePrecision() {
	for _, s := range []string{"fp32", "amp", "bfloat16"} {
		p, err := train.ParsePrecision(s)
		if err != nil {
			panic(err)
		}
		fmt.Println(s, "→", p, p.DType(), "loss scaling:", p.Scaled())
	}
	_, err := train.ParsePrecision("int8")
	fmt.Println(err)
	// Output:
	// fp32 → f32 Float32 loss scaling: false
	// amp → f16 Float16 loss scaling: true
	// bfloat16 → bf16 BFloat16 loss scaling: false
	// unknown precision "int8": want f32, f16 or bf16
}

// Update is GradScaler's rule, the host reference of what the compiled step does: halve the scale and skip the
// step on an inf/NaN gradient, double it after GrowthInterval finite steps in a row.
func ExampleLossScaler_Update() {
	ls := train.DefaultScaler()
	ls.GrowthInterval = 3 // 2000 in GradScaler; 3 to see it grow here
	s := train.ScalerState{Scale: ls.InitScale}
	for _, finite := range []bool{true, false, true, true, true} {
		var skip bool
		s, skip = ls.Update(s, finite)
		fmt.Printf("finite %-5v → scale %6.0f, tracker %d, skip %v\n", finite, s.Scale, s.Tracker, skip)
	}
	// Output:
	// finite true  → scale  65536, tracker 1, skip false
	// finite false → scale  32768, tracker 0, skip true
	// finite true  → scale  32768, tracker 1, skip false
	// finite true  → scale  32768, tracker 2, skip false
	// finite true  → scale  65536, tracker 0, skip false
}

// A Trainer is the compiled step; Step runs it once on a batch the host made. Here a quarter-width MobileNetV2 on
// four 32×32 uint8 images, resized and normalised on the device, on GoMLX's pure-Go backend.
func ExampleTrainer_Step() {
	backend, err := gobackend.New("")
	if err != nil {
		panic(err)
	}
	defer backend.Finalize()
	cfg := train.DefaultConfig()
	cfg.Batch, cfg.ImageSize, cfg.Input = 4, 32, train.InputUint8Small
	model := mobilenet.New(mobilenet.Config{NumClasses: 10, Width: 0.25})
	tr, err := train.NewTrainer(backend, model, cfg)
	if err != nil {
		panic(err)
	}
	defer tr.Close()

	set, _ := cifar.Synthetic(4, 0, cifar.SyntheticSeed)
	labels := make([]int32, 4)
	cifar.GatherLabels(set, []int{0, 1, 2, 3}, labels)
	x := tensors.FromFlatDataAndDimensions(set.Images, 4, 32, 32, 3)
	loss, err := tr.Step(x, tensors.FromFlatDataAndDimensions(labels, 4))
	if err != nil {
		panic(err)
	}
	l, err := train.Loss(loss) // reading the loss is a sync
	if err != nil {
		panic(err)
	}
	fmt.Printf("first loss ≈ ln 10: %v\n", math.Abs(l-math.Log(10)) < 0.5)
	// Output:
	// first loss ≈ ln 10: true
}

// A Loop runs a Trainer's step again and again, with hooks: here over a device-resident dataset (no host work per
// step), the loss read every 2 calls, an after-step hook and a timing-window hook.
func ExampleLoop() {
	backend, err := gobackend.New("")
	if err != nil {
		panic(err)
	}
	defer backend.Finalize()
	cfg := train.DefaultConfig()
	cfg.Batch, cfg.ImageSize, cfg.Input, cfg.LR = 4, 32, train.InputDeviceData, 0.01
	tr, err := train.NewTrainer(backend, mobilenet.New(mobilenet.Config{NumClasses: 10, Width: 0.25}), cfg)
	if err != nil {
		panic(err)
	}
	defer tr.Close()
	set, _ := cifar.Synthetic(16, 0, cifar.SyntheticSeed)
	if err := tr.SetDeviceData(set.Images, set.Labels, set.Len()); err != nil {
		panic(err)
	}

	loop := train.NewLoop(tr, nil, 2) // nil Next: the batches come from the device
	loop.OnWindow(func() func() {
		fmt.Println("window starts")
		return func() { fmt.Println("window ends") }
	})
	loop.OnStep(func(s train.StepInfo) error {
		if s.InWindow {
			fmt.Printf("timed call %d of %d\n", s.Call+1, s.Calls) // Call counts from 0
		}
		return nil
	})
	if err := loop.Run(2); err != nil { // the first (compiling) call and one warm-up call
		panic(err)
	}
	w, err := loop.TimeWindow(2)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(w.Timings), "timings,", len(loop.Losses), "losses read")
	// Output:
	// window starts
	// timed call 1 of 2
	// timed call 2 of 2
	// window ends
	// 2 timings, 4 losses read
}
