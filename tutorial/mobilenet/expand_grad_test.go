package mobilenet

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestExpandGradMatchesAutodiff: 1×1 expansion → batch norm → ReLU6 → depthwise convolution, differentiated with
// each hand-written expansion backward pass (expand-grad=fused and distributed) against GoMLX's own gradient of the
// same graph: dx, dW, dγ, dβ and dK, both forms of the 1×1 convolution, strides 1 and 2, channel counts that leave
// partial tiles. On the pure-Go backend in float64 with graph operations; with a GPU (GOMLX_BACKEND at the CUDA
// plugin) in float32 with the Triton kernels (the fused kernel's dots in ieee precision).
func TestExpandGradMatchesAutodiff(t *testing.T) {
	backend := testBackend(t)
	dtype, tol, tolProducts := dtypes.Float64, 1e-9, 1e-9
	plain, hand := DepthwiseForm{}, DepthwiseForm{Prologue: PrologueBNReLU6Backward}
	if triton.Check(NewGraph(backend, "check")) == nil {
		// dx and dW against XLA's float32 convolution, which on an H100 was 2–4·10⁻⁴ away (run62's test/expand.log),
		// most likely because XLA's default precision lets cuDNN use TF32 (10-bit mantissas) where the kernel's dots
		// are ieee float32 — not verified; the interpreter test holds the kernel to 10⁻⁴ of float64.
		dtype, tol, tolProducts = dtypes.Float32, 1e-4, 2e-3
		plain = DepthwiseForm{Forward: ForwardTriton, Input: InputGradTriton, Kernel: KernelGradTriton, Tiling: TilingRows}
		hand = plain
		hand.Prologue = PrologueBNReLU6Backward
	}
	for _, form := range []ExpandGradForm{ExpandGradFused, ExpandGradDistributed} {
		for _, tc := range expandCases {
			t.Run(fmt.Sprintf("%s-stride%d-k%d-c%d-dot%v", form, tc.stride, tc.k, tc.c, tc.dot), func(t *testing.T) {
				in := newExpandInputs(tc, 0)
				want := in.gradients(backend, plain, ExpandGradXLA, dtype)
				got := in.gradients(backend, hand, form, dtype)
				for i, name := range []string{"y", "dx", "dW", "dK", "dγ", "dβ"} {
					limit := tol
					if name == "dx" || name == "dW" {
						limit = tolProducts
					}
					if err := maxRelErr(got[i], want[i]); !(err < limit) {
						t.Errorf("%s: max relative error %.3g against autodiff", name, err)
					}
				}
			})
		}
	}
}

// TestDistributedExpandGradBFloat16: in the ladder's bfloat16, the distributed form rounds what XLA's does not —
// the kernel scaled by A and B, each product's sum over C, where XLA rounds dz once — and where z's mean is large
// beside its spread, z·(W·diag B)ᵀ is large and nearly cancelled by (W·C)ᵀ. Against float64 autodiff, with inputs
// whose expansion output has a mean about 2 and 10 times its spread, its dx and dW must be about as close as XLA's
// form is (within 1.5 times its error, or 2·10⁻³ of the largest value).
func TestDistributedExpandGradBFloat16(t *testing.T) {
	backend := testBackend(t)
	if triton.Check(NewGraph(backend, "check")) == nil {
		t.Skip("checks graph operations in bfloat16 on the pure-Go backend")
	}
	hand := DepthwiseForm{Prologue: PrologueBNReLU6Backward}
	for _, offset := range []float64{1, 5} {
		for _, tc := range expandCases {
			t.Run(fmt.Sprintf("offset%g-stride%d-k%d-c%d-dot%v", offset, tc.stride, tc.k, tc.c, tc.dot), func(t *testing.T) {
				in := newExpandInputs(tc, offset)
				exact := in.gradients(backend, DepthwiseForm{}, ExpandGradXLA, dtypes.Float64)
				xla := in.gradients(backend, DepthwiseForm{}, ExpandGradXLA, dtypes.BFloat16)
				dist := in.gradients(backend, hand, ExpandGradDistributed, dtypes.BFloat16)
				for i, name := range []string{"dx", "dW"} {
					eXLA, eDist := maxRelErr(xla[i+1], exact[i+1]), maxRelErr(dist[i+1], exact[i+1])
					t.Logf("%s: max relative error against float64: XLA's form %.3g, distributed %.3g", name, eXLA, eDist)
					if !(eDist <= max(1.5*eXLA, 2e-3)) {
						t.Errorf("%s: distributed form %.3g from float64, XLA's form %.3g", name, eDist, eXLA)
					}
				}
			})
		}
	}
}

var expandCases = []expandCase{{1, 8, 48, false}, {2, 16, 40, true}, {1, 24, 144, true}}

type expandCase struct {
	stride, k, c int
	dot          bool
}

// expandInputs are one case's random values: the expansion's input and kernel, the depthwise kernel, batch norm's
// γ and β (ReLU6 clips on both sides) and the output's gradient.
type expandInputs struct {
	expandCase
	b, h, w                    int
	x, wt, dk, gamma, beta, dy []float64
}

