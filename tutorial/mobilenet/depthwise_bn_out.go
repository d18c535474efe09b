package mobilenet

import (
	"runtime"
	"sync"
	"weak"

	. "github.com/gomlx/gomlx/core/graph"
)

// The backward pass of the batch norm and ReLU6 *after* a depthwise layer, made in the layer's dx kernel
// (-model dw-epilogue=bn-relu6-backward).
//
// A block goes depthwise convolution → y → batch norm → ReLU6 → projection. Differentiated by GoMLX, the backward
// pass reads y and gp (the projection's input gradient) twice: once for batch norm's sums, once more for a pass
// that writes dy, which the layer's dx + dK kernel then reads back (the optimized HLO's largest loop_add_fusions:
// README, "Kernels that walk rows"). Per channel that pass is affine:
//
//	g = gp where 0 < y·scale + shift < 6,   dy = γ/σ·(g − Σg/n − ŷ·Σ(g·ŷ)/n) = a·g + b·y + c,
//	a = γ/σ,   b = −a·Σ(g·ŷ)/(n·σ),   c = a·(μ·Σ(g·ŷ)/(n·σ) − Σg/n),
//	dγ = Σ(g·ŷ) = (Σ(g·y) − μ·Σg)/σ,   dβ = Σg,
//
// so the dx kernel can make dy as it loads y and gp (dwRowsInputKernelGradOut) and dy is never written. The sums
// still take one reduction over y and gp. As in depthwise_bn.go, identities carry the gradients: ReLU6's output
// records gp, γ and β return dγ and dβ, and what GoMLX differentiates in between — dy — is never used once the
// dx kernel (or, off the GPU, the same formulas as graph operations) takes gp instead; XLA drops it.
//
// It stays an experiment: measured, it is slower than the pass it removes (README, "Formulations that lost"). The
// dx kernel loads each dy row as three column-shifted tiles, so it makes dy three times from six loads, and it
// holds five more per-channel tiles in a loop already short of registers, where XLA's pass ran at memory speed.

// bnOutBackward is the hand-written backward pass of one batch norm and ReLU6 after a depthwise layer.
type bnOutBackward struct {
	y, gamma     *Node // the layer's output and the batch norm's γ (as a parameter, [C])
	mean, std    *Node // [C], accumulation dtype
	scale, shift *Node // [C]: the batch norm's y·scale + shift, accumulation dtype
	n            float64
	gp           *Node // the gradient of ReLU6's output, recorded by the reverse pass
	// made once, from gp: g (gp where ReLU6 let the value through, y's dtype), dy's per-channel affine map
	// (accumulation dtype), dγ and dβ
	g, a, b, c, dGamma, dBeta *Node
}

// bnReLU6AfterDepthwise is ReLU6(batch norm(y)) for the output y of a depthwise layer: with
// dw-epilogue=bn-relu6-backward, in training, and where the layer starts the backward pass of the batch norm
// before it (its dx kernel is the one that can make dy), its backward pass is the one above; otherwise the plain
// batch norm and ReLU6. The result must be the batch norm's only use of y, as it is in MobileNetV2.
func (f *forward) bnReLU6AfterDepthwise(y *Node, i int) *Node {
	back := backwardAttachedTo(y)
	if f.m.Depthwise.Epilogue != EpilogueBNReLU6Backward || !f.pass.Train || back == nil {
		bn := f.batchNormParts(y, i)
		return f.markForProjection(f.relu6(bn.y), y, bn)
	}
	out := &bnOutBackward{y: y}
	grad := handWrittenGradient(func() bool { return out.gp != nil }, func() []*Node {
		out.build()
		return []*Node{out.dGamma, out.dBeta}
	})
	p := f.pass.Params
	bn := f.batchNormWith(y, i, IdentityWithCustomGradient(p[i], grad(0)), IdentityWithCustomGradient(p[i+1], grad(1)))
	acc := bn.mean.DType()
	out.gamma, out.mean, out.std, out.n = p[i], bn.mean, bn.std, bn.n
	out.scale, out.shift = ConvertDType(bn.scale, acc), ConvertDType(bn.shift, acc)
	back.out = out
	return f.markForProjection(IdentityWithCustomGradient(f.relu6(bn.y), func(_, v *Node) *Node {
		out.gp = v
		return v
	}), y, bn)
}

// markForProjection marks a = ReLU6(batch norm(y)) for the projection's prologue (project.go) where it runs, and
// returns a.
func (f *forward) markForProjection(a, y *Node, bn bnParts) *Node {
	if f.m.ProjectPrologue && f.pass.Train {
		MarkBNReLU6(a, y, bn.scale, bn.shift)
	}
	return a
}

// build makes g, its sums, dγ, dβ and dy's coefficients a, b, c from gp.
func (o *bnOutBackward) build() {
	if o.a != nil {
		return
	}
	acc := o.mean.DType()
	o.g = gateReLU6(ConvertDType(o.gp, o.y.DType()), o.y, o.scale, o.shift)
	yf, gf := ConvertDType(o.y, acc), ConvertDType(o.g, acc)
	sumG, sumGY := ReduceSum(gf, 0, 1, 2), ReduceSum(Mul(gf, yf), 0, 1, 2)
	sumGYhat := Div(Sub(sumGY, Mul(o.mean, sumG)), o.std)
	o.dBeta, o.dGamma = ConvertDType(sumG, o.gamma.DType()), ConvertDType(sumGYhat, o.gamma.DType())
	o.a = Div(ConvertDType(o.gamma, acc), o.std)
	k := Div(DivScalar(sumGYhat, o.n), o.std) // Σ(g·ŷ)/(n·σ)
	o.b = Neg(Mul(o.a, k))
	o.c = Mul(o.a, Sub(Mul(o.mean, k), DivScalar(sumG, o.n)))
}

// dy is the layer's output gradient as graph operations: what the dx kernel makes as it loads, for the layers
// and backends that run no such kernel (the pure-Go backend in the tests).
func (o *bnOutBackward) dy() *Node {
	o.build()
	view, acc := channelView{x: o.y}, o.mean.DType()
	bc := view.broadcast
	dy := Add(Add(Mul(bc(o.a), ConvertDType(o.g, acc)), Mul(bc(o.b), ConvertDType(o.y, acc))), bc(o.c))
	return ConvertDType(dy, o.y.DType())
}

// backwardAttachedTo is the hand-written backward pass of the batch norm before the depthwise layer whose output
// is y (bnBackward.attach), or nil.
func backwardAttachedTo(y *Node) *bnBackward {
	if v, ok := attachedBackwards.Load(weak.Make(y)); ok {
		return v.(*bnBackward)
	}
	return nil
}

var attachedBackwards sync.Map // weak.Pointer[Node] (a depthwise layer's output) -> *bnBackward

func rememberAttached(y *Node, b *bnBackward) {
	key := weak.Make(y)
	attachedBackwards.Store(key, b)
	runtime.AddCleanup(y, func(k weak.Pointer[Node]) { attachedBackwards.Delete(k) }, key)
}
