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
// time. So this file gives depthwise convolutions a gradient of their own. By default the forward pass is one
// grouped convolution and the gradients are two more that XLA and cuDNN run natively (the same ones JAX emits):
//
//   - dx: the output gradient, dilated by the stride (input dilation), convolved with the spatially reversed
//     kernel, still one group per channel;
//   - dK: the input convolved with the output gradient used as a kernel, batch and channel axes swapped and
//     batch_group_count = channels, so that each channel only meets its own gradient.
//
// The default is what the ladder trains. The alternatives below (DepthwiseForm selects them; the CLI's -model)
// were written to remove a cost the H200 profile shows, and measured slower there (README, "Formulations that
// lost"): they stay as experiments, and dK's shifted form is the one the pure-Go backend needs.
//
//   - The cost: XLA never hands a grouped convolution with input dilation to cuDNN's backward-data kernel (its
//     conv rewriter skips feature_group_count > 1), so for a stride-2 layer it first writes the dilated gradient
//     — four times the gradient's size, three quarters zeros — and then runs a forward convolution over it.
//   - dx as shifted products (depthwise_shifted.go): nine slices of the gradient, each scaled by one tap of the
//     kernel and spread by an interior pad of stride−1, which XLA fuses into one loop. Slower: XLA's loop over
//     nine shifted views is far slower than cuDNN's depthwise kernels.
//   - dx by phases (depthwiseInputGradPhases): per phase of the stride-2 grid, an undilated convolution of the
//     gradient itself. Slower: cuDNN runs the 2×2, 2×1 and 1×2 sub-kernels on its generic grouped kernel, and
//     XLA writes the interleaved phases in a pass of their own.
//   - dx by phases as elementwise products (depthwise_phaseproducts.go): no change to the step at batch 128 —
//     the convolutions it removes cost what XLA's interleaving of the phases costs.
//   - The forward pass and dK as shifted products: slower again, on top of the shifted dx.
//     The pure-Go backend implements batch_group_count with a different grouping than XLA (measured in this
//     project), so there dK always takes the shifted form — the definition of the gradient, memory-bound but
//     exact.
//   - All three as hand-written Triton kernels (depthwise_triton.go), on XLA with a CUDA GPU only: as fast as
//     cuDNN's, so the step is no faster (assets/gpu-runs/2026-12-05-h200-run45), but with no cuDNN depthwise
//     plans to build, the first execution is seconds shorter — which is what fast-start mode uses them for
//     (TritonDepthwise).
//
// Every formulation is tested against numerical gradients in depthwise_test.go, on both backends.
//
// The gradient is attached through GoMLX's VJP registration: DepthwiseConv records the parameters of the
// ConvGeneral node it creates in a side table keyed by a weak pointer to the node, and the registered VJP for
// ConvGeneral uses our formulation for the nodes it finds there and GoMLX's own for every other convolution.
// (GoMLX keeps a node's convolution parameters private, and IdentityWithCustomGradient only covers one input.)
// The shifted forward has no convolution node; depthwiseShiftedForward explains how it gets its gradient.

// TritonDepthwise is the forward pass and both gradients by the Triton kernels: a step with no cuDNN depthwise
// plan, none to build at run time in a new process (fast-start mode; XLA with a CUDA GPU only).
func TritonDepthwise() DepthwiseForm {
	return DepthwiseForm{Forward: ForwardTriton, Input: InputGradTriton, Kernel: KernelGradTriton}
}

// excerpt: fastest-depthwise

// FastestDepthwise is TritonDepthwise as the fastest step runs it: kernels that walk rows (TilingRows), taking
// over the batch norm and ReLU6 before the layer and starting batch norm's backward pass in the dx kernel
// (PrologueBNReLU6Backward), the forward kernel summing its output for the batch norm after the layer
// (ForwardTritonStats), row loops that carry partial sums, take two rows an iteration and give each kernel its
// own tile (RowTile), and the kernel gradient made in the dx kernel, which already holds both of what it reads
// (KernelGradInDx). Each was kept because a profile on the GPU found it faster (the README's "Kernels that walk
// rows"). Where the model marks no such batch norm the prologue is simply not used.
func FastestDepthwise() DepthwiseForm {
	d := TritonDepthwise()
	d.Forward, d.Tiling, d.Prologue = ForwardTritonStats, TilingRows, PrologueBNReLU6Backward
	d.Kernel = KernelGradInDx
	d.RowTile = RowTile{Unroll: 2, CarrySums: true, PerLayer: true}
	return d
}

