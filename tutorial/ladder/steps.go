// Package ladder is the tutorial's optimisation ladder: each optimisation is a named, cumulative configuration
// (a train.Config plus how the host feeds it), a runner that measures it honestly (warm-up, a timed window,
// median and spread, compile time apart, the step time split into data wait / transfer / compute), and the
// results file that the README, the plots and the notebooks read.
package ladder

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
	"github.com/gomlx-tutorials/trainopt/tutorial/pipeline"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// Step is one rung: a configuration plus one sentence of why.
type Step struct {
	ID    string // "1".."10", with "@B" for batch variants ("10@512")
	Name  string
	Why   string
	Train train.Config
	Feed  pipeline.Config // ignored when Train.Input is InputDeviceData
	// SyncEvery reads the loss back every N steps (1: every step, like loss.item() in the tutorial's loop).
	SyncEvery int
	// Model, if set, changes the model's formulation for this step (Options.Model is the starting point):
	// steps past 10 change how the same network is computed, not what it is.
	Model func(*mobilenet.Config)
}

// ReductionRow is the row width of batch norm's sums from step 11 on (mobilenet.Config.ReductionRow); the
// CLI's -reduction-row sets it for experiments.
var ReductionRow = 1024

// andModel adds a model change on top of the ones the step inherited (the ladder is cumulative).
func (s *Step) andModel(change func(*mobilenet.Config)) {
	prev := s.Model
	s.Model = func(m *mobilenet.Config) {
		if prev != nil {
			prev(m)
		}
		change(m)
	}
}

// ModelConfig is the model this step trains: base with the step's changes.
func (s Step) ModelConfig(base mobilenet.Config) mobilenet.Config {
	if s.Model != nil {
		s.Model(&base)
	}
	return base
}

// Ladder returns the cumulative steps. workersMax is "all cores" for step 5b; batches lists the batch sizes of the
// steps from 9 on, e.g. 128, 256, 512.
func Ladder(workersMax int, batches []int, stepsPerCall int) []Step {
	if workersMax < 1 {
		workersMax = runtime.NumCPU()
	}
	base := train.DefaultConfig()
	s1 := Step{ID: "1", Name: "baseline: f32, batch 32, 1 loader goroutine",
		Why:   "the tutorial's starting point: every batch is resized and normalised on the host while the GPU waits",
		Train: base, Feed: pipeline.Config{Format: pipeline.Float32, Batch: 32, Size: 224}, SyncEvery: 1}
	s2 := s1.with("2", "+ mixed precision f16 (loss scaling)",
		"convolutions in float16 run on tensor cores and move half the bytes", func(s *Step) { s.Train.Precision = train.F16 })
	s3 := s2.with("3", "+ batch 128", "larger launches amortise per-step overhead and fill the GPU",
		func(s *Step) { s.Train.Batch, s.Feed.Batch = 128, 128 })
	s4 := s3.with("4", "+ uint8 host→device, normalise on device",
		"a uint8 batch is 4× smaller on the bus than float32, and normalising is free on the GPU", func(s *Step) {
			s.Train.Input, s.Feed.Format = train.InputUint8, pipeline.Uint8
		})
	s5 := s4.with("5", "+ 2 loader goroutines", "the host pipeline was the bottleneck: build batches in parallel",
		func(s *Step) { s.Feed.Workers = 2 })
	s5b := s5.with("5b", fmt.Sprintf("+ %d loader goroutines (all cores)", workersMax),
		"more workers while the host is still the bottleneck", func(s *Step) { s.Feed.Workers = workersMax })
	s6 := s5b.with("6", "+ transfer overlapped with compute",
		"workers also upload the batch, so the next one is on the device when a step ends (pin_memory + non_blocking)",
		func(s *Step) { s.Feed.Upload = true })
	s7 := s6.with("7", "+ resize on the device",
		"32×32 uint8 crosses the bus (49× fewer bytes than 224²) and the GPU resizes with two small matrix products",
		func(s *Step) { s.Train.Input, s.Feed.Format = train.InputUint8Small, pipeline.Uint8Small })
	s8 := s7.with("8", "+ device-resident dataset",
		"the whole uint8 training set lives on the GPU; shuffling and gathering happen there: no host work per step",
		func(s *Step) { s.Train.Input = train.InputDeviceData })
	steps := []Step{s1, s2, s3, s4, s5, s5b, s6, s7, s8}
	for _, b := range batches {
		s9 := s8.with("9", fmt.Sprintf("+ bf16, loss read every 25 steps, batch %d", b),
			"bfloat16 needs no loss scaling; no device→host read per step; a larger batch fills the GPU",
			func(s *Step) { s.Train.Precision, s.Train.Batch, s.SyncEvery = train.BF16, b, 25 })
		s10 := s9.with("10", fmt.Sprintf("+ %d steps per Execute (While loop), batch %d", stepsPerCall, b),
			"go-xla's Execute waits for the GPU, so per-call host work idles it: K steps per call pay it once",
			func(s *Step) { s.Train.StepsPerCall = stepsPerCall })
		s11 := s10.with("11", fmt.Sprintf("+ batch-norm sums over wide rows, batch %d", b),
			"the profile's reductions are batch norm's sums over narrow channel rows: read the same bytes as rows of "+
				"~1024 values and XLA's reduction kernels stream them", func(s *Step) {
				s.Model = func(m *mobilenet.Config) { m.ReductionRow = ReductionRow }
			})
		s12 := s11.with("12", fmt.Sprintf("+ ReLU6 gradient as a mask, batch %d", b),
			"GoMLX differentiates ReLU6's Min and Max with four sign() calls per element; PyTorch's hardtanh_backward "+
				"is one comparison pair", func(s *Step) {
				s.andModel(func(m *mobilenet.Config) { m.MaskedReLU6 = true })
			})
		s13 := s12.with("13", fmt.Sprintf("+ batch norm applied in float32, batch %d", b),
			"the backward sums Σdy and Σdy·x accumulated in bfloat16; in float32 (as cuDNN does) they are exact to "+
				"float32 — better numerics for 2–6% of the step on the H200", func(s *Step) {
				s.andModel(func(m *mobilenet.Config) { m.NormalizeFloat32 = true })
			})
		s14 := s13.with("14", fmt.Sprintf("+ stem input padded to 8 channels, batch %d", b),
			"cuDNN has no tensor-core kernel for a 3-channel input, so the first convolution ran on a generic "+
				"one; five zero channels make it an ordinary implicit GEMM", func(s *Step) {
				s.andModel(func(m *mobilenet.Config) { m.StemChannels = 8 })
			})
		batchSteps := []*Step{&s9, &s10, &s11, &s12, &s13, &s14}
		for _, s := range batchSteps {
			if len(batches) > 1 || b != 128 {
				s.ID = fmt.Sprintf("%s@%d", s.ID, b)
			}
			steps = append(steps, *s)
		}
	}
	return steps
}

