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

// TestStemSpaceToDepth checks the space-to-depth form of the stem against the convolution it replaces, in float64
// (compareToConvolution): the output and the kernel's gradient. Shapes: even image sizes whose halves are even
// (8) and odd (10, 5 outputs), odd sizes (9×7, padded by 2 at the end), and input channels whose 4C needs zero
// channels (C = 1: 4 → 8; C = 3: 12 → 16; C = 5: 20 → 24) or none (C = 4: 16).
//
// Not the image's gradient: GoMLX v0.28.16's gradient of a convolution with respect to its input is shifted by
// one position along each axis where the kernel's size is even (convVJPWrtX pads the reverse convolution
// 2·⌊(k−1)/2⌋ − p at the start instead of k − 1 − p), so through the 2×2 convolution here it is wrong. The stem's
// input is the image, which takes no gradient, so training never uses it.
func TestStemSpaceToDepth(t *testing.T) {
	backend := testBackend(t)
	for _, tc := range []struct{ b, h, w, c, o int }{
		{2, 8, 8, 3, 5}, {2, 10, 10, 3, 5}, {1, 9, 7, 3, 4}, {2, 8, 10, 1, 5}, {2, 10, 8, 4, 5}, {1, 6, 6, 5, 3},
	} {
		rng := rand.New(rand.NewPCG(uint64(tc.h), uint64(tc.c)))
		x := tensors.FromFlatDataAndDimensions(randSlice(rng, tc.b*tc.h*tc.w*tc.c), tc.b, tc.h, tc.w, tc.c)
		k := tensors.FromFlatDataAndDimensions(randSlice(rng, 9*tc.c*tc.o), 3, 3, tc.c, tc.o)
		if err := compareToConvolution(backend, x, k, 2, stemSpaceToDepth, false); err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
	}
}
