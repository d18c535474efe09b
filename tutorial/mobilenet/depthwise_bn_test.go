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

// TestBNBackwardMatchesAutodiff: batch norm → ReLU6 → depthwise convolution, differentiated with the hand-written
// batch-norm backward pass (dw-prologue=bn-relu6-backward) against GoMLX's own gradient of the same graph: dz, dγ,
// dβ and dK, strides 1 and 2. On the pure-Go backend in float64 with the gate and sums from graph operations; with
// a GPU (GOMLX_BACKEND at the CUDA plugin) in float32 with the Triton kernels.
func TestBNBackwardMatchesAutodiff(t *testing.T) {
	backend := testBackend(t)
	dtype, tol := dtypes.Float64, 1e-9
	plain, fused := DepthwiseForm{}, DepthwiseForm{Prologue: PrologueBNReLU6Backward}
	if triton.Check(NewGraph(backend, "check")) == nil {
		dtype, tol = dtypes.Float32, 1e-4
		plain = DepthwiseForm{Forward: ForwardTriton, Input: InputGradTriton, Kernel: KernelGradTriton}
		fused = plain
		fused.Prologue = PrologueBNReLU6Backward
	}
	tilings := []Tiling{TilingGather}
	if plain.Forward == ForwardTriton {
		tilings = append(tilings, TilingRows)
	}
	for _, tc := range []struct{ stride, cc, rr int }{{1, 40, 0}, {2, 40, 0}, {1, 8, 64}, {2, 24, 64}} {
		for _, tiling := range tilings {
			stride, cc, rr := tc.stride, tc.cc, tc.rr
			fused := fused
			fused.Tiling = tiling
			t.Run(fmt.Sprintf("stride%d-c%d-row%d-%s", stride, cc, rr, tiling), func(t *testing.T) {
				const b, h, w = 3, 10, 10
				c := cc
				rng := rand.New(rand.NewPCG(21, uint64(stride)))
				z, k := randSlice(rng, b*h*w*c), randSlice(rng, 9*c)
				gamma, beta := randSlice(rng, c), randSlice(rng, c)
				for i := range gamma {
					gamma[i], beta[i] = 2+gamma[i], 2+beta[i] // ReLU6 clips on both sides
				}
				oh := (h-1)/stride + 1
				dy := randSlice(rng, b*oh*oh*c)
				run := func(form DepthwiseForm) [][]float64 {
					m := &Model{Config: Config{Depthwise: form, ReductionRow: rr, MaskedReLU6: true}}
					exec := MustNewExec(backend, func(zN, kN, g, be, dyN *Node) []*Node {
						zc, kc, gc, bc := ConvertDType(zN, dtype), ConvertDType(kN, dtype), ConvertDType(g, dtype), ConvertDType(be, dtype)
						f := &forward{m: m, pass: Pass{Params: []*Node{gc, bc, ZerosLike(gc), OnesLike(gc)}, Compute: dtype, Train: true}}
						f.updated = append([]*Node(nil), f.pass.Params...)
						y := DepthwiseConv(f.bnReLU6(zc, 0, true), kc, stride, form)
						grads := Gradient(ReduceAllSum(Mul(ConvertDType(y, dtypes.Float64), dyN)), zc, kc, gc, bc)
						out := []*Node{ConvertDType(y, dtypes.Float64)}
						for _, g := range grads {
							out = append(out, ConvertDType(g, dtypes.Float64))
						}
						return out
					})
					outs := exec.MustCall(tensors.FromFlatDataAndDimensions(z, b, h, w, c), tensors.FromFlatDataAndDimensions(k, 3, 3, 1, c),
						tensors.FromFlatDataAndDimensions(gamma, c), tensors.FromFlatDataAndDimensions(beta, c),
						tensors.FromFlatDataAndDimensions(dy, b, oh, oh, c))
					res := make([][]float64, len(outs))
					for i, o := range outs {
						res[i] = tensors.MustCopyFlatData[float64](o)
					}
					return res
				}
				want, got := run(plain), run(fused)
				for i, name := range []string{"y", "dz", "dK", "dγ", "dβ"} {
					if err := maxRelErr(got[i], want[i]); !(err < tol) {
						t.Errorf("%s: max relative error %.3g against autodiff", name, err)
					}
				}
			})
		}
	}
}
