package mobilenet

import (
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// depthwiseInputGradPhaseProducts is dx of a strided depthwise convolution computed per phase of the input grid, as
// depthwiseInputGradPhases does, but with each phase's few taps as elementwise products instead of a convolution.
// For a 3×3 kernel at stride 2 the four phases take 1, 2, 2 and 4 taps: dx[2m] = v[m]·K[1] and dx[2m+1] =
// v[m+1]·K[0] + v[m]·K[2] along each axis. Every phase reads v (a quarter of dx) and XLA fuses the products, the
// float32 sums and the interleaving into one pass that writes dx once, where the default form first writes the
// stride-dilated v (dx's size, three quarters zeros) and then convolves it: two passes, both costly on the
// 112×112×96 layer in the profile of 12@128 (assets/gpu-runs/2026-12-04-h200-run33). The phases' convolutions were
// slower than both (depthwise.go): cuDNN ran their 2×1 and 2×2 sub-kernels on a generic kernel.
//
// Measured on the H200, it lost: the depthwise convolutions took less time, but XLA writes the interleaved phases
// with its concatenate emitter, far below the memory's speed, so the step did not change (README, "Formulations
// that lost"). An experiment, like the other forms.
func depthwiseInputGradPhaseProducts(x, kernel, v *Node, stride int) *Node {
	kH, kW := kernel.Shape().Dim(0), kernel.Shape().Dim(1)
	b, mH, mW, channels := v.Shape().Dim(0), v.Shape().Dim(1), v.Shape().Dim(2), v.Shape().Dim(3)
	acc := accumulation(v.DType())
	kf := ConvertDType(kernel, acc)
	// Pad v once by the largest offsets any phase needs, so every tap is a plain slice of it.
	var lowH, highH, lowW, highW int
	for r := range stride {
		_, padH := phaseTaps(r, (kH-1)/2, stride, kH)
		_, padW := phaseTaps(r, (kW-1)/2, stride, kW)
		lowH, highH = max(lowH, padH[0]), max(highH, padH[1])
		lowW, highW = max(lowW, padW[0]), max(highW, padW[1])
	}
	vp := Pad(ConvertDType(v, acc), ScalarZero(v.Graph(), acc),
		PadAxis{}, PadAxis{Start: lowH, End: highH}, PadAxis{Start: lowW, End: highW}, PadAxis{})
	dx := interleavePhases(x, v, stride, func(rH, rW int) *Node {
		tapsH, padH := phaseTaps(rH, (kH-1)/2, stride, kH)
		tapsW, padW := phaseTaps(rW, (kW-1)/2, stride, kW)
		var terms []*Node
		for a, tH := range tapsH {
			for c, tW := range tapsW {
				if tH < 0 || tW < 0 {
					continue
				}
				// Offset d = a − padH[0] of this phase's correlation, shifted into the common padding.
				h0, w0 := lowH-padH[0]+a, lowW-padW[0]+c
				view := Slice(vp, AxisRange(), AxisRange(h0, h0+mH), AxisRange(w0, w0+mW), AxisRange())
				terms = append(terms, Mul(view, kernelTap(kf, tH, tW)))
			}
		}
		if len(terms) == 0 {
			return Zeros(v.Graph(), shapes.Make(acc, b, mH, mW, channels))
		}
		return sum(terms)
	})
	return ConvertDType(dx, x.DType())
}
