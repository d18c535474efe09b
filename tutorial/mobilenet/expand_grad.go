package mobilenet

import (
	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// A block's expansion (1×1 convolution, batch norm, ReLU6) with its backward pass fused (-model expand-grad=fused).
//
// With dw-prologue=bn-relu6-backward, batch norm's backward pass already starts in the depthwise dx kernel, which
// gates dx into g and sums it; what is left is dz = γ/σ·(g − Σg/n − x̂·Σ(g·x̂)/n), which XLA writes in a pass of
// its own, and the convolution's dx = dz·Wᵀ and dW = xᵀ·dz, which read it back. In run61's profile those dz passes
// were 1.35 of 11.15 ms of kernels a step at 128, each at the memory's speed. Written per channel, dz = A·g + B·z
// + C with
//
//	A = γ/σ,   B = −γ/σ · Σ(g·x̂)/(n·σ),   C = γ/σ · (μ·Σ(g·x̂)/(n·σ) − Σg/n),
//
// so the kernel of expand_grad_ttir.go can make it from g and z as it loads them and feed it to both products.
// As with bnBackward, identities carry the gradients: x and W go through IdentityWithCustomGradient before the
// convolution, and their gradients are the fused ones once the depthwise layer has recorded dy; z's gradient is
// then zero, and what autodiff builds from it — the convolution's own backward pass — is dropped by XLA.

// expandBackward is what the fused backward pass needs of the expansion: its input and its kernel parameter.
type expandBackward struct {
	x, kernel *Node // [N, H, W, K] in the compute dtype; the parameter [1, 1, K, C] (float32 master)
	tile      ExpandGradTile
	dx, dW    *Node // built once
}

// expansion is a block's expansion, 1×1 convolution with kernel i, then batch norm (i+1) and ReLU6.
func (f *forward) expansion(x *Node, i int) *Node {
	if !f.fusesExpansion(x.Shape().Dim(3), f.m.Params[i].Shape[3]) {
		return f.bnReLU6(f.pointwise(x, i), i+1, true)
	}
	e := &expandBackward{x: x, kernel: f.pass.Params[i], tile: f.m.ExpandGradTile}
	var back *bnBackward
	grad := handWrittenGradient(func() bool { return back.dy != nil }, func() []*Node {
		back.buildExpand()
		return []*Node{e.dx, e.dW}
	})
	xIn := IdentityWithCustomGradient(x, grad(0))
	kernel := IdentityWithCustomGradient(f.pass.Params[i], grad(1))
	y, back := f.bnReLU6Backward(f.pointwiseWith(xIn, ConvertDType(kernel, f.pass.Compute)), i+1)
	back.expand = e
	return y
}

// fusesExpansion says whether an expansion of k to c channels gets the fused backward pass: with expand-grad=fused
// in training, behind the hand-written batch-norm backward pass it starts from, and within the kernel's limits
// (the wider expansions of the 14×14 and 7×7 layers keep XLA's; their passes are the smaller ones).
func (f *forward) fusesExpansion(k, c int) bool {
	return f.m.FusedExpandGrad && f.pass.Train && f.m.Depthwise.Prologue == PrologueBNReLU6Backward && expandGradFits(k, c)
}

// buildExpand makes the expansion's dx and dW from dy: by the fused kernel where the depthwise layer's dx is a
// Triton kernel (a CUDA GPU), else by graph operations with the same formulas.
func (b *bnBackward) buildExpand() {
	e := b.expand
	if e.dx != nil {
		return
	}
	b.build() // dγ and dβ, and the gate
	g, sumG, _ := b.gate()
	acc := b.mean.DType()
	inv := Div(ConvertDType(b.gamma, acc), b.std)
	t := DivScalar(Div(b.sumGXhat(), b.std), b.n) // Σ(g·x̂)/(n·σ)
	a, bz, c := inv, Neg(Mul(inv, t)), Mul(inv, Sub(Mul(b.mean, t), DivScalar(sumG, b.n)))
	k, ch := e.x.Shape().Dim(3), b.z.Shape().Dim(3)
	p := e.x.Shape().Size() / k
	w := ConvertDType(Reshape(e.kernel, k, ch), e.x.DType())
	if b.layer.form.Input == InputGradTriton {
		tl := newExpandGradTiling(p, k, ch, e.tile)
		kern := expandGradKernel(tl, ttElem(e.x.DType()))
		coef := Stack([]*Node{a, bz, c}, 0) // [3, C]
		outs := triton.CallMulti(kern, []shapes.Shape{e.x.Shape(), shapes.Make(dtypes.Float32, tl.programs, k, ch)},
			ConvertDType(g, e.x.DType()), ConvertDType(b.z, e.x.DType()), e.x, w, ConvertDType(coef, dtypes.Float32))
		e.dx = outs[0]
		e.dW = ConvertDType(Reshape(ReduceSum(outs[1], 0), e.kernel.Shape().Dimensions...), e.kernel.DType())
		return
	}
	view := channelView{x: b.z}
	dz := Add(Add(Mul(view.broadcast(a), ConvertDType(g, acc)), Mul(view.broadcast(bz), ConvertDType(b.z, acc))), view.broadcast(c))
	dz = ConvertDType(dz, b.z.DType()) // rounded as the kernel rounds it before its products
	rows := Reshape(dz, p, ch)
	e.dx = Reshape(MatMul(rows, Transpose(w, 0, 1)), e.x.Shape().Dimensions...)
	dW := MatMul(Transpose(ConvertDType(Reshape(e.x, p, k), acc), 0, 1), ConvertDType(rows, acc))
	e.dW = ConvertDType(Reshape(dW, e.kernel.Shape().Dimensions...), e.kernel.DType())
}