// newExpandInputs draws tc's values; with offset ≠ 0, x's mean is offset, which puts the expansion's output mean
// near 2·offset times its spread (K inputs of mean offset and spread 1/2 through weights of spread 1), and ReLU6 clips
// nothing (a gate that rounding flips would differ by a whole gradient, not by rounding).
func newExpandInputs(tc expandCase, offset float64) *expandInputs {
	in := &expandInputs{expandCase: tc, b: 3, h: 10, w: 10}
	rng := rand.New(rand.NewPCG(22, uint64(tc.c)))
	in.x, in.wt, in.dk = randSlice(rng, in.b*in.h*in.w*tc.k), randSlice(rng, tc.k*tc.c), randSlice(rng, 9*tc.c)
	if offset != 0 {
		for i := range in.x {
			in.x[i] = offset + in.x[i]/2
		}
	}
	in.gamma, in.beta = randSlice(rng, tc.c), randSlice(rng, tc.c)
	for i := range in.gamma {
		in.gamma[i], in.beta[i] = 2+in.gamma[i], 2+in.beta[i]
		if offset != 0 { // ReLU6 passes all but values 6σ out, so that rounding cannot flip its gate
			in.gamma[i], in.beta[i] = 0.5+in.gamma[i]/20, 3
		}
	}
	oh := (in.h-1)/tc.stride + 1
	in.dy = randSlice(rng, in.b*oh*oh*tc.c)
	return in
}

// gradients is y and the gradients dx, dW, dK, dγ, dβ of Σ y·dy computed in dtype (the parameters, as in training,
// in its accumulation dtype), as float64, with the depthwise layer's form and the expansion's backward pass.
func (in *expandInputs) gradients(backend compute.Backend, form DepthwiseForm, expand ExpandGradForm, dtype dtypes.DType) [][]float64 {
	m := &Model{Config: Config{Depthwise: form, MaskedReLU6: true, PointwiseDot: in.dot, ExpandGrad: expand},
		Params: []Param{{Shape: []int{1, 1, in.k, in.c}}}}
	exec := MustNewExec(backend, func(xN, wN, kN, g, be, dyN *Node) []*Node {
		acc := accumulation(dtype)
		xc, wc, kc := ConvertDType(xN, dtype), ConvertDType(wN, acc), ConvertDType(kN, acc)
		gc, bc := ConvertDType(g, acc), ConvertDType(be, acc)
		f := &forward{m: m, pass: Pass{Params: []*Node{wc, gc, bc, ZerosLike(gc), OnesLike(gc)}, Compute: dtype, Train: true}}
		f.updated = append([]*Node(nil), f.pass.Params...)
		y := DepthwiseConv(f.expansion(xc, 0), ConvertDType(kc, dtype), in.stride, form)
		return asFloat64(y, Gradient(ReduceAllSum(Mul(ConvertDType(y, dtypes.Float64), dyN)), xc, wc, kc, gc, bc))
	})
	oh := (in.h-1)/in.stride + 1
	return flat64(exec, tensors.FromFlatDataAndDimensions(in.x, in.b, in.h, in.w, in.k),
		tensors.FromFlatDataAndDimensions(in.wt, 1, 1, in.k, in.c), tensors.FromFlatDataAndDimensions(in.dk, 3, 3, 1, in.c),
		tensors.FromFlatDataAndDimensions(in.gamma, in.c), tensors.FromFlatDataAndDimensions(in.beta, in.c),
		tensors.FromFlatDataAndDimensions(in.dy, in.b, oh, oh, in.c))
}

// TestHandWritesExpansion: a hand-written backward pass only where it applies — in training, behind the hand-written
// batch norm's backward pass; the fused one within its kernel's channel limits (MobileNetV2's expansions up to 32 →
// 192 channels), the distributed one on every expansion.
func TestHandWritesExpansion(t *testing.T) {
	fused := Config{ExpandGrad: ExpandGradFused, Depthwise: DepthwiseForm{Prologue: PrologueBNReLU6Backward}}
	noPrologue := fused
	noPrologue.Depthwise.Prologue = PrologueBNReLU6
	dist := fused
	dist.ExpandGrad = ExpandGradDistributed
	distNoPrologue := dist
	distNoPrologue.Depthwise.Prologue = PrologueNone
	for _, c := range []struct {
		cfg   Config
		train bool
		k, c  int
		want  bool
	}{{fused, true, 16, 96, true}, {fused, true, 24, 144, true}, {fused, true, 32, 192, true}, {fused, true, 64, 384, false},
		{fused, true, 96, 576, false}, {fused, false, 16, 96, false}, {noPrologue, true, 16, 96, false}, {Config{}, true, 16, 96, false},
		{dist, true, 16, 96, true}, {dist, true, 160, 960, true}, {dist, false, 16, 96, false}, {distNoPrologue, true, 16, 96, false}} {
		f := &forward{m: &Model{Config: c.cfg}, pass: Pass{Train: c.train}}
		if got := f.handWritesExpansion(c.k, c.c); got != c.want {
			t.Errorf("handWritesExpansion(%d, %d) with %q, train %v = %v, want %v", c.k, c.c, c.cfg.Formulation(), c.train, got, c.want)
		}
	}
}
