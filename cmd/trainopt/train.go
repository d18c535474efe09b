package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

func cmdTrain(args []string) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	dataDir := fs.String("data", "data", "CIFAR-10 folder; without it, synthetic data is generated (and said)")
	real := fs.Bool("real", false, "fail instead of falling back to synthetic data")
	// The defaults: rung 7 (batches resized on the device, all cores loading, the upload overlapped) in bfloat16.
	cfg := ladder.Rung(7)
	cfg.Precision = train.BF16
	cfg.RegisterFlags(fs)
	steps := fs.Int("steps", 200, "timed training steps (after the first, compiling, step and the warm-up)")
	epochs := fs.Float64("epochs", 0, "train this many epochs instead of -steps (timed steps = epochs × images ÷ batch)")
	warmup := fs.Int("warmup", 10, "steps between the first call and the timed window")
	evalN := fs.Int("eval", 2000, "held-out images to evaluate at the end (0: skip)")
	nTrain := fs.Int("train-images", 0, "use only the first N training images (0: all)")
	jsonPath := fs.String("json", "", "also write the summary as JSON to this file (ladder.TrainRun; the notebooks "+
		"read assets/gpu-runs/*/train-*.json)")
	if err := parse(fs, args); err != nil {
		return err
	}
	// One validation layer before any work (validate.go): the measurement's numbers here, the rung's own rules
	// in ladder.Config.Validate.
	var c checks
	c.atLeast("steps", *steps, 1)
	c.finiteAtLeast("epochs", *epochs, 0)
	c.atLeast("warmup", *warmup, 0)
	c.atLeast("eval", *evalN, 0)
	c.atLeast("train-images", *nTrain, 0)
	c.config("the configuration (-batch, -size, -k, -input, -width, -workers, -lr)", cfg.Validate())
	if err := c.err("train"); err != nil {
		return err
	}
	keptOnInterrupt("nothing (train writes no files)", "the summary")
	choice, err := backend.Discover()
	if err != nil {
		return err
	}
	trainSet, testSet, err := loadData(*dataDir, *real, *nTrain, *evalN)
	if err != nil {
		return err
	}
	if cfg.Batch > trainSet.Len() { // the sampler drops a partial batch: a batch must fit in the set
		return usageError{fmt.Errorf("train: -batch %d is larger than the %d training images", cfg.Batch, trainSet.Len())}
	}
	if *epochs > 0 {
		*steps = max(1, int(*epochs*float64(trainSet.Len())/float64(cfg.Batch)))
		fmt.Fprintf(os.Stderr, "train: %g epochs of %d images at batch %d = %d steps\n", *epochs, trainSet.Len(), cfg.Batch, *steps)
	}
	step := cfg
	step.ID, step.Name, step.Why = ladder.StepID{Rung: "train"}, fmt.Sprintf("%s batch %d, %s", cfg.Precision, cfg.Batch, cfg.Input), ""
	p := cfg.Precision
	var accuracy float64 = -1
	opt := ladder.Options{Warmup: *warmup, Steps: *steps, Progress: os.Stderr, FastStart: choice.FastStartKernels(),
		OnTrainer: func(_ ladder.Config, tr *train.Trainer, _ *ladder.Result) {
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
	if *jsonPath != "" {
		run := &ladder.TrainRun{Conditions: ladder.NewConditions(choice, trainSet, step, opt, false), Config: step.Name,
			Result: res}
		run.Conditions.Batch, run.Conditions.Precision = step.Batch, string(step.Precision)
		if accuracy >= 0 {
			run.Accuracy = &accuracy
		}
		if err := run.Write(*jsonPath); err != nil {
			return err
		}
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
