// Package mobilenet is torchvision's MobileNetV2 written against GoMLX's graph API, channels-last.
//
// The model is a plain function of an explicit list of tensors (Params) rather than GoMLX layers that own
// variables in a model.Store: the training step has to run the same forward pass on float32 master weights cast to
// float16/bfloat16, and also inside a While loop whose state is those tensors (several steps per Execute), which
// is simple when the weights are ordinary graph values and awkward when layers fetch them from a store.
package mobilenet

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Config selects the variant of MobileNetV2. The default is torchvision's mobilenet_v2(num_classes=10); Width below 1
// shrinks every layer (torchvision's width_mult) so the CPU tests stay small.
type Config struct {
	NumClasses int     // 10 for CIFAR-10
	Width      float64 // torchvision's width_mult; 1.0 is the published model
	Dropout    float64 // before the classifier; 0.2 in torchvision
	// ReductionRow > 0 makes batch norm's sums read activations as rows of about this many values instead of one
	// row of C values per pixel (see batchnorm.go): the same model and numbers up to summation order, cheaper
	// reduction kernels on a GPU. 0 is the plain form.
	ReductionRow int
	// MaskedReLU6 differentiates ReLU6 with a mask (relu6.go) instead of GoMLX's Min/Max gradients.
	MaskedReLU6 bool
	// NormalizeFloat32 applies batch norm's scale and shift in float32 (converting the result back), so that the
	// backward pass's sums Σdy and Σdy·x accumulate in float32, as cuDNN's batch norm does, instead of in the
	// compute dtype: GoMLX sums a broadcast's gradient in the broadcast's dtype.
	NormalizeFloat32 bool
	// Sums selects how batch norm computes its two forward sums (Σx, Σx²) in training (batchnorm.go): SumsSeparate
	// (the zero value) leaves both reductions to XLA; SumsJoint splits them by hand into partial sums per group
	// of rows and one second stage for both; SumsTriton takes them from a Triton kernel (batchnorm_sums.go, XLA
	// on a CUDA GPU only); SumsGram, after the widening 1×1 convolutions only, from the Gram matrix of their input
	// (batchnorm_gram.go; the others as SumsSeparate). The same numbers up to summation order (and, for SumsGram,
	// the rounding of the convolution's output).
	Sums BNSums
	// Depthwise selects how the depthwise convolutions and their gradients are computed (depthwise.go); the zero
	// value is three convolutions.
	Depthwise DepthwiseForm
	// StemChannels > 3 pads the image's 3 channels, and the stem kernel's input axis, with zeros to this many
	// before the first convolution: the same numbers, but cuDNN has no tensor-core kernel for a 3-channel input.
	// On the H200 at batch 512, 8 channels took the stem's forward convolution from a generic kernel (0.96 ms) to
	// an implicit GEMM (0.70 ms) and its filter gradient from 0.93 to 0.50 ms (cuDNN no longer pads the input
	// itself); the step got 0.4 ms shorter. The parameter keeps torchvision's shape [3, 3, 3, 32]. 0 (or 3) is
	// the plain form.
	StemChannels int
	// Stem selects how the stem is computed (stem.go): StemConv (the zero value) is the convolution;
	// StemPatches is one matrix product over its input patches, faster on a GPU at the price of keeping the
	// patches (2.7 times the image) for the backward pass; StemSpaceToDepth is a 2×2 convolution over the image
	// rearranged into 2×2 blocks (16 channels, 1.3 times the image), faster still and lighter. A form other than
	// StemConv takes precedence over StemChannels, which then has no effect.
	Stem StemForm
	// PointwiseDot computes the 1×1 convolutions (expansions, projections, the last layer: 34 of the 52
	// convolutions) as matrix products over the channel axis (forward.go) instead of convolutions: the same numbers
	// up to summation order, GEMMs instead of cuDNN calls on a GPU.
	PointwiseDot bool
	// ExpandGrad is how each block's expansion backward pass — batch norm's dz and both products of the 1×1
	// convolution — is made (expand_grad.go; -model expand-grad=…): by XLA from autodiff (the zero value), in one
	// Triton kernel that never writes dz (ExpandGradFused), or as products over g and z that never make dz
	// (ExpandGradDistributed). Both need Depthwise.Prologue = PrologueBNReLU6Backward, which makes the gradient
	// they start from; without a CUDA GPU the fused form runs its formulas as graph operations.
	ExpandGrad ExpandGradForm
	// ProjectPrologue computes each block's projection (to at most 64 channels) and its weight gradient with
	// Triton kernels that read the depthwise layer's output and apply batch norm and ReLU6 as they load it, so that
	// their result is never written (project.go; -model project-prologue=bn-relu6). It needs the depthwise layers'
	// forward kernels by Triton (a CUDA GPU); elsewhere the same formulas run as graph operations.
	ProjectPrologue bool
	// ProjectSums has the projection's forward kernel (ProjectPrologue) also sum its output and its square for the
	// batch norm after it, as the depthwise stats kernel does (-model project-sums=kernel), so that batch norm does
	// not read the output again for them. An experiment: its kernel is checked in the IR interpreter, not yet timed.
	ProjectSums bool
	// ProjectTile is the projection kernels' tile for every layer; a zero field takes the default
	// (project_ttir.go). It is an experiment's lever (-model project-pixels=128,project-warps=8,…) for sweeping
	// the kernels' tiles.
	ProjectTile ProjectTile
	// ExpandGradTile is the fused kernel's tile; a zero field takes the default (expand_grad_ttir.go). It is an
	// experiment's lever on the kernel's registers and occupancy (-model expand-grad-pixels=32,
	// expand-grad-warps=8); the README says what each setting measured.
	ExpandGradTile ExpandGradTile
}