// excerpt end

// DepthwiseForm selects how a depthwise convolution and its two gradients are computed. The zero value is the
// default: three convolutions (KernelGradAuto for dK).
type DepthwiseForm struct {
	Forward ForwardForm
	Input   InputGradient
	Kernel  KernelGradient
	// Prologue is what the layer's kernels do with the batch norm and ReLU6 that make its input.
	Prologue Prologue
	// Tiling is how the Triton kernels walk the image.
	Tiling Tiling
	// RowTile is the tile the row kernels work in (TilingRows); its zero value is the default tile.
	RowTile RowTile
	// Epilogue is what the layer's kernels do with the batch norm and ReLU6 that read its output.
	Epilogue Epilogue
}

// RowTile is the share of a layer one program of the row kernels takes, and how its threads hold it; a zero field
// takes the default (newRowTiling). It is an experiment's lever (-model dw-row-channels=64,…): a profile on an H100
// had the row kernels moving well under the memory's bandwidth, at low occupancy and many registers a thread
// (assets/gpu-runs/2026-12-06-h100-run58).
type RowTile struct {
	Channels  int // channels per program, a power of two (default 32)
	Width     int // output columns per program, a power of two (default: the widest of 8, 16, 32 wasting fewest columns)
	Rows      int // most output rows per forward or dx program (default 8; dK's programs take every row)
	PerThread int // elements of a [columns, channels] tile per thread, a power of two, which sets the warps (default 4)
	// Unroll is how many output rows (dx: dy rows) one loop iteration takes, all of their loads — source rows, and
	// dx's z — issued before any product or store. A thread stalls on its first use of a load; with one row an
	// iteration, the stride-1 kernels had one new row of loads in flight a warp, too few bytes for the memory's
	// latency at the occupancy their registers allow (Little's law), and dx loaded each row's z only after that
	// row's product, a second round trip. 0 (the default) keeps the order the default tile was measured with: one
	// row an iteration, dx's z after the product.
	Unroll int
	// CarrySums is what a program keeps from one loop iteration to the next. Without it, the tiles of the source
	// rows the next rows read again: 3·(3 − S) tiles of its registers (six for stride 1). With it, each source row
	// is used once, as soon as it is loaded, and what is kept is what that row leaves unfinished: the partial sums
	// of the output rows it feeds (forward and dx: two tiles, one for a stride-2 forward), or for dK the 3 − S dy
	// rows it pairs with. The same products in another order; fewer registers, which on the stride-1 layers, where
	// registers limit the occupancy, may buy warps.
	CarrySums bool
	// PerLayer gives each row kernel the tile measured fastest for its kind and geometry (rowTileTable, which names
	// the sweeps) instead of one tile for all; Channels, Width, Rows and PerThread are then the table's and must be 0.
	PerLayer bool
}

// Tiling names how the Triton kernels cover a layer.
type Tiling int

const (
	// TilingGather: each program gathers the nine taps of a tile of pixels, nine loads per output element
	// (depthwise_triton.go).
	TilingGather Tiling = iota
	// TilingRows: each program walks down a strip of rows, loading each source row once as three
	// column-shifted tiles and applying a prologue once per tile (depthwise_rows.go).
	TilingRows
)

// Prologue names how much of the batch norm and ReLU6 before a depthwise layer its Triton kernels take over. It
// applies where the model marked the input (MarkBNReLU6) and a Triton kernel reads it.
type Prologue int

