package nbutil

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// Session is what one cell needs to run ladder steps: the backend, the mode, the ladder at that mode's sizes.
type Session struct {
	Root   string
	Choice *backend.Choice
	// Smoke: no GPU (or TRAINOPT_NB_SMOKE=1): the ladder's smoke sizes on whatever backend was found.
	Smoke   bool
	Steps   []ladder.Config // the ladder at this mode's sizes
	Options ladder.Options
	NTrain  int // training images to use (0: all)
	// Notes are the things the mode changes, said once per cell.
	Notes []string
}

// NewSession finds the backend (printing its one line), and builds the ladder for the mode: full sizes on a GPU,
// smoke sizes otherwise.
func NewSession() (*Session, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	// Every cell is a new process: fast start (the depthwise convolutions by Triton kernels, so no cuDNN plans to
	// build at run time) makes a warm first call 1–2 s instead of ~12 s (README, "Executable cache and fast start",
	// says what its step costs against the default mode where it was measured). TRAINOPT_FAST_START=off in the
	// notebook server's environment keeps the ladder's own step.
	if _, set := os.LookupEnv(backend.FastStartEnv); !set {
		_ = os.Setenv(backend.FastStartEnv, "on")
	}
	var said bytes.Buffer // the backend line: said on the GPU; a smoke run's cell says one line
	choice, err := backend.Discover(backend.WithOutput(&said))
	if err != nil {
		fmt.Fprint(out, said.String())
		return nil, err
	}
	s := &Session{Root: root, Choice: choice, Smoke: !choice.IsGPU || envTrue(EnvSmoke)}
	if !s.Smoke {
		fmt.Fprint(out, said.String())
	}
	p := ladder.DefaultParams()
	if !train.IsXLA(choice.Backend) {
		p.StepsPerCall = 1
		s.Notes = append(s.Notes, fmt.Sprintf("step 10 runs 1 step per Execute on %s: its While loop cannot hold a gradient there yet", choice.Kind))
	}
	s.Steps = ladder.Plan(p, s.Smoke)
	s.Options = ladder.DefaultOptions()
	if s.Smoke {
		s.Options = ladder.SmokeOptions() // enough steps to see the loss fall
		s.NTrain = ladder.SmokeTrainImages
		why := "no GPU"
		if choice.IsGPU {
			why = EnvSmoke + " is set"
		}
		s.Notes = append(s.Notes, fmt.Sprintf("SMOKE SIZES (%s): MobileNetV2 width %.2f at %d px, every step at batch 16 "+
			"(whatever its name says), %d training images — this shows that each step runs and trains, NOT how fast it "+
			"is; the GPU's recorded numbers are shown beside it", why, s.Steps[0].Model.Width, s.Steps[0].ImageSize, s.NTrain))
	}
	s.Options.FastStart = choice.FastStartKernels() // after the smoke options, which replace the whole value
	if s.Options.Warmup, err = envInt(EnvWarmup, s.Options.Warmup); err != nil {
		return nil, err
	}
	if s.Options.Steps, err = envInt(EnvTimed, s.Options.Steps); err != nil {
		return nil, err
	}
	s.Options.Steps = max(s.Options.Steps, 1)
	return s, nil
}

// Mode is one line saying what the measured runs mean.
func (s *Session) Mode() string {
	if s.Smoke {
		return fmt.Sprintf("mode: NO-GPU SMOKE RUN on %s — MobileNetV2 width %.2f, %d px, batch 16, %d warm-up + %d timed steps: "+
			"checks that every step runs and trains; its speed means nothing. Recorded H200 results are shown beside.",
			s.Choice.Device, s.Steps[0].Model.Width, s.Steps[0].ImageSize, s.Options.Warmup, s.Options.Steps)
	}
	return fmt.Sprintf("mode: GPU RUN on %s — the tutorial's sizes (MobileNetV2 at 224 px), %d warm-up + %d timed steps per run",
		s.Choice.Device, s.Options.Warmup, s.Options.Steps)
}

// DataDir is where the repository keeps CIFAR-10 (the `trainopt data` default).
func (s *Session) DataDir() string { return filepath.Join(s.Root, "data") }

// LoadData returns the training set: real CIFAR-10 from <root>/data when present, otherwise the synthetic stand-in
// generated in memory — said in a "data:" line on the GPU, and in a smoke run's one line.
func (s *Session) LoadData() (*cifar.Set, error) {
	set, _, err := cifar.LoadOrSynthetic(s.DataDir(), s.NTrain, 100)
	if err != nil {
		return nil, err
	}
	if !s.Smoke {
		printf("data: %s\n", ladder.DataWords(set))
	}
	return set, nil
}

// Step is one measured run, a whole cell's work: it runs ladder step id (at smoke sizes without a GPU), adds the
// result to the notebooks' results file, prints the numbers and shows the results so far (table, throughput,
// step-time split, compile time) and what the step-time split recommends next. Errors end the cell with a
// non-zero status.
func Step(id string) {
	if _, err := RunStep(id); err != nil {
		fail(err)
	}
}

// Experiment measures ladder step id with another formulation of the same network on top (the CLI's -model,
// e.g. "dw-input-grad=phases"), recorded under its own ID ("13+dw-input-grad=phases") beside the ladder's steps.
func Experiment(id, formulation string) {
	if _, err := RunStep(id + "+" + formulation); err != nil {
		fail(err)
	}
}

