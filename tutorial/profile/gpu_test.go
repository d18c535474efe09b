//go:build gpu

package profile

// End-to-end check on the GPU machine (build tag "gpu", so ordinary `go test` does not compile GoMLX + go-xla):
//
//	GOTOOLCHAIN=go1.27.3 go test -c -tags gpu -o tutorial/profile/profile_gpu.test ./tutorial/profile   # Debian
//	. shared/gpu/jax-cuda-env.sh; cd tutorial/profile                                                   # H200
//	PROFILE_OUT=$OUT/profile ./profile_gpu.test -test.v -test.run 'GPU|Real'
//
// (run it from tutorial/profile so that TestRealH200Capture finds testdata/; the binary also runs every unit test).
//
// It runs a small convolution + matmul program under CaptureAround, checks the summary, reads the compiled and
// allocator memory statistics and writes the report files (and h200_gpu_test.xplane.pb, the file that
// TestRealH200Capture reads from testdata/) to $PROFILE_OUT.

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
	"github.com/gomlx/compute"
	_ "github.com/gomlx/go-xla/compute/xla"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

func TestGPUCaptureAround(t *testing.T) {
	if PluginPathFromEnv() == "" {
		t.Skip(`GOMLX_BACKEND does not name the CUDA PJRT plugin ("xla:/abs/path/xla_cuda_plugin.so")`)
	}
	backend, err := compute.New()
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	t.Logf("backend: %s", backend.Description())

	const batch, hw, cin, cout = 64, 56, 64, 128
	rng := rand.New(rand.NewPCG(1, 2))
	randT := func(dims ...int) *tensors.Tensor {
		n := 1
		for _, d := range dims {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = rng.Float32() - 0.5
		}
		return tensors.FromFlatDataAndDimensions(v, dims...)
	}
	x, k, w := randT(batch, hw, hw, cin), randT(3, 3, cin, cout), randT(cout, cout)
	exec := MustNewExec(backend, func(x, k, w *Node) *Node {
		y := Tanh(Convolve(x, k).PadSame().Done())
		z := MatMul(Reshape(y, -1, cout), w)
		return ReduceAllSum(z)
	})
	_, g, err := exec.CallWithGraph(x, k, w) // Compile and warm up outside the capture.
	if err != nil {
		t.Fatal(err)
	}

	const steps = 5
	rep, err := CaptureAround("", func() error {
		for range steps {
			if _, err := exec.Call(x, k, w); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("CaptureAround: %v", err)
	}
	t.Logf("plugin: %+v, %d bytes of XSpace", rep.Conditions.Plugin, len(rep.Raw))
	rep.Title = "profile package GPU test: conv 3×3 + matmul, f32"
	rep.Conditions.Batch, rep.Conditions.Precision, rep.Conditions.Data, rep.Conditions.Steps = batch, "f32", "synthetic", steps
	if err := rep.Resummarize(SummaryOptions{}); err != nil {
		t.Fatalf("summary: %v", err)
	}
	k0 := rep.Kernels
	if k0.KernelCount < steps || k0.BusyPct <= 0 || k0.BusyPct > 100 || k0.BusyUs > k0.WindowUs {
		t.Errorf("implausible summary: %s", k0)
	}
	if k0.WindowSource != "given" {
		t.Errorf("capture window not used (%s): %v", k0.WindowSource, k0.Notes)
	}

	rep.Memory = &memory.Report{CapacityBytes: k0.GPU.MemoryBytes}
	if ms, err := memory.Compiled(g); err != nil {
		t.Errorf("CompiledMemory: %v", err)
	} else {
		t.Logf("compiled memory: %+v (total %d)", ms, ms.Device.Total())
		rep.Memory.Compiled = append(rep.Memory.Compiled, memory.CompiledAt{Batch: batch, Stats: ms})
	}
	if dm, err := DeviceMemory(backend, 0); err != nil {
		t.Errorf("DeviceMemory: %v", err)
	} else {
		t.Logf("device memory: %+v", dm)
		rep.Memory.Device = &dm
	}
	rep.Recommend()

	out := os.Getenv("PROFILE_OUT")
	if out == "" {
		out = t.TempDir()
	}
	if err := rep.WriteFiles(out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "h200_gpu_test.xplane.pb"), rep.Raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("files in %s\n%s", out, rep.Markdown())
}