const (
	// PrologueNone: the kernels read the activation XLA wrote.
	PrologueNone Prologue = iota
	// PrologueBNReLU6: the forward and dK kernels read the batch norm's input z and apply batch norm and ReLU6
	// as they load it (dw-prologue=bn-relu6): the normalised activation, the largest tensor of each block, is
	// neither written nor read again.
	PrologueBNReLU6
	// PrologueBNReLU6Backward: that, and batch norm's backward pass starts in the dx kernel
	// (dw-prologue=bn-relu6-backward; depthwise_bn.go): it masks dx by ReLU6's gradient and sums what batch
	// norm's gradient needs while the values are in registers, leaving one elementwise pass to make dz.
	PrologueBNReLU6Backward
)

// Epilogue names how much of the batch norm and ReLU6 after a depthwise layer its Triton kernels take over.
type Epilogue int

const (
	// EpilogueNone: the dx kernel reads the dy that XLA's backward pass of that batch norm wrote.
	EpilogueNone Epilogue = iota
	// EpilogueBNReLU6Backward: the dx kernel makes dy as it loads it, from the layer's output and the gradient
	// after ReLU6 (dw-epilogue=bn-relu6-backward; depthwise_bn_out.go): dy is neither written nor read back.
	// Needs dw-kernel-grad=in-dx, whose kernel it extends.
	EpilogueBNReLU6Backward
)

// ForwardForm names a formulation of the depthwise forward pass.
type ForwardForm int

const (
	// ForwardConv is one grouped convolution (feature_group_count = channels).
	ForwardConv ForwardForm = iota
	// ForwardShifted is kH·kW strided slices of the padded input, each scaled by one kernel tap, summed in float32.
	ForwardShifted
	// ForwardTriton is a hand-written Triton kernel (depthwise_triton.go); XLA on a CUDA GPU only.
	ForwardTriton
	// ForwardTritonStats is the Triton kernel that also writes batch norm's sums of y and y², which the batch norm
	// after the convolution takes instead of reducing y again; XLA on a CUDA GPU only.
	ForwardTritonStats
)

// isTriton says whether the forward pass is one of the Triton kernels (which need the XLA backend on a CUDA GPU).
func (f ForwardForm) isTriton() bool { return f == ForwardTriton || f == ForwardTritonStats }

// InputGradient names a formulation of the depthwise input gradient.
type InputGradient int

const (
	// InputGradDilated computes dx as one grouped convolution of the stride-dilated output gradient with the
	// reversed kernel.
	InputGradDilated InputGradient = iota
	// InputGradShifted computes dx as kH·kW slices of the output gradient, each scaled by one kernel tap and
	// placed by an interior pad of stride−1, summed in float32.
	InputGradShifted
	// InputGradPhases computes a strided layer's dx as stride² ordinary (undilated) depthwise convolutions of the
	// output gradient, one per phase of the input grid, interleaved (depthwiseInputGradPhases). Stride 1 is the
	// dilated form, which has no dilation then.
	InputGradPhases
	// InputGradPhaseProducts computes a strided layer's dx per phase of the input grid as elementwise products of
	// the output gradient with that phase's taps (depthwise_phaseproducts.go), interleaved in the same pass. Stride
	// 1 is the dilated form.
	InputGradPhaseProducts
	// InputGradTriton computes dx with a hand-written Triton kernel (depthwise_triton.go); XLA on a CUDA GPU only.
	InputGradTriton
	// InputGradTritonStrided uses the Triton kernel for strided layers only, where the dilated form writes a
	// dilated copy of the gradient first, and the dilated form elsewhere.
	InputGradTritonStrided
)

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
	// KernelGradTriton computes dK with a hand-written Triton kernel and one reduction (depthwise_triton.go); XLA
	// on a CUDA GPU only.
	KernelGradTriton
	// KernelGradInDx computes dK in the layer's dx kernel, which holds both of what dK reads, where that kernel
	// starts batch norm's backward pass (dwRowsInputKernelGrad; needs dw-prologue=bn-relu6-backward, dw-input-grad=
	// triton, dw-tiling=rows). Layers without that prologue use KernelGradTriton's kernel; on the pure-Go backend
	// (tests) the same plumbing takes dK from KernelGradShiftedProducts.
	KernelGradInDx
)

