package mobilenet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/dtypes/bfloat16"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestDepthwiseTritonMatchesReference runs the three Triton kernels on the GPU (the test binary on the device,
// with GOMLX_BACKEND at the CUDA plugin) against the float64 host reference and central differences: odd and even
// sizes, channel counts that leave partial tiles, strides 1 and 2, in float32 and bfloat16. The gradients' reference
// is their definition in float64 (refDepthwiseGrads; TestDepthwiseGradients checks that one against central
// differences through the convolution formulations).
func TestDepthwiseTritonMatchesReference(t *testing.T) {
	backend := testBackend(t)
	if err := triton.Check(NewGraph(backend, "check")); err != nil {
		t.Skipf("no Triton here: %v", err)
	}
	for _, tc := range []struct {
		b, h, w, c, stride int
		dtype              dtypes.DType
		tol                float64
	}{
		{2, 9, 9, 40, 1, dtypes.Float32, 1e-5}, {2, 9, 9, 40, 2, dtypes.Float32, 1e-5}, {1, 8, 8, 32, 2, dtypes.Float32, 1e-5},
		{3, 7, 6, 70, 1, dtypes.Float32, 1e-5}, {2, 14, 14, 96, 2, dtypes.BFloat16, 3e-2}, {4, 7, 7, 33, 1, dtypes.BFloat16, 3e-2},
		// wide rows: the kernels' 8-column pixel tiles (newTiling)
		{2, 56, 56, 40, 1, dtypes.Float32, 1e-5}, {1, 112, 112, 16, 2, dtypes.Float32, 1e-5}, {2, 56, 56, 32, 2, dtypes.BFloat16, 3e-2},
		// the row kernels' strips of 32 and 16 columns, and row chunks that end past the image
		{2, 28, 28, 40, 1, dtypes.Float32, 1e-5}, {3, 18, 14, 24, 1, dtypes.Float32, 1e-5}, {2, 19, 17, 16, 2, dtypes.Float32, 1e-5},
	} {
		for _, tiling := range []Tiling{TilingGather, TilingRows} {
			triton := DepthwiseForm{Forward: ForwardTriton, Input: InputGradTriton, Kernel: KernelGradTriton, Tiling: tiling}
			t.Run(fmt.Sprintf("%dx%dx%dx%d-s%d-%s-%s", tc.b, tc.h, tc.w, tc.c, tc.stride, tc.dtype, tiling), func(t *testing.T) {
				b, h, w, c, stride := tc.b, tc.h, tc.w, tc.c, tc.stride
				rng := rand.New(rand.NewPCG(uint64(b*h*w*c), uint64(stride)))
				x, k := randSlice(rng, b*h*w*c), randSlice(rng, 9*c)
				yRef, oh, ow := refDepthwise(x, b, h, w, c, k, 3, 3, stride)
				v := randSlice(rng, len(yRef))
				dxRef, dkRef := refDepthwiseGrads(x, b, h, w, c, k, v, oh, ow, stride)
				exec := MustNewExec(backend, func(xN, kN, vN *Node) (y, dx, dk *Node) {
					xc, kc := ConvertDType(xN, tc.dtype), ConvertDType(kN, tc.dtype)
					y = DepthwiseConv(xc, kc, stride, triton)
					grads := Gradient(ReduceAllSum(Mul(ConvertDType(y, dtypes.Float64), vN)), xc, kc)
					return ConvertDType(y, dtypes.Float64), ConvertDType(grads[0], dtypes.Float64), ConvertDType(grads[1], dtypes.Float64)
				})
				outs := exec.MustCall(tensors.FromFlatDataAndDimensions(x, b, h, w, c),
					tensors.FromFlatDataAndDimensions(k, 3, 3, 1, c), tensors.FromFlatDataAndDimensions(v, b, oh, ow, c))
				for i, check := range []struct {
					name string
					want []float64
				}{{"y", yRef}, {"dx", dxRef}, {"dk", dkRef}} {
					got := tensors.MustCopyFlatData[float64](outs[i])
					if err := maxRelErr(got, check.want); !(err < tc.tol) {
						t.Errorf("%s: max relative error %.3g > %.1g", check.name, err, tc.tol)
					}
				}
			})
		}
	}
}

