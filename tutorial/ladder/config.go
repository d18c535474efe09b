package ladder

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
	"github.com/gomlx-tutorials/trainopt/tutorial/pipeline"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// Config is everything one rung is, in one plain value: where the batches come from and how the host builds
// them, in which form they reach the device, the precision, the batch, the steps per Execute and the model's
// formulation. The two halves the packages below need — the host pipeline's pipeline.Config and the compiled
// step's train.Config — are derived from it ([Config.Feed], [Config.Train]) and never set by hand, so they
// cannot disagree. A rung is the previous rung plus one edit of this struct ([Rung]).
type Config struct {
	ID        StepID // "1".."14", "@B" for batch variants, "+formulation" for experiments
	Name, Why string

	// Host pipeline (unused when Input is train.InputDeviceData): loader goroutines (0: build each batch in the
	// step's goroutine, like num_workers=0) and whether those workers also copy the batch to the device.
	Workers int
	Upload  bool

	// Device input stage and the compiled step.
	Input        train.Input // the form a batch reaches the step in: what the device does to it
	Precision    train.Precision
	Batch        int
	ImageSize    int  // the side the model sees (224; smaller at smoke sizes)
	StepsPerCall int  // K training steps per Execute (a While loop; device-resident data only)
	FlatState    bool // the K-step loop carries parameters and momenta as one vector each (train.Config.FlatState)
	LR           float64
	// SyncEvery reads the loss back every N calls (1: every step, like loss.item() in the tutorial's loop).
	SyncEvery int

	// Model is the network and its formulation (batch-norm reduction row, ReLU6 gradient, depthwise forms…).
	Model mobilenet.Config
}

// Baseline is rung 1, the tutorial's starting point: float32, batch 32, one loader goroutine that resizes and
// normalises every batch on the host while the GPU waits; torchvision's MobileNetV2 at 224 px.
func Baseline() Config {
	t := train.DefaultConfig()
	return Config{ID: StepID{Rung: "1"}, Name: "baseline: f32, batch 32, 1 loader goroutine",
		Why:   "the tutorial's starting point: every batch is resized and normalised on the host while the GPU waits",
		Input: t.Input, Precision: t.Precision, Batch: t.Batch, ImageSize: t.ImageSize, StepsPerCall: t.StepsPerCall,
		LR: t.LR, SyncEvery: 1, Model: mobilenet.Default()}
}

// Train is the compiled step's half of the configuration: train.DefaultConfig (momentum, loss scaler, seed)
// with this rung's precision, batch, size, input form, steps per call and learning rate.
func (c Config) Train() train.Config {
	t := train.DefaultConfig()
	t.Precision, t.Batch, t.ImageSize, t.Input, t.StepsPerCall, t.LR = c.Precision, c.Batch, c.ImageSize, c.Input,
		c.StepsPerCall, c.LR
	t.FlatState = c.FlatState
	return t
}

// Feed is the host pipeline's half: the batch format follows the device input stage (what the device does not
// do, the host must), the batch and size follow the step. Upload needs a worker to overlap with the step.
func (c Config) Feed() pipeline.Config {
	return pipeline.Config{Format: formatFor(c.Input), Batch: c.Batch, Size: c.ImageSize, Workers: c.Workers,
		Upload: c.Upload && c.Workers > 0}
}

// Validate checks the rung's own rules, each where it lives: the compiled step's (batch, size, steps per call,
// input), the model's (width, reduction row, stem) and the host pipeline's (workers, learning rate, loss reads).
func (c Config) Validate() error {
	var errs []error
	if err := c.Train().Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Model.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Workers < 0 {
		errs = append(errs, fmt.Errorf("%d loader goroutines: want 0 or more", c.Workers))
	}
	if !(c.LR > 0) || math.IsInf(c.LR, 0) {
		errs = append(errs, fmt.Errorf("learning rate %g: want a positive number", c.LR))
	}
	if c.SyncEvery < 1 {
		errs = append(errs, fmt.Errorf("loss read every %d calls: want 1 or more", c.SyncEvery))
	}
	return errors.Join(errs...)
}

