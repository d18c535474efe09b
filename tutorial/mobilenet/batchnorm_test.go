package mobilenet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

func TestChannelViewFold(t *testing.T) {
	x := func(dims ...int) channelView {
		g := NewGraph(testBackend(t), "fold")
		return channelView{x: Parameter(g, "x", shapes.Make(dtypes.Float32, dims...))}
	}
	for _, tc := range []struct {
		dims      []int
		row, want int
	}{
		{[]int{512, 112, 112, 32}, 0, 1},     // off
		{[]int{512, 112, 112, 32}, 1024, 32}, // 32·32 = 1024
		{[]int{512, 112, 112, 96}, 1024, 8},  // 96·8 = 768; 16 would be 1536
		{[]int{512, 7, 7, 1280}, 1024, 1},    // already wide
		{[]int{3, 5, 5, 8}, 1024, 1},         // 75 rows: odd, no power of two divides
		{[]int{2, 1, 1, 8}, 1024, 1},         // 2 rows: keep at least two rows to reduce over
		{[]int{16, 24, 24, 4}, 64, 16},       // the smoke model's shapes
	} {
		v := x(tc.dims...)
		v.row = tc.row
		if got := v.fold(); got != tc.want {
			t.Errorf("fold(%v, row %d) = %d, want %d", tc.dims, tc.row, got, tc.want)
		}
	}
}

// TestBatchNormWideMatchesReference checks one training-mode batch norm (plain and wide view) and its gradients
// with respect to x, γ and β in float64 against the textbook formulas computed here in Go:
// y = γ·x̂ + β, x̂ = (x − μ)/√(σ² + ε), and dx = γ/√(σ² + ε)·(dy − mean(dy) − x̂·mean(dy·x̂)).
func TestBatchNormWideMatchesReference(t *testing.T) {
	backend := testBackend(t)
	const b, h, w, c = 4, 6, 6, 8
	rng := rand.New(rand.NewPCG(7, 8))
	xs, dys := randSlice(rng, b*h*w*c), randSlice(rng, b*h*w*c)
	gamma, beta := randSlice(rng, c), randSlice(rng, c)
	for i := range xs {
		xs[i] = 3*xs[i] + 1 // a mean and a scale that are not 0 and 1
	}
	// Reference.
	n := float64(b * h * w)
	mean, variance := make([]float64, c), make([]float64, c)
	for i, v := range xs {
		mean[i%c] += v / n
	}
	for i, v := range xs {
		variance[i%c] += (v - mean[i%c]) * (v - mean[i%c]) / n
	}
	xhat := make([]float64, len(xs))
	wantY := make([]float64, len(xs))
	sumDy, sumDyXhat := make([]float64, c), make([]float64, c)
	for i, v := range xs {
		ch := i % c
		xhat[i] = (v - mean[ch]) / math.Sqrt(variance[ch]+BatchNormEpsilon)
		wantY[i] = gamma[ch]*xhat[i] + beta[ch]
		sumDy[ch] += dys[i]
		sumDyXhat[ch] += dys[i] * xhat[i]
	}
	wantDx := make([]float64, len(xs))
	for i := range xs {
		ch := i % c
		wantDx[i] = gamma[ch] / math.Sqrt(variance[ch]+BatchNormEpsilon) * (dys[i] - sumDy[ch]/n - xhat[i]*sumDyXhat[ch]/n)
	}

	for _, cfg := range []Config{{}, {ReductionRow: 32}, {Sums: SumsJoint}, {ReductionRow: 32, Sums: SumsJoint}} {
		row := cfg.ReductionRow
		m := &Model{Config: cfg}
		exec := MustNewExec(backend, func(x, g, be, dy *Node) []*Node {
			zeros := ZerosLike(g)
			f := &forward{m: m, pass: Pass{Params: []*Node{g, be, zeros, OnesLike(g)}, Compute: dtypes.Float64, Train: true}}
			f.updated = append([]*Node(nil), f.pass.Params...)
			y := f.batchNorm(x, 0)
			grads := Gradient(ReduceAllSum(Mul(y, dy)), x, g, be)
			return append([]*Node{y}, grads...)
		})
		outs := exec.MustCall(tensors.FromFlatDataAndDimensions(xs, b, h, w, c), tensors.FromFlatDataAndDimensions(gamma, c),
			tensors.FromFlatDataAndDimensions(beta, c), tensors.FromFlatDataAndDimensions(dys, b, h, w, c))
		check := func(name string, got, want []float64) {
			t.Helper()
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-10*(1+math.Abs(want[i])) {
					t.Fatalf("row %d, sums %s: %s[%d] = %.12g, want %.12g", row, cfg.Sums, name, i, got[i], want[i])
				}
			}
		}
		check("y", tensors.MustCopyFlatData[float64](outs[0]), wantY)
		check("dx", tensors.MustCopyFlatData[float64](outs[1]), wantDx)
		check("dγ", tensors.MustCopyFlatData[float64](outs[2]), sumDyXhat)
		check("dβ", tensors.MustCopyFlatData[float64](outs[3]), sumDy)
	}
}

