package mobilenet

import (
	"sync/atomic"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	. "github.com/gomlx/gomlx/core/graph"
)

// Batch norm in training is two-thirds reductions and elementwise passes over activations: on the H200 at batch
// 512 the step spent a third of its kernel time in reduction kernels (assets/profiles/h200-2026-12-02-step10-512).
// Every sum of batch norm runs over batch and space and keeps the channels: seen as a matrix [rows = B·H·W,
// C], a column reduction whose rows are only C values wide (16 to 96 in the large early layers). XLA's column
// reduction reads a tile of 32 columns per warp, so narrow rows waste most of every memory transaction.
//
// With Config.ReductionRow > 0 the same sums read the activation as [B·H·W/k, k·C] — the identical bytes in
// row-major order, so the reshape is free — with k·C close to ReductionRow, and then add up the k partial sums
// of each channel (a tiny second reduction). The scale and shift are broadcast through the same view, so their
// gradients (Σ dy·x and Σ dy, the backward pass's reductions) take the wide form too: GoMLX's gradient of a
// broadcast is the sum over the broadcast axes.

// batchNorm normalises x [B,H,W,C] with the parameters starting at index i (γ, β, running mean, running var).
// In training it uses the batch's statistics (biased variance) and records PyTorch's running-statistics update,
// which uses the unbiased variance.
func (f *forward) batchNorm(x *Node, i int) *Node { return f.batchNormParts(x, i).y }

// bnParts is one batch norm's output and the per-channel values it applied, for kernels that apply them
// themselves (dw-prologue) and for a backward pass written by hand (depthwise_bn.go).
type bnParts struct {
	y            *Node   // the output, x's shape and dtype
	scale, shift *Node   // [C]: y = x·scale + shift
	mean, std    *Node   // [C] float32: the statistics used, std = √(variance + ε)
	n            float64 // values per channel
}

// batchNormParts is batchNorm, returning the parts as well as the output.
func (f *forward) batchNormParts(x *Node, i int) bnParts {
	return f.batchNormWith(x, i, f.pass.Params[i], f.pass.Params[i+1])
}

// batchNormWith is batchNormParts with γ and β given (nodes carrying a gradient of their own, depthwise_bn.go)
// instead of taken from the parameters.
func (f *forward) batchNormWith(x *Node, i int, gamma, beta *Node) bnParts {
	runMean, runVar := f.pass.Params[i+2], f.pass.Params[i+3]
	v := channelView{x: x, row: f.m.ReductionRow}
	n := float64(x.Shape().Size() / x.Shape().Dim(-1))
	var mean, variance *Node
	if f.pass.Train {
		xf := ConvertDType(x, accumulation(x.DType()))
		// One pass: E[x²] − E[x]², so XLA can compute both sums in one fused reduction over the activation.
		var sum, sumSq *Node
		if f.m.Sums == SumsJoint {
			sum, sumSq = v.jointSums(xf, Square(xf))
		} else {
			sum, sumSq = v.sum(xf), v.sum(Square(xf))
		}
		// Sums made elsewhere stand in for the reductions above, which stay in the graph for their gradient while
		// XLA drops their computation: the depthwise kernel summed y and y² as it wrote y (-model
		// dw-forward=triton-stats), a widening 1×1 convolution's input gave them (bn-sums=gram), or else, with
		// -model bn-sums=triton, a kernel of their own reads x once.
		s, s2, ok := storedSums(x)
		if !ok && f.m.Sums == SumsTriton {
			s, s2 = bnSumsTriton(x)
			ok = true
		}
		if ok {
			triton.Replace(sum, s)
			triton.Replace(sumSq, s2)
			sumsStoodIn.Add(1)
		}
		mean = DivScalar(sum, n)
		variance = MaxScalar(Sub(DivScalar(sumSq, n), Square(mean)), 0)
		unbiased := variance
		if n > 1 {
			unbiased = MulScalar(variance, n/(n-1))
		}
		const mom = BatchNormMomentum
		f.updated[i+2] = Add(MulScalar(runMean, 1-mom), MulScalar(StopGradient(mean), mom))
		f.updated[i+3] = Add(MulScalar(runVar, 1-mom), MulScalar(StopGradient(unbiased), mom))
	} else {
		mean, variance = runMean, runVar
	}
	std := Sqrt(AddScalar(variance, BatchNormEpsilon))
	scale := Div(gamma, std) // GoMLX has no gradient for Rsqrt
	shift := Sub(beta, Mul(mean, scale))
	parts := bnParts{mean: mean, std: std, n: n}
	if f.m.NormalizeFloat32 && x.DType() != accumulation(x.DType()) {
		y := Add(Mul(ConvertDType(x, accumulation(x.DType())), v.broadcast(scale)), v.broadcast(shift))
		parts.y, parts.scale, parts.shift = ConvertDType(y, x.DType()), scale, shift
		return parts
	}
	scale, shift = ConvertDType(scale, x.DType()), ConvertDType(shift, x.DType())
	parts.y, parts.scale, parts.shift = Add(Mul(x, v.broadcast(scale)), v.broadcast(shift)), scale, shift
	return parts
}

