package mobilenet

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestGramSums: Σz and Σz² of z = x·W from x's Gram matrix against the reductions of z computed in float64 — to
// 1e-12 in float64, and in bfloat16 (x and W rounded to it, the Gram matrix accumulated in float32) to 1e-5 of the
// float64 sums of the same rounded values; x has a mean away from zero, as a block's input has. The values are
// rounded to bfloat16 on the host: rounded in the graph (float64 → bfloat16 → float64), XLA's GPU compiler drops
// the round trip from the reference (SimplifyFPConversions, with excess precision allowed by default), whose z then
// came from unrounded x and W — run74's and run75's 1.6·10⁻³ "errors" on an H100.
func TestGramSums(t *testing.T) {
	backend := testBackend(t)
	for _, c := range []struct {
		dtype dtypes.DType
		tol   float64
	}{{dtypes.Float64, 1e-12}, {dtypes.BFloat16, 1e-5}} {
		t.Run(fmt.Sprint(c.dtype), func(t *testing.T) {
			const b, h, w, k, ch = 3, 7, 5, 12, 72
			rng := rand.New(rand.NewPCG(8, 9))
			xs, ws := randSlice(rng, b*h*w*k), randSlice(rng, k*ch)
			for i := range xs {
				xs[i] = 1.5 + xs[i]
			}
			if c.dtype == dtypes.BFloat16 {
				for _, s := range [][]float64{xs, ws} {
					for i := range s {
						s[i] = ttRound("bf16", s[i])
					}
				}
			}
			outs := flat64(MustNewExec(backend, func(x, kernel *Node) []*Node {
				xr, kr := ConvertDType(x, c.dtype), ConvertDType(kernel, c.dtype)
				z := convolve(ConvertDType(xr, dtypes.Float64), ConvertDType(kr, dtypes.Float64), 1) // exact products
				s, s2 := gramSums(xr, kr)
				return []*Node{ReduceSum(z, 0, 1, 2), ReduceSum(Square(z), 0, 1, 2),
					ConvertDType(s, dtypes.Float64), ConvertDType(s2, dtypes.Float64)}
			}), tensors.FromFlatDataAndDimensions(xs, b, h, w, k), tensors.FromFlatDataAndDimensions(ws, 1, 1, k, ch))
			for i, name := range []string{"Σz", "Σz²"} {
				if err := maxRelErr(outs[2+i], outs[i]); !(err < c.tol) {
					t.Errorf("%s: max relative error %.3g from the reduction of z", name, err)
				}
			}
		})
	}
}

// TestGramSumsWhere: only after a widening 1×1 convolution, only in training, only with bn-sums=gram.
func TestGramSumsWhere(t *testing.T) {
	g := NewGraph(testBackend(t), "where")
	k := func(cin, cout int) *Node { return Zeros(g, shapes.Make(dtypes.Float32, 1, 1, cin, cout)) }
	gram := Config{Sums: SumsGram}
	for _, c := range []struct {
		cfg       Config
		train     bool
		cin, cout int
		want      bool
	}{{gram, true, 16, 96, true}, {gram, true, 320, 1280, true}, {gram, true, 96, 24, false}, {gram, true, 32, 32, false},
		{gram, false, 16, 96, false}, {Config{}, true, 16, 96, false}, {Config{Sums: SumsTriton}, true, 16, 96, false}} {
		f := &forward{m: &Model{Config: c.cfg}, pass: Pass{Train: c.train}}
		if got := f.widensWithGramSums(nil, k(c.cin, c.cout)); got != c.want {
			t.Errorf("%d → %d channels with %q, train %v: %v, want %v", c.cin, c.cout, c.cfg.Formulation(), c.train, got, c.want)
		}
	}
}
