package mobilenet

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestProjectionMatchesAutodiff: depthwise convolution → batch norm → ReLU6 → projection → batch norm, differentiated
// with the projection's prologue (project-prologue=bn-relu6) against GoMLX's own gradient of the same graph: the
// output, dx, dK, the projection's dW and both batch norms' dγ and dβ, with γ and β that make ReLU6 clip on both
// sides, strides 1 and 2, channel counts that leave partial tiles. On the pure-Go backend in float64 with graph
// operations; with a GPU (GOMLX_BACKEND at the CUDA plugin) in float32 with the Triton kernels, the forward kernel
// also making the second batch norm's sums (project-sums=kernel).
func TestProjectionMatchesAutodiff(t *testing.T) {
	backend := testBackend(t)
	dtype, tol := dtypes.Float64, 1e-9
	form := DepthwiseForm{}
	if triton.Check(NewGraph(backend, "check")) == nil {
		// The kernels' dots are ieee float32; XLA's convolutions may use TF32 (expand_grad_test.go).
		dtype, tol, form = dtypes.Float32, 2e-3, DepthwiseForm{Forward: ForwardTriton, Input: InputGradTriton, Kernel: KernelGradTriton, Tiling: TilingRows}
	}
	for _, tc := range []struct{ stride, c, k int }{{1, 40, 24}, {2, 96, 16}, {1, 144, 64}} {
		t.Run(fmt.Sprintf("stride%d-c%d-k%d", tc.stride, tc.c, tc.k), func(t *testing.T) {
			const b, h, w = 3, 10, 10
			rng := rand.New(rand.NewPCG(31, uint64(tc.c)))
			x, dk, wt := randSlice(rng, b*h*w*tc.c), randSlice(rng, 9*tc.c), randSlice(rng, tc.c*tc.k)
			gamma, beta := randSlice(rng, tc.c), randSlice(rng, tc.c)
			for i := range gamma {
				gamma[i], beta[i] = 2+gamma[i], 2+beta[i] // ReLU6 clips on both sides
			}
			g2, b2 := randSlice(rng, tc.k), randSlice(rng, tc.k)
			oh := (h-1)/tc.stride + 1
			dy := randSlice(rng, b*oh*oh*tc.k)
			run := func(prologue bool) [][]float64 {
				m := &Model{Config: Config{Depthwise: form, MaskedReLU6: true, ProjectPrologue: prologue, ProjectSums: prologue},
					Params: []Param{{}, {}, {}, {}, {Shape: []int{1, 1, tc.c, tc.k}}}}
				exec := MustNewExec(backend, func(in []*Node) []*Node {
					xN, kN, gN, bN, wN, g2N, b2N, dyN := in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7]
					acc := accumulation(dtype)
					xc, kc, wc := ConvertDType(xN, dtype), ConvertDType(kN, acc), ConvertDType(wN, acc)
					gc, bc, g2c, b2c := ConvertDType(gN, acc), ConvertDType(bN, acc), ConvertDType(g2N, acc), ConvertDType(b2N, acc)
					f := &forward{m: m, pass: Pass{Params: []*Node{gc, bc, ZerosLike(gc), OnesLike(gc), wc, g2c, b2c,
						ZerosLike(g2c), OnesLike(g2c)}, Compute: dtype, Train: true}}
					f.updated = append([]*Node(nil), f.pass.Params...)
					a := f.bnReLU6AfterDepthwise(DepthwiseConv(xc, ConvertDType(kc, dtype), tc.stride, form), 0)
					y := f.projection(a, 4)
					return asFloat64(y, Gradient(ReduceAllSum(Mul(ConvertDType(y, dtypes.Float64), dyN)), xc, kc, wc, gc, bc, g2c, b2c))
				})
				return flat64(exec, tensors.FromFlatDataAndDimensions(x, b, h, w, tc.c), tensors.FromFlatDataAndDimensions(dk, 3, 3, 1, tc.c),
					tensors.FromFlatDataAndDimensions(gamma, tc.c), tensors.FromFlatDataAndDimensions(beta, tc.c),
					tensors.FromFlatDataAndDimensions(wt, 1, 1, tc.c, tc.k), tensors.FromFlatDataAndDimensions(g2, tc.k),
					tensors.FromFlatDataAndDimensions(b2, tc.k), tensors.FromFlatDataAndDimensions(dy, b, oh, oh, tc.k))
			}
			before, stoodIn := projectGradsBuilt.Load(), sumsStoodIn.Load()
			got := run(true)
			if projectGradsBuilt.Load() == before {
				t.Fatal("the projection's hand-written dW was not built")
			}
			if kernels := form.Forward.isTriton(); (sumsStoodIn.Load() > stoodIn) != kernels {
				t.Fatalf("the forward kernel's sums stood in for the batch norm's: %v, want %v", sumsStoodIn.Load() > stoodIn, kernels)
			}
			want := run(false)
			for i, name := range []string{"y", "dx", "dK", "dW", "dγ", "dβ", "dγ₂", "dβ₂"} {
				if err := maxRelErr(got[i], want[i]); !(err < tol) {
					t.Errorf("%s: max relative error %.3g against autodiff", name, err)
				}
			}
		})
	}
}
