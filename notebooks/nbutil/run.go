package nbutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// GPU-size settings, as the `ladder` command uses them.
var (
	gpuBatches = []int{128, 256, 512}
	gpuK       = 10
)

// Session is what one cell needs to run ladder steps: the backend, the mode, the ladder at that mode's sizes.
type Session struct {
	Root   string
	Choice *backend.Choice
	// Smoke: no GPU (or TRAINOPT_NB_SMOKE=1): the ladder's smoke sizes on whatever backend was found.
	Smoke   bool
	Steps   []ladder.Step // the ladder at this mode's sizes
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
	// Every cell is a new process: fast start (conv fusion, cuDNN plans in the cached executable) makes a warm
	// first call ~2 s instead of ~12 s, for a slightly slower step (README, "Executable cache and fast start").
	// TRAINOPT_FAST_START=off in the notebook server's environment keeps the ladder's own step.
	if _, set := os.LookupEnv(backend.FastStartEnv); !set {
		_ = os.Setenv(backend.FastStartEnv, "on")
	}
	choice, err := backend.Discover(backend.WithOutput(out))
	if err != nil {
		return nil, err
	}
	s := &Session{Root: root, Choice: choice, Smoke: !choice.IsGPU || envTrue(EnvSmoke)}
	k := gpuK
	batches := gpuBatches
	if !train.IsXLA(choice.Backend) {
		k = 1
		s.Notes = append(s.Notes, fmt.Sprintf("step 10 runs 1 step per Execute on %s: its While loop cannot hold a gradient there yet", choice.Kind))
	}
	if s.Smoke {
		batches = []int{128} // one variant of steps 9 and up; Smoke sets every batch to 16
	}
	s.Steps = ladder.Ladder(runtime.NumCPU(), batches, k)
	s.Options = ladder.Options{Model: mobilenet.Default(), ImageSize: 224, Warmup: 10, Steps: 60}
	if s.Smoke {
		s.Steps, s.Options = ladder.Smoke(s.Steps) // 3 warm-up + 30 timed steps: enough to see the loss fall
		s.NTrain = ladder.SmokeTrainImages
		why := "no GPU"
		if choice.IsGPU {
			why = EnvSmoke + " is set"
		}
		s.Notes = append(s.Notes, fmt.Sprintf("SMOKE SIZES (%s): MobileNetV2 width %.2f at %d px, every step at batch 16 "+
			"(whatever its name says), %d training images — this shows that each step runs and trains, NOT how fast it "+
			"is; the GPU's recorded numbers are shown beside it", why, s.Options.Model.Width, s.Options.ImageSize, s.NTrain))
	}
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
			s.Choice.Device, s.Options.Model.Width, s.Options.ImageSize, s.Options.Warmup, s.Options.Steps)
	}
	return fmt.Sprintf("mode: GPU RUN on %s — the tutorial's sizes (MobileNetV2 at 224 px), %d warm-up + %d timed steps per run",
		s.Choice.Device, s.Options.Warmup, s.Options.Steps)
}

// ResolveID maps a notebook's step ID to one of this session's ladder steps: on a GPU a bare "9" to "13" (any step
// with batch variants) is the batch-128 variant; at smoke sizes every "@batch" variant is the one smoke variant
// (batch 16).
func (s *Session) ResolveID(id string) (ladder.Step, string, error) {
	want := id
	note := ""
	base, batch, hasBatch := strings.Cut(id, "@")
	if s.Smoke && hasBatch {
		want = base
		note = fmt.Sprintf("smoke sizes run every batch variant at batch 16: %s runs as %s", id, base)
	}
	if variant := base + "@" + fmt.Sprint(gpuBatches[0]); !s.Smoke && !hasBatch &&
		slices.ContainsFunc(s.Steps, func(st ladder.Step) bool { return st.ID == variant }) {
		want = variant
	}
	_ = batch
	for _, st := range s.Steps {
		if st.ID == want {
			return st, note, nil
		}
	}
	var ids []string
	for _, st := range s.Steps {
		ids = append(ids, st.ID)
	}
	return ladder.Step{}, "", fmt.Errorf("unknown ladder step %q (this session's steps: %s)", id, strings.Join(ids, ", "))
}