// ExpandGradTile is how the fused expansion kernel (ExpandGradFused) covers a layer.
type ExpandGradTile struct {
	Pixels int // pixels a tile, a power of two from 16 to 128 (default 64)
	Warps  int // warps a program, a power of two from 1 to 8 (default 4)
}

// ProjectTile is how the projection kernels (ProjectPrologue) cover a layer of P pixels, C input and K output
// channels.
type ProjectTile struct {
	Pixels   int // pixels a tile, a power of two from 16 to 256 (default 64; 128 for the narrow layers' forward kernel)
	Channels int // input channels a block, a power of two from 16 to 128 (default 64, or C rounded up if smaller)
	Programs int // the weight-gradient kernel's programs along the pixels, about (default 256), a power of two
	Warps    int // warps a program, a power of two from 1 to 8 (default 4)
	Stages   int // the weight-gradient loop's software pipelining, Triton's num_stages from 1 to 4 (default 3)
	// (The forward kernel has no loop to pipeline: it keeps num_stages 1 whatever Stages says.)
}

// Default is torchvision's mobilenet_v2(num_classes=10): 2,236,682 trainable parameters.
func Default() Config { return Config{NumClasses: 10, Width: 1.0, Dropout: 0.2} }

// Kind says what a parameter is, which decides its initialisation and whether SGD updates it.
type Kind int

const (
	ConvKernel  Kind = iota // [kH, kW, in/groups, out], kaiming normal (fan_out)
	BNScale                 // γ, ones
	BNBias                  // β, zeros
	BNMean                  // running mean, zeros, not trainable
	BNVar                   // running variance, ones, not trainable
	DenseWeight             // [in, out], normal(0, 0.01)
	DenseBias               // zeros
)

// Param describes one tensor of the model: its name (torchvision's state_dict name, for readers who compare),
// shape, kind and, for kernels, the fan-out used by the initialiser.
type Param struct {
	Name   string
	Shape  []int
	Kind   Kind
	FanOut int
}

// Trainable reports whether the optimiser updates the parameter (batch-norm running statistics are not).
func (p Param) Trainable() bool { return p.Kind != BNMean && p.Kind != BNVar }

// Size is the number of scalars in the parameter.
func (p Param) Size() int {
	n := 1
	for _, d := range p.Shape {
		n *= d
	}
	return n
}

// block is one inverted residual (or the stem/last conv, with expand = depthwise = false).
type block struct {
	in, hidden, out, stride int
	expand                  bool // 1×1 expansion conv present (t ≠ 1)
	residual                bool
	first                   int // index in Model.Params of the block's first parameter
}

// Model holds the parameter layout of one Config. It has no tensors: values live in the training state.
type Model struct {
	Config
	Params  []Param
	blocks  []block
	stemOut int
	lastIn  int
	lastOut int
	stem    int // index of the stem conv kernel
	last    int // index of the last 1×1 conv kernel
	dense   int // index of the classifier weight
}