// DeviceData reports whether the whole dataset lives on the device (no host pipeline at all).
func (c Config) DeviceData() bool { return c.Input == train.InputDeviceData }

// formatFor is the host batch format that feeds an input stage.
func formatFor(in train.Input) pipeline.Format {
	switch in {
	case train.InputFloat32:
		return pipeline.Float32
	case train.InputUint8:
		return pipeline.Uint8
	}
	return pipeline.Uint8Small // InputUint8Small; InputDeviceData uploads the 32×32 set once
}

// TrainerKey is what decides the compiled program and the trainer's state: two configurations with the same key
// (rungs 4, 5, 5b and 6 differ only on the host) can share one trainer. It is comparable, so it keys a map.
type TrainerKey struct {
	Train train.Config
	Model mobilenet.Config
}

// TrainerKey is this configuration's [TrainerKey].
func (c Config) TrainerKey() TrainerKey { return TrainerKey{Train: c.Train(), Model: c.Model} }

// WithFormulation is c with a formulation (mobilenet.Config.SetFormulation's text form, e.g. the CLI's -model
// flag) applied on top of its own, saying so in its ID ("13@512+relu6=clip") and name, so an experiment's
// results can never pass for the ladder's. One key belongs to the training step, not the model: state=flat
// (train.Config.FlatState); the others are the model's.
func (c Config) WithFormulation(text string) (Config, error) {
	if text == "" {
		return c, nil
	}
	var model []string
	for part := range strings.SplitSeq(text, ",") {
		switch strings.TrimSpace(part) {
		case StateFlat:
			c.FlatState = true
		case StateTensors:
			c.FlatState = false
		default:
			if strings.HasPrefix(strings.TrimSpace(part), "state=") {
				return c, fmt.Errorf("formulation %q: state is %s or %s", part, StateTensors, StateFlat)
			}
			model = append(model, part)
		}
	}
	if err := c.Model.SetFormulation(strings.Join(model, ",")); err != nil {
		return c, err
	}
	c.ID.Formulation = text
	c.Name += " [" + text + "]"
	return c, nil
}

// excerpt: fast-start

// WithFastStart is c as fast-start mode runs it (backend.FastStartKernels): its depthwise convolutions by the
// Triton kernels (mobilenet.FastestDepthwise: rows, with batch norm's prologue) and its projections by the Triton
// kernels that apply the batch norm and ReLU6 before them as they load (project-prologue), where c leaves them to
// XLA's defaults, so that a new process's first execution builds no cuDNN depthwise plans. A depthwise formulation
// chosen on purpose is kept. changed says whether it changed c. The ID stays the rung's: the function is the
// same, and the result says fast start.
func (c Config) WithFastStart() (fast Config, changed bool) {
	if c.Model.Depthwise != (mobilenet.DepthwiseForm{}) {
		return c, false
	}
	c.Model.Depthwise = mobilenet.FastestDepthwise()
	// The projections' prologue (project-prologue=bn-relu6) runs Triton kernels where these do, and made the step
	// faster at 512 and 128 on the H100 (assets/gpu-runs/2026-12-07-h100-run74).
	c.Model.ProjectPrologue = true
	return c, true
}

// excerpt end

// The training step's formulation key: the K-step loop's state as tensors (the default) or packed flat.
const (
	StateTensors = "state=tensors"
	StateFlat    = "state=flat"
)

// Formulation is the text form of everything c computes differently from the plain model and step: the model's
// formulation, then state=flat when set.
func (c Config) Formulation() string {
	f := c.Model.Formulation()
	if c.FlatState {
		f = strings.TrimPrefix(f+","+StateFlat, ",")
	}
	return f
}

// Smoke is c shrunk for a CPU: the same input path, precision and steps per call, but a quarter-width
// MobileNetV2 at 48 px with batch 16 and learning rate 0.01, so CI can check in minutes that each rung trains.
// (At 32 px the last blocks see 1×1 maps and batch norm over 16 values is all noise.)
func (c Config) Smoke() Config {
	c.Batch, c.LR, c.ImageSize, c.Model.Width = 16, 0.01, 48, 0.25
	return c
}

// SmokeTrainImages is how many training images a smoke run uses.
const SmokeTrainImages = 2000