type depthwiseParams struct {
	x, kernel *Node
	stride    int
	form      DepthwiseForm
	pro       *bnPrologue // x's batch norm and ReLU6, for the Triton kernels (form.Prologue); nil when absent or unused
}

// bnPrologue says a depthwise input x is ReLU6(z·scale + shift), scale and shift being [C] float32; back is set
// when the layer also starts the batch norm's backward pass (PrologueBNReLU6Backward).
type bnPrologue struct {
	z, scale, shift *Node
	back            *bnBackward
}

var bnPrologues sync.Map // weak.Pointer[Node] (x) -> *bnPrologue

// MarkBNReLU6 records that x = ReLU6(z·scale + shift) (batch norm in its affine form, then ReLU6; scale and shift
// [C], any float dtype), so that a depthwise layer with a DepthwiseForm.Prologue reading x can have its Triton
// kernels read z instead. x must be computed from z that way: the kernels trust it.
func MarkBNReLU6(x, z, scale, shift *Node) { markBNReLU6(x, z, scale, shift, nil) }

func markBNReLU6(x, z, scale, shift *Node, back *bnBackward) {
	if !z.Shape().Equal(x.Shape()) || scale.Shape().Size() != x.Shape().Dim(-1) || shift.Shape().Size() != x.Shape().Dim(-1) {
		exceptions.Panicf("MarkBNReLU6: z %s, scale %s, shift %s do not fit x %s", z.Shape(), scale.Shape(), shift.Shape(), x.Shape())
	}
	c, acc := x.Shape().Dim(-1), accumulation(x.DType()) // float32 (the kernels' type) but for float64 tests
	key := weak.Make(x)
	bnPrologues.Store(key, &bnPrologue{z: z, scale: Reshape(ConvertDType(scale, acc), c),
		shift: Reshape(ConvertDType(shift, acc), c), back: back})
	runtime.AddCleanup(x, func(k weak.Pointer[Node]) { bnPrologues.Delete(k) }, key)
}

// prologueOf is the batch norm and ReLU6 that x was marked as made with (MarkBNReLU6), or nil.
func prologueOf(x *Node) *bnPrologue {
	if v, ok := bnPrologues.Load(weak.Make(x)); ok {
		return v.(*bnPrologue)
	}
	return nil
}

// inputs is what a Triton kernel reading x takes for it: x itself, or with a prologue z, then rest, then scale
// and shift (the kernels' argument order), g.BN set to match.
func (p *bnPrologue) inputs(g *dwGeometry, x *Node, rest ...*Node) []*Node {
	if p == nil {
		return append([]*Node{x}, rest...)
	}
	g.BN = true
	return append(append([]*Node{p.z}, rest...), p.scale, p.shift)
}

var (
	depthwiseNodes sync.Map // weak.Pointer[Node] -> depthwiseParams
	registerOnce   sync.Once

	// customVJPUses counts the gradients built with our formulation: tests use it to prove that the model's
	// depthwise layers really take this path and not GoMLX's per-channel split.
	customVJPUses atomic.Int64
)

// DepthwiseConv convolves x [batch, height, width, channels] with kernel [kH, kW, 1, channels] (channels-last,
// one filter per channel), stride s in both spatial axes and torchvision's padding (kH-1)/2, in the formulation
// form selects, with the custom gradient described above.
func DepthwiseConv(x, kernel *Node, stride int, form DepthwiseForm) *Node {
	channels := x.Shape().Dim(-1)
	kShape := kernel.Shape()
	if kShape.Rank() != 4 || kShape.Dim(2) != 1 || kShape.Dim(3) != channels {
		exceptions.Panicf("DepthwiseConv: kernel must be [kH, kW, 1, %d] for input %s, got %s", channels, x.Shape(), kShape)
	}
	if form.Forward == ForwardShifted {
		return depthwiseShiftedForward(x, kernel, stride, form)
	}
	registerOnce.Do(registerDepthwiseVJP)
	padH, padW := (kShape.Dim(0)-1)/2, (kShape.Dim(1)-1)/2
	y := Convolve(x, kernel).StridePerAxis(stride, stride).
		PaddingPerDim([][2]int{{padH, padH}, {padW, padW}}).ChannelGroupCount(channels).Done()
	var pro *bnPrologue
	if form.Prologue != PrologueNone {
		pro = prologueOf(x)
	}
	if form.Forward.isTriton() {
		depthwiseTritonForward(y, x, kernel, stride, form, pro)
	}
	key := weak.Make(y)
	depthwiseNodes.Store(key, depthwiseParams{x: x, kernel: kernel, stride: stride, form: form, pro: pro})
	runtime.AddCleanup(y, func(k weak.Pointer[Node]) { depthwiseNodes.Delete(k) }, key)
	if pro != nil && pro.back != nil && form.Prologue == PrologueBNReLU6Backward {
		return pro.back.attach(y, x, kernel, stride, form, pro)
	}
	return y
}