// DataDir is where the repository keeps CIFAR-10 (the `trainopt data` default).
func (s *Session) DataDir() string { return filepath.Join(s.Root, "data") }

// LoadData returns the training set: real CIFAR-10 from <root>/data when present, otherwise the synthetic stand-in
// generated in memory — said loudly. It prints one "data:" line.
func (s *Session) LoadData() (*cifar.Set, error) {
	set, err := loadTrain(s.DataDir(), s.NTrain)
	if err != nil {
		return nil, err
	}
	printf("data: %s\n", dataWords(set))
	return set, nil
}

func loadTrain(dir string, n int) (*cifar.Set, error) {
	trainSet, _, err := cifar.Load(dir)
	switch {
	case err == nil:
	case errors.Is(err, cifar.ErrNoData):
		nTrain := cifar.NumTrain
		if n > 0 {
			nTrain = n
		}
		trainSet, _ = cifar.Synthetic(nTrain, 100, 1234)
	default:
		return nil, err
	}
	if n > 0 && n < trainSet.Len() {
		trainSet = trainSet.Slice(0, n)
	}
	return trainSet, nil
}

func dataWords(set *cifar.Set) string {
	if set.Synthetic {
		return fmt.Sprintf("SYNTHETIC CIFAR-10-shaped data (%d images; %s) — not the real CIFAR-10: run `trainopt data -download` "+
			"(or 00-setup with network) for it", set.Len(), set.Source)
	}
	return fmt.Sprintf("real CIFAR-10 (%d training images; %s)", set.Len(), set.Source)
}

// Conditions are the results-file conditions of this session.
func (s *Session) Conditions(set *cifar.Set) ladder.Conditions {
	return ladder.NewConditions(s.Choice, set, s.Options, s.Smoke)
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
	if _, err := runStep(id, formulation); err != nil {
		fail(err)
	}
}

// RunStep is [Step] returning the result instead of ending the process on errors.
func RunStep(id string) (*ladder.Result, error) { return runStep(id, "") }

func runStep(id, formulation string) (*ladder.Result, error) {
	s, err := NewSession()
	if err != nil {
		return nil, err
	}
	step, note, err := s.ResolveID(id)
	if err != nil {
		return nil, err
	}
	if formulation != "" {
		experiment, err := ladder.WithFormulation([]ladder.Step{step}, formulation)
		if err != nil {
			return nil, err
		}
		step = experiment[0]
	}
	printf("%s\n", s.Mode())
	for _, n := range s.Notes {
		printf("note: %s\n", n)
	}
	if note != "" {
		printf("note: %s\n", note)
	}
	printf("step %s: %s\nwhy: %s\n", step.ID, step.Name, step.Why)
	set, err := s.LoadData()
	if err != nil {
		return nil, err
	}
	cond := s.Conditions(set)
	runs, path, err := s.readRuns(cond)
	if err != nil {
		return nil, err
	}
	if s.Smoke && note != "" {
		if prev := findResult(runs, step.ID); prev != nil && prev.Error == "" {
			printf("step %s was measured already at these sizes (%s): not running it twice\n", step.ID, path)
			printResult(*prev, cond)
			showRuns(runs, step.ID)
			return prev, nil
		}
	}
	opt := s.Options
	opt.Progress = out
	opt.ProgressEvery = 10 * time.Second
	res, runErr := ladder.Run(s.Choice.Backend, step, set, opt)
	if runErr != nil {
		res.Error = runErr.Error()
	}
	mergeResult(runs, s.Steps, res)
	if _, err := runs.WriteAs(path); err != nil { // one file per mode, on purpose: merged step by step
		return nil, fmt.Errorf("writing the notebooks' results file: %w", err)
	}
	if runErr != nil {
		return nil, fmt.Errorf("step %s failed: %w", step.ID, runErr)
	}
	printResult(res, cond)
	if err := res.Trained(); err != nil {
		printf("WARNING: %v (at %d timed steps a smoke run can be too short to show learning)\n", err, opt.Steps)
	} else {
		printf("trained: loss %.3f → %.3f over %d losses read\n", res.LossFirst, res.LossLast, len(res.Losses))
	}
	printf("results so far: %s\n", path)
	showRuns(runs, step.ID)
	printRecommendations(res, s.Smoke)
	return &res, nil
}

