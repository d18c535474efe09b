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

// trainOptions are `trainopt train`'s flags.
type trainOptions struct {
	dataDir, prec, input       string
	real                       bool
	batch, steps, warmup, size int
	workers, k, evalN, nTrain  int
	epochs, width, lr          float64
}

func (o *trainOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.dataDir, "data", "data", "CIFAR-10 folder; without it, synthetic data is generated (and said)")
	fs.BoolVar(&o.real, "real", false, "fail instead of falling back to synthetic data (or training on the synthetic stand-in)")
	fs.IntVar(&o.batch, "batch", 128, "batch size")
	fs.StringVar(&o.prec, "precision", "bf16", "f32, f16 (mixed, dynamic loss scaling) or bf16 (mixed)")
	fs.IntVar(&o.steps, "steps", 200, "timed training steps (after the first, compiling, step and the warm-up)")
	fs.Float64Var(&o.epochs, "epochs", 0, "train this many epochs instead of -steps (timed steps = epochs × images ÷ batch)")
	fs.IntVar(&o.warmup, "warmup", 10, "steps between the first call and the timed window")
	fs.IntVar(&o.size, "size", 224, "image side after resizing (224 in the tutorial)")
	fs.Float64Var(&o.width, "width", 1.0, fmt.Sprintf("MobileNetV2 width multiplier (1.0 = torchvision's model; %g to %g)",
		mobilenet.MinWidth, mobilenet.MaxWidth))
	fs.StringVar(&o.input, "input", "device-resize", "host-f32 | host-u8 | device-resize | device-data")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "host loader goroutines (0 = build each batch when needed)")
	fs.IntVar(&o.k, "k", 1, "training steps per Execute (device-data only)")
	fs.Float64Var(&o.lr, "lr", 0.001, "SGD learning rate (momentum 0.9)")
	fs.IntVar(&o.evalN, "eval", 2000, "held-out images to evaluate at the end (0: skip)")
	fs.IntVar(&o.nTrain, "train-images", 0, "use only the first N training images (0: all)")
}

// config is the training configuration and model the flags describe.
func (o *trainOptions) config() (train.Config, mobilenet.Config) {
	cfg := train.DefaultConfig()
	p, _ := train.ParsePrecision(o.prec) // validate reports a bad one
	cfg.Precision, cfg.Batch, cfg.StepsPerCall, cfg.LR, cfg.ImageSize = p, o.batch, o.k, o.lr, o.size
	cfg.Input = inputs[o.input].input
	model := mobilenet.Default()
	model.Width = o.width
	return cfg, model
}

// validate checks the flags before any work (see validate.go).
func (o *trainOptions) validate() error {
	var c checks
	_, precErr := train.ParsePrecision(o.prec)
	c.add(precErr)
	_, inputOK := inputs[o.input]
	if !inputOK {
		c.failf("unknown -input %q: want host-f32, host-u8, device-resize or device-data", o.input)
	}
	c.atLeast("steps", o.steps, 1)
	c.finiteAtLeast("epochs", o.epochs, 0)
	c.atLeast("warmup", o.warmup, 0)
	c.atLeast("workers", o.workers, 0)
	c.atLeast("eval", o.evalN, 0)
	c.atLeast("train-images", o.nTrain, 0)
	c.positive("lr", o.lr)
	cfg, model := o.config()
	if precErr == nil && inputOK { // the configuration's own rules: -batch, -size, -k (with -input)
		c.config("the training configuration (-batch, -size, -k, -input)", cfg.Validate())
	}
	c.config("the model (-width)", model.Validate())
	return c.err("train")
}

// fits checks the flags against the training set: a batch must fit in it (the sampler drops a partial batch).
func (o *trainOptions) fits(set *cifar.Set) error {
	if o.batch > set.Len() {
		return usageError{fmt.Errorf("train: -batch %d is larger than the %d training images", o.batch, set.Len())}
	}
	return nil
}

func cmdTrain(args []string) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	var o trainOptions
	o.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	keptOnInterrupt("nothing (train writes no files)", "the summary")
	choice, err := backend.Discover()
	if err != nil {
		return err
	}
	trainSet, testSet, err := loadData(o.dataDir, o.real, o.nTrain, o.evalN)
	if err != nil {
		return err
	}
	if err := o.fits(trainSet); err != nil {
		return err
	}
	steps := o.steps
	if o.epochs > 0 {
		steps = max(1, int(o.epochs*float64(trainSet.Len())/float64(o.batch)))
		fmt.Fprintf(os.Stderr, "train: %g epochs of %d images at batch %d = %d steps\n", o.epochs, trainSet.Len(), o.batch, steps)
	}
	cfg, model := o.config()
	p, in := cfg.Precision, inputs[o.input]
	step := ladder.Step{ID: "train", Name: fmt.Sprintf("%s batch %d, %s", p, o.batch, in.input), Train: cfg,
		Feed:      pipeline.Config{Format: in.format, Batch: o.batch, Workers: o.workers, Upload: o.workers > 0},
		SyncEvery: 1}
	var accuracy float64 = -1
	opt := ladder.Options{Model: model, ImageSize: o.size, Warmup: o.warmup, Steps: steps, Progress: os.Stderr,
		OnTrainer: func(_ ladder.Step, tr *train.Trainer, _ *ladder.Result) {
			if o.evalN > 0 {
				n := min(o.evalN, testSet.Len())
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
		res.SamplesPerSec, res.StepMedianMs, res.StepP10Ms, res.StepP90Ms, steps)
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