// Run is [Step] for a rung built in the cell, the way a reader changes their own program:
//
//	cfg := ladder.Rung(1)
//	cfg.Precision = train.F16 // rung 2
//	nbutil.Run(cfg)
//
// The configuration is recorded under the rung it is ([ladder.Identify]), measured at this session's sizes (smoke
// sizes without a GPU); one the ladder does not have runs as "custom".
func Run(cfg ladder.Config) {
	if _, err := RunConfig(cfg); err != nil {
		fail(err)
	}
}

// RunConfig is [Run] returning the result instead of ending the process on errors.
func RunConfig(cfg ladder.Config) (*ladder.Result, error) {
	s, err := NewSession()
	if err != nil {
		return nil, err
	}
	if id, ok := ladder.Identify(cfg); ok {
		return s.measureID(id.String())
	}
	cfg.ID, cfg.Name, cfg.Why = ladder.StepID{Rung: "custom"}, "your configuration", "changed in the cell"
	if s.Smoke {
		cfg = cfg.Smoke()
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("the cell's configuration: %w", err)
	}
	return s.measure(cfg, "not a rung of the ladder: measured and recorded as \"custom\"")
}

// RunStep is [Step] returning the result instead of ending the process on errors.
func RunStep(id string) (*ladder.Result, error) {
	s, err := NewSession()
	if err != nil {
		return nil, err
	}
	return s.measureID(id)
}

// measureID measures the session's ladder step that id names ([ladder.Resolve]: at the session's sizes, with a
// "+formulation" applied on top).
func (s *Session) measureID(id string) (*ladder.Result, error) {
	step, note, err := ladder.Resolve(s.Steps, id, s.Smoke)
	if err != nil {
		return nil, err
	}
	return s.measure(step, note)
}

// measure runs one configuration of this session. On the GPU it shows the result beside the session's results so
// far (table and charts) and what the step split says. A smoke run on the CPU says one line — that the cell runs
// and trains — and draws nothing: its speed means nothing, and the H200 evidence sits above the cell.
func (s *Session) measure(step ladder.Config, note string) (*ladder.Result, error) {
	if !s.Smoke {
		printf("%s\n", s.Mode())
		for _, n := range s.Notes {
			printf("note: %s\n", n)
		}
		if note != "" {
			printf("note: %s\n", note)
		}
		printf("step %s: %s\n", step.ID, step.Name)
	}
	set, err := s.LoadData()
	if err != nil {
		return nil, err
	}
	cond := ladder.NewConditions(s.Choice, set, s.Steps[0], s.Options, s.Smoke)
	runs, path, err := s.readRuns(cond)
	if err != nil {
		return nil, err
	}
	if s.Smoke && note != "" {
		if prev := runs.Result(step.ID.String()); prev != nil && prev.Error == "" {
			printf("%s (measured already at these sizes: not run twice)\n", prev.SmokeLine(set.Synthetic))
			return prev, nil
		}
	}
	opt := s.Options
	if !s.Smoke {
		opt.Progress, opt.ProgressEvery = out, 10*time.Second
	}
	res, runErr := ladder.Run(s.Choice.Backend, step, set, opt)
	if runErr != nil {
		res.Error = runErr.Error()
	}
	runs.Merge(res, s.Steps)
	if _, err := runs.WriteAs(path); err != nil { // one file per mode, on purpose: merged step by step
		return nil, fmt.Errorf("writing the notebooks' results file: %w", err)
	}
	if runErr != nil {
		return nil, fmt.Errorf("step %s failed: %w", step.ID, runErr)
	}
	if s.Smoke {
		if err := res.Trained(); err != nil {
			printf("WARNING: %v\n", err)
		}
		printf("%s\n", res.SmokeLine(set.Synthetic))
		return &res, nil
	}
	printf("%s\n", res.Line(cond))
	printf("%s\n", res.TrainedWords(opt.Steps))
	printf("results so far: %s\n", path)
	showRuns(runs, step.ID.String())
	printf("%s", res.SplitWords(s.Smoke))
	return &res, nil
}

// Download fetches CIFAR-10 into <root>/data ([cifar.Fetch]) unless TRAINOPT_NO_DOWNLOAD is set; it returns what
// happened in words (never an error: the synthetic set is the fallback).
func (s *Session) Download() string {
	if _, err := cifar.Check(s.DataDir()); err != nil && envTrue(EnvNoDownload) {
		return EnvNoDownload + " is set: not downloading CIFAR-10"
	}
	return cifar.Fetch(s.DataDir(), out)
}

// ---- the notebooks' results file ----

// runsName is the results file of a mode: smoke.json or <device>.json (one file per device, the latest run of
// each step; no date).
func runsName(c artifact.Conditions) string {
	if c.Smoke {
		return "smoke"
	}
	return artifact.DeviceName(c.GPU) // no date: one file per device, the latest run of each step
}

// readRuns reads the mode's results file, or starts one ([ladder.ReadOrStart]).
func (s *Session) readRuns(c artifact.Conditions) (*ladder.File, string, error) {
	dir := RunsDir(s.Root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, runsName(c)+".json")
	f, note := ladder.ReadOrStart(path, c)
	if note != "" {
		printf("note: %s\n", note)
	}
	return f, path, nil
}
