package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
)

// TestTrainSmoke runs `trainopt train` at a tiny size on the CPU (GOMLX_BACKEND=go): it must succeed.
func TestTrainSmoke(t *testing.T) {
	t.Setenv("GOMLX_BACKEND", "go")
	summary := filepath.Join(t.TempDir(), "train-f32.json")
	err := cmdTrain([]string{"-data", t.TempDir(), "-size", "48", "-width", "0.25", "-batch", "8", "-epochs", "0.5",
		"-warmup", "1", "-eval", "16", "-train-images", "64", "-precision", "f32", "-workers", "1", "-json", summary})
	if code := report(err); code != exitOK {
		t.Fatalf("train smoke: exit %d, err %v", code, err)
	}
	// What the notebooks read instead of the printed summary.
	run, err := ladder.ReadTrainRun(summary)
	if err != nil || run.Result.SamplesPerSec <= 0 || run.Result.Batch != 8 || run.Conditions.Revision == "" ||
		run.Conditions.Precision != "f32" || run.Accuracy == nil || !strings.HasPrefix(run.Config, "f32 batch 8") {
		t.Errorf("train summary file: %+v, %v", run, err)
	}
}

// TestExitCodes: scripts can tell bad usage (2) from bad data (3) from a failed run (1).
func TestExitCodes(t *testing.T) {
	t.Setenv("GOMLX_BACKEND", "go")
	empty := t.TempDir()
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "data_batch_1.bin"), []byte("short"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func() error
		want int
	}{
		{"unknown precision", func() error { return cmdTrain([]string{"-precision", "fp8"}) }, exitUsage},
		{"unknown flag", func() error { return cmdTrain([]string{"-nope"}) }, exitUsage},
		{"unknown input", func() error { return cmdTrain([]string{"-input", "pigeon"}) }, exitUsage},
		{"negative epochs", func() error { return cmdTrain([]string{"-epochs", "-1", "-data", empty, "-train-images", "64"}) }, exitUsage},
		{"unknown ladder step", func() error { return cmdLadder([]string{"-steps", "42", "-data", empty}) }, exitUsage},
		{"data needs one mode", func() error { return cmdData(nil) }, exitUsage},
		{"real data missing", func() error { return cmdTrain([]string{"-real", "-data", empty}) }, exitData},
		{"corrupt data", func() error { return cmdTrain([]string{"-data", bad}) }, exitData},
		{"memory of a step with one batch", func() error { return cmdMemory([]string{"-step", "7", "-data", empty}) }, exitUsage},
		{"memory without compiled statistics (pure Go)", func() error {
			err := cmdMemory([]string{"-data", empty, "-timed", "1", "-out", empty})
			if err == nil || !strings.Contains(err.Error(), "XLA backend") {
				t.Errorf("memory on the Go backend: %v", err)
			}
			return err
		}, exitRun},
		{"autotune cache summary", func() error {
			return cmdAutotune([]string{"../../tutorial/backend/autotune/testdata/h200_xla_autotune.pb"})
		}, exitOK},
		{"autotune cache that is not one", func() error {
			return cmdAutotune([]string{"../../tutorial/profile/testdata/h200_gpu_test.xplane.pb"})
		}, exitData},
		{"autotune without a cache", func() error {
			t.Setenv("TRAINOPT_AUTOTUNE_CACHE", "off") // as on a machine without a GPU, also on one with
			return cmdAutotune(nil)
		}, exitUsage},
		{"autotune cache without some cuDNN algos", func() error {
			out := filepath.Join(empty, "kept.pb")
			err := cmdAutotune([]string{"-drop-cudnn-algos", "5,16", "-o", out, "../../tutorial/backend/autotune/testdata/h200_xla_autotune.pb"})
			if err == nil {
				if err2 := cmdAutotune([]string{out}); err2 != nil {
					t.Errorf("the filtered cache does not read back: %v", err2)
				}
			}
			return err
		}, exitOK},
		{"autotune drop with a bad algo id", func() error {
			return cmdAutotune([]string{"-drop-cudnn-algos", "5,x", "-o", filepath.Join(empty, "x.pb"),
				"../../tutorial/backend/autotune/testdata/h200_xla_autotune.pb"})
		}, exitUsage},
		{"autotune drop without -o", func() error {
			return cmdAutotune([]string{"-drop-cudnn-algos", "5", "../../tutorial/backend/autotune/testdata/h200_xla_autotune.pb"})
		}, exitUsage},
		{"bad torch file", func() error {
			return cmdLadder([]string{"-steps", "1", "-data", empty, "-out", empty, "-torch", filepath.Join(empty, "none.jsonl")})
		}, exitData},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := report(tc.run()); got != tc.want {
				t.Errorf("exit code %d, want %d", got, tc.want)
			}
		})
	}
}

// TestLadderSmoke is `trainopt ladder -smoke`: every ladder step on the pure-Go backend at tiny sizes; the command
// fails unless each step trained (finite losses, the last below the first). Throughput is not asserted.
func TestLadderSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every ladder step on the CPU (several minutes)")
	}
	t.Setenv("GOMLX_BACKEND", "go")
	out := t.TempDir()
	if code := report(cmdLadder([]string{"-smoke", "-data", t.TempDir(), "-out", out})); code != exitOK {
		t.Fatalf("ladder -smoke: exit %d", code)
	}
	md, _ := filepath.Glob(filepath.Join(out, "*.md"))
	svg, _ := filepath.Glob(filepath.Join(out, "*.svg"))
	if len(md) != 1 || len(svg) != 2 {
		t.Errorf("want one results table and two charts in %s, got %v %v", out, md, svg)
	}
}
