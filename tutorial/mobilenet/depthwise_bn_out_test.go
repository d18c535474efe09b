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

// TestBNOutBackwardMatchesAutodiff: batch norm → ReLU6 → depthwise convolution → batch norm → ReLU6, differentiated
// with dy made where dx is made (dw-epilogue=bn-relu6-backward, on top of dw-prologue=bn-relu6-backward and
// dw-kernel-grad=in-dx) against GoMLX's own gradient of the same graph: dz, dK, and both batch norms' dγ and dβ,
// strides 1 and 2, with and without batch norm's wide rows. On the pure-Go backend in float64 with the formulas
// as graph operations; with a GPU in float32 with the Triton kernels (dwRowsInputKernelGradOut).
func TestBNOutBackwardMatchesAutodiff(t *testing.T) {
	backend := testBackend(t)
	dtype, tol := dtypes.Float64, 1e-9
	plain := DepthwiseForm{}
	fused := DepthwiseForm{Prologue: PrologueBNReLU6Backward, Kernel: KernelGradInDx, Epilogue: EpilogueBNReLU6Backward}
	if triton.Check(NewGraph(backend, "check")) == nil {
		dtype, tol = dtypes.Float32, 1e-4
		plain = DepthwiseForm{Forward: ForwardTriton, Input: InputGradTriton, Kernel: KernelGradTriton}
		fused = FastestDepthwise()
		fused.Epilogue = EpilogueBNReLU6Backward
	}
	for _, tc := range []struct{ stride, cc, rr int }{{1, 40, 0}, {2, 40, 0}, {1, 8, 64}, {2, 24, 64}} {
		stride, cc, rr := tc.stride, tc.cc, tc.rr
		t.Run(fmt.Sprintf("stride%d-c%d-row%d", stride, cc, rr), func(t *testing.T) {
			const b, h, w = 3, 10, 10
			c := cc
			rng := rand.New(rand.NewPCG(23, uint64(stride)))
			z, k := randSlice(rng, b*h*w*c), randSlice(rng, 9*c)
			bn := make([][]float64, 4) // γ1, β1, γ2, β2: around 2, so that both ReLU6s clip on both sides
			for j := range bn {
				bn[j] = randSlice(rng, c)
				for i := range bn[j] {
					bn[j][i] += 2
				}
			}
			oh := (h-1)/stride + 1
			dh := randSlice(rng, b*oh*oh*c)
			run := func(form DepthwiseForm) [][]float64 {
				m := &Model{Config: Config{Depthwise: form, ReductionRow: rr, MaskedReLU6: true}}
				exec := MustNewExec(backend, func(in []*Node) []*Node { // z, K, γ1, β1, γ2, β2, the output's gradient
					cv := func(x *Node) *Node { return ConvertDType(x, dtype) }
					zc, kc, g1c, b1c, g2c, b2c, dhN := cv(in[0]), cv(in[1]), cv(in[2]), cv(in[3]), cv(in[4]), cv(in[5]), in[6]
					f := &forward{m: m, pass: Pass{Compute: dtype, Train: true,
						Params: []*Node{g1c, b1c, ZerosLike(g1c), OnesLike(g1c), g2c, b2c, ZerosLike(g2c), OnesLike(g2c)}}}
					f.updated = append([]*Node(nil), f.pass.Params...)
					y := f.bnReLU6AfterDepthwise(DepthwiseConv(f.bnReLU6(zc, 0, true), kc, stride, form), 4)
					return asFloat64(y, Gradient(ReduceAllSum(Mul(ConvertDType(y, dtypes.Float64), dhN)), zc, kc, g1c, b1c, g2c, b2c))
				})
				ten := func(v []float64, dims ...int) *tensors.Tensor { return tensors.FromFlatDataAndDimensions(v, dims...) }
				return flat64(exec, ten(z, b, h, w, c), ten(k, 3, 3, 1, c), ten(bn[0], c), ten(bn[1], c), ten(bn[2], c),
					ten(bn[3], c), ten(dh, b, oh, oh, c))
			}
			want := run(plain)
			before := dyMadeInDx.Load()
			got := run(fused)
			if took := dyMadeInDx.Load() - before; took != 1 {
				t.Errorf("dy made where dx is made %d times, want once", took)
			}
			for i, name := range []string{"output", "dz", "dK", "dγ before", "dβ before", "dγ after", "dβ after"} {
				if err := maxRelErr(got[i], want[i]); !(err < tol) {
					t.Errorf("%s: max relative error %.3g against autodiff", name, err)
				}
			}
		})
	}
}
