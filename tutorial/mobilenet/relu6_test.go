package mobilenet

import (
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestMaskedReLU6 checks the value and the gradient (hardtanh_backward's mask) at points below, inside and above
// [0, 6], and that GoMLX's own ReLU6 agrees away from the kinks.
func TestMaskedReLU6(t *testing.T) {
	backend := testBackend(t)
	xs := []float32{-3, -0.5, 0.25, 3, 5.5, 6.5, 100}
	vs := []float32{1, 2, 3, 4, 5, 6, 7}
	wantY := []float32{0, 0, 0.25, 3, 5.5, 6, 6}
	wantDx := []float32{0, 0, 3, 4, 5, 0, 0}
	for name, fn := range map[string]func(*Node) *Node{"masked": MaskedReLU6, "gomlx": ReLU6} {
		exec := MustNewExec(backend, func(x, v *Node) []*Node {
			y := fn(x)
			return []*Node{y, Gradient(ReduceAllSum(Mul(y, v)), x)[0]}
		})
		outs := exec.MustCall(tensors.FromValue(xs), tensors.FromValue(vs))
		y, dx := tensors.MustCopyFlatData[float32](outs[0]), tensors.MustCopyFlatData[float32](outs[1])
		for i := range xs {
			if y[i] != wantY[i] || dx[i] != wantDx[i] {
				t.Errorf("%s: relu6(%g) = %g, gradient %g; want %g, %g", name, xs[i], y[i], dx[i], wantY[i], wantDx[i])
			}
		}
	}
}

// TestClampBoundGradients: the bounds of a Clamp receive the gradient of the elements clamped to them.
func TestClampBoundGradients(t *testing.T) {
	registerClampOnce.Do(registerClampVJP)
	exec := MustNewExec(testBackend(t), func(lo, x, hi, v *Node) []*Node {
		return Gradient(ReduceAllSum(Mul(Clamp(lo, x, hi), v)), lo, hi)
	})
	outs := exec.MustCall(tensors.FromValue(float32(0)), tensors.FromValue([]float32{-1, 2, 9, -4}),
		tensors.FromValue(float32(6)), tensors.FromValue([]float32{1, 10, 100, 1000}))
	if lo, hi := tensors.ToScalar[float32](outs[0]), tensors.ToScalar[float32](outs[1]); lo != 1001 || hi != 100 {
		t.Errorf("dlo = %g, dhi = %g; want 1001, 100", lo, hi)
	}
}
