package cifar

import (
	"fmt"
	"math"
	"sync"
)

// DefaultSize is the side the tutorial upsamples to: torchvision's
// MobileNetV2 is defined for 224×224 ImageNet inputs, and the PyTorch
// reference applies T.Resize(224) to the 32×32 CIFAR images.
const DefaultSize = 224

// precisionBits is Pillow's fixed-point precision for 8-bit resampling
// (PRECISION_BITS = 32 - 8 - 2 in libImaging/Resample.c): coefficients are
// integers scaled by 2²², leaving 8 bits for the pixel value and 2 bits of
// headroom in an int32 accumulator.
const precisionBits = 32 - 8 - 2

// Resizer upsamples 32×32 HWC uint8 images to Size×Size, reproducing
// torchvision's T.Resize(size) on a PIL image bit for bit. That transform
// calls PIL's Image.resize((size, size), BILINEAR), whose 8-bit path
// (ImagingResample in libImaging/Resample.c) is:
//
//   - per output index, a triangle filter centred at (i+0.5)·in/out in input
//     coordinates (half-pixel centres), support 1 for upsampling, taps
//     clipped to the image (edge clamping) and renormalized to sum 1;
//   - coefficients rounded to integers scaled by 2²², half away from zero;
//   - a horizontal pass into an intermediate 8-bit image, then a vertical
//     pass, each accumulating in int32 from 2²¹ (for rounding), shifting
//     right 22 and clipping to 0..255.
//
// The intermediate 8-bit rounding is what makes a plain float bilinear
// differ from PIL by up to 1; Resizer keeps it, so Resize matches PIL
// exactly (see resize_test.go and testdata/gen_pil_reference.py).
//
// The coefficient tables are computed once per size, so the per-image work
// is only integer multiply-adds. A Resizer is immutable and safe for
// concurrent use; its scratch buffers come from a sync.Pool, so steady-state
// calls do not allocate.
type Resizer struct {
	in, out int
	// Fixed-point PIL coefficients, shared by both passes (images are
	// square): output index o reads inputs start[o] .. start[o]+taps[o]-1
	// with weights coef[o*ksize : o*ksize+taps[o]].
	start, taps []int32
	coef        []int32
	ksize       int
	// Float (PyTorch align_corners=False) weights: output o reads inputs
	// i0[o] and i1[o] with weights w0[o] and w1[o].
	i0, i1 []int32
	w0, w1 []float32

	scratch sync.Pool // *[]uint8 intermediate (horizontal pass) images
	outBuf  sync.Pool // *[]uint8 resized images for ResizeNormalized
}

// NewResizer returns a Resizer from 32×32 to size×size. Any size ≥ 1 gives
// PIL's result, but the tutorial needs size ≥ 32 (upsampling); small sizes
// like 40 or 64 keep CPU tests fast. It panics if size < 1, a programming
// error.
func NewResizer(size int) *Resizer {
	if size < 1 {
		panic(fmt.Sprintf("cifar.NewResizer: size %d < 1", size))
	}
	r := &Resizer{in: Height, out: size}
	r.start, r.taps, r.coef, r.ksize = pilCoeffs(r.in, r.out)
	r.i0, r.i1, r.w0, r.w1 = linearCoeffs(r.in, r.out)
	r.scratch.New = func() any { b := make([]uint8, r.in*r.out*Channels); return &b }
	r.outBuf.New = func() any { b := make([]uint8, r.out*r.out*Channels); return &b }
	return r
}

// Size returns the output side length.
func (r *Resizer) Size() int { return r.out }

// OutputSize returns the number of bytes (or floats) of one resized image:
// Size×Size×3.
func (r *Resizer) OutputSize() int { return r.out * r.out * Channels }

// pilCoeffs mirrors Pillow's precompute_coeffs + normalize_coeffs_8bpc for
// the bilinear filter over the box (0, in), in float64 exactly as the C code
// computes in double, so the rounded integer coefficients are identical.
func pilCoeffs(in, out int) (start, taps, coef []int32, ksize int) {
	const support0 = 1.0 // bilinear filter support
	scale := float64(in) / float64(out)
	filterscale := max(scale, 1.0)
	support := support0 * filterscale
	ksize = int(math.Ceil(support))*2 + 1
	start = make([]int32, out)
	taps = make([]int32, out)
	coef = make([]int32, out*ksize)
	w := make([]float64, ksize)
	for o := range out {
		center := (float64(o) + 0.5) * scale
		ss := 1.0 / filterscale
		xmin := int(center - support + 0.5) // C (int) truncates toward zero
		xmin = max(xmin, 0)
		xmax := min(int(center+support+0.5), in) - xmin
		ww := 0.0
		for x := range xmax {
			v := triangle((float64(x+xmin) - center + 0.5) * ss)
			w[x] = v
			ww += v
		}
		for x := range xmax {
			if ww != 0 {
				w[x] /= ww
			}
			k := w[x] * (1 << precisionBits)
			if k < 0 {
				coef[o*ksize+x] = int32(-0.5 + k)
			} else {
				coef[o*ksize+x] = int32(0.5 + k)
			}
		}
		start[o], taps[o] = int32(xmin), int32(xmax)
	}
	return start, taps, coef, ksize
}

// triangle is Pillow's bilinear_filter.
func triangle(x float64) float64 {
	if x < 0 {
		x = -x
	}
	if x < 1 {
		return 1 - x
	}
	return 0
}

