package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
	"github.com/gomlx-tutorials/trainopt/tutorial/pipeline"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

var inputs = map[string]struct {
	input  train.Input
	format pipeline.Format
}{
	"host-f32":      {train.InputFloat32, pipeline.Float32},
	"host-u8":       {train.InputUint8, pipeline.Uint8},
	"device-resize": {train.InputUint8Small, pipeline.Uint8Small},
	"device-data":   {train.InputDeviceData, pipeline.Uint8Small},
}

func cmdTrain(args []string) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	dataDir := fs.String("data", "data", "CIFAR-10 folder; without it, synthetic data is generated (and said)")
	real := fs.Bool("real", false, "fail instead of falling back to synthetic data")
	batch := fs.Int("batch", 128, "batch size")
	prec := fs.String("precision", "bf16", "f32, f16 (mixed, dynamic loss scaling) or bf16 (mixed)")
	steps := fs.Int("steps", 200, "timed training steps (after the first, compiling, step and the warm-up)")
	epochs := fs.Float64("epochs", 0, "train this many epochs instead of -steps (timed steps = epochs × images ÷ batch)")
	warmup := fs.Int("warmup", 10, "steps between the first call and the timed window")
	size := fs.Int("size", 224, "image side after resizing (224 in the tutorial)")
	width := fs.Float64("width", 1.0, "MobileNetV2 width multiplier (1.0 = torchvision's model)")
	input := fs.String("input", "device-resize", "host-f32 | host-u8 | device-resize | device-data")
	workers := fs.Int("workers", runtime.NumCPU(), "host loader goroutines (0 = build each batch when needed)")
	k := fs.Int("k", 1, "training steps per Execute (device-data only)")
	lr := fs.Float64("lr", 0.001, "SGD learning rate (momentum 0.9)")
	evalN := fs.Int("eval", 2000, "held-out images to evaluate at the end (0: skip)")
	nTrain := fs.Int("train-images", 0, "use only the first N training images (0: all)")
	if err := parse(fs, args); err != nil {
		return err
	}
	p, err := train.ParsePrecision(*prec)
	if err != nil {
		return usageError{err}
	}
	in, ok := inputs[*input]
	if !ok {
		return usageError{fmt.Errorf("unknown -input %q: want host-f32, host-u8, device-resize or device-data", *input)}
	}
	choice, err := backend.Discover()
	if err != nil {
		return err
	}
	trainSet, testSet, err := loadData(*dataDir, *real, *nTrain, *evalN)
	if err != nil {
		return err
	}
	if *epochs < 0 {
		return usageError{fmt.Errorf("-epochs must be ≥ 0, got %g", *epochs)}
	}
	if *epochs > 0 {
		*steps = max(1, int(*epochs*float64(trainSet.Len())/float64(*batch)))
		fmt.Fprintf(os.Stderr, "train: %g epochs of %d images at batch %d = %d steps\n", *epochs, trainSet.Len(), *batch, *steps)
	}
	cfg := train.DefaultConfig()
	cfg.Precision, cfg.Batch, cfg.Input, cfg.StepsPerCall, cfg.LR = p, *batch, in.input, *k, *lr
	step := ladder.Step{ID: "train", Name: fmt.Sprintf("%s batch %d, %s", p, *batch, in.input), Train: cfg,
		Feed:      pipeline.Config{Format: in.format, Batch: *batch, Workers: *workers, Upload: *workers > 0},
		SyncEvery: 1}
	model := mobilenet.Default()
	model.Width = *width
	var accuracy float64 = -1
	opt := ladder.Options{Model: model, ImageSize: *size, Warmup: *warmup, Steps: *steps, Progress: os.Stderr,
		OnTrainer: func(_ ladder.Step, tr *train.Trainer, _ *ladder.Result) {
			if *evalN > 0 {
				n := min(*evalN, testSet.Len())
				acc, err := tr.Evaluate(testSet.Images[:n*cifar.ImageSize], testSet.Labels[:n], n)
				if err != nil {
					fmt.Fprintf(os.Stderr, "evaluation failed: %v\n", err)
					return
				}
				accuracy = acc
			}
		}}
	res, err := ladder.Run(choice.Backend, step, trainSet, opt)
	if err != nil {
		return err
	}
	if line := choice.ExecutableCacheLine(); line != "" {
		fmt.Fprintln(os.Stderr, "train: "+line)
	}
	fmt.Printf("summary: %s on %s (%s)\n", step.Name, choice.Device, dataKind(trainSet))
	// The prefix up to the first "s" is what notebooks/nbutil reads back from recorded train logs.
	fmt.Printf("  first call (compile + autotune + 1 step): %.1f s (compile %.1f s + first execution %.1f s)\n",
		res.FirstCallS, res.CompileS, res.FirstExecutionS())
	fmt.Printf("  throughput: %.0f samples/s; step %.2f ms median (p10 %.2f, p90 %.2f) over %d steps\n",
		res.SamplesPerSec, res.StepMedianMs, res.StepP10Ms, res.StepP90Ms, *steps)
	fmt.Printf("  step split: data wait %.2f ms, transfer %.2f ms, compute %.2f ms, other %.2f ms\n",
		res.DataWaitMs, res.TransferMs, res.ComputeMs, res.OtherMs)
	fmt.Printf("  loss: %.4f → %.4f", res.LossFirst, res.LossLast)
	if p.Scaled() {
		fmt.Printf("; loss scale %g, %d skipped steps", res.LossScale, res.SkippedSteps)
	}
	fmt.Println()
	if accuracy >= 0 {
		fmt.Printf("  held-out accuracy: %.1f%% (%s)\n", 100*accuracy, dataKind(testSet))
	}
	if nanLoss(res) {
		return fmt.Errorf("training diverged: loss %v", res.LossLast)
	}
	return nil
}

func dataKind(s *cifar.Set) string {
	if s.Synthetic {
		return "SYNTHETIC data"
	}
	return "real CIFAR-10"
}

func nanLoss(r ladder.Result) bool { return r.LossLast != r.LossLast || r.LossFirst != r.LossFirst }
