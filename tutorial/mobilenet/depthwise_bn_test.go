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
// dβ and dK, strides 1 and 2; also with dK taken from the dx kernel (dw-kernel-grad=in-dx, row tiles). On the
// pure-Go backend in float64 with the gate and sums from graph operations (and dK from its graph formula, through
// the same plumbing); with a GPU (GOMLX_BACKEND at the CUDA plugin) in float32 with the Triton kernels.
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
	type variant struct {
		tiling Tiling
		inDx   bool
	}
	var variants []variant
	for _, tiling := range tilings {
		variants = append(variants, variant{tiling, false})
	}
	variants = append(variants, variant{tilings[len(tilings)-1], true})
	for _, tc := range []struct{ stride, cc, rr int }{{1, 40, 0}, {2, 40, 0}, {1, 8, 64}, {2, 24, 64}} {
		for _, vr := range variants {
			stride, cc, rr := tc.stride, tc.cc, tc.rr
			fused := fused
			fused.Tiling = vr.tiling
			name := fmt.Sprintf("stride%d-c%d-row%d-%s", stride, cc, rr, vr.tiling)
			if vr.inDx {
				fused.Kernel, fused.RowTile.Unroll = KernelGradInDx, 2
				name += "-dK-in-dx"
			}
			t.Run(name, func(t *testing.T) {
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
						return asFloat64(y, Gradient(ReduceAllSum(Mul(ConvertDType(y, dtypes.Float64), dyN)), zc, kc, gc, bc))
					})
					return flat64(exec, tensors.FromFlatDataAndDimensions(z, b, h, w, c), tensors.FromFlatDataAndDimensions(k, 3, 3, 1, c),
						tensors.FromFlatDataAndDimensions(gamma, c), tensors.FromFlatDataAndDimensions(beta, c),
						tensors.FromFlatDataAndDimensions(dy, b, oh, oh, c))
				}
				want := run(plain)
				before := kernelGradsFromDx.Load()
				got := run(fused)
				if took := kernelGradsFromDx.Load() - before; vr.inDx != (took > 0) {
					t.Errorf("dK taken from the dx kernel %d times", took)
				}
				for i, name := range []string{"y", "dz", "dK", "dγ", "dβ"} {
					if err := maxRelErr(got[i], want[i]); !(err < tol) {
						t.Errorf("%s: max relative error %.3g against autodiff", name, err)
					}
				}
			})
		}
	}
}
