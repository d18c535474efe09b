package ladder

import (
	"testing"

	"github.com/gomlx/compute/gobackend"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
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
