package ladder

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

// The flag forms below are how a command line — the CLI's, or a notebook cell's (GoNB passes a cell's "%%"
// arguments to its program, where flag.Parse reads them) — edits a configuration. Each registration takes the
// value to edit: its current fields are the flags' defaults, so defaults are written once, in the code that
// builds the value (DefaultParams, DefaultOptions, Rung).

// RegisterFlags registers one configuration's flags on fs (the `train` command's): -batch, -precision, -input,
// -workers, -k, -lr, -size and -width. After fs.Parse, c is the configuration the command line asks for.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.Batch, "batch", c.Batch, "batch size")
	fs.Var((*precisionFlag)(&c.Precision), "precision", "f32, f16 (mixed, dynamic loss scaling) or bf16 (mixed)")
	fs.Var((*inputFlag)(&c.Input), "input", "host-f32 | host-u8 | device-resize | device-data")
	fs.IntVar(&c.Workers, "workers", c.Workers, "host loader goroutines (0 = build each batch when needed)")
	fs.IntVar(&c.StepsPerCall, "k", c.StepsPerCall, "training steps per Execute (device-data only)")
	fs.Float64Var(&c.LR, "lr", c.LR, "SGD learning rate (momentum 0.9)")
	fs.IntVar(&c.ImageSize, "size", c.ImageSize, "image side after resizing (224 in the tutorial)")
	fs.Float64Var(&c.Model.Width, "width", c.Model.Width, "MobileNetV2 width multiplier (1.0 = torchvision's model)")
}

// RegisterFlags registers the ladder's parameters on fs: -batches and -k. Rung 11's row width has no flag of
// its own: another width is an experiment, -model reduction-row=N, recorded under its own step ID.
func (p *Params) RegisterFlags(fs *flag.FlagSet) {
	fs.Var((*batchesFlag)(&p.Batches), "batches", "batch sizes of steps 9 and up")
	fs.IntVar(&p.StepsPerCall, "k", p.StepsPerCall, "training steps per Execute in step 10")
}

// FormulationUsage is the -model flag's help: an experiment applied on top of every selected step.
var FormulationUsage = "an experiment: a model formulation applied on top of every selected step, " +
	"e.g. dw-kernel-grad=shifted,stem-channels=8 (keys: " + strings.Join(mobilenet.FormulationKeys(), ", ") +
	"; and the step's state=flat, with -k > 1)"

// RegisterFlags registers the measurement's flags on fs: -warmup and -timed.
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.Warmup, "warmup", o.Warmup, "warm-up steps after the first (compiling) call")
	fs.IntVar(&o.Steps, "timed", o.Steps, "timed steps per ladder step (≥ 50 for reported numbers)")
}

type precisionFlag train.Precision

func (p *precisionFlag) String() string { return string(*p) }
func (p *precisionFlag) Set(s string) error {
	v, err := train.ParsePrecision(s)
	*p = precisionFlag(v)
	return err
}

// inputNames are the -input flag's names of the device input stages.
var inputNames = []struct {
	name  string
	input train.Input
}{{"host-f32", train.InputFloat32}, {"host-u8", train.InputUint8}, {"device-resize", train.InputUint8Small},
	{"device-data", train.InputDeviceData}}

type inputFlag train.Input

func (in *inputFlag) String() string {
	for _, n := range inputNames {
		if n.input == train.Input(*in) {
			return n.name
		}
	}
	return train.Input(*in).String()
}

func (in *inputFlag) Set(s string) error {
	for _, n := range inputNames {
		if n.name == s {
			*in = inputFlag(n.input)
			return nil
		}
	}
	return fmt.Errorf("unknown -input %q: want host-f32, host-u8, device-resize or device-data", s)
}

type batchesFlag []int

func (b *batchesFlag) String() string {
	var s []string
	for _, v := range *b {
		s = append(s, strconv.Itoa(v))
	}
	return strings.Join(s, ",")
}

// Set reads a comma-separated list of batch sizes.
func (b *batchesFlag) Set(list string) error {
	var batches []int
	for _, s := range strings.Split(list, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 1 {
			return fmt.Errorf("bad -batches %q: want positive integers separated by commas", list)
		}
		batches = append(batches, v)
	}
	*b = batches
	return nil
}
