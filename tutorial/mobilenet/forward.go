package mobilenet

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// BatchNormMomentum and BatchNormEpsilon are PyTorch's BatchNorm2d defaults.
const (
	BatchNormMomentum = 0.1
	BatchNormEpsilon  = 1e-5
)

// Pass holds what one forward pass needs besides the input: the parameter values (float32 masters, in
// Model.Params order), the dtype the convolutions and matrix products run in, whether it trains (batch statistics,
// dropout) and, when it does, a GoMLX RNG state for dropout.
type Pass struct {
	Params  []*Node
	Compute dtypes.DType // Float32, Float16 or BFloat16
	Train   bool
	RNG     *Node
}

// Output is the result of Model.Forward.
type Output struct {
	Logits *Node // [batch, classes], float32
	// Updated has one entry per parameter: the new batch-norm running statistics in training, and the input value
	// for every other parameter, so a caller can thread it straight into the next state.
	Updated []*Node
	RNG     *Node // the advanced RNG state (nil when not training)
}

// Forward runs MobileNetV2 on x [batch, height, width, 3] (already normalised, any float dtype; it is cast to
// pass.Compute).
//
// Mixed precision follows what autocast does in the PyTorch tutorial: weights are kept in float32 and cast to the
// compute dtype where they are used; convolutions and the classifier run in the compute dtype; batch-norm statistics
// are accumulated in float32 (XLA fuses the conversion into the reduction, so nothing extra is stored), the
// normalisation is applied in the compute dtype, and the logits are returned in float32 for the softmax and loss.
func (m *Model) Forward(pass Pass, x *Node) Output {
	f := &forward{m: m, pass: pass, updated: append([]*Node(nil), pass.Params...), rng: pass.RNG}
	x = ConvertDType(x, pass.Compute)
	first := m.blocks[0]
	x = f.bnReLU6(f.stemConv(x), m.stem+1, !first.expand && !first.residual)
	for _, b := range m.blocks {
		x = f.invertedResidual(x, b)
	}
	x = f.convBNReLU(x, m.last)
	// Global average pool, accumulated in float32.
	x = ReduceMean(ConvertDType(x, accumulation(x.DType())), 1, 2)
	if pass.Train && m.Dropout > 0 {
		x = f.dropout(x)
	}
	w := ConvertDType(pass.Params[m.dense], pass.Compute)
	logits := MatMul(ConvertDType(x, pass.Compute), w)
	logits = Add(ConvertDType(logits, accumulation(logits.DType())), ExpandAxes(pass.Params[m.dense+1], 0))
	return Output{Logits: logits, Updated: f.updated, RNG: f.rng}
}

type forward struct {
	m       *Model
	pass    Pass
	updated []*Node
	rng     *Node
}

func (f *forward) kernel(i int) *Node { return ConvertDType(f.pass.Params[i], f.pass.Compute) }

// conv is a dense convolution with kernel i, torchvision's padding (k−1)/2 and no bias.
func (f *forward) conv(x *Node, i, stride int) *Node { return convolve(x, f.kernel(i), stride) }

func convolve(x, kernel *Node, stride int) *Node {
	pad := (kernel.Shape().Dim(0) - 1) / 2
	return Convolve(x, kernel).StridePerAxis(stride, stride).PaddingPerDim([][2]int{{pad, pad}, {pad, pad}}).Done()
}

// pointwise is a 1×1 convolution with kernel i, as a convolution or, with Config.PointwiseDot, as the matrix
// product it is: pixels [B·H·W, Cin] times the kernel as [Cin, Cout]. Why the second form: XLA gives a
// convolution to cuDNN and a matrix product to cuBLAS (or its own GEMM kernels). cuDNN's calls cannot be captured
// in XLA's command buffers (CUDA graphs) and build their plans in a program's first execution; with the
// depthwise convolutions as Triton kernels and the stem as patches, this leaves no cuDNN call in a step.
func (f *forward) pointwise(x *Node, i int) *Node { return f.pointwiseWith(x, f.kernel(i)) }

func (f *forward) pointwiseWith(x, kernel *Node) *Node {
	z := f.pointwiseProduct(x, kernel)
	if f.widensWithGramSums(x, kernel) {
		s, s2 := gramSums(x, kernel)
		storeSums(z, [2]*Node{s, s2})
	}
	return z
}

