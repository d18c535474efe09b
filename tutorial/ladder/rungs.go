package ladder

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// Params are the ladder's free parameters: what its rungs leave to the machine and to the run.
type Params struct {
	WorkersMax   int   // rung 5b's "all cores"
	Batches      []int // the batch sizes of rungs 9 and up
	StepsPerCall int   // rung 10's K
	ReductionRow int   // rung 11's row width of batch norm's sums (0: the plain form)
}

// DefaultParams are the ladder as the README reports it: all cores, batches 128, 256 and 512, 10 steps per
// Execute, rows of 1024 values. The CLI's flag defaults and the notebooks both come from here.
func DefaultParams() Params {
	return Params{WorkersMax: runtime.NumCPU(), Batches: []int{128, 256, 512}, StepsPerCall: 10, ReductionRow: 1024}
}

// edit is one rung: its name, why, and the one change it makes to the rung before.
type edit struct {
	rung, name, why string
	apply           func(*Config)
}

// edits are the rungs in order, rungs 9 and up at batch b.
func (p Params) edits(b int) []edit {
	return []edit{
		{"2", "+ mixed precision f16 (loss scaling)",
			"convolutions in float16 run on tensor cores and move half the bytes",
			func(c *Config) { c.Precision = train.F16 }},
		{"3", "+ batch 128", "larger launches amortise per-step overhead and fill the GPU",
			func(c *Config) { c.Batch = 128 }},
		{"4", "+ uint8 host→device, normalise on device",
			"a uint8 batch is 4× smaller on the bus than float32, and normalising is free on the GPU",
			func(c *Config) { c.Input = train.InputUint8 }},
		{"5", "+ 2 loader goroutines", "the host pipeline was the bottleneck: build batches in parallel",
			func(c *Config) { c.Workers = 2 }},
		{"5b", fmt.Sprintf("+ %d loader goroutines (all cores)", p.WorkersMax),
			"more workers while the host is still the bottleneck", func(c *Config) { c.Workers = p.WorkersMax }},
		{"6", "+ transfer overlapped with compute",
			"workers also upload the batch, so the next one is on the device when a step ends (pin_memory + non_blocking)",
			func(c *Config) { c.Upload = true }},
		{"7", "+ resize on the device",
			"32×32 uint8 crosses the bus (49× fewer bytes than 224²) and the GPU resizes with two small matrix products",
			func(c *Config) { c.Input = train.InputUint8Small }},
		{"8", "+ device-resident dataset",
			"the whole uint8 training set lives on the GPU; shuffling and gathering happen there: no host work per step",
			func(c *Config) { c.Input = train.InputDeviceData }},
		{"9", fmt.Sprintf("+ bf16, loss read every 25 steps, batch %d", b),
			"bfloat16 needs no loss scaling; no device→host read per step; a larger batch fills the GPU",
			func(c *Config) { c.Precision, c.Batch, c.SyncEvery = train.BF16, b, 25 }},
		{"10", fmt.Sprintf("+ %d steps per Execute (While loop), batch %d", p.StepsPerCall, b),
			"go-xla's Execute waits for the GPU, so per-call host work idles it: K steps per call pay it once",
			func(c *Config) { c.StepsPerCall = p.StepsPerCall }},
		{"11", fmt.Sprintf("+ batch-norm sums over wide rows, batch %d", b),
			"the profile's reductions are batch norm's sums over narrow channel rows: read the same bytes as rows of " +
				"~1024 values and XLA's reduction kernels stream them",
			func(c *Config) { c.Model.ReductionRow = p.ReductionRow }},
		{"12", fmt.Sprintf("+ ReLU6 gradient as a mask, batch %d", b),
			"GoMLX differentiates ReLU6's Min and Max with four sign() calls per element; PyTorch's hardtanh_backward " +
				"is one comparison pair",
			func(c *Config) { c.Model.MaskedReLU6 = true }},
		{"13", fmt.Sprintf("+ batch norm applied in float32, batch %d", b),
			"the backward sums Σdy and Σdy·x accumulated in bfloat16; in float32 (as cuDNN does) they are exact to " +
				"float32 — better numerics for 2–6% of the step on the H200",
			func(c *Config) { c.Model.NormalizeFloat32 = true }},
		{"14", fmt.Sprintf("+ stem input padded to 8 channels, batch %d", b),
			"cuDNN has no tensor-core kernel for a 3-channel input, so the first convolution ran on a generic " +
				"one; five zero channels make it an ordinary implicit GEMM",
			func(c *Config) { c.Model.StemChannels = 8 }},
	}
}

// firstBatchRung is the first rung whose batch is a parameter (and whose ID may carry "@B").
const firstBatchRung = 9

func (e edit) on(prev Config) Config {
	c := prev
	c.ID, c.Name, c.Why = StepID{Rung: e.rung}, e.name, e.why
	e.apply(&c)
	return c
}

// Rung returns rung n (1–14) at the default parameters and batch 128: [Baseline] followed by the edits of rungs
// 2 to n, in order (rung 5b, "all cores", comes between 5 and 6). It panics for another n: the rungs are fixed.
func Rung(n int) Config {
	id := strconv.Itoa(n)
	c := Baseline()
	if id == "1" {
		return c
	}
	for _, e := range DefaultParams().edits(128) {
		if c = e.on(c); e.rung == id {
			return c
		}
	}
	panic(fmt.Sprintf("ladder.Rung(%d): the ladder has rungs 1 to 14", n))
}

