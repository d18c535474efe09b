package mobilenet

import (
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// The shifted-products forms of the depthwise convolution and its gradients (see depthwise.go for why, and for
// what they measured on the H200: slower than cuDNN, except where the pure-Go backend needs dK's): every one is a
// sum over the kH·kW kernel taps of an elementwise product of a shifted view of one tensor with one tap (or with
// another tensor).

// depthwiseInputGradShifted computes dx[b, h, w, c] = Σ_{i,j} v[b, oh, ow, c]·K[i, j, c] over the output
// positions with oh·s + i − pH = h and ow·s + j − pW = w, one kernel tap (i, j) at a time: the rows and columns
// of v whose tap lands inside x are sliced out, scaled by K[i, j, :], and spread onto x's grid by a pad with
// interior stride−1 (low: where the first of them lands; high: the rest of x). The sum is accumulated in
// float32, as a convolution kernel accumulates, and converted back to x's dtype once.
func depthwiseInputGradShifted(x, kernel, v *Node, stride int) *Node {
	kH, kW := kernel.Shape().Dim(0), kernel.Shape().Dim(1)
	acc := accumulation(v.DType())
	vf := ConvertDType(v, acc)
	kf := ConvertDType(kernel, acc)
	zero := ScalarZero(x.Graph(), acc)
	var terms []*Node
	for i := range kH {
		rows, okH := tapPlacement(i, (kH-1)/2, stride, x.Shape().Dim(1), v.Shape().Dim(1))
		for j := range kW {
			cols, okW := tapPlacement(j, (kW-1)/2, stride, x.Shape().Dim(2), v.Shape().Dim(2))
			if !okH || !okW {
				continue // this tap only ever meets the zero padding
			}
			part := Slice(vf, AxisRange(), AxisRange(rows.first, rows.last+1), AxisRange(cols.first, cols.last+1), AxisRange())
			terms = append(terms, Pad(Mul(part, kernelTap(kf, i, j)), zero, PadAxis{}, rows.pad, cols.pad, PadAxis{}))
		}
	}
	if len(terms) == 0 { // a kernel larger than the padded input: no tap reaches x
		return ZerosLike(x)
	}
	return ConvertDType(sum(terms), x.DType())
}

// kernelTap is tap (i, j) of a depthwise kernel [kH, kW, 1, C], shaped [1, 1, 1, C] to scale an activation.
func kernelTap(kernel *Node, i, j int) *Node {
	return Reshape(Slice(kernel, AxisElem(i), AxisElem(j)), 1, 1, 1, kernel.Shape().Dim(3))
}

// sum adds terms of one shape (at least one).
func sum(terms []*Node) *Node {
	total := terms[0]
	for _, t := range terms[1:] {
		total = Add(total, t)
	}
	return total
}

// placement says which output positions [first, last] of one axis a kernel tap maps inside the input, and the pad
// that puts them where they land.
type placement struct {
	first, last int
	pad         PadAxis
}

// tapPlacement: tap t of a kernel with low padding p and stride s maps output position o to input position
// o·s + t − p; it is inside [0, in) for o in [⌈(p−t)/s⌉, ⌊(in−1+p−t)/s⌋], clipped to the out positions there
// are. ok is false when no output position maps inside.
func tapPlacement(t, p, s, in, out int) (pl placement, ok bool) {
	first := 0
	if p > t {
		first = (p - t + s - 1) / s
	}
	last := min(out-1, floorDiv(in-1+p-t, s))
	if last < first {
		return pl, false
	}
	low := first*s + t - p
	span := (last-first)*s + 1
	return placement{first: first, last: last, pad: PadAxis{Start: low, End: in - low - span, Interior: s - 1}}, true
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// depthwiseShiftedForward is DepthwiseConv as y[b, oh, ow, c] = Σ_{i,j} x_pad[b, oh·s+i, ow·s+j, c]·K[i, j, c],
// accumulated in float32. Its gradient must still be ours — GoMLX's own would differentiate the nine slices
// into nine pads (fine: that is InputGradShifted) and nine separate reductions for dK (nine passes over x) —
// but there is no convolution node to hang it on, and IdentityWithCustomGradient covers one input. So three
// identities carry it: y's records the output gradient as the reverse pass meets y (it is built last, so it
// is differentiated first), then x's and the kernel's return dx and dK built from it in the formulations form
// selects. Whatever GoMLX differentiates through the slices in between is never used, and XLA drops it.
func depthwiseShiftedForward(x, kernel *Node, stride int, form DepthwiseForm) *Node {
	var dy *Node
	outputGrad := func() *Node {
		if dy == nil {
			exceptions.Panicf("DepthwiseConv (shifted forward): the reverse pass reached its input before its output")
		}
		return dy
	}
	xs := IdentityWithCustomGradient(x, func(_, _ *Node) *Node {
		customVJPUses.Add(1)
		return depthwiseInputGradient(x, kernel, outputGrad(), stride, form)
	})
	ks := IdentityWithCustomGradient(kernel, func(_, _ *Node) *Node {
		return depthwiseKernelGradient(x, kernel, outputGrad(), stride, form, nil)
	})
	kH, kW := kernel.Shape().Dim(0), kernel.Shape().Dim(1)
	outH := (x.Shape().Dim(1)+2*((kH-1)/2)-kH)/stride + 1
	outW := (x.Shape().Dim(2)+2*((kW-1)/2)-kW)/stride + 1
	acc := accumulation(x.DType())
	window := strideWindows(ConvertDType(xs, acc), kH, kW, stride, outH, outW)
	kf := ConvertDType(ks, acc)
	terms := make([]*Node, 0, kH*kW)
	for i := range kH {
		for j := range kW {
			terms = append(terms, Mul(window(i, j), kernelTap(kf, i, j)))
		}
	}
	y := ConvertDType(sum(terms), x.DType())
	return IdentityWithCustomGradient(y, func(_, v *Node) *Node {
		dy = v
		return v
	})
}

// strideWindows pads x [B, H, W, C] by torchvision's (k−1)/2 (and on the high side as far as the last window
// needs) and returns, for each kernel tap (i, j), the view of the padded input that the tap multiplies at every
// output position: rows i, i+s, … and columns j, j+s, …, outH × outW of them.
func strideWindows(x *Node, kH, kW, stride, outH, outW int) func(i, j int) *Node {
	pH, pW := (kH-1)/2, (kW-1)/2
	inH, inW := x.Shape().Dim(1), x.Shape().Dim(2)
	highH := max(0, (outH-1)*stride+kH-pH-inH)
	highW := max(0, (outW-1)*stride+kW-pW-inW)
	zero := ScalarZero(x.Graph(), x.DType())
	xPad := Pad(x, zero, PadAxis{}, PadAxis{Start: pH, End: highH}, PadAxis{Start: pW, End: highW}, PadAxis{})
	return func(i, j int) *Node {
		return Slice(xPad, AxisRange(),
			AxisRange(i, i+(outH-1)*stride+1).Stride(stride),
			AxisRange(j, j+(outW-1)*stride+1).Stride(stride),
			AxisRange())
	}
}

// depthwiseKernelGradShifted computes dK[i, j, 0, c] = Σ_{b,h,w} x_pad[b, h·s+i, w·s+j, c]·v[b, h, w, c] term by
// term: for each kernel tap, the tap's window of the padded input times v, reduced over batch and space.
func depthwiseKernelGradShifted(x, kernel, v *Node, stride int) *Node {
	kH, kW := kernel.Shape().Dim(0), kernel.Shape().Dim(1)
	window := strideWindows(x, kH, kW, stride, v.Shape().Dim(1), v.Shape().Dim(2))
	taps := make([]*Node, 0, kH*kW)
	for i := range kH {
		for j := range kW {
			// Accumulate in float32 (as cuDNN does): in float16 a sum over batch and space of loss-scaled
			// products overflows.
			taps = append(taps, ReduceSum(ConvertDType(Mul(window(i, j), v), accumulation(v.DType())), 0, 1, 2)) // [channels]
		}
	}
	dk := ConvertDType(Stack(taps, 0), kernel.DType()) // [kH·kW, channels]
	return Reshape(dk, kH, kW, 1, v.Shape().Dim(3))
}