// pointwiseProduct is x times a 1×1 kernel [1, 1, Cin, Cout] in the form Config.PointwiseDot picks, with nothing
// else attached (hand-written backward passes use it for their products).
func (f *forward) pointwiseProduct(x, kernel *Node) *Node {
	if !f.m.PointwiseDot {
		return convolve(x, kernel, 1)
	}
	return pointwiseDot(x, kernel)
}

// excerpt: pointwise-dot

// pointwiseDot is convolve(x, k, 1) for a 1×1 kernel k [1, 1, Cin, Cout] and x [B, H, W, Cin] in NHWC: the pixels
// are already the rows of a [B·H·W, Cin] matrix, so both reshapes are free.
func pointwiseDot(x, k *Node) *Node {
	b, h, w, cIn := x.Shape().Dim(0), x.Shape().Dim(1), x.Shape().Dim(2), x.Shape().Dim(3)
	cOut := k.Shape().Dim(3)
	y := MatMul(Reshape(x, b*h*w, cIn), Reshape(k, cIn, cOut))
	return Reshape(y, b, h, w, cOut)
}

// excerpt end

// convBNReLU is the last layer: a 1×1 conv, batch norm, ReLU6. i is the kernel index; its batch norm follows.
func (f *forward) convBNReLU(x *Node, i int) *Node {
	return f.relu6(f.batchNorm(f.pointwise(x, i), i+1))
}

// bnReLU6 is ReLU6(batch norm(z)) where the result feeds a depthwise layer: with dw-prologue=bn-relu6 it is marked
// (MarkBNReLU6) so that the layer's Triton kernels read z and apply batch norm and ReLU6 as they load it.
// onlyDepthwise says the depthwise layer is its only consumer, which the hand-written backward pass of
// dw-prologue=bn-relu6-backward needs (the stem's activation is also a residual input at some widths).
func (f *forward) bnReLU6(z *Node, i int, onlyDepthwise bool) *Node {
	if f.m.Depthwise.Prologue == PrologueBNReLU6Backward && f.pass.Train && onlyDepthwise {
		x, _ := f.bnReLU6Backward(z, i)
		return x
	}
	bn := f.batchNormParts(z, i)
	x := f.relu6(bn.y)
	if f.m.Depthwise.Prologue != PrologueNone {
		MarkBNReLU6(x, z, bn.scale, bn.shift)
	}
	return x
}

func (f *forward) relu6(x *Node) *Node {
	if f.m.MaskedReLU6 {
		return MaskedReLU6(x)
	}
	return ReLU6(x)
}

func (f *forward) invertedResidual(x *Node, b block) *Node {
	i := b.first
	y := x
	if b.expand {
		y = f.expansion(y, i)
		i += 5
	}
	y = f.bnReLU6AfterDepthwise(DepthwiseConv(y, f.kernel(i), b.stride, f.m.Depthwise), i+1)
	i += 5
	y = f.projection(y, i)
	if b.residual {
		y = Add(x, y)
	}
	return y
}

// accumulation is the dtype statistics are accumulated in: float32 for every training precision, float64 when
// the whole model runs in float64 (the reference gradient check).
func accumulation(dt dtypes.DType) dtypes.DType {
	if dt == dtypes.Float64 {
		return dt
	}
	return dtypes.Float32
}

// dropout zeroes each activation with probability Dropout and scales the rest by 1/(1−Dropout), as nn.Dropout.
func (f *forward) dropout(x *Node) *Node {
	var u *Node
	f.rng, u = RandomUniform(f.rng, shapes.Make(x.DType(), x.Shape().Dimensions...))
	keep := GreaterOrEqual(u, Scalar(x.Graph(), x.DType(), f.m.Dropout))
	return Where(keep, MulScalar(x, 1/(1-f.m.Dropout)), ZerosLike(x))
}

// CrossEntropy is the mean softmax cross-entropy of float32 logits [B, classes] against integer labels [B].
func CrossEntropy(logits, labels *Node) *Node {
	logp := LogSoftmax(logits, -1)
	onehot := OneHot(labels, logits.Shape().Dim(-1), logits.DType())
	return DivScalar(Neg(ReduceAllSum(Mul(logp, onehot))), float64(logits.Shape().Dim(0)))
}
