package mobilenet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestBNSumsChannels: the channel block is the largest power of two dividing C when that is 64 to 128 channels,
// else every channel rounded up to a power of two — MobileNetV2's widths at the values worked out by hand.
func TestBNSumsChannels(t *testing.T) {
	for c, want := range map[int]int{8: 8, 16: 16, 24: 32, 32: 32, 96: 128, 128: 128, 144: 256, 160: 256, 192: 64,
		320: 64, 384: 128, 576: 64, 960: 64, 1280: 128, 200: 256} {
		if got := bnSumsChannels(c); got != want {
			t.Errorf("bnSumsChannels(%d) = %d, want %d", c, got, want)
		}
	}
}

// TestTTInterpBNSums runs the sums kernel in the interpreter against float64 sums of the same (rounded) values,
// on shapes whose rows end mid-tile and mid-band, channel counts below, at and past 128, not all powers of two,
// and every element type; the grid covers every row and channel (the interpreter fails on a store outside part
// and the NaN-filled part shows any row a program did not write).
func TestTTInterpBNSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		rows, c int
		elem    string
	}{{1000, 24, "f32"}, {300, 144, "f32"}, {77, 40, "bf16"}, {5000, 8, "f16"}, {70, 1280, "f32"}, {1, 16, "f32"},
		{20000, 32, "bf16"}, {50, 576, "bf16"}, {40, 200, "f32"}} {
		t.Run(fmt.Sprintf("%dx%d-%s", tc.rows, tc.c, tc.elem), func(t *testing.T) {
			k := bnSumsKernel(tc.rows, tc.c, tc.elem)
			if k.Grid[1] != cdiv(tc.c, bnSumsChannels(tc.c)) {
				t.Fatalf("grid %v: want %d channel blocks", k.Grid, cdiv(tc.c, bnSumsChannels(tc.c)))
			}
			x := make([]float64, tc.rows*tc.c)
			want := make([]float64, 2*tc.c)
			for i := range x {
				x[i] = ttRound(tc.elem, 3*rng.NormFloat64()+1)
				want[i%tc.c] += x[i]
				want[tc.c+i%tc.c] += x[i] * x[i]
			}
			part := ttOutput(k.Grid[0] * 2 * tc.c)
			mustRunTT(t, k, x, part)
			// float32 accumulation over up to 20000 values of magnitude ~3–10
			ttCheck(t, "Σx, Σx²", ttSumPrograms(part, 2*tc.c), want, 1e-5, 2, tc.c)
		})
	}
}

// TestBNSumsIRIsWellFormed: every value is defined before use and the kernel takes x and part.
func TestBNSumsIRIsWellFormed(t *testing.T) {
	for _, c := range []int{24, 144, 1280} {
		k := bnSumsKernel(128*56*56, c, "bf16")
		if bad := undefinedValues(k.IR, 2); len(bad) > 0 {
			t.Errorf("C=%d: %v", c, bad)
		}
		if !strings.Contains(k.IR, "%arg0: !tt.ptr<bf16>") || !strings.Contains(k.IR, "%arg1: !tt.ptr<f32>") {
			t.Errorf("C=%d: want arguments x (bf16) and part (f32):\n%s", c, k.IR[:min(len(k.IR), 300)])
		}
		if programs := k.Grid[0] * k.Grid[1]; programs > bnSumsPrograms || programs < bnSumsPrograms/2 {
			t.Errorf("C=%d: grid %v has %d programs, want about %d", c, k.Grid, programs, bnSumsPrograms)
		}
	}
}

// TestBNSumsTriton: with a GPU (GOMLX_BACKEND at the CUDA plugin), batch norm with bn-sums=triton — output and the
// gradients through it (x, γ, β) — matches the default formulation in float32, with and without reduction-row;
// elsewhere the graph fails to build with an error that names the setting and the GPU it needs.
func TestBNSumsTriton(t *testing.T) {
	backend := testBackend(t)
	const b, h, w, c = 4, 10, 10, 48
	rng := rand.New(rand.NewPCG(13, 14))
	f32 := func(n int) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(2*rng.NormFloat64() + 1)
		}
		return out
	}
	x, gamma, beta, dy := f32(b*h*w*c), f32(c), f32(c), f32(b*h*w*c)
	run := func(cfg Config) ([][]float32, error) {
		m := &Model{Config: cfg}
		exec := MustNewExec(backend, func(xN, g, be, dyN *Node) []*Node {
			f := &forward{m: m, pass: Pass{Params: []*Node{g, be, ZerosLike(g), OnesLike(g)}, Compute: dtypes.Float32, Train: true}}
			f.updated = append([]*Node(nil), f.pass.Params...)
			y := f.batchNorm(xN, 0)
			return append([]*Node{y}, Gradient(ReduceAllSum(Mul(y, dyN)), xN, g, be)...)
		})
		outs, err := exec.Call(tensors.FromFlatDataAndDimensions(x, b, h, w, c), tensors.FromFlatDataAndDimensions(gamma, c),
			tensors.FromFlatDataAndDimensions(beta, c), tensors.FromFlatDataAndDimensions(dy, b, h, w, c))
		res := make([][]float32, len(outs))
		for i, o := range outs {
			res[i] = tensors.MustCopyFlatData[float32](o)
		}
		return res, err
	}
	if err := triton.Check(NewGraph(backend, "check")); err != nil {
		_, err := run(Config{Sums: SumsTriton})
		if err == nil || !strings.Contains(err.Error(), "bn-sums=triton") || !strings.Contains(err.Error(), "GPU") {
			t.Fatalf("without Triton: got error %v, want one naming bn-sums=triton and the GPU it needs", err)
		}
		return
	}
	for _, row := range []int{0, 256} {
		want, err := run(Config{ReductionRow: row})
		if err != nil {
			t.Fatal(err)
		}
		got, err := run(Config{ReductionRow: row, Sums: SumsTriton})
		if err != nil {
			t.Fatal(err)
		}
		for i, name := range []string{"y", "dx", "dγ", "dβ"} {
			var worst, scale float64
			for j := range want[i] {
				worst, scale = max(worst, math.Abs(float64(got[i][j]-want[i][j]))), max(scale, math.Abs(float64(want[i][j])))
			}
			if !(worst <= 1e-4*scale) {
				t.Errorf("reduction-row=%d %s: max error %.3g of max |value| %.3g against bn-sums=separate", row, name, worst, scale)
			}
		}
	}
}