// printResult is the "result:" line every measured run prints.
func printResult(r ladder.Result, c ladder.Conditions) {
	first := fmt.Sprintf("first call (compile %.2f s + first execution %.2f s) %.2f s", r.CompileS,
		r.FirstExecutionS(), r.FirstCallS)
	if r.ReusedExecutable {
		first = fmt.Sprintf("first call %.2f s (executable reused)", r.FirstCallS)
	}
	label := c.GPU
	if c.Smoke {
		label += ", smoke sizes: not a speed measurement"
	}
	printf("result: step %s: %.1f samples/s, step %.2f ms median (p10 %.2f, p90 %.2f); split: data wait %.2f, "+
		"host→device %.2f, compute %.2f, other %.2f ms; %s; host→device %s per step [%s]\n",
		r.ID, r.SamplesPerSec, r.StepMedianMs, r.StepP10Ms, r.StepP90Ms, r.DataWaitMs, r.TransferMs, r.ComputeMs,
		r.OtherMs, first, fmtBytes(int64(r.H2DBytesPerStep)), label)
}

// Download fetches CIFAR-10 into <root>/data unless it is there, TRAINOPT_NO_DOWNLOAD is set, or the download
// fails; it returns what happened in words (never an error: the synthetic set is the fallback).
func (s *Session) Download() string {
	if d, err := cifar.Check(s.DataDir()); err == nil {
		return "CIFAR-10 found at " + d
	}
	if envTrue(EnvNoDownload) {
		return EnvNoDownload + " is set: not downloading CIFAR-10"
	}
	printf("data: CIFAR-10 not in %s — trying the official archive (170 MB, verified)…\n", s.DataDir())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	d, err := cifar.Download(ctx, s.DataDir(), out, cifar.WithTimeouts(10*time.Second, 20*time.Second, 30*time.Second))
	if err != nil {
		return "download failed (" + oneLine(err.Error()) + ")"
	}
	return "downloaded CIFAR-10 to " + d
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func fmtBytes(b int64) string {
	switch {
	case b <= 0:
		return "0 B"
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// ---- the notebooks' results file ----

// runsName is the results file of a mode: smoke.json or gpu-<device>.json.
func runsName(c ladder.Conditions) string {
	if c.Smoke {
		return "smoke"
	}
	return c.DeviceName() // no date: one file per device, the latest run of each step
}

// readRuns reads the mode's results file, or starts one; a file measured under other conditions (another device,
// model or size) is started again.
func (s *Session) readRuns(c ladder.Conditions) (*ladder.File, string, error) {
	dir := RunsDir(s.Root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, runsName(c)+".json")
	f, err := ladder.Read(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		f = &ladder.File{}
	case err != nil:
		printf("note: %v — starting a new results file\n", err)
		f = &ladder.File{}
	case !sameConditions(f.Conditions, c):
		printf("note: %s was measured under other conditions (%s) — starting it again\n", path, f.Conditions.Caption())
		f = &ladder.File{}
	}
	f.Conditions = c
	return f, path, nil
}

func sameConditions(a, b ladder.Conditions) bool {
	return a.GPU == b.GPU && a.ImageSize == b.ImageSize && a.Model == b.Model && a.Smoke == b.Smoke &&
		a.Synthetic == b.Synthetic && a.Versions == b.Versions && a.Warmup == b.Warmup && a.TimedSteps == b.TimedSteps
}

// mergeResult puts r in f (replacing an earlier result of the same step), in ladder order.
func mergeResult(f *ladder.File, steps []ladder.Step, r ladder.Result) {
	f.Results = slices.DeleteFunc(f.Results, func(x ladder.Result) bool { return x.ID == r.ID })
	f.Results = append(f.Results, r)
	order := map[string]int{}
	for i, s := range steps {
		order[s.ID] = i
	}
	rank := func(id string) int {
		if i, ok := order[id]; ok {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(f.Results, func(a, b ladder.Result) int { return rank(a.ID) - rank(b.ID) })
}

func findResult(f *ladder.File, id string) *ladder.Result {
	for i := range f.Results {
		if f.Results[i].ID == id {
			return &f.Results[i]
		}
	}
	return nil
}