// TestNormalizeFloat32Sums: with bfloat16 activations, NormalizeFloat32 makes dβ = Σdy and dγ = Σdy·x̂ accumulate
// in float32; they must match a float64 reference to float32-ish accuracy (the inputs are exact in bfloat16).
func TestNormalizeFloat32Sums(t *testing.T) {
	backend := testBackend(t)
	const b, h, w, c = 32, 16, 16, 8
	rng := rand.New(rand.NewPCG(9, 10))
	round := func(v []float64) []float64 { // to values bfloat16 holds exactly
		for i := range v {
			v[i] = float64(bf16(float32(v[i])))
		}
		return v
	}
	xs, dys := round(randSlice(rng, b*h*w*c)), round(randSlice(rng, b*h*w*c))
	sumDy := make([]float64, c)
	for i, v := range dys {
		sumDy[i%c] += v
	}
	for _, f32 := range []bool{false, true} {
		m := &Model{Config: Config{NormalizeFloat32: f32}}
		exec := MustNewExec(backend, func(x, dy *Node) *Node {
			g := Ones(x.Graph(), shapes.Make(dtypes.Float32, c))
			be := Zeros(x.Graph(), shapes.Make(dtypes.Float32, c))
			f := &forward{m: m, pass: Pass{Params: []*Node{g, be, be, g}, Compute: dtypes.BFloat16, Train: true}}
			f.updated = append([]*Node(nil), f.pass.Params...)
			xb := ConvertDType(x, dtypes.BFloat16)
			y := f.batchNorm(xb, 0)
			return Gradient(ReduceAllSum(ConvertDType(Mul(y, ConvertDType(dy, dtypes.BFloat16)), dtypes.Float32)), be)[0]
		})
		got := tensors.MustCopyFlatData[float32](exec.MustCall(tensors.FromFlatDataAndDimensions(xs, b, h, w, c),
			tensors.FromFlatDataAndDimensions(dys, b, h, w, c))[0])
		worst := 0.0
		for ch := range c {
			worst = max(worst, math.Abs(float64(got[ch])-sumDy[ch]))
		}
		t.Logf("NormalizeFloat32=%v: worst |dβ − Σdy| = %.3g (Σ over %d values)", f32, worst, b*h*w)
		if f32 && worst > 1e-2 {
			t.Errorf("NormalizeFloat32: dβ off by %.3g from the float64 sum", worst)
		}
	}
}

// bf16 rounds a float32 to the nearest bfloat16 (ties to even), returned as float32.
func bf16(f float32) float32 {
	u := math.Float32bits(f)
	u += 0x7fff + (u>>16)&1
	return math.Float32frombits(u &^ 0xffff)
}
