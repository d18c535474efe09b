package mobilenet

import (
	"sync"

	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// ReLU6 is min(max(x, 0), 6), written as GoMLX's ClipScalar: a Max and a Min node. GoMLX differentiates Min and
// Max with sign(): the 10@512 HLO (assets/gpu-runs/2026-12-02-h200-run10) evaluates, for every element of every
// activation in the backward pass, four sign() calls on float32 conversions of bfloat16 values, fused into the
// batch-norm gradient reductions. MaskedReLU6 is the same function as one Clamp node whose gradient is what
// PyTorch's hardtanh_backward computes: dy where 0 < x < 6, else 0 — one comparison pair per element.
func ReLU6(x *Node) *Node { return ClipScalar(x, 0, 6) }

// MaskedReLU6 is ReLU6 with the mask gradient described above (Config.MaskedReLU6 selects it in the model).
func MaskedReLU6(x *Node) *Node {
	registerClampOnce.Do(registerClampVJP)
	g := x.Graph()
	return Clamp(Scalar(g, x.DType(), 0), x, Scalar(g, x.DType(), 6))
}

var registerClampOnce sync.Once

// registerClampVJP gives GoMLX's Clamp node a gradient, which GoMLX v0.28.16 lacks (it has none registered): dx
// is v where min < x < max; the bounds receive v where x falls below / above them, summed to their shape (bounds
// here are scalars or x's shape). A gradient GoMLX registers itself is kept.
func registerClampVJP() {
	if _, found := VJPRegistration[NodeTypeClamp]; found {
		return
	}
	// excerpt: relu6-mask
	VJPRegistration[NodeTypeClamp] = func(node *Node, vjps []*Node, _ shapes.Shape) []*Node {
		lo, x, hi := node.Inputs()[0], node.Inputs()[1], node.Inputs()[2]
		v := vjps[0]
		zeros := ZerosLike(v)
		below, above := LessThan(x, lo), GreaterThan(x, hi)
		inside := LogicalAnd(GreaterThan(x, lo), LessThan(x, hi))
		bound := func(b, mask *Node) *Node {
			d := Where(mask, v, zeros)
			if b.Shape().IsScalar() {
				return ReduceAllSum(d)
			}
			return d
		}
		return []*Node{bound(lo, below), Where(inside, v, zeros), bound(hi, above)}
	}
	// excerpt end
}