// TestDepthwiseTritonStatsFeedBatchNorm: with dw-forward=triton-stats the batch norm after a depthwise layer takes
// its sums from the kernel; its output and the gradients through it (x, K, γ, β) must match the default
// formulation's on the same GPU, in float32.
func TestDepthwiseTritonStatsFeedBatchNorm(t *testing.T) {
	backend := testBackend(t)
	if err := triton.Check(NewGraph(backend, "check")); err != nil {
		t.Skipf("no Triton here: %v", err)
	}
	const b, h, w, c, stride = 4, 10, 10, 48, 2
	rng := rand.New(rand.NewPCG(11, 12))
	x, k := randSlice(rng, b*h*w*c), randSlice(rng, 9*c)
	gamma, beta := randSlice(rng, c), randSlice(rng, c)
	dy := randSlice(rng, b*5*5*c)
	run := func(cfg Config) [][]float64 {
		m := &Model{Config: cfg}
		exec := MustNewExec(backend, func(xN, kN, g, be, dyN *Node) []*Node {
			f := &forward{m: m, pass: Pass{Params: []*Node{g, be, ZerosLike(g), OnesLike(g)}, Compute: dtypes.Float32, Train: true}}
			f.updated = append([]*Node(nil), f.pass.Params...)
			y := f.batchNorm(DepthwiseConv(xN, kN, stride, cfg.Depthwise), 0)
			grads := Gradient(ReduceAllSum(Mul(y, dyN)), xN, kN, g, be)
			return append([]*Node{y}, grads...)
		})
		f32 := func(v []float64, dims ...int) *tensors.Tensor {
			out := make([]float32, len(v))
			for i := range v {
				out[i] = float32(v[i])
			}
			return tensors.FromFlatDataAndDimensions(out, dims...)
		}
		outs := exec.MustCall(f32(x, b, h, w, c), f32(k, 3, 3, 1, c), f32(gamma, c), f32(beta, c), f32(dy, b, 5, 5, c))
		res := make([][]float64, len(outs))
		for i, o := range outs {
			for _, v := range tensors.MustCopyFlatData[float32](o) {
				res[i] = append(res[i], float64(v))
			}
		}
		return res
	}
	want := run(Config{ReductionRow: 256})
	for _, tiling := range []Tiling{TilingGather, TilingRows} {
		got := run(Config{ReductionRow: 256, Depthwise: DepthwiseForm{Forward: ForwardTritonStats, Input: InputGradTriton, Kernel: KernelGradTriton, Tiling: tiling}})
		for i, name := range []string{"y", "dx", "dK", "dγ", "dβ"} {
			if err := maxRelErr(got[i], want[i]); !(err < 1e-4) {
				t.Errorf("%s %s: max relative error %.3g against the default formulation", tiling, name, err)
			}
		}
	}
}

// refDepthwiseGrads is the float64 definition of DepthwiseConv's gradients for 3×3 taps, padding 1, given the output
// gradient v [b, oh, ow, c]: dx[n, r, q, c] = Σ v[n, i, j, c]·K[di, dj, c] over i·s + di − 1 = r, j·s + dj − 1 = q,
// and dK[di, dj, c] = Σ v[n, i, j, c]·x[n, i·s + di − 1, j·s + dj − 1, c].
func refDepthwiseGrads(x []float64, b, h, w, c int, k, v []float64, oh, ow, stride int) (dx, dk []float64) {
	dx, dk = make([]float64, len(x)), make([]float64, len(k))
	for n := range b {
		for i := range oh {
			for j := range ow {
				for di := range 3 {
					for dj := range 3 {
						r, q := i*stride+di-1, j*stride+dj-1
						if r < 0 || r >= h || q < 0 || q >= w {
							continue
						}
						for ch := range c {
							g := v[((n*oh+i)*ow+j)*c+ch]
							dx[((n*h+r)*w+q)*c+ch] += g * k[(di*3+dj)*c+ch]
							dk[(di*3+dj)*c+ch] += g * x[((n*h+r)*w+q)*c+ch]
						}
					}
				}
			}
		}
	}
	return dx, dk
}

