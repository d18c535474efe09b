package mobilenet

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// Depthwise convolutions (one 3×3 filter per channel, feature_group_count = channels) are half of MobileNetV2's
// layers. GoMLX differentiates a grouped convolution by splitting it into one convolution per group: for a layer
// with 960 channels that is 960 tiny convolutions in the gradient, which neither compiles nor runs in reasonable
// time. So this file gives depthwise convolutions a gradient of their own, with two convolutions that XLA and cuDNN
// run natively (the same ones JAX emits):
//
//   - dx: the output gradient, dilated by the stride (input dilation), convolved with the spatially reversed
//     kernel, still one group per channel;
//   - dK: the input convolved with the output gradient used as a kernel, batch and channel axes swapped and
//     batch_group_count = channels, so that each channel only meets its own gradient.
//
// The pure-Go backend implements batch_group_count with a different grouping than XLA (measured in this project,
// see DEVELOPERS.md), so there dK is computed as KernelSize² shifted products reduced over batch and space —
// the definition of the gradient, memory-bound but exact. Both formulations are tested against numerical
// gradients in depthwise_test.go; DepthwiseKernelGradient selects one.
//
// The gradient is attached through GoMLX's VJP registration: DepthwiseConv records the parameters of the
// ConvGeneral node it creates in a side table keyed by a weak pointer to the node, and the registered VJP for
// ConvGeneral uses our formulation for the nodes it finds there and GoMLX's own for every other convolution.
// (GoMLX keeps a node's convolution parameters private, and IdentityWithCustomGradient only covers one input.)

// KernelGradient names a formulation of the depthwise kernel gradient.
type KernelGradient int

const (
	// KernelGradAuto uses BatchGroup on XLA and ShiftedProducts elsewhere.
	KernelGradAuto KernelGradient = iota
	// KernelGradBatchGroup computes dK as one convolution with batch_group_count = channels (XLA semantics).
	KernelGradBatchGroup
	// KernelGradShiftedProducts computes dK as kH·kW element-wise products of shifted input and output gradient,
	// each reduced over batch and space.
	KernelGradShiftedProducts
)

// DepthwiseKernelGradient selects how the depthwise kernel gradient is built. It is read when the gradient graph is
// built, so set it before compiling.
var DepthwiseKernelGradient = KernelGradAuto

type depthwiseParams struct {
	x, kernel *Node
	stride    int
	padding   [2][2]int // per spatial axis: low, high
}

var (
	depthwiseNodes sync.Map // weak.Pointer[Node] -> depthwiseParams
	registerOnce   sync.Once

	// customVJPUses counts the gradients built with our formulation: tests use it to prove that the model's
	// depthwise layers really take this path and not GoMLX's per-channel split.
	customVJPUses atomic.Int64
)

// DepthwiseConv convolves x [batch, height, width, channels] with kernel [kH, kW, 1, channels] (channels-last,
// one filter per channel), stride s in both spatial axes and torchvision's padding (kH-1)/2, and registers the
// custom gradient described above.
func DepthwiseConv(x, kernel *Node, stride int) *Node {
	registerOnce.Do(registerDepthwiseVJP)
	channels := x.Shape().Dim(-1)
	kShape := kernel.Shape()
	if kShape.Rank() != 4 || kShape.Dim(2) != 1 || kShape.Dim(3) != channels {
		exceptions.Panicf("DepthwiseConv: kernel must be [kH, kW, 1, %d] for input %s, got %s", channels, x.Shape(), kShape)
	}
	padH, padW := (kShape.Dim(0)-1)/2, (kShape.Dim(1)-1)/2
	p := depthwiseParams{x: x, kernel: kernel, stride: stride, padding: [2][2]int{{padH, padH}, {padW, padW}}}
	y := Convolve(x, kernel).StridePerAxis(stride, stride).
		PaddingPerDim([][2]int{p.padding[0], p.padding[1]}).ChannelGroupCount(channels).Done()
	key := weak.Make(y)
	depthwiseNodes.Store(key, p)
	runtime.AddCleanup(y, func(k weak.Pointer[Node]) { depthwiseNodes.Delete(k) }, key)
	return y
}

// registerDepthwiseVJP wraps GoMLX's registered VJP for ConvGeneral; see the file comment.
func registerDepthwiseVJP() {
	original := VJPRegistration[NodeTypeConvGeneral]
	VJPRegistration[NodeTypeConvGeneral] = func(node *Node, vjps []*Node, outputShape shapes.Shape) []*Node {
		if value, found := depthwiseNodes.Load(weak.Make(node)); found {
			p := value.(depthwiseParams)
			if p.x == node.Inputs()[0] && p.kernel == node.Inputs()[1] {
				customVJPUses.Add(1)
				dx, dk := DepthwiseGradients(p.x, p.kernel, vjps[0], p.stride)
				return []*Node{dx, dk}
			}
		}
		return original(node, vjps, outputShape)
	}
}

// DepthwiseGradients returns the gradients of DepthwiseConv(x, kernel, stride) with respect to x and kernel, given
// the gradient v with respect to its output. Exported so tests and benchmarks can compare formulations directly.
func DepthwiseGradients(x, kernel, v *Node, stride int) (dx, dk *Node) {
	return depthwiseInputGradient(x, kernel, v, stride), depthwiseKernelGradient(x, kernel, v, stride)
}