// invertedResidualSettings is torchvision's (t, c, n, s) table.
var invertedResidualSettings = [][4]int{
	{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
}

// makeDivisible is torchvision's _make_divisible: round channels to a multiple of 8, never down by more than 10%.
func makeDivisible(v float64, divisor int) int {
	n := max(divisor, int(v+float64(divisor)/2)/divisor*divisor)
	if float64(n) < 0.9*v {
		n += divisor
	}
	return n
}

// MinWidth and MaxWidth bound Config.Width: below MinWidth nearly every layer is already clamped to 8 channels (so
// the number means nothing), above MaxWidth the model outgrows any GPU this tutorial runs on.
const (
	MinWidth = 0.05
	MaxWidth = 4.0
)

// Validate returns a clear error for a configuration New cannot build (New panics on it).
func (c Config) Validate() error {
	var errs []error
	if c.NumClasses <= 0 {
		errs = append(errs, fmt.Errorf("number of classes must be ≥ 1, got %d", c.NumClasses))
	}
	if !(c.Width >= MinWidth && c.Width <= MaxWidth) { // also false for NaN
		errs = append(errs, fmt.Errorf("width multiplier must be between %g and %g, got %g", MinWidth, MaxWidth, c.Width))
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		errs = append(errs, fmt.Errorf("dropout must be in [0, 1), got %g", c.Dropout))
	}
	if c.ReductionRow < 0 {
		errs = append(errs, fmt.Errorf("reduction row must be ≥ 0 (0: the plain form), got %d", c.ReductionRow))
	}
	if c.StemChannels < 0 || c.StemChannels > 0 && c.StemChannels < 3 {
		errs = append(errs, fmt.Errorf("stem channels must be 0 or ≥ 3, got %d", c.StemChannels))
	}
	if c.Stem < 0 || int(c.Stem) >= len(stemNames) {
		errs = append(errs, fmt.Errorf("stem form must be one of %s, got %d", strings.Join(stemNames, ", "), int(c.Stem)))
	}
	return errors.Join(errs...)
}

// New lays out the parameters of the model described by cfg, in torchvision's order. It panics on a
// configuration Validate refuses.
func New(cfg Config) *Model {
	if err := cfg.Validate(); err != nil {
		panic(fmt.Sprintf("mobilenet: invalid config %+v: %v", cfg, err))
	}
	m := &Model{Config: cfg}
	conv := func(name string, kh, in, out int) {
		m.Params = append(m.Params, Param{Name: name, Shape: []int{kh, kh, in, out}, Kind: ConvKernel, FanOut: out * kh * kh})
	}
	bn := func(prefix string, c int) {
		for _, p := range []struct {
			suffix string
			kind   Kind
		}{{"weight", BNScale}, {"bias", BNBias}, {"running_mean", BNMean}, {"running_var", BNVar}} {
			m.Params = append(m.Params, Param{Name: prefix + "." + p.suffix, Shape: []int{c}, Kind: p.kind})
		}
	}
	m.stemOut = makeDivisible(32*cfg.Width, 8)
	m.stem = len(m.Params)
	conv("features.0.0.weight", 3, 3, m.stemOut)
	bn("features.0.1", m.stemOut)
	in := m.stemOut
	layer := 1
	for _, s := range invertedResidualSettings {
		t, c, n, stride := s[0], s[1], s[2], s[3]
		out := makeDivisible(float64(c)*cfg.Width, 8)
		for i := range n {
			b := block{in: in, hidden: int(math.Round(float64(in * t))), out: out, stride: 1, expand: t != 1, first: len(m.Params)}
			if i == 0 {
				b.stride = stride
			}
			b.residual = b.stride == 1 && in == out
			prefix := fmt.Sprintf("features.%d.conv", layer)
			j := 0
			if b.expand {
				conv(fmt.Sprintf("%s.%d.0.weight", prefix, j), 1, in, b.hidden)
				bn(fmt.Sprintf("%s.%d.1", prefix, j), b.hidden)
				j++
			}
			conv(fmt.Sprintf("%s.%d.0.weight", prefix, j), 3, 1, b.hidden) // depthwise
			bn(fmt.Sprintf("%s.%d.1", prefix, j), b.hidden)
			conv(fmt.Sprintf("%s.%d.weight", prefix, j+1), 1, b.hidden, out)
			bn(fmt.Sprintf("%s.%d", prefix, j+2), out)
			m.blocks = append(m.blocks, b)
			in = out
			layer++
		}
	}
	m.lastIn, m.lastOut = in, makeDivisible(1280*max(1.0, cfg.Width), 8)
	m.last = len(m.Params)
	conv(fmt.Sprintf("features.%d.0.weight", layer), 1, in, m.lastOut)
	bn(fmt.Sprintf("features.%d.1", layer), m.lastOut)
	m.dense = len(m.Params)
	m.Params = append(m.Params,
		Param{Name: "classifier.1.weight", Shape: []int{m.lastOut, cfg.NumClasses}, Kind: DenseWeight},
		Param{Name: "classifier.1.bias", Shape: []int{cfg.NumClasses}, Kind: DenseBias})
	return m
}

// NumTrainable is the number of trainable scalars: 2,236,682 for Default(), as torchvision reports.
func (m *Model) NumTrainable() int {
	n := 0
	for _, p := range m.Params {
		if p.Trainable() {
			n += p.Size()
		}
	}
	return n
}

// InitialValues draws torchvision's initialisation on the host, deterministically from seed: convolution kernels
// kaiming_normal_(mode="fan_out") (std √(2/fan_out)), batch-norm γ=1 β=0, running mean 0 and variance 1, the
// classifier normal(0, 0.01) with zero bias. Float64 on the host so that every backend and precision starts from
// the same numbers.
func (m *Model) InitialValues(seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 0x6d6f62696c656e65))
	values := make([][]float32, len(m.Params))
	for i, p := range m.Params {
		v := make([]float32, p.Size())
		switch p.Kind {
		case ConvKernel:
			std := math.Sqrt(2 / float64(p.FanOut))
			for j := range v {
				v[j] = float32(rng.NormFloat64() * std)
			}
		case DenseWeight:
			for j := range v {
				v[j] = float32(rng.NormFloat64() * 0.01)
			}
		case BNScale, BNVar:
			for j := range v {
				v[j] = 1
			}
		}
		values[i] = v
	}
	return values
}
