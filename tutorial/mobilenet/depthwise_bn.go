package mobilenet

import (
	"sync/atomic"
	"weak"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// Batch norm's backward pass, started in the depthwise layer's dx kernel (-model dw-prologue=bn-relu6-backward).
//
// A block's expansion is z → batch norm → ReLU6 → depthwise convolution. Differentiated by GoMLX, the backward
// pass writes dx of the depthwise layer, then reads dx and z twice: once for batch norm's sums Σg and Σg·x̂
// (g = dx where ReLU6 let the value through, x̂ = (z − μ)/σ), once more for dz. Here the dx kernel gates dx and
// takes both sums while dx is in its registers (it reads z for the gate), so one elementwise pass remains:
//
//	dz = γ/σ · (g − Σg/n − x̂·Σ(g·x̂)/n),   dγ = Σ(g·x̂) = (Σ(g·z) − μ·Σg)/σ,   dβ = Σg.
//
// GoMLX cannot hang a gradient on several inputs at once, so identities carry it, as in depthwise_shifted.go: z,
// γ and β pass through IdentityWithCustomGradient before batch norm uses them, the depthwise output through one
// that records its gradient dy (it is built last, so the reverse pass meets it first), and z's, γ's and β's
// identities return the three gradients above, built once from dy. What GoMLX differentiates between them — the
// convolution's dx, ReLU6's mask, batch norm's own gradient — is never used, and XLA drops it. Without a Triton
// kernel (the pure-Go backend, other dx formulations) g and the sums come from ordinary graph operations, which is
// how the CPU tests check the formulas against central differences.

// bnBackward is one batch norm's hand-written backward pass; bnReLU6Backward makes it, DepthwiseConv attaches
// the layer that reads its output.
type bnBackward struct {
	z, gamma          *Node // the batch norm's input and γ (as a parameter, [C])
	mean, std         *Node // [C], in the accumulation dtype (float32 unless z is float64)
	n                 float64
	layer             *depthwiseParams // the depthwise layer reading ReLU6(batch norm(z)); nil until attached
	dy                *Node            // its output's gradient, recorded by the reverse pass
	dz, dGamma, dBeta *Node            // built once, from dy
	g, sumG, sumGZ    *Node            // gate's results, made once for build and buildExpand
	dK                *Node            // the layer's kernel gradient, made with the gate (KernelGradInDx); else nil
	expand            *expandBackward  // the expansion that made z, when its backward pass is fused (expand_grad.go)
	out               *bnOutBackward   // the batch norm after the layer, when dx's kernel makes dy (depthwise_bn_out.go)
}

// bnReLU6Backward is bnReLU6 with the backward pass above: z, γ and β go through identities whose gradients are
// the hand-written ones once a depthwise layer has attached, and autodiff's own (v) otherwise. The depthwise layer
// must be the output's only consumer: the hand-written gradient knows no other path (a residual connection that
// reads the activation too would be lost), so bnReLU6 uses it only where the caller says so.
func (f *forward) bnReLU6Backward(z *Node, i int) (*Node, *bnBackward) {
	back := &bnBackward{z: z}
	grad := handWrittenGradient(func() bool { return back.dy != nil }, func() []*Node {
		back.build()
		return []*Node{back.dz, back.dGamma, back.dBeta}
	})
	p := f.pass.Params
	bn := f.batchNormWith(carrySums(z, IdentityWithCustomGradient(z, grad(0))), i,
		IdentityWithCustomGradient(p[i], grad(1)), IdentityWithCustomGradient(p[i+1], grad(2)))
	back.gamma, back.mean, back.std, back.n = p[i], bn.mean, bn.std, bn.n
	x := f.relu6(bn.y)
	markBNReLU6(x, z, bn.scale, bn.shift, back)
	return x, back
}

// handWrittenGradient gives the gradients of the identities that a hand-written backward pass hides its inputs
// behind: grad(which) is autodiff's own gradient v until ready() says the reverse pass has reached the values the
// hand-written pass needs (a depthwise layer that never attached leaves it false), then the which-th of results().
// Every identity calls results(), so the build it makes must return early once made (bnBackward.build does).
func handWrittenGradient(ready func() bool, results func() []*Node) func(which int) func(_, v *Node) *Node {
	return func(which int) func(_, v *Node) *Node {
		return func(_, v *Node) *Node {
			if !ready() {
				return v
			}
			return results()[which]
		}
	}
}

// attach records the depthwise layer reading the batch norm's output and returns its output y through the
// identity that records dy. A batch norm's sums taken by the forward kernel (triton-stats) move with y.
func (b *bnBackward) attach(y, x, kernel *Node, stride int, form DepthwiseForm, pro *bnPrologue) *Node {
	b.layer = &depthwiseParams{x: x, kernel: kernel, stride: stride, form: form, pro: pro}
	out := IdentityWithCustomGradient(y, func(_, v *Node) *Node {
		b.dy = v
		return v
	})
	if v, ok := bnSums.Load(weak.Make(y)); ok {
		storeSums(out, v.([2]*Node))
	}
	rememberAttached(out, b)
	return out
}

// build makes dz, dγ and dβ from dy.
func (b *bnBackward) build() {
	if b.dz != nil {
		return
	}
	g, sumG, _ := b.gate()
	sumGXhat := b.sumGXhat()
	b.dBeta, b.dGamma = ConvertDType(sumG, b.gamma.DType()), ConvertDType(sumGXhat, b.gamma.DType())
	if b.expand != nil { // the expansion's backward pass (expand_grad.go) makes its gradients from g, not from dz,
		b.dz = ZerosLike(b.z) // and drops what autodiff makes of this one
		return
	}
	view := channelView{x: b.z}
	bc := func(p *Node) *Node { return view.broadcast(p) }
	acc := b.mean.DType()
	xhat := Div(Sub(ConvertDType(b.z, acc), bc(b.mean)), bc(b.std))
	inner := Sub(Sub(ConvertDType(g, acc), bc(DivScalar(sumG, b.n))), Mul(xhat, bc(DivScalar(sumGXhat, b.n))))
	b.dz = ConvertDType(Mul(bc(Div(ConvertDType(b.gamma, acc), b.std)), inner), b.z.DType())
}

// sumGXhat is Σ(g·x̂) = (Σ(g·z) − μ·Σg)/σ, dγ.
func (b *bnBackward) sumGXhat() *Node {
	_, sumG, sumGZ := b.gate()
	return Div(Sub(sumGZ, Mul(b.mean, sumG)), b.std)
}

// gate returns g (dx gated by ReLU6's gradient, z's dtype) and its sums Σg, Σg·z ([C], accumulation dtype): from the
// Triton dx kernel when the layer computes dx with it (which needs a CUDA GPU, as that dx kernel does), else from
// graph operations. It makes them once.
func (b *bnBackward) gate() (g, sumG, sumGZ *Node) {
	if b.g == nil {
		b.g, b.sumG, b.sumGZ = b.makeGate()
	}
	return b.g, b.sumG, b.sumGZ
}

// gateKernel is the Triton kernel that gates dx on geo (with dK too when form asks for it and the layer walks rows:
// withDK; then, with makeDy, also making dy as it loads, depthwise_bn_out.go) and the shapes of what it writes: g
// (x's shape), the per-program sums [programs, 2, C] and with dK its per-program partial dK [programs, 9, C]. The
// program counts come from the kernel that runs: the merged kernel's tile may differ from the dx kernel's, and
// buffers sized for the other grid would be written past their end.
func gateKernel(geo dwGeometry, form DepthwiseForm, x shapes.Shape, makeDy bool) (k triton.Kernel, outs []shapes.Shape, withDK bool) {
	withDK = form.Kernel == KernelGradInDx && form.Tiling == TilingRows
	switch tile := form.RowTile.forKernel(rowsInputKernelGrad, geo); {
	case withDK && makeDy:
		k = dwRowsInputKernelGradOut(geo, tile)
	case withDK:
		k = dwRowsInputKernelGrad(geo, tile)
	default:
		k = inputGradKernel(geo, true, form)
	}
	outs = []shapes.Shape{x, shapes.Make(dtypes.Float32, k.Grid[0], 2, geo.C)}
	if withDK {
		outs = append(outs, shapes.Make(dtypes.Float32, k.Grid[0], 9, geo.C))
	}
	return k, outs, withDK
}

func (b *bnBackward) makeGate() (g, sumG, sumGZ *Node) {
	l, pro, out := b.layer, b.layer.pro, b.out
	if out != nil && out.gp == nil { // the reverse pass did not come through the batch norm after the layer
		out = nil
	}
	if l.form.Input == InputGradTriton {
		geo := geometry(l.x, l.kernel, l.stride)
		geo.BN = true
		k, outShapes, withDK := gateKernel(geo, l.form, l.x.Shape(), out != nil)
		e := l.x.DType()
		dy, makeDy := b.dy, out != nil && withDK
		if makeDy { // gp in dy's place, and after the prologue's inputs what makes dy from it
			dyMadeInDx.Add(1)
			dy = out.gp
		}
		inputs := []*Node{ConvertDType(dy, e), ConvertDType(l.kernel, e), pro.z, pro.scale, pro.shift}
		if makeDy {
			out.build()
			f32 := func(x *Node) *Node { return ConvertDType(x, dtypes.Float32) }
			inputs = append(inputs, ConvertDType(out.y, e), f32(out.scale), f32(out.shift), f32(out.a), f32(out.b), f32(out.c))
		}
		outs := triton.CallMulti(k, outShapes, inputs...)
		if withDK {
			b.dK = ConvertDType(Reshape(ReduceSum(outs[2], 0), l.kernel.Shape().Dimensions...), l.kernel.DType())
		}
		sumG, sumGZ := partialSums(outs[1])
		return outs[0], sumG, sumGZ
	}
	dy := b.dy
	if out != nil {
		dyMadeInDx.Add(1)
		dy = out.dy()
	}
	if l.form.Kernel == KernelGradInDx {
		b.dK = depthwiseKernelGradShifted(l.x, l.kernel, dy, l.stride)
	}
	g = gateReLU6(depthwiseInputGradient(l.x, l.kernel, dy, l.stride, l.form), b.z, pro.scale, pro.shift)
	acc := b.mean.DType()
	gf := ConvertDType(g, acc)
	return g, ReduceSum(gf, 0, 1, 2), ReduceSum(Mul(gf, ConvertDType(b.z, acc)), 0, 1, 2)
}

// gateReLU6 is v where ReLU6 lets x·scale + shift through (0 < x·scale + shift < 6) and 0 elsewhere: ReLU6's
// gradient applied to v, the activation rebuilt from x and a batch norm's [C] scale and shift in the accumulation
// dtype. It is the graph form of the row kernels' gate (ttWriter.reluGate), for the batch norm before a depthwise
// layer (x = z) and the one after it (x = y, depthwise_bn_out.go).
func gateReLU6(v, x, scale, shift *Node) *Node {
	view, acc := channelView{x: x}, accumulation(x.DType())
	pre := Add(Mul(ConvertDType(x, acc), view.broadcast(ConvertDType(scale, acc))), view.broadcast(ConvertDType(shift, acc)))
	inside := LogicalAnd(GreaterThan(pre, ZerosLike(pre)), LessThan(pre, MulScalar(OnesLike(pre), 6)))
	return Where(inside, v, ZerosLike(v))
}

// kernelGradFromDx is the depthwise layer's dK as its dx kernel made it (KernelGradInDx), or nil where no such
// kernel runs for the output gradient v: no prologue, a backward pass not started in the layer, or v not the
// gradient the layer's identity recorded.
func (p *bnPrologue) kernelGradFromDx(v *Node) *Node {
	if p == nil || p.back == nil || p.back.layer == nil || p.back.dy != v {
		return nil
	}
	if p.back.gate(); p.back.dK != nil {
		kernelGradsFromDx.Add(1)
	}
	return p.back.dK
}

// dyMadeInDx counts the layers whose dx kernel (or, off the GPU, its graph formula) made dy from the gradient
// after the batch norm and ReLU6 that follow the layer (dw-epilogue=bn-relu6-backward): tests use it to prove
// that the path was taken.
var dyMadeInDx atomic.Int64

// kernelGradsFromDx counts the dK gradients taken from a dx kernel's (or, off the GPU, its graph formula's) side
// output: tests use it to prove that dw-kernel-grad=in-dx really takes that path.
var kernelGradsFromDx atomic.Int64
