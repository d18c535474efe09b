package ladder

import (
	"strings"
	"testing"

	"github.com/gomlx/compute/gobackend"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
)

// TestRunReusesTrainers: rungs 4 and 5 differ only on the host, so with a cache the second reuses the first's
// trainer; the cache closes nothing until its owner says so.
func TestRunReusesTrainers(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a few steps on the CPU")
	}
	backend, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	set, _ := cifar.Synthetic(64, 10, 1)
	opt := Options{Warmup: 0, Steps: 1, Trainers: NewTrainers()}
	defer opt.Trainers.Close()
	four, five := Rung(4).Smoke(), Rung(5).Smoke()
	if four.TrainerKey() != five.TrainerKey() {
		t.Fatal("rungs 4 and 5 should compile the same program")
	}
	r4, err := Run(backend, four, set, opt)
	if err != nil || r4.ReusedExecutable || r4.H2DBytesPerStep == 0 {
		t.Fatalf("rung 4: %+v, %v", r4, err)
	}
	r5, err := Run(backend, five, set, opt)
	if err != nil || !r5.ReusedExecutable || r5.Workers != 2 || len(r5.Losses) != 3 { // first call, one warm-up call (calls round up to 1), one timed
		t.Fatalf("rung 5: reused %v, workers %d, %d losses, %v", r5.ReusedExecutable, r5.Workers, len(r5.Losses), err)
	}
	opt.Trainers.KeepOnly(Rung(8).Smoke().TrainerKey())
	if len(opt.Trainers.m) != 0 {
		t.Errorf("KeepOnly(another program) left %d trainers", len(opt.Trainers.m))
	}
}

// TestFastStart: fast-start mode gives a rung the Triton depthwise kernels and keeps its ID; a depthwise
// formulation chosen on purpose wins; Run records it, and on a backend without a CUDA GPU the step fails saying
// why instead of running something else.
func TestFastStart(t *testing.T) {
	c := Rung(12)
	fast, changed := c.WithFastStart()
	if !changed || fast.Model.Depthwise != mobilenet.FastestDepthwise() || !fast.Model.ProjectPrologue || fast.ID != c.ID {
		t.Errorf("rung 12 in fast start: changed %v, depthwise %+v, ID %s", changed, fast.Model.Depthwise, fast.ID)
	}
	if got := fast.Formulation(); !strings.Contains(got, "dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-unroll=2,dw-row-carry=sums,dw-row-tiles=per-layer") {
		t.Errorf("fast start's formulation %q does not name the kernels", got)
	}
	chosen, err := c.WithFormulation("dw-input-grad=shifted")
	if err != nil {
		t.Fatal(err)
	}
	if kept, changed := chosen.WithFastStart(); changed || kept != chosen {
		t.Errorf("fast start changed a chosen depthwise formulation: %+v", kept.Model.Depthwise)
	}

	// Rungs 4 and 5 still share one program in fast start, under a key of their own: a caller that frees the
	// other trainers must ask for the key Run uses (AsRun), or it frees the one rung 5 would reuse.
	opt := Options{FastStart: true}
	four, _ := opt.AsRun(Rung(4))
	five, _ := opt.AsRun(Rung(5))
	if four.TrainerKey() != five.TrainerKey() || four.TrainerKey() == Rung(4).TrainerKey() {
		t.Error("AsRun: rungs 4 and 5 should share a key in fast start, different from the default mode's")
	}
	if same, changed := (Options{}).AsRun(Rung(4)); changed || same != Rung(4) {
		t.Error("AsRun changed a configuration without fast start")
	}

	backend, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	set, _ := cifar.Synthetic(32, 10, 1)
	res, err := Run(backend, Rung(1).Smoke(), set, Options{Warmup: 0, Steps: 1, FastStart: true})
	if err == nil || !strings.Contains(err.Error(), "CUDA GPU") {
		t.Errorf("fast start on the pure-Go backend: err %v, want one that names the CUDA GPU the kernels need", err)
	}
	if !res.FastStart || !strings.Contains(res.Formulation, "dw-forward=triton") || res.ID != "1" {
		t.Errorf("result: FastStart %v, formulation %q, ID %q", res.FastStart, res.Formulation, res.ID)
	}
}
