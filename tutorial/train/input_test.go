package train

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
)

// TestDeviceResizeMatchesHost: the on-device resize (two matrix products) and normalisation equal the host's
// float bilinear resize (F.interpolate, align_corners=False — checked against PIL in package cifar) followed by
// (x/255 − 0.5)/0.5, for 32→224 and 32→48.
func TestDeviceResizeMatchesHost(t *testing.T) {
	set, _ := cifar.Synthetic(3, 1, 5)
	for _, size := range []int{224, 48} {
		exec := MustNewExec(goBackend(t), func(x *Node) *Node { return resizeOnDevice(normalizeOnDevice(x), size) })
		got := tensors.MustCopyFlatData[float32](exec.MustCall(tensors.FromFlatDataAndDimensions(set.Images, 3, 32, 32, 3))[0])
		r := cifar.NewResizer(size)
		want := make([]float32, r.OutputSize())
		var maxDiff float64
		for i := range 3 {
			r.ResizeFloat(want, set.Image(i))
			for j, w := range want {
				norm := (float64(w)/255 - 0.5) / 0.5
				maxDiff = max(maxDiff, math.Abs(float64(got[i*len(want)+j])-norm))
			}
		}
		if maxDiff > 1e-5 {
			t.Errorf("32→%d: device resize differs from the host's by %.3g", size, maxDiff)
		}
	}
}

// TestResizeMatrixRows: every row of the interpolation matrix sums to 1 (a constant image stays constant).
func TestResizeMatrixRows(t *testing.T) {
	for _, out := range []int{32, 33, 224} {
		m := ResizeMatrix(32, out)
		for i := range out {
			var s float32
			for j := range 32 {
				s += m[i*32+j]
			}
			if math.Abs(float64(s)-1) > 1e-6 {
				t.Fatalf("32→%d row %d sums to %v", out, i, s)
			}
		}
	}
}