// excerpt: depthwise-vjp

// registerDepthwiseVJP wraps GoMLX's registered VJP for ConvGeneral; see the file comment.
func registerDepthwiseVJP() {
	original := VJPRegistration[NodeTypeConvGeneral]
	VJPRegistration[NodeTypeConvGeneral] = func(node *Node, vjps []*Node, outputShape shapes.Shape) []*Node {
		if value, found := depthwiseNodes.Load(weak.Make(node)); found {
			p := value.(depthwiseParams)
			if p.x == node.Inputs()[0] && p.kernel == node.Inputs()[1] {
				customVJPUses.Add(1)
				return []*Node{depthwiseInputGradient(p.x, p.kernel, vjps[0], p.stride, p.form),
					depthwiseKernelGradient(p.x, p.kernel, vjps[0], p.stride, p.form, p.pro)}
			}
		}
		return original(node, vjps, outputShape)
	}
}

// excerpt end

// DepthwiseGradients returns the gradients of DepthwiseConv(x, kernel, stride) with respect to x and kernel, given
// the gradient v with respect to its output, in the formulations form selects. Exported so tests and benchmarks
// can compare formulations directly.
func DepthwiseGradients(x, kernel, v *Node, stride int, form DepthwiseForm) (dx, dk *Node) {
	return depthwiseInputGradient(x, kernel, v, stride, form),
		depthwiseKernelGradient(x, kernel, v, stride, form, nil)
}

func depthwiseInputGradient(x, kernel, v *Node, stride int, form DepthwiseForm) *Node {
	switch method := form.Input; {
	case method == InputGradShifted:
		return depthwiseInputGradShifted(x, kernel, v, stride)
	case method == InputGradTriton || method == InputGradTritonStrided && stride > 1:
		return depthwiseInputGradTriton(x, kernel, v, stride, form)
	case method == InputGradPhases && stride > 1:
		return depthwiseInputGradPhases(x, kernel, v, stride)
	case method == InputGradPhaseProducts && stride > 1:
		return depthwiseInputGradPhaseProducts(x, kernel, v, stride)
	}
	return depthwiseInputGradDilated(x, kernel, v, stride)
}

