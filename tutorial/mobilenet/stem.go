package mobilenet

import (
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// The stem is MobileNetV2's first layer: a 3×3, stride-2 convolution from the image's 3 channels to 32. Three input
// channels are a poor fit for cuDNN, which has no tensor-core kernel for them: in the H200 profile of 12@128
// (assets/gpu-runs/2026-12-04-h200-run33) the forward convolution ran on the generic convolve_common_engine_float_NHWC
// and the filter gradient padded the input to 8 channels with a kernel of its own before an implicit GEMM.
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
// On the H200 the patches' GEMMs and the pass that builds them took less time than the convolutions, and the step
// was faster at batch 128, 256 and 512. The cost is memory: the product's gradient keeps the patches (103 MB at
// batch 128) where the convolution kept the image (39 MB), 64 MB more at the peak. A gradient of its own that
// rebuilt the patches from the image behind an optimization barrier left the peak where it was and the step
// slower, so it is not here (README, "Kernel-level levers: the stem, and Go's options beside PyTorch in one call").

// StemForm names a formulation of the stem (Config.Stem).
type StemForm int

const (
	// StemConv is the plain convolution (or, with Config.StemChannels, the convolution over zero-padded channels).
	StemConv StemForm = iota
	// StemPatches is one matrix product over the image's patches (stemPatches).
	StemPatches
	// StemSpaceToDepth is a 2×2 stride-1 convolution over the image rearranged into 2×2 blocks
	// (stemSpaceToDepth).
	StemSpaceToDepth
)

// stemConv is the first convolution (3×3, stride 2, padding 1) in the formulation Config selects. A Stem form other
// than StemConv takes precedence over StemChannels, which pads only the plain convolution's input.
func (f *forward) stemConv(x *Node) *Node {
	switch {
	case f.m.Stem == StemPatches:
		return stemPatches(x, f.kernel(f.m.stem), 2)
	case f.m.Stem == StemSpaceToDepth:
		return stemSpaceToDepth(x, f.kernel(f.m.stem))
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

// excerpt: stem-space-to-depth

// stemSpaceToDepth is convolve(x, k, 2) for x [B,H,W,C] and a 3×3 kernel k [3,3,C,O] (padding 1 on each side),
// written as a space-to-depth rearrangement of the image followed by a stride-1 2×2 convolution.
//
// Why: cuDNN has no tensor-core kernel for 3 input channels, and stemPatches, which avoids cuDNN, writes a
// [B,112,112,32] patch matrix (103 MB in bfloat16 at batch 128) and keeps it for the filter gradient. Here the padded
// image is rearranged once into 2×2 blocks — [B,113,113,16] with the zero channels, about 39 → 52 MB at batch 128 — and
// cuDNN gets a 2×2 convolution over 16 channels, an implicit GEMM with a contracted axis of K = 2·2·16 = 64; the filter
// gradient keeps only the rearranged image. A stride-2 3×3 window starting at padded row 2i covers rows 2i, 2i+1 (block
// i) and 2i+2 (the first row of block i+1), so the 3×3 kernel, embedded in a 4×4 one with a zero last row and column,
// is a 2×2 kernel over blocks.
//
// On an H100 XLA does the rearrangement in one pad fusion, and the stem's kernels took less time a step than the
// patches', for a faster step in less memory (assets/gpu-runs/2026-12-06-h100-run58).
//
// Only k's gradient is right: GoMLX v0.28.16's gradient of a convolution with respect to its input is shifted by
// one position along each axis where the kernel's size is even, so x's gradient through the 2×2 convolution is
// wrong (stem_test.go). The stem's x is the image, which takes no gradient.
func stemSpaceToDepth(x, k *Node) *Node {
	b, h, w, c := x.Shape().Dim(0), x.Shape().Dim(1), x.Shape().Dim(2), x.Shape().Dim(3)
	o := k.Shape().Dim(3)
	if k.Shape().Dim(0) != 3 || k.Shape().Dim(1) != 3 {
		exceptions.Panicf("stemSpaceToDepth wants a 3×3 kernel, got %s", k.Shape())
	}
	zero := ScalarZero(x.Graph(), x.DType())
	// Padding 1 at the top and left, as convolve's; at the bottom and right 1 for an even size (which makes the
	// padded size even; the convolution never reads that row) or 2 for an odd one (the last window reads the
	// first, as convolve's does; the second makes the size even).
	hP, wP := h+2+h%2, w+2+w%2
	// Every axis gets a PadAxis: GoMLX v0.28.16's gradient of Pad slices the axes left out to length 0.
	x = Pad(x, zero, PadAxis{}, PadAxis{Start: 1, End: hP - h - 1}, PadAxis{Start: 1, End: wP - w - 1}, PadAxis{})
	// [B, hP/2, 2 (dy), wP/2, 2 (dx), C] → [B, hP/2, wP/2, dy, dx, C]: channel dy·2C + dx·C + c.
	x = Reshape(x, b, hP/2, 2, wP/2, 2, c)
	x = TransposeAllAxes(x, 0, 1, 3, 2, 4, 5)
	x = Reshape(x, b, hP/2, wP/2, 4*c)
	// The kernel tap (ky, kx) = (2·DY + dy, 2·DX + dx), with ky, kx = 3 zero: [DY, dy, DX, dx, C, O] →
	// [DY, DX, dy, dx, C, O], the input channels in the rearranged image's order.
	kZero := ScalarZero(k.Graph(), k.DType())
	k = Pad(k, kZero, PadAxis{End: 1}, PadAxis{End: 1}, PadAxis{}, PadAxis{})
	k = Reshape(k, 2, 2, 2, 2, c, o)
	k = TransposeAllAxes(k, 0, 2, 1, 3, 4, 5)
	k = Reshape(k, 2, 2, 4*c, o)
	// Zero channels to a multiple of 8 (12 → 16 for an RGB image): tensor cores read the contracted axis in whole
	// 16-byte rows, 8 values in half precision, and cuDNN falls back to slower kernels (or pads itself, as it did
	// for the 3-channel stem's filter gradient) otherwise.
	if extra := (8 - 4*c%8) % 8; extra > 0 {
		x = Pad(x, zero, PadAxis{}, PadAxis{}, PadAxis{}, PadAxis{End: extra})
		k = Pad(k, kZero, PadAxis{}, PadAxis{}, PadAxis{End: extra}, PadAxis{})
	}
	return convolve(x, k, 1) // a 2×2 kernel: convolve's padding (2−1)/2 = 0, so VALID
}

// excerpt end