// channelView sums over and broadcasts along every axis of x [B,H,W,C] but the channels, either directly or through
// the wide [B·H·W/k, k·C] view described above.
type channelView struct {
	x   *Node
	row int // target row width; 0 for the plain [..., C] form
}

// fold is k: the largest power of two that divides B·H·W with k·C ≤ row (1 when the view is off or C is already
// wide).
func (v channelView) fold() int {
	c := v.x.Shape().Dim(-1)
	rows := v.x.Shape().Size() / c
	k := 1
	for v.row > 0 && rows%(2*k) == 0 && 2*k*c <= v.row && rows/(2*k) > 1 {
		k *= 2
	}
	return k
}

// excerpt: bn-wide-rows

// sum reduces y (x's shape, any dtype) to [C].
func (v channelView) sum(y *Node) *Node {
	c := y.Shape().Dim(-1)
	k := v.fold()
	if k == 1 {
		return ReduceSum(y, 0, 1, 2)
	}
	rows := y.Shape().Size() / c
	partial := ReduceSum(Reshape(y, rows/k, k*c), 0) // [k·C]: the wide column reduction
	return ReduceSum(Reshape(partial, k, c), 0)
}

// excerpt end

// jointSums reduces a and b (x's shape) to [C] each, in two explicit stages: partial sums over groups of about
// √rows rows of the wide view, both in one fused reduction over the activation, then one small reduction over
// both partials side by side. Left to itself XLA splits each large column reduction in two as well, but gives
// every output its own second-stage kernel, and at batch 128 such small kernels add up. An experiment
// (-model bn-sums=joint): on the H200 it made the step no faster (README, "Formulations that lost").
func (v channelView) jointSums(a, b *Node) (*Node, *Node) {
	c := a.Shape().Dim(-1)
	k := v.fold()
	rows := a.Shape().Size() / (k * c) // of the wide view [rows, k·C]
	groups := 1
	for d := 1; d*d <= rows; d++ {
		if rows%d == 0 {
			groups = d // the largest divisor of rows that is at most √rows
		}
	}
	partial := func(y *Node) *Node { // [groups·k, C]
		return Reshape(ReduceSum(Reshape(y, groups, rows/groups, k*c), 1), groups*k, c)
	}
	both := ReduceSum(Concatenate([]*Node{partial(a), partial(b)}, 1), 0) // [2C]
	return Slice(both, AxisRange(0, c)), Slice(both, AxisRange(c, 2*c))
}

// broadcast expands p [C] to x's shape.
func (v channelView) broadcast(p *Node) *Node {
	dims := v.x.Shape().Dimensions
	c := dims[len(dims)-1]
	k := v.fold()
	if k == 1 {
		return BroadcastToDims(Reshape(p, 1, 1, 1, c), dims...)
	}
	rows := v.x.Shape().Size() / c
	tiled := Reshape(BroadcastToDims(Reshape(p, 1, c), k, c), 1, k*c)
	return Reshape(BroadcastToDims(tiled, rows/k, k*c), dims...)
}

// sumsStoodIn counts the batch norms whose forward sums came from elsewhere than their own reductions (storedSums,
// bn-sums=triton): tests use it to prove that a path was taken.
var sumsStoodIn atomic.Int64
