package mobilenet

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestStemPatches checks the patches form of the stem against the convolution it replaces, in float64: the output
// and the kernel's gradient, for the stem's 3×3 stride-2 shape on even and odd image sizes (the output size and
// the last tap's slice end), 3 channels (27 taps, padded to 32) and 8 (72, no padding).
func TestStemPatches(t *testing.T) {
	backend := testBackend(t)
	for _, tc := range []struct{ b, h, w, c, o int }{{2, 8, 8, 3, 4}, {1, 9, 7, 3, 5}, {2, 6, 5, 8, 3}} {
		rng := rand.New(rand.NewPCG(uint64(tc.h), uint64(tc.w)))
		x := tensors.FromFlatDataAndDimensions(randSlice(rng, tc.b*tc.h*tc.w*tc.c), tc.b, tc.h, tc.w, tc.c)
		k := tensors.FromFlatDataAndDimensions(randSlice(rng, 9*tc.c*tc.o), 3, 3, tc.c, tc.o)
		run := func(stem func(x, k *Node) *Node) (y, dk []float64) {
			outs := MustNewExec(backend, func(x, k *Node) (*Node, *Node) {
				y := stem(x, k)
				// A loss that weighs every output element differently, so a misplaced tap shows.
				weights := Iota(x.Graph(), y.Shape(), 0)
				for axis := 1; axis < 4; axis++ {
					weights = Add(MulScalar(weights, 1.7), Iota(x.Graph(), y.Shape(), axis))
				}
				loss := ReduceAllSum(Mul(y, Cos(weights)))
				return y, Gradient(loss, k)[0]
			}).MustCall(x, k)
			return tensors.MustCopyFlatData[float64](outs[0]), tensors.MustCopyFlatData[float64](outs[1])
		}
		wantY, wantDK := run(func(x, k *Node) *Node { return convolve(x, k, 2) })
		gotY, gotDK := run(func(x, k *Node) *Node { return stemPatches(x, k, 2) })
		if len(gotY) != len(wantY) {
			t.Fatalf("%+v: %d outputs, want %d", tc, len(gotY), len(wantY))
		}
		for name, pair := range map[string][2][]float64{"output": {gotY, wantY}, "kernel gradient": {gotDK, wantDK}} {
			for i := range pair[1] {
				if math.Abs(pair[0][i]-pair[1][i]) > 1e-9*(1+math.Abs(pair[1][i])) {
					t.Fatalf("%+v: %s[%d] = %g, convolution gives %g", tc, name, i, pair[0][i], pair[1][i])
				}
			}
		}
	}
}
