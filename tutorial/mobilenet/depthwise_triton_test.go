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
	triton := DepthwiseForm{ForwardTriton, InputGradTriton, KernelGradTriton}
	for _, tc := range []struct {
		b, h, w, c, stride int
		dtype              dtypes.DType
		tol                float64
	}{
		{2, 9, 9, 40, 1, dtypes.Float32, 1e-5}, {2, 9, 9, 40, 2, dtypes.Float32, 1e-5}, {1, 8, 8, 32, 2, dtypes.Float32, 1e-5},
		{3, 7, 6, 70, 1, dtypes.Float32, 1e-5}, {2, 14, 14, 96, 2, dtypes.BFloat16, 3e-2}, {4, 7, 7, 33, 1, dtypes.BFloat16, 3e-2},
		// wide rows: the kernels' 8-column pixel tiles (newTiling)
		{2, 56, 56, 40, 1, dtypes.Float32, 1e-5}, {1, 112, 112, 16, 2, dtypes.Float32, 1e-5}, {2, 56, 56, 32, 2, dtypes.BFloat16, 3e-2},
	} {
		t.Run(fmt.Sprintf("%dx%dx%dx%d-s%d-%s", tc.b, tc.h, tc.w, tc.c, tc.stride, tc.dtype), func(t *testing.T) {
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
	got := run(Config{ReductionRow: 256, Depthwise: DepthwiseForm{ForwardTritonStats, InputGradTriton, KernelGradTriton}})
	for i, name := range []string{"y", "dx", "dK", "dγ", "dβ"} {
		if err := maxRelErr(got[i], want[i]); !(err < 1e-4) {
			t.Errorf("%s: max relative error %.3g against the default formulation", name, err)
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
