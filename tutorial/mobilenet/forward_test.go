package mobilenet

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestPointwiseDot checks the matrix-product form of a 1×1 convolution against the convolution in float64: the
// output and both gradients (input and kernel), with a loss that weighs every output element differently so a
// transposed axis shows; odd sizes so no two axes have the same length.
func TestPointwiseDot(t *testing.T) {
	backend := testBackend(t)
	const b, h, w, cIn, cOut = 2, 5, 3, 7, 4
	rng := rand.New(rand.NewPCG(5, 6))
	x := tensors.FromFlatDataAndDimensions(randSlice(rng, b*h*w*cIn), b, h, w, cIn)
	k := tensors.FromFlatDataAndDimensions(randSlice(rng, cIn*cOut), 1, 1, cIn, cOut)
	run := func(pw func(x, k *Node) *Node) [3][]float64 {
		outs := MustNewExec(backend, func(x, k *Node) (*Node, *Node, *Node) {
			y := pw(x, k)
			weights := Iota(x.Graph(), y.Shape(), 0)
			for axis := 1; axis < 4; axis++ {
				weights = Add(MulScalar(weights, 1.3), Iota(x.Graph(), y.Shape(), axis))
			}
			grads := Gradient(ReduceAllSum(Mul(y, Sin(weights))), x, k)
			return y, grads[0], grads[1]
		}).MustCall(x, k)
		var got [3][]float64
		for i := range got {
			got[i] = tensors.MustCopyFlatData[float64](outs[i])
		}
		return got
	}
	want := run(func(x, k *Node) *Node { return convolve(x, k, 1) })
	got := run(pointwiseDot)
	for j, name := range []string{"output", "input gradient", "kernel gradient"} {
		if len(got[j]) != len(want[j]) {
			t.Fatalf("%s: %d values, want %d", name, len(got[j]), len(want[j]))
		}
		for i := range want[j] {
			if math.Abs(got[j][i]-want[j][i]) > 1e-9*(1+math.Abs(want[j][i])) {
				t.Fatalf("%s[%d] = %g, convolution gives %g", name, i, got[j][i], want[j][i])
			}
		}
	}
}