// linearCoeffs mirrors PyTorch's CPU upsample_bilinear2d with
// align_corners=False (and no explicit scale factor), in float32 as PyTorch
// computes for float tensors: src = max((o+0.5)·in/out − 0.5, 0),
// i0 = floor(src), i1 = min(i0+1, in−1), w1 = src − i0, w0 = 1 − w1. For
// upsampling this is the same triangle filter as PIL's, without the
// fixed-point and 8-bit rounding.
func linearCoeffs(in, out int) (i0, i1 []int32, w0, w1 []float32) {
	scale := float32(in) / float32(out)
	i0, i1 = make([]int32, out), make([]int32, out)
	w0, w1 = make([]float32, out), make([]float32, out)
	for o := range out {
		src := scale*(float32(o)+0.5) - 0.5
		if src < 0 {
			src = 0
		}
		lo := int(src) // floor, src ≥ 0
		hi := lo
		if lo < in-1 {
			hi = lo + 1
		}
		l1 := min(max(src-float32(lo), 0), 1)
		i0[o], i1[o] = int32(lo), int32(hi)
		w0[o], w1[o] = 1-l1, l1
	}
	return i0, i1, w0, w1
}

// clip8 is Pillow's clip8: drop the fixed-point fraction and saturate.
func clip8(v int32) uint8 {
	v >>= precisionBits
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// Resize resizes one 32×32×3 HWC image (src) into dst (Size×Size×3 HWC),
// exactly as PIL's bilinear resize does. dst and src must not overlap.
func (r *Resizer) Resize(dst, src []uint8) {
	const half = int32(1) << (precisionBits - 1)
	in, out, ks := r.in, r.out, r.ksize
	src = src[:in*in*Channels]
	dst = dst[:out*out*Channels]
	tmpp := r.scratch.Get().(*[]uint8)
	tmp := *tmpp // in rows × out columns × 3

	// Horizontal pass: each input row → out columns.
	for y := range in {
		row := src[y*in*Channels : (y+1)*in*Channels]
		trow := tmp[y*out*Channels : (y+1)*out*Channels]
		for o := range out {
			s, n := int(r.start[o]), int(r.taps[o])
			k := r.coef[o*ks : o*ks+n]
			s0, s1, s2 := half, half, half
			px := row[s*Channels : (s+n)*Channels]
			for t, c := range k {
				s0 += int32(px[t*3]) * c
				s1 += int32(px[t*3+1]) * c
				s2 += int32(px[t*3+2]) * c
			}
			trow[o*3], trow[o*3+1], trow[o*3+2] = clip8(s0), clip8(s1), clip8(s2)
		}
	}

	// Vertical pass: each output row mixes a few intermediate rows; the
	// same weight applies across the whole row, so the row is one flat loop.
	stride := out * Channels
	for o := range out {
		s, n := int(r.start[o]), int(r.taps[o])
		k := r.coef[o*ks : o*ks+n]
		drow := dst[o*stride : (o+1)*stride]
		if n == 2 && k[0] >= 0 && k[1] >= 0 && k[0]+k[1] <= 1<<precisionBits+1 {
			// The common upsampling case, unrolled.
			a := tmp[s*stride : (s+1)*stride][:len(drow)]
			b := tmp[(s+1)*stride : (s+2)*stride][:len(drow)]
			k0, k1 := k[0], k[1]
			// Both weights are ≥ 0 and sum to 2²² ± 1, so the sum is in
			// [0, 256·2²²) and clip8 reduces to the shift.
			for j := range drow {
				drow[j] = uint8((half + int32(a[j])*k0 + int32(b[j])*k1) >> precisionBits)
			}
			continue
		}
		for j := range drow {
			acc := half
			for t, c := range k {
				acc += int32(tmp[(s+t)*stride+j]) * c
			}
			drow[j] = clip8(acc)
		}
	}
	r.scratch.Put(tmpp)
}

// ResizeFloat resizes one 32×32×3 HWC uint8 image into dst (Size×Size×3
// float32, values in 0..255, not rounded), computing what PyTorch's
// F.interpolate(x, size, mode="bilinear", align_corners=False) gives on the
// image as float. It is the reference for checking an on-device resize,
// which works in float; it differs from [Resizer.Resize] by at most 1
// (PIL's two 8-bit roundings).
func (r *Resizer) ResizeFloat(dst []float32, src []uint8) {
	in, out := r.in, r.out
	src = src[:in*in*Channels]
	dst = dst[:out*out*Channels]
	for oy := range out {
		ry0, ry1 := int(r.i0[oy])*in*Channels, int(r.i1[oy])*in*Channels
		hy0, hy1 := r.w0[oy], r.w1[oy]
		drow := dst[oy*out*Channels : (oy+1)*out*Channels]
		for ox := range out {
			cx0, cx1 := int(r.i0[ox])*Channels, int(r.i1[ox])*Channels
			wx0, wx1 := r.w0[ox], r.w1[ox]
			for c := range Channels {
				top := float32(src[ry0+cx0+c])*wx0 + float32(src[ry0+cx1+c])*wx1
				bot := float32(src[ry1+cx0+c])*wx0 + float32(src[ry1+cx1+c])*wx1
				drow[ox*Channels+c] = top*hy0 + bot*hy1
			}
		}
	}
}

// ResizeNormalized resizes one image exactly as [Resizer.Resize] and
// normalizes it as [Normalize] into dst (Size×Size×3 float32): the full
// torchvision transform Resize(224) → ToTensor → Normalize(0.5, 0.5), in
// NHWC order.
func (r *Resizer) ResizeNormalized(dst []float32, src []uint8) {
	bp := r.outBuf.Get().(*[]uint8)
	r.Resize(*bp, src)
	Normalize(dst[:len(*bp)], *bp)
	r.outBuf.Put(bp)
}