func depthwiseInputGradDilated(x, kernel, v *Node, stride int) *Node {
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

// depthwiseInputGradPhases is dx of a strided depthwise convolution without a dilated copy of the gradient. The
// forward pass reads x[o·s + t − p] for output o and tap t, so input position n = s·m + r (phase r of the grid)
// receives v[m + d]·K[t] for the taps with r + p − t = s·d: per phase, a stride-1 correlation of v with those
// taps, ordered by d — an ordinary depthwise convolution that cuDNN runs natively, on v itself rather than on
// a dilated v four times its size, interleaved by interleavePhases.
func depthwiseInputGradPhases(x, kernel, v *Node, stride int) *Node {
	kH, kW := kernel.Shape().Dim(0), kernel.Shape().Dim(1)
	return interleavePhases(x, v, stride, func(rH, rW int) *Node {
		tapsH, padH := phaseTaps(rH, (kH-1)/2, stride, kH)
		tapsW, padW := phaseTaps(rW, (kW-1)/2, stride, kW)
		sub := pickTaps(pickTaps(kernel, 0, tapsH), 1, tapsW)
		return Convolve(v, sub).PaddingPerDim([][2]int{padH, padW}).ChannelGroupCount(v.Shape().Dim(3)).Done()
	})
}

// interleavePhases builds dx [B, H, W, C] from its s² phases, phase(rH, rW) being [B, M, M, C] (v's shape): they
// are stacked so that [B, M, s, M, s, C] is [B, s·M, s·M, C] in memory, and cut to x's size (an odd size has one
// phase row fewer).
func interleavePhases(x, v *Node, stride int, phase func(rH, rW int) *Node) *Node {
	b, mH, mW, channels := v.Shape().Dim(0), v.Shape().Dim(1), v.Shape().Dim(2), v.Shape().Dim(3)
	rows := make([]*Node, stride)
	for rH := range stride {
		cols := make([]*Node, stride)
		for rW := range stride {
			cols[rW] = phase(rH, rW)
		}
		rows[rH] = Stack(cols, 3) // [B, M, M, s, C]
	}
	dx := Reshape(Stack(rows, 2), b, mH*stride, mW*stride, channels) // [B, M, s, M, s, C] → [B, s·M, s·M, C]
	if dx.Shape().Dim(1) != x.Shape().Dim(1) || dx.Shape().Dim(2) != x.Shape().Dim(2) {
		dx = Slice(dx, AxisRange(), AxisRange(0, x.Shape().Dim(1)), AxisRange(0, x.Shape().Dim(2)), AxisRange())
	}
	return dx
}

// phaseTaps lists, for phase r of one axis (kernel size k, low padding p, stride s), the kernel taps of the
// phase's correlation in order of their offset d = (r + p − t)/s, with −1 for a zero tap, and the convolution's
// padding: the offsets are extended to include 0, so both pads are ≥ 0 and the output is as long as v.
func phaseTaps(r, p, s, k int) (taps []int, pad [2]int) {
	dMin, dMax := 0, 0
	byOffset := map[int]int{}
	for t := range k {
		if (r+p-t)%s == 0 {
			d := (r + p - t) / s
			byOffset[d] = t
			dMin, dMax = min(dMin, d), max(dMax, d)
		}
	}
	for d := dMin; d <= dMax; d++ {
		t, ok := byOffset[d]
		if !ok {
			t = -1
		}
		taps = append(taps, t)
	}
	return taps, [2]int{-dMin, dMax}
}

// pickTaps builds a kernel from k's entries along one spatial axis, in the order given (−1: zeros).
func pickTaps(k *Node, axis int, taps []int) *Node {
	parts := make([]*Node, len(taps))
	for i, t := range taps {
		if t < 0 {
			dims := k.Shape().Clone().Dimensions
			dims[axis] = 1
			parts[i] = Zeros(k.Graph(), shapes.Make(k.DType(), dims...))
			continue
		}
		ranges := []SliceAxisSpec{AxisRange(), AxisRange(), AxisRange(), AxisRange()}
		ranges[axis] = AxisRange(t, t+1)
		parts[i] = Slice(k, ranges...)
	}
	return Concatenate(parts, axis)
}

func depthwiseKernelGradient(x, kernel, v *Node, stride int, form DepthwiseForm, pro *bnPrologue) *Node {
	method := form.Kernel
	if method == KernelGradAuto {
		method = KernelGradShiftedProducts
		if isXLA(x.Graph()) {
			method = KernelGradBatchGroup
		}
	}
	switch method {
	case KernelGradBatchGroup:
		return depthwiseKernelGradBatchGroup(x, kernel, v, stride)
	case KernelGradTriton:
		return depthwiseKernelGradTriton(x, kernel, v, stride, form, pro)
	case KernelGradInDx:
		if dK := pro.kernelGradFromDx(v); dK != nil {
			return dK
		}
		if form.Input == InputGradTriton {
			return depthwiseKernelGradTriton(x, kernel, v, stride, form, pro)
		}
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