// WithFormulation applies a model formulation (mobilenet.Config.SetFormulation's text form, e.g. the CLI's
// -model flag) on top of every step's own model changes, and says so in each step's ID ("13@512+relu6=clip")
// and name, so an experiment's results can never pass for the ladder's.
func WithFormulation(steps []Step, text string) ([]Step, error) {
	if text == "" {
		return steps, nil
	}
	var probe mobilenet.Config
	if err := probe.SetFormulation(text); err != nil {
		return nil, err
	}
	out := make([]Step, len(steps))
	for i, s := range steps {
		s.andModel(func(m *mobilenet.Config) {
			if err := m.SetFormulation(text); err != nil {
				panic(err) // validated above
			}
		})
		s.ID += "+" + text
		s.Name += " [" + text + "]"
		out[i] = s
	}
	return out, nil
}

func (s Step) with(id, name, why string, change func(*Step)) Step {
	n := s
	n.ID, n.Name, n.Why = id, name, why
	change(&n)
	n.Feed.Batch = n.Train.Batch
	return n
}

// Select keeps the steps whose ID (or ID before "@") is in the comma-separated list; "all" keeps every step. An
// empty list (or an empty item in it) is an error, not "all": a script whose variable came out empty must not run
// the whole ladder.
func Select(steps []Step, list string) ([]Step, error) {
	if list == "all" {
		return steps, nil
	}
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("no ladder steps given: want step IDs separated by commas (e.g. 1,2,10) or \"all\"")
	}
	want := map[string]bool{}
	for _, id := range strings.Split(list, ",") {
		if id = strings.TrimSpace(id); id == "" {
			return nil, fmt.Errorf("ladder steps %q: an empty step ID", list)
		}
		want[id] = true
	}
	var out []Step
	matched := map[string]bool{}
	for _, s := range steps {
		base, _, _ := strings.Cut(s.ID, "@")
		if want[s.ID] || want[base] {
			out = append(out, s)
			matched[s.ID], matched[base] = true, true
		}
	}
	for id := range matched {
		delete(want, id)
	}
	if len(want) > 0 {
		var ids []string
		for _, s := range steps {
			ids = append(ids, s.ID)
		}
		var unknown []string
		for id := range want {
			unknown = append(unknown, id)
		}
		return nil, fmt.Errorf("unknown ladder step(s) %v: known steps are %s", unknown, strings.Join(ids, ","))
	}
	return out, nil
}

// Smoke shrinks the ladder for a CPU: every step keeps its input path, precision and steps per call, but trains a
// quarter-width MobileNetV2 at 48 px with batch 16 and learning rate 0.01, so CI can check in minutes that each
// step trains. (At 32 px the last blocks see 1×1 maps and batch norm over 16 values is all noise.)
func Smoke(steps []Step) ([]Step, Options) {
	out := make([]Step, len(steps))
	for i, s := range steps {
		s.Train.Batch, s.Feed.Batch, s.Train.LR = 16, 16, 0.01
		out[i] = s
	}
	model := mobilenet.Default()
	model.Width = 0.25
	return out, Options{Model: model, ImageSize: 48, Warmup: 3, Steps: 25}
}

// SmokeTrainImages is how many training images a smoke run uses.
const SmokeTrainImages = 2000