func depthwiseInputGradient(x, kernel, v *Node, stride int) *Node {
	channels := x.Shape().Dim(-1)
	var pads [][2]int
	for axis := range 2 {
		k := kernel.Shape().Dim(axis)
		p := (k - 1) / 2
		in, out := x.Shape().Dim(1+axis), v.Shape().Dim(1+axis)
		// dx[m] = Σ_j v_dilated[m + p − j]·K[j]: a convolution of the stride-dilated v with the reversed kernel,
		// padded low by k−1−p and high by whatever makes the output exactly `in` long.
		low := k - 1 - p
		high := in - ((out-1)*stride + 1) - low + k - 1
		pads = append(pads, [2]int{low, high})
	}
	reversed := Reverse(kernel, 0, 1)
	conv := Convolve(v, reversed).PaddingPerDim(pads).ChannelGroupCount(channels)
	if stride > 1 {
		conv = conv.InputDilationPerAxis(stride, stride)
	}
	return conv.Done()
}

func depthwiseKernelGradient(x, kernel, v *Node, stride int) *Node {
	method := DepthwiseKernelGradient
	if method == KernelGradAuto {
		method = KernelGradShiftedProducts
		if isXLA(x.Graph()) {
			method = KernelGradBatchGroup
		}
	}
	if method == KernelGradBatchGroup {
		return depthwiseKernelGradBatchGroup(x, kernel, v, stride)
	}
	return depthwiseKernelGradShifted(x, kernel, v, stride)
}

func isXLA(g *Graph) bool {
	name := g.Backend().String() // "xla" for go-xla, "go" for the pure-Go backend
	return len(name) >= 3 && name[:3] == "xla"
}

// depthwiseKernelGradBatchGroup: dK[i,j,0,c] = Σ_{b,h,w} x_pad[b, h·s+i, w·s+j, c]·v[b,h,w,c], written as a
// convolution whose "batch" is the channel axis of x and whose contracted feature axis is the batch axis,
// the output gradient v acting as a kernel dilated by the stride, and batch_group_count = channels.
func depthwiseKernelGradBatchGroup(x, kernel, v *Node, stride int) *Node {
	channels := x.Shape().Dim(-1)
	var axes ConvolveAxesConfig
	axes.InputBatch, axes.InputChannels, axes.InputSpatial = 3, 0, []int{1, 2}
	axes.KernelInputChannels, axes.KernelOutputChannels, axes.KernelSpatial = 0, 3, []int{1, 2}
	axes.OutputBatch, axes.OutputChannels, axes.OutputSpatial = 2, 3, []int{0, 1}
	var pads [][2]int
	for axis := range 2 {
		k := kernel.Shape().Dim(axis)
		p := (k - 1) / 2
		in, out := x.Shape().Dim(1+axis), v.Shape().Dim(1+axis)
		// Output length must be k: in + low + high − ((out−1)·s + 1) + 1 = k.
		high := k + (out-1)*stride - in - p
		pads = append(pads, [2]int{p, high})
	}
	dilations := []int{stride, stride}
	return ConvGeneral(x, v, axes, nil, pads, nil, dilations, 1, channels)
}

// depthwiseKernelGradShifted computes the same sum term by term: for each kernel tap (i, j), the padded input is
// sliced with the stride to the output's spatial size, multiplied by v and reduced over batch and space.
func depthwiseKernelGradShifted(x, kernel, v *Node, stride int) *Node {
	kH, kW := kernel.Shape().Dim(0), kernel.Shape().Dim(1)
	pH, pW := (kH-1)/2, (kW-1)/2
	outH, outW := v.Shape().Dim(1), v.Shape().Dim(2)
	inH, inW := x.Shape().Dim(1), x.Shape().Dim(2)
	// Pad enough on the high side for every tap's strided window.
	highH := max(0, (outH-1)*stride+kH-pH-inH)
	highW := max(0, (outW-1)*stride+kW-pW-inW)
	zero := ScalarZero(x.Graph(), x.DType())
	xPad := Pad(x, zero, PadAxis{}, PadAxis{Start: pH, End: highH}, PadAxis{Start: pW, End: highW}, PadAxis{})
	taps := make([]*Node, 0, kH*kW)
	for i := range kH {
		for j := range kW {
			window := Slice(xPad, AxisRange(),
				AxisRange(i, i+(outH-1)*stride+1).Stride(stride),
				AxisRange(j, j+(outW-1)*stride+1).Stride(stride),
				AxisRange())
			// Accumulate in float32 (as cuDNN does): in float16 a sum over batch and space of loss-scaled
			// products overflows.
			taps = append(taps, ReduceSum(ConvertDType(Mul(window, v), accumulation(v.DType())), 0, 1, 2)) // [channels]
		}
	}
	dk := ConvertDType(Stack(taps, 0), kernel.DType()) // [kH·kW, channels]
	return Reshape(dk, kH, kW, 1, v.Shape().Dim(3))
}
