package mobilenet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/gobackend"
	_ "github.com/gomlx/gomlx/backends/default"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// refDepthwise is the float64 host reference of DepthwiseConv: x [B,H,W,C], k [kH,kW,1,C].
func refDepthwise(x []float64, b, h, w, c int, k []float64, kh, kw, stride int) (y []float64, oh, ow int) {
	ph, pw := (kh-1)/2, (kw-1)/2
	oh = (h+2*ph-kh)/stride + 1
	ow = (w+2*pw-kw)/stride + 1
	y = make([]float64, b*oh*ow*c)
	for n := range b {
		for i := range oh {
			for j := range ow {
				for ch := range c {
					var s float64
					for di := range kh {
						for dj := range kw {
							r, q := i*stride+di-ph, j*stride+dj-pw
							if r < 0 || r >= h || q < 0 || q >= w {
								continue
							}
							s += x[((n*h+r)*w+q)*c+ch] * k[(di*kw+dj)*c+ch]
						}
					}
					y[((n*oh+i)*ow+j)*c+ch] = s
				}
			}
		}
	}
	return
}

func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	return s
}

// numericGrad: central differences of L = Σ y·v with respect to each element of p (x or k).
func numericGrad(p []float64, loss func() float64) []float64 {
	const eps = 1e-5
	g := make([]float64, len(p))
	for i := range p {
		orig := p[i]
		p[i] = orig + eps
		lp := loss()
		p[i] = orig - eps
		lm := loss()
		p[i] = orig
		g[i] = (lp - lm) / (2 * eps)
	}
	return g
}

// asFloat64 is y and its gradients as float64 outputs of a test graph, in that order.
func asFloat64(y *Node, grads []*Node) []*Node {
	out := []*Node{ConvertDType(y, dtypes.Float64)}
	for _, g := range grads {
		out = append(out, ConvertDType(g, dtypes.Float64))
	}
	return out
}

// flat64 runs exec on args and returns each output's values (float64 outputs).
func flat64(exec *Exec, args ...any) [][]float64 {
	outs := exec.MustCall(args...)
	res := make([][]float64, len(outs))
	for i, o := range outs {
		res[i] = tensors.MustCopyFlatData[float64](o)
	}
	return res
}

func maxRelErr(got, want []float64) float64 {
	var num, den float64
	for i := range got {
		num = max(num, math.Abs(got[i]-want[i]))
		den = max(den, math.Abs(want[i]))
	}
	return num / den
}