// TestBNPrologueMatchesReference: with dw-prologue=bn-relu6 the forward and dK kernels read z and apply
// ReLU6(z·scale + shift) as they load it. Against the float64 definition (the activation computed on the host,
// then refDepthwise and refDepthwiseGrads), y, dK and the gradients that reach z, scale and shift through the
// reference graph must match, in float32 and bfloat16, for strides 1 and 2 and partial channel blocks; the
// activation is sized so that both ReLU6 bounds clip. Without a GPU the same test runs the reference formulation
// with the input marked, which must ignore the mark.
func TestBNPrologueMatchesReference(t *testing.T) {
	backend := testBackend(t)
	form := DepthwiseForm{Forward: ForwardTriton, Input: InputGradTriton, Kernel: KernelGradTriton, Prologue: PrologueBNReLU6}
	tilings := []Tiling{TilingGather, TilingRows}
	if err := triton.Check(NewGraph(backend, "check")); err != nil {
		t.Logf("no Triton here (%v): checking the reference formulation", err)
		form, tilings = DepthwiseForm{Prologue: PrologueBNReLU6}, []Tiling{TilingGather}
	}
	for _, tc := range []struct {
		b, h, w, c, stride int
		dtype              dtypes.DType
		stats              bool
		tol                float64
	}{
		{2, 9, 9, 40, 1, dtypes.Float32, false, 1e-5}, {2, 9, 9, 40, 2, dtypes.Float32, true, 1e-5},
		{1, 56, 56, 24, 2, dtypes.Float32, false, 1e-5}, {2, 14, 14, 96, 2, dtypes.BFloat16, false, 3e-2},
		{2, 56, 56, 32, 1, dtypes.BFloat16, true, 3e-2},
		{2, 28, 28, 40, 1, dtypes.Float32, true, 1e-5}, {3, 19, 17, 24, 2, dtypes.Float32, false, 1e-5},
	} {
		for _, tiling := range tilings {
			t.Run(fmt.Sprintf("%dx%dx%dx%d-s%d-%s-stats%v-%s", tc.b, tc.h, tc.w, tc.c, tc.stride, tc.dtype, tc.stats, tiling), func(t *testing.T) {
				b, h, w, c, stride := tc.b, tc.h, tc.w, tc.c, tc.stride
				rng := rand.New(rand.NewPCG(uint64(b*h*w*c), 7))
				z, k := randSlice(rng, b*h*w*c), randSlice(rng, 9*c)
				scale, shift := randSlice(rng, c), randSlice(rng, c)
				for i := range scale {
					scale[i], shift[i] = 3*scale[i], 3+2*shift[i] // z·scale + shift reaches past both 0 and 6
				}
				// In bfloat16 the inputs are what the device sees, and no z·scale + shift lies within 0.2 of a bound,
				// where the rounding of the product could decide on which side of it the element falls.
				round := func(s []float64) {
					for i := range s {
						s[i] = float64(bfloat16.FromFloat32(float32(s[i])).Float32())
					}
				}
				if tc.dtype == dtypes.BFloat16 {
					round(k)
					round(scale)
					round(shift)
				}
				for i := range z {
					for pre := z[i]*scale[i%c] + shift[i%c]; math.Abs(pre) < 0.2 || math.Abs(pre-6) < 0.2; pre = z[i]*scale[i%c] + shift[i%c] {
						z[i] = rng.NormFloat64()
					}
					if tc.dtype == dtypes.BFloat16 {
						z[i] = float64(bfloat16.FromFloat32(float32(z[i])).Float32())
						if pre := z[i]*scale[i%c] + shift[i%c]; math.Abs(pre) < 0.1 || math.Abs(pre-6) < 0.1 {
							z[i] = 0
						}
					}
				}
				// The activation x = ReLU6(z·scale + shift) and where its gradient passes (0 < z·scale + shift < 6).
				x, pass := make([]float64, len(z)), make([]bool, len(z))
				for i := range z {
					pre := z[i]*scale[i%c] + shift[i%c]
					x[i], pass[i] = min(max(pre, 0), 6), pre > 0 && pre < 6
				}
				yRef, oh, ow := refDepthwise(x, b, h, w, c, k, 3, 3, stride)
				v := randSlice(rng, len(yRef))
				dxRef, dkRef := refDepthwiseGrads(x, b, h, w, c, k, v, oh, ow, stride)
				dzRef, dScaleRef, dShiftRef := make([]float64, len(z)), make([]float64, c), make([]float64, c)
				for i := range z {
					if pass[i] {
						dzRef[i] = dxRef[i] * scale[i%c]
						dScaleRef[i%c] += dxRef[i] * z[i]
						dShiftRef[i%c] += dxRef[i]
					}
				}
				f := form
				f.Tiling = tiling
				if tc.stats && f.Forward == ForwardTriton {
					f.Forward = ForwardTritonStats
				}
				exec := MustNewExec(backend, func(zN, kN, sN, hN, vN *Node) []*Node {
					zc, kc, sc, hc := ConvertDType(zN, tc.dtype), ConvertDType(kN, tc.dtype), ConvertDType(sN, tc.dtype), ConvertDType(hN, tc.dtype)
					xc := ClipScalar(Add(Mul(zc, sc), hc), 0, 6)
					MarkBNReLU6(xc, zc, sc, hc)
					y := DepthwiseConv(xc, kc, stride, f)
					grads := Gradient(ReduceAllSum(Mul(ConvertDType(y, dtypes.Float64), vN)), kc, zc, sc, hc)
					out := []*Node{y}
					for _, g := range grads {
						out = append(out, ConvertDType(g, dtypes.Float64))
					}
					out[0] = ConvertDType(y, dtypes.Float64)
					return out
				})
				outs := exec.MustCall(tensors.FromFlatDataAndDimensions(z, b, h, w, c), tensors.FromFlatDataAndDimensions(k, 3, 3, 1, c),
					tensors.FromFlatDataAndDimensions(scale, 1, 1, 1, c), tensors.FromFlatDataAndDimensions(shift, 1, 1, 1, c),
					tensors.FromFlatDataAndDimensions(v, b, oh, ow, c))
				for i, check := range []struct {
					name string
					want []float64
				}{{"y", yRef}, {"dK", dkRef}, {"dz", dzRef}, {"dscale", dScaleRef}, {"dshift", dShiftRef}} {
					got := tensors.MustCopyFlatData[float64](outs[i])
					if err := maxRelErr(got, check.want); !(err < tc.tol) {
						t.Errorf("%s: max relative error %.3g > %.1g", check.name, err, tc.tol)
					}
				}
			})
		}
	}
}