// Identify names the rung cfg is: the step ID of the configuration of [Ladder] at the default parameters that
// equals cfg in everything but its ID, name and why. A notebook cell builds a rung in visible Go — Rung(3) plus
// `cfg.Input = train.InputUint8` — and this says it is rung 4, so its result is recorded as rung 4's. Where two
// rungs are the same configuration (5 and 5b on a machine with two cores), the one after cfg's own ID wins: an
// edit of rung n makes a later rung. ok is false for a configuration the ladder does not have.
func Identify(cfg Config) (id StepID, ok bool) {
	bare := func(c Config) Config { c.ID, c.Name, c.Why = StepID{}, "", ""; return c }
	want := bare(cfg)
	all := Ladder(DefaultParams())
	from := slices.IndexFunc(all, func(c Config) bool { return c.ID.Rung == cfg.ID.Rung })
	var first *Config
	for i := range all {
		if bare(all[i]) != want {
			continue
		}
		if from >= 0 && i > from {
			return all[i].ID, true
		}
		if first == nil {
			first = &all[i]
		}
	}
	if first == nil {
		return StepID{}, false
	}
	return first.ID, true
}

// Ladder returns every rung for the parameters: rungs 1–8 once, then rungs 9 and up once per batch size, with
// "@B" in their IDs unless the only batch is 128.
func Ladder(p Params) []Config {
	cfgs := []Config{Baseline()}
	var atEight Config
	for _, e := range p.edits(0) {
		if n, _ := strconv.Atoi(e.rung); n >= firstBatchRung {
			break
		}
		cfgs = append(cfgs, e.on(cfgs[len(cfgs)-1]))
		atEight = cfgs[len(cfgs)-1]
	}
	for _, b := range p.Batches {
		c := atEight
		for _, e := range p.edits(b) {
			if n, _ := strconv.Atoi(e.rung); n < firstBatchRung {
				continue
			}
			c = e.on(c)
			if len(p.Batches) > 1 || b != 128 {
				c.ID.Batch = b
			}
			cfgs = append(cfgs, c)
		}
	}
	return cfgs
}

// WithFormulation applies a formulation to every configuration ([Config.WithFormulation]).
func WithFormulation(cfgs []Config, text string) ([]Config, error) {
	out := make([]Config, len(cfgs))
	for i, c := range cfgs {
		var err error
		if out[i], err = c.WithFormulation(text); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// BestRung is the fastest rung of the canonical H200 measurement ([CanonicalResults]) at every batch.
const BestRung = "12"

// SeedRungs are the original tutorial's six steps.
const SeedRungs = "1,2,3,4,5,6"

// DefaultSteps is the step list the CLI's ladder runs unless told otherwise: the tutorial's six rungs and the
// best rung at the largest batch of the list — a result in minutes on a GPU, where the whole ladder ("all")
// compiles over twenty programs.
const DefaultSteps = "default"

// Select keeps the configurations that a comma-separated list of step IDs matches ([StepID.Matches]: "10"
// keeps every 10@batch); "all" keeps every one, and [DefaultSteps] the rungs of [SeedRungs] and the last
// configuration of [BestRung] (its largest batch). An ID that matches nothing is an error naming the known IDs.
func Select(cfgs []Config, list string) ([]Config, error) {
	switch list {
	case "all":
		return cfgs, nil
	case DefaultSteps:
		seed, err := Select(cfgs, SeedRungs)
		if err != nil {
			return nil, err
		}
		for i := len(cfgs) - 1; i >= 0; i-- {
			if cfgs[i].ID.Rung == BestRung && cfgs[i].ID.Formulation == "" {
				return append(seed, cfgs[i]), nil
			}
		}
		return seed, nil
	}
	// An empty list is an error, not "all": a script whose variable came out empty must not run the whole ladder.
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("no ladder steps given: want step IDs separated by commas (e.g. 1,2,10) or \"all\"")
	}
	var out []Config
	var unknown []string
	want, err := ParseStepIDs(list)
	if err != nil {
		return nil, err
	}
	for _, w := range want {
		if !slices.ContainsFunc(cfgs, func(c Config) bool { return w.Matches(c.ID) }) {
			unknown = append(unknown, w.String())
		}
	}
	if len(unknown) > 0 {
		var ids []string
		for _, c := range cfgs {
			ids = append(ids, c.ID.String())
		}
		return nil, fmt.Errorf("unknown ladder step(s) %v: known steps are %s", unknown, strings.Join(ids, ","))
	}
	for _, c := range cfgs {
		if slices.ContainsFunc(want, func(w StepID) bool { return w.Matches(c.ID) }) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Plan is the ladder a run measures: at full sizes every rung for the parameters; at smoke sizes
// ([Config.Smoke]) one variant of rungs 9 and up, since smoke sizes set every batch to 16.
func Plan(p Params, smoke bool) []Config {
	if !smoke {
		return Ladder(p)
	}
	p.Batches = []int{128}
	cfgs := Ladder(p)
	for i := range cfgs {
		cfgs[i] = cfgs[i].Smoke()
	}
	return cfgs
}