// testBackend is the pure-Go backend, unless GOMLX_BACKEND names another: the GPU machine runs this package's
// test binary with GOMLX_BACKEND pointing at the CUDA PJRT plugin, which checks the XLA formulations there.
func testBackend(t testing.TB) compute.Backend {
	if os.Getenv("GOMLX_BACKEND") != "" {
		b, err := compute.New()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDepthwiseGradients checks DepthwiseConv's forward and every gradient formulation against a float64 host
// reference and central differences, for stride 1 and 2 on even and odd sizes, 3×3 and 5×5 kernels.
func TestDepthwiseGradients(t *testing.T) {
	backend := testBackend(t)
	for _, tc := range []struct{ b, h, w, c, k, stride int }{
		{2, 8, 8, 3, 3, 1}, {2, 8, 8, 3, 3, 2}, {1, 7, 9, 4, 3, 2}, {2, 5, 6, 2, 3, 1}, {1, 9, 7, 2, 5, 2}, {1, 6, 6, 2, 5, 1},
		{1, 9, 8, 2, 3, 3}, {1, 3, 3, 2, 3, 2},
	} {
		for _, grad := range []DepthwiseForm{
			{Forward: ForwardConv, Input: InputGradDilated, Kernel: KernelGradBatchGroup, Tiling: TilingGather}, {Forward: ForwardConv, Input: InputGradDilated, Kernel: KernelGradShiftedProducts, Tiling: TilingGather},
			{Forward: ForwardConv, Input: InputGradShifted, Kernel: KernelGradAuto, Tiling: TilingGather}, {Forward: ForwardShifted, Input: InputGradShifted, Kernel: KernelGradAuto, Tiling: TilingGather},
			{Forward: ForwardShifted, Input: InputGradDilated, Kernel: KernelGradShiftedProducts, Tiling: TilingGather}, {Forward: ForwardConv, Input: InputGradPhases, Kernel: KernelGradAuto, Tiling: TilingGather},
			{Forward: ForwardConv, Input: InputGradPhaseProducts, Kernel: KernelGradAuto, Tiling: TilingGather},
		} {
			name := fmt.Sprintf("%dx%dx%dx%d-k%d-s%d-%v-input-%v-kernel-%v", tc.b, tc.h, tc.w, tc.c, tc.k, tc.stride,
				grad.Forward, grad.Input, grad.Kernel)
			t.Run(name, func(t *testing.T) {
				if grad.Kernel == KernelGradBatchGroup && backend.String() == "go" {
					t.Skip("batch_group_count on the pure-Go backend groups differently from XLA; " +
						"this formulation is checked on XLA by the GPU test binary")
				}
				checkDepthwise(t, backend, tc.b, tc.h, tc.w, tc.c, tc.k, tc.stride, grad)
			})
		}
	}
}

func checkDepthwise(t *testing.T, backend compute.Backend, b, h, w, c, kh, stride int, grad DepthwiseForm) {
	rng := rand.New(rand.NewPCG(uint64(b*1000+h*100+w*10+c), uint64(stride*10+kh)))
	kw := kh
	x := randSlice(rng, b*h*w*c)
	k := randSlice(rng, kh*kw*c)
	yRef, oh, ow := refDepthwise(x, b, h, w, c, k, kh, kw, stride)
	v := randSlice(rng, len(yRef))
	loss := func() float64 {
		y, _, _ := refDepthwise(x, b, h, w, c, k, kh, kw, stride)
		var s float64
		for i := range y {
			s += y[i] * v[i]
		}
		return s
	}
	dxRef := numericGrad(x, loss)
	dkRef := numericGrad(k, loss)

	exec := MustNewExec(backend, func(xN, kN, vN *Node) (y, dx, dk *Node) {
		y = DepthwiseConv(xN, kN, stride, grad)
		grads := Gradient(ReduceAllSum(Mul(y, vN)), xN, kN)
		return y, grads[0], grads[1]
	})
	usesBefore := customVJPUses.Load()
	outs := exec.MustCall(
		tensors.FromFlatDataAndDimensions(x, b, h, w, c),
		tensors.FromFlatDataAndDimensions(k, kh, kw, 1, c),
		tensors.FromFlatDataAndDimensions(v, b, oh, ow, c))
	for i, check := range []struct {
		name string
		want []float64
		tol  float64
	}{{"y", yRef, 1e-12}, {"dx", dxRef, 1e-7}, {"dk", dkRef, 1e-7}} {
		got := tensors.MustCopyFlatData[float64](outs[i])
		if len(got) != len(check.want) {
			t.Fatalf("%s: got %d values (shape %s), want %d", check.name, len(got), outs[i].Shape(), len(check.want))
		}
		if err := maxRelErr(got, check.want); !(err < check.tol) {
			t.Errorf("%s: max relative error %.3g > %.1g", check.name, err, check.tol)
		}
	}
	if customVJPUses.Load() == usesBefore {
		t.Error("the gradient was not built by the registered depthwise VJP")
	}
}

// TestRefDepthwiseGradsMatchesNumeric ties refDepthwiseGrads (the Triton kernels' reference) to central differences.
func TestRefDepthwiseGradsMatchesNumeric(t *testing.T) {
	for _, tc := range []struct{ b, h, w, c, stride int }{{2, 6, 5, 3, 1}, {1, 7, 8, 2, 2}} {
		rng := rand.New(rand.NewPCG(uint64(tc.h), uint64(tc.stride)))
		x, k := randSlice(rng, tc.b*tc.h*tc.w*tc.c), randSlice(rng, 9*tc.c)
		y, oh, ow := refDepthwise(x, tc.b, tc.h, tc.w, tc.c, k, 3, 3, tc.stride)
		v := randSlice(rng, len(y))
		loss := func() float64 {
			y, _, _ := refDepthwise(x, tc.b, tc.h, tc.w, tc.c, k, 3, 3, tc.stride)
			var s float64
			for i := range y {
				s += y[i] * v[i]
			}
			return s
		}
		dx, dk := refDepthwiseGrads(x, tc.b, tc.h, tc.w, tc.c, k, v, oh, ow, tc.stride)
		if err := maxRelErr(dx, numericGrad(x, loss)); !(err < 1e-7) {
			t.Errorf("%+v: dx differs from central differences by %.3g", tc, err)
		}
		if err := maxRelErr(dk, numericGrad(k, loss)); !(err < 1e-7) {
			t.Errorf("%+v: dK differs from central differences by %.3g", tc, err)
		}
	}
}
