package mobilenet

import (
	. "github.com/gomlx/gomlx/core/graph"
)

// Batch norm's forward sums after a widening 1×1 convolution, from its input (-model bn-sums=gram).
//
// An expansion z = x·W widens K channels into C = 6K (MobileNetV2's expansion factor), and the batch norm after it
// reads all of z once more for Σz and Σz²: a reduction over the block's largest tensor that XLA cannot fuse into
// cuDNN's convolution or a GEMM (what they cost a step at batch 512 on the H100: README, "Kernels that walk rows").
// Both sums are quadratic forms in x, which is a sixth of z's size:
//
//	Σ_p z[p,c] = (Σ_p x[p,:])·W[:,c],   Σ_p z[p,c]² = W[:,c]ᵀ·G·W[:,c],   G = xᵀx  [K, K],
//
// so one GEMM over x (the Gram matrix, float32 accumulation of exact bfloat16 products) and one column sum of x
// replace the pass over z, and the rest is K×C arithmetic. The sums are of x·W before z's rounding to the compute
// dtype: they differ from the reduction's by that rounding's share, not by a cancellation (every term of G·W's
// quadratic form is a sum of squares). As with the depthwise stats kernel, they stand in for the reductions' values
// (storeSums, batchnorm.go), which stay in the graph for their gradient.

// gramSums is Σz and Σz² over the pixels, [C] in the accumulation dtype, for z = x·kernel: x [B, H, W, K] and the
// kernel [1, 1, K, C] as the convolution used them (the compute dtype).
func gramSums(x, kernel *Node) (sum, sumSq *Node) {
	k, c := kernel.Shape().Dim(2), kernel.Shape().Dim(3)
	acc := accumulation(x.DType())
	rows := Reshape(x, x.Shape().Size()/k, k)
	w := ConvertDType(Reshape(kernel, k, c), acc)
	gram := Dot(rows, rows).WithOutputDType(acc).General([]int{0}, nil, []int{0}, nil) // [K, K]
	colSum := ReduceSum(ConvertDType(rows, acc), 0)                                    // [K]
	// The K×C arithmetic as products and sums, not dots: XLA may run float32 dots on the GPU in TF32. (The failed
	// GPU test this was first meant to mend failed on its own reference: README, "Kernels that walk rows".)
	sum = ReduceSum(Mul(ExpandAxes(colSum, 1), w), 0)
	gw := ReduceSum(Mul(ExpandAxes(gram, 2), ExpandAxes(w, 0)), 1) // G·W, [K, C]
	sumSq = ReduceSum(Mul(w, gw), 0)                               // Σ_k W[k,c]·(G·W)[k,c]
	return sum, sumSq
}

// widensWithGramSums says whether the 1×1 convolution of x by kernel has its batch norm's sums from gramSums:
// in training with bn-sums=gram, where it widens the channels (the expansions and the last layer; a projection's
// Gram matrix would be read from the larger side).
func (f *forward) widensWithGramSums(x, kernel *Node) bool {
	return f.pass.Train && f.m.Sums == SumsGram && kernel.Shape().Dim(2) < kernel.Shape().Dim(3)
}

// carrySums gives to, a node standing for from (an identity carrying a hand-written gradient), the batch-norm sums
// stored with from, if any, and returns it.
func carrySums(from, to *Node) *Node {
	if s, s2, ok := storedSums(from); ok {
		storeSums(to, [2]*Node{s, s2})
	}
	return to
}
