package mobilenet

import (
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// The stem is MobileNetV2's first layer: a 3×3, stride-2 convolution from the image's 3 channels to 32. Three
// input channels are a poor fit for cuDNN, which has no tensor-core kernel for them: in the H200 profile of 12@128
// (assets/gpu-runs/2026-12-04-h200-run33) the forward convolution ran on the generic
// convolve_common_engine_float_NHWC (244 µs a step) and the filter gradient padded the input to 8 channels with a
// kernel of its own before an implicit GEMM (261 µs): 4.6% of the step's kernel time, for about 4% of the
// network's multiply-adds.
//
// Two formulations give the tensor cores a shape they take:
//
//   - StemChannels pads the image and the kernel's input axis with zero channels (the convolution stays a
//     convolution; cuDNN picks an implicit GEMM);
//   - StemPatches writes the convolution as what an implicit GEMM computes, explicitly: the nine strided views of
//     the padded image, one per kernel tap, side by side on the channel axis — [B, 112, 112, 27] patches, with
//     zero channels to a multiple of 8 — times the kernel as a [27, 32] matrix. Both products (forward and
//     the filter gradient, patchesᵀ·dy) are plain GEMMs, and XLA fuses building the patches into one pass over
//     the image. The image gets no gradient, so nothing is spent undoing the patches.
//
// On the H200 (run34 and run35, beside the same options without it) the patches took the stem from 505 to about
// 100 µs of GEMMs a step at batch 128, plus 200–230 µs to build them: 1.6% more samples/s at 128 in run34 (2–3%
// against run35's one control), 0.7–0.8% at 256 and 512. The cost is memory: the product's gradient keeps the
// patches (103 MB at batch 128) where the convolution kept the image (39 MB), 64 MB more at the peak. A gradient
// of its own that rebuilt the patches from the image behind an optimization barrier left the peak where it was
// and the step slower (run37), so it is not here.

// stemConv is the first convolution (3×3, stride 2, padding 1) in the formulation Config selects.
func (f *forward) stemConv(x *Node) *Node {
	switch {
	case f.m.StemPatches:
		return stemPatches(x, f.kernel(f.m.stem), 2)
	case f.m.StemChannels > x.Shape().Dim(-1):
		return stemPaddedChannels(x, f.kernel(f.m.stem), f.m.StemChannels)
	}
	return f.conv(x, f.m.stem, 2)
}

// stemPaddedChannels zero-pads x's channels and the kernel's input axis to `channels` (its gradient is the slice of
// the padded one, so the parameter keeps its shape).
func stemPaddedChannels(x, k *Node, channels int) *Node {
	extra := channels - x.Shape().Dim(-1)
	// excerpt: stem-channels
	zero := ScalarZero(x.Graph(), x.DType())
	// Every axis gets a PadAxis: GoMLX v0.28.16's gradient of Pad slices the axes left out to length 0.
	x = Pad(x, zero, PadAxis{}, PadAxis{}, PadAxis{}, PadAxis{End: extra})
	k = Pad(k, zero, PadAxis{}, PadAxis{}, PadAxis{End: extra}, PadAxis{})
	return convolve(x, k, 2)
	// excerpt end
}

// excerpt: stem-patches

// stemPatches is convolve(x, k, stride) for x [B,H,W,C] and k [kH,kW,C,O] (padding (k−1)/2) as one matrix
// product: patches [B·OH·OW, kH·kW·C (+ zeros to a multiple of 8)] times k as a matrix.
func stemPatches(x, k *Node, stride int) *Node {
	kH, kW, c, o := k.Shape().Dim(0), k.Shape().Dim(1), k.Shape().Dim(2), k.Shape().Dim(3)
	b, h, w := x.Shape().Dim(0), x.Shape().Dim(1), x.Shape().Dim(2)
	pH, pW := (kH-1)/2, (kW-1)/2
	oH, oW := (h+2*pH-kH)/stride+1, (w+2*pW-kW)/stride+1
	zero := ScalarZero(x.Graph(), x.DType())
	padded := Pad(x, zero, PadAxis{}, PadAxis{Start: pH, End: pH}, PadAxis{Start: pW, End: pW}, PadAxis{})
	var taps []*Node // one strided view of the padded image per kernel tap, in the kernel's (i, j) order
	for i := range kH {
		for j := range kW {
			taps = append(taps, Slice(padded, AxisRange(),
				AxisRange(i, i+stride*(oH-1)+1).Stride(stride), AxisRange(j, j+stride*(oW-1)+1).Stride(stride),
				AxisRange()))
		}
	}
	depth := kH * kW * c
	k = Reshape(k, depth, o)
	if extra := (8 - depth%8) % 8; extra > 0 { // tensor cores want a contracted axis of whole 16-byte rows
		taps = append(taps, Zeros(x.Graph(), shapes.Make(x.DType(), b, oH, oW, extra)))
		k = Pad(k, ScalarZero(k.Graph(), k.DType()), PadAxis{End: extra}, PadAxis{})
		depth += extra
	}
	patches := Reshape(Concatenate(taps, 3), b*oH*oW, depth)
	return Reshape(MatMul(patches, k), b, oH, oW, o)
}

// excerpt end
