package mobilenet

import (
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestStemPatches checks the patches form of the stem against the convolution it replaces, in float64
// (sameAsConvolution): for the stem's 3×3 stride-2 shape on even and odd image sizes (the output size and the last
// tap's slice end), 3 channels (27 taps, padded to 32) and 8 (72, no padding).
func TestStemPatches(t *testing.T) {
	backend := testBackend(t)
	for _, tc := range []struct{ b, h, w, c, o int }{{2, 8, 8, 3, 4}, {1, 9, 7, 3, 5}, {2, 6, 5, 8, 3}} {
		rng := rand.New(rand.NewPCG(uint64(tc.h), uint64(tc.w)))
		x := tensors.FromFlatDataAndDimensions(randSlice(rng, tc.b*tc.h*tc.w*tc.c), tc.b, tc.h, tc.w, tc.c)
		k := tensors.FromFlatDataAndDimensions(randSlice(rng, 9*tc.c*tc.o), 3, 3, tc.c, tc.o)
		patches := func(x, k *Node) *Node { return stemPatches(x, k, 2) }
		if err := sameAsConvolution(backend, x, k, 2, patches); err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
	}
}
