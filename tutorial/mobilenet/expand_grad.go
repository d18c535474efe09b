package mobilenet

import (
	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// A block's expansion (1×1 convolution, batch norm, ReLU6) with a hand-written backward pass (-model
// expand-grad=fused or distributed).
//
// With dw-prologue=bn-relu6-backward, batch norm's backward pass already starts in the depthwise dx kernel, which
// gates dx into g and sums it; what is left is dz = γ/σ·(g − Σg/n − x̂·Σ(g·x̂)/n), which XLA writes in a pass of
// its own, and the convolution's dx = dz·Wᵀ and dW = xᵀ·dz, which read it back. Those dz passes already run at the
// memory's speed (assets/gpu-runs/2026-12-06-h100-run61/step-parts.txt). Written per channel, dz = A·g + B·z + C
// with
//
//	A = γ/σ,   B = −γ/σ · Σ(g·x̂)/(n·σ),   C = γ/σ · (μ·Σ(g·x̂)/(n·σ) − Σg/n),
//
// so dz need never be written. Two ways not to:
//
//   - fused: the kernel of expand_grad_ttir.go makes dz from g and z as it loads them and feeds it to both products
//     (right, but slower: its tiles of g, z and dz hold too many registers a thread; README, "Kernels that walk
//     rows").
//   - distributed: each product is linear in dz, so it splits over the three terms into products XLA already
//     runs well (1×1 convolutions for dx, GEMMs for dW), with A and B folded into copies of the small kernel:
//
//     dx = g·(W·diag A)ᵀ + z·(W·diag B)ᵀ + (W·C)ᵀ,   dW = (xᵀ·g)·diag A + (xᵀ·z)·diag B + (Σx)ᵀ·C.
//
//     Reading the expansion's output-sized tensors (E): XLA's way reads g and z and writes dz (3E), then reads dz
//     for each product (2E); this way reads g and z for each product (4E), at the price of reading x a third time
//     and adding two convolution outputs, tensors a sixth of E at MobileNetV2's expansion of 6.
//
// As with bnBackward, identities carry the gradients: x and W go through IdentityWithCustomGradient before the
// convolution, and their gradients are the hand-written ones once the depthwise layer has recorded dy; z's
// gradient is then zero, and what autodiff builds from it — the convolution's own backward pass — is dropped by
// XLA.

// ExpandGradForm names how an expansion's backward pass is made (Config.ExpandGrad).
type ExpandGradForm int

const (
	// ExpandGradXLA is autodiff's: batch norm's dz written, then the convolution's backward pass reading it.
	ExpandGradXLA ExpandGradForm = iota
	// ExpandGradFused is one Triton kernel making dz as it loads g and z (expand_grad_ttir.go).
	ExpandGradFused
	// ExpandGradDistributed is the products split over dz's three terms: products over g and z (distributedExpandGrad).
	ExpandGradDistributed
)

// expandBackward is what a hand-written backward pass needs of the expansion: its input and its kernel parameter.
type expandBackward struct {
	x, kernel *Node // [N, H, W, K] in the compute dtype; the parameter [1, 1, K, C] (float32 master)
	form      ExpandGradForm
	tile      ExpandGradTile
	product   func(x, kernel *Node) *Node // the model's 1×1 convolution (forward.pointwiseProduct)
	dx, dW    *Node                       // built once
}

// expansion is a block's expansion, 1×1 convolution with kernel i, then batch norm (i+1) and ReLU6.
func (f *forward) expansion(x *Node, i int) *Node {
	if !f.handWritesExpansion(x.Shape().Dim(3), f.m.Params[i].Shape[3]) {
		return f.bnReLU6(f.pointwise(x, i), i+1, true)
	}
	e := &expandBackward{x: x, kernel: f.pass.Params[i], form: f.m.ExpandGrad, tile: f.m.ExpandGradTile, product: f.pointwiseProduct}
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

// handWritesExpansion says whether an expansion of k to c channels gets a hand-written backward pass: with
// expand-grad=fused or distributed in training, behind the hand-written batch-norm backward pass it starts from;
// the fused one within its kernel's limits (the wider expansions of the 14×14 and 7×7 layers keep XLA's; their
// passes are the smaller ones).
func (f *forward) handWritesExpansion(k, c int) bool {
	if !f.pass.Train || f.m.Depthwise.Prologue != PrologueBNReLU6Backward {
		return false
	}
	switch f.m.ExpandGrad {
	case ExpandGradFused:
		return expandGradFits(k, c)
	case ExpandGradDistributed:
		return true
	}
	return false
}

// buildExpand makes the expansion's dx and dW from dy: distributed over g and z (expand-grad=distributed), or
// fused — by the kernel where the depthwise layer's dx is a Triton kernel (a CUDA GPU), else by graph operations
// with the same formulas.
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
	if e.form == ExpandGradDistributed {
		e.dx, e.dW = distributedExpandGrad(e.x, e.kernel, g, b.z, a, bz, c, e.product)
		return
	}
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

// distributedExpandGrad is the 1×1 convolution's dx and dW for dz = a·g + b·z + c per channel, without dz: x
// [N, H, W, K] and g, z [N, H, W, C] in the compute dtype, the kernel parameter [1, 1, K, C], a, b, c [C] in the
// accumulation dtype; product is the model's 1×1 convolution. dx's two products are 1×1 convolutions of g and z by
// the kernel transposed with a and b folded in (K·C values), in the model's form — the same cuDNN convolutions (or
// GEMMs, with pointwise=dot) as the backward pass they replace — added with W·c in the compute dtype, the shape
// XLA's cuDNN rewriter fuses into the first convolution as its side input and bias (FuseBiasOrSideInput), so that
// the sum costs no pass of its own; in float32 (converted around the sum) it would be a pass that reads both
// products and writes dx, a third of E's bytes. The bfloat16 test holds dx within 1.5 times XLA's error either way
// (1.32 times at worst). dW's products are GEMMs with float32 results: where z's mean is large beside its spread,
// xᵀz·diag b is large and mostly cancelled by Σx·c, which a bfloat16 result (as a convolution's filter gradient
// would give) could not survive (TestDistributedExpandGradBFloat16 puts z's mean at 10 times its spread).
func distributedExpandGrad(x, kernel, g, z, a, b, c *Node, product func(x, kernel *Node) *Node) (dx, dW *Node) {
	k, ch, acc := x.Shape().Dim(3), z.Shape().Dim(3), a.DType()
	w := ConvertDType(Reshape(kernel, k, ch), acc)
	transposed := func(s *Node) *Node { // (W·diag s)ᵀ as a 1×1 kernel [1, 1, C, K] in the compute dtype
		return Reshape(ConvertDType(Transpose(Mul(w, ExpandAxes(s, 0)), 0, 1), x.DType()), 1, 1, ch, k)
	}
	times := func(v, s *Node) *Node { return product(ConvertDType(v, x.DType()), transposed(s)) }
	wc := BroadcastToDims(Reshape(ConvertDType(Dot(w, c).Product(), x.DType()), 1, 1, 1, k), x.Shape().Dimensions...) // W·c
	dx = Add(Add(times(g, a), times(z, b)), wc)
	p := x.Shape().Size() / k
	rows := func(v *Node, n int) *Node { return Reshape(ConvertDType(v, x.DType()), p, n) }
	rx := rows(x, k)
	overP := func(v *Node) *Node { // xᵀ·v, [K, C], in the accumulation dtype
		return Dot(rx, rows(v, ch)).WithOutputDType(acc).General([]int{0}, nil, []int{0}, nil)
	}
	sumX := ReduceSum(ConvertDType(rx, acc), 0) // Σx over the pixels, [K]
	row := func(s *Node) *Node { return ExpandAxes(s, 0) }
	d := Add(Add(Mul(overP(g), row(a)), Mul(overP(z), row(b))), Mul(ExpandAxes(sumX, 1), row(c)))
	return dx, ConvertDType(Reshape(d, kernel.Shape().Dimensions...), kernel.DType())
}
