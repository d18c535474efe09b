package mobilenet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestPointwiseDot checks the matrix-product form of a 1×1 convolution against the convolution in float64; odd
// sizes so no two axes have the same length.
func TestPointwiseDot(t *testing.T) {
	const b, h, w, cIn, cOut = 2, 5, 3, 7, 4
	rng := rand.New(rand.NewPCG(5, 6))
	x := tensors.FromFlatDataAndDimensions(randSlice(rng, b*h*w*cIn), b, h, w, cIn)
	k := tensors.FromFlatDataAndDimensions(randSlice(rng, cIn*cOut), 1, 1, cIn, cOut)
	if err := sameAsConvolution(testBackend(t), x, k, 1, pointwiseDot); err != nil {
		t.Fatal(err)
	}
}

// sameAsConvolution runs convolve(x, k, stride) and form(x, k) in float64 and compares the outputs and both
// gradients (input and kernel) to 1e-9, under a loss that weighs every output element differently so that a
// misplaced tap or a transposed axis shows. It returns the first difference.
func sameAsConvolution(backend compute.Backend, x, k *tensors.Tensor, stride int, form func(x, k *Node) *Node) error {
	return compareToConvolution(backend, x, k, stride, form, true)
}

// compareToConvolution is sameAsConvolution, comparing the input gradient only when withInputGradient is set (a
// form whose input takes no gradient in the model, where GoMLX's own gradient is wrong: stemSpaceToDepth).
func compareToConvolution(backend compute.Backend, x, k *tensors.Tensor, stride int, form func(x, k *Node) *Node,
	withInputGradient bool) error {
	run := func(f func(x, k *Node) *Node) [3][]float64 {
		outs := MustNewExec(backend, func(x, k *Node) (*Node, *Node, *Node) {
			y := f(x, k)
			weights := Iota(x.Graph(), y.Shape(), 0)
			for axis := 1; axis < 4; axis++ {
				weights = Add(MulScalar(weights, 1.7), Iota(x.Graph(), y.Shape(), axis))
			}
			grads := Gradient(ReduceAllSum(Mul(y, Cos(weights))), x, k)
			return y, grads[0], grads[1]
		}).MustCall(x, k)
		var got [3][]float64
		for i := range got {
			got[i] = tensors.MustCopyFlatData[float64](outs[i])
		}
		return got
	}
	want := run(func(x, k *Node) *Node { return convolve(x, k, stride) })
	got := run(form)
	for j, name := range []string{"output", "input gradient", "kernel gradient"} {
		if j == 1 && !withInputGradient {
			continue
		}
		if len(got[j]) != len(want[j]) {
			return fmt.Errorf("%s: %d values, want %d", name, len(got[j]), len(want[j]))
		}
		for i := range want[j] {
			if math.Abs(got[j][i]-want[j][i]) > 1e-9*(1+math.Abs(want[j][i])) {
				return fmt.Errorf("%s[%d] = %g, convolution gives %g", name, i, got[j][i], want[j][i])
			}
		}
	}
	return nil
}
