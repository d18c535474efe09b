package ladder_test

import (
	"flag"
	"fmt"

	"github.com/gomlx/compute/gobackend"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// A rung is the previous rung plus one edit of a plain struct: rung 2 is the baseline with mixed precision.
func ExampleRung() {
	cfg := ladder.Rung(1)
	cfg.Precision = train.F16 // the one line rung 2 changes
	fmt.Println(cfg.Precision, cfg.Batch, cfg.Workers, cfg.Input)

	two := ladder.Rung(2)
	fmt.Println(two.ID, two.Name)
	fmt.Println(cfg.TrainerKey() == two.TrainerKey()) // the same compiled program
	// Output:
	// f16 32 0 host float32
	// 2 + mixed precision f16 (loss scaling)
	// true
}

// Identify names the rung a configuration built in Go is, so a notebook cell's edit is recorded as that rung.
func ExampleIdentify() {
	cfg := ladder.Rung(3)
	cfg.Input = train.InputUint8 // rung 4's edit
	id, ok := ladder.Identify(cfg)
	fmt.Println(id, ok)

	cfg.Batch = 96 // no rung of the ladder
	_, ok = ladder.Identify(cfg)
	fmt.Println(ok)
	// Output:
	// 4 true
	// false
}

// Baseline is rung 1, the tutorial's starting point; Feed and Train are the two halves derived from it, for the
// host pipeline and the compiled step.
func ExampleBaseline() {
	cfg := ladder.Baseline()
	fmt.Println(cfg.ID, cfg.Name)
	fmt.Println(cfg.Precision, cfg.Batch, cfg.ImageSize, cfg.LR, cfg.Model.Width)

	feed, step := cfg.Feed(), cfg.Train()
	fmt.Println("host batch:", feed.Batch, feed.Size, feed.Bytes(), "bytes")
	fmt.Println("step:", step.Input, step.Momentum)
	// Output:
	// 1 baseline: f32, batch 32, 1 loader goroutine
	// f32 32 224 0.001 1
	// host batch: 32 224 19267712 bytes
	// step: host float32 0.9
}

// Config.Smoke is a rung shrunk for a CPU: a quarter-width model at 48 px, batch 16.
func ExampleConfig_Smoke() {
	cfg := ladder.Rung(7).Smoke()
	fmt.Println(cfg.ID, cfg.Input, cfg.Batch, cfg.ImageSize, cfg.Model.Width)
	fmt.Println(cfg.Validate())
	// Output:
	// 7 32×32 uint8, resize+normalise on device 16 48 0.25
	// <nil>
}

// An experiment is a rung with a model formulation on top; its ID says so.
func ExampleConfig_WithFormulation() {
	cfg, err := ladder.Rung(13).WithFormulation("dw-input-grad=phases")
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.ID)
	_, err = ladder.Rung(13).WithFormulation("dw-input-grad=sideways")
	fmt.Println(err != nil)
	// Output:
	// 13+dw-input-grad=phases
	// true
}

// ParseStepID is the one reader of the step-ID grammar: rung, optional batch, optional formulation.
func ExampleParseStepID() {
	for _, s := range []string{"12", "5b", "12@512", "13@512+dw-input-grad=phases"} {
		id, err := ladder.ParseStepID(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-28s rung %-3s batch %-4d formulation %q\n", id, id.Rung, id.Batch, id.Formulation)
	}
	_, err := ladder.ParseStepID("12@zero")
	fmt.Println(err != nil)
	// Output:
	// 12                           rung 12  batch 0    formulation ""
	// 5b                           rung 5b  batch 0    formulation ""
	// 12@512                       rung 12  batch 512  formulation ""
	// 13@512+dw-input-grad=phases  rung 13  batch 512  formulation "dw-input-grad=phases"
	// true
}

// A wanted ID matches every measured step it names: a bare rung matches all its batches and experiments.
func ExampleStepID_Matches() {
	want, _ := ladder.ParseStepID("13")
	for _, s := range []string{"13@512", "13+dw-input-grad=phases", "12@512"} {
		got, _ := ladder.ParseStepID(s)
		fmt.Println(s, want.Matches(got))
	}
	// Output:
	// 13@512 true
	// 13+dw-input-grad=phases true
	// 12@512 false
}

// Select picks rungs out of the ladder by step ID; rungs 9 and up come once per batch size.
func ExampleSelect() {
	p := ladder.DefaultParams()
	p.WorkersMax = 16 // rung 5b's "all cores" (DefaultParams uses this machine's)
	cfgs, err := ladder.Select(ladder.Ladder(p), "5b,10")
	if err != nil {
		panic(err)
	}
	for _, c := range cfgs {
		fmt.Println(c.ID, c.Name)
	}
	_, err = ladder.Select(ladder.Ladder(p), "15")
	fmt.Println(err != nil)
	// Output:
	// 5b + 16 loader goroutines (all cores)
	// 10@128 + 10 steps per Execute (While loop), batch 128
	// 10@256 + 10 steps per Execute (While loop), batch 256
	// 10@512 + 10 steps per Execute (While loop), batch 512
	// true
}

// RegisterFlags turns a command line — the CLI's, or a GoNB cell's "%%" arguments — into a Config: the rung's
// current fields are the flags' defaults.
func ExampleConfig_RegisterFlags() {
	cfg := ladder.Rung(3)
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	cfg.RegisterFlags(fs)
	if err := fs.Parse([]string{"-precision", "bf16", "-input", "device-resize", "-workers", "2"}); err != nil {
		panic(err)
	}
	fmt.Println(cfg.Precision, cfg.Batch, cfg.Input, cfg.Workers)
	// Output:
	// bf16 128 32×32 uint8, resize+normalise on device 2
}

// Run measures one rung: the first (compiling) call, a warm-up, then a timed window. Here rung 4 at smoke size
// on GoMLX's pure-Go backend, over a small synthetic set, with one timed step.
func ExampleRun() {
	backend, err := gobackend.New("")
	if err != nil {
		panic(err)
	}
	defer backend.Finalize()
	set, _ := cifar.Synthetic(64, 0, cifar.SyntheticSeed)

	cfg := ladder.Rung(4).Smoke()
	cfg.ImageSize = 32
	res, err := ladder.Run(backend, cfg, set, ladder.Options{Warmup: 0, Steps: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.ID, res.Input, res.Batch, res.H2DBytesPerStep, "bytes per step")
	fmt.Println(len(res.Losses), "losses read, samples/s measured:", res.SamplesPerSec > 0)
	// Output:
	// 4 host uint8, normalise on device 16 49216 bytes per step
	// 3 losses read, samples/s measured: true
}
