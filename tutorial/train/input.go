package train

import (
	"fmt"
	"math"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
)

// Input says in which form a batch reaches the compiled step; each ladder step moves work from the host to the
// device by changing it.
type Input int

const (
	// InputFloat32: [B,S,S,3] float32, resized and normalised on the host (the tutorial's ToTensor+Normalize).
	InputFloat32 Input = iota
	// InputUint8: [B,S,S,3] uint8 resized on the host, normalised on the device (4× fewer bytes on the bus).
	InputUint8
	// InputUint8Small: [B,32,32,3] uint8 as stored; resized and normalised on the device (49× fewer bytes again).
	InputUint8Small
	// InputDeviceData: the whole uint8 training set lives on the device; the step shuffles, gathers, resizes and
	// normalises there. The host passes nothing per step.
	InputDeviceData
)

func (in Input) String() string {
	switch in {
	case InputFloat32:
		return "host float32"
	case InputUint8:
		return "host uint8, normalise on device"
	case InputUint8Small:
		return "32×32 uint8, resize+normalise on device"
	case InputDeviceData:
		return "device-resident dataset"
	}
	return fmt.Sprintf("Input(%d)", int(in))
}

// ResizeMatrix is the [out, in] bilinear interpolation matrix of F.interpolate(mode="bilinear",
// align_corners=False) (and of PIL's bilinear when upsampling, before PIL rounds to uint8): output pixel i samples
// the input at (i+0.5)·in/out − 0.5, clamped to the edges. Resizing an image is then two small matrix products,
// [out,in]·X·[in,out]ᵀ, which the GPU runs as batched GEMMs.
func ResizeMatrix(in, out int) []float32 {
	m := make([]float32, out*in)
	scale := float64(in) / float64(out)
	for i := range out {
		src := max((float64(i)+0.5)*scale-0.5, 0)
		i0 := min(int(math.Floor(src)), in-1)
		i1 := min(i0+1, in-1)
		l := float32(src - float64(i0))
		m[i*in+i0] += 1 - l
		m[i*in+i1] += l
	}
	return m
}

// excerpt: resize-on-device

// resizeOnDevice resizes x [B,h,w,C] (any numeric dtype) to [B,size,size,C] float32 with ResizeMatrix.
func resizeOnDevice(x *Node, size int) *Node {
	g := x.Graph()
	h, w := x.Shape().Dim(1), x.Shape().Dim(2)
	xf := ConvertDType(x, dtypes.Float32)
	if h == size && w == size {
		return xf
	}
	rh := Reshape(Const(g, ResizeMatrix(h, size)), size, h)
	rw := Reshape(Const(g, ResizeMatrix(w, size)), size, w)
	// Widths first, on the small image; heights last. A product's output comes out as [its matrix's rows, the
	// image's other axes] and then moves to [B,S,S,C]: after the heights that move shifts whole rows of S·C
	// values, while a last product over the widths leaves 3 channels as the innermost run, a slow transpose on
	// the largest tensor of the step (the profile of 12@128 in assets/gpu-runs/2026-12-04-h200-run33).
	y := Einsum("jw,bhwc->bhjc", rw, xf)
	return Einsum("ih,bhjc->bijc", rh, y)
}

// excerpt end

// excerpt: normalize-on-device

// normalizeOnDevice is the tutorial's (x/255 − 0.5)/0.5 on uint8 (or float 0..255) pixels.
func normalizeOnDevice(x *Node) *Node {
	return AddScalar(DivScalar(ConvertDType(x, dtypes.Float32), 127.5), -1)
}

// excerpt end
