package cifar

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/testutil"
)

// readGz reads a gzip-compressed testdata file (written by
// testdata/gen_pil_reference.py).
func readGz(t testing.TB, name string) []byte {
	t.Helper()
	b, err := testutil.ReadGzip(t, filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readGzFloat32(t testing.TB, name string) []float32 {
	b := readGz(t, name)
	out := make([]float32, len(b)/4)
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResizeMatchesPIL checks bit-exact equality with Pillow's
// Image.resize(BILINEAR) — what torchvision's T.Resize does on PIL images —
// for a structured and a noise input at several sizes, including the 224
// the tutorial uses.
func TestResizeMatchesPIL(t *testing.T) {
	for _, name := range []string{"pattern", "noise"} {
		in := readGz(t, "input_"+name+".u8.gz")
		if len(in) != ImageSize {
			t.Fatalf("input %s: %d bytes", name, len(in))
		}
		for _, size := range []int{224, 40, 33, 64} {
			t.Run(fmt.Sprintf("%s_%d", name, size), func(t *testing.T) {
				want := readGz(t, fmt.Sprintf("pil_%s_%d.u8.gz", name, size))
				r := NewResizer(size)
				got := make([]uint8, r.OutputSize())
				r.Resize(got, in)
				if len(want) != len(got) {
					t.Fatalf("reference has %d bytes, want %d", len(want), len(got))
				}
				diffs := 0
				for i := range got {
					if got[i] != want[i] {
						if diffs < 5 {
							p := i / 3
							t.Errorf("pixel (y=%d, x=%d, c=%d): got %d, PIL %d",
								p/size, p%size, i%3, got[i], want[i])
						}
						diffs++
					}
				}
				if diffs > 0 {
					t.Errorf("%d of %d values differ from PIL", diffs, len(got))
				}
			})
		}
	}
}

// TestResizeFloat checks the float variant against Pillow's float ("F"
// mode) bilinear resize, which for upsampling computes the same weights as
// PyTorch's F.interpolate(bilinear, align_corners=False); and checks that at
// 224 it stays within PIL's rounding (≤ 1) of the uint8 result.
func TestResizeFloat(t *testing.T) {
	for _, name := range []string{"pattern", "noise"} {
		in := readGz(t, "input_"+name+".u8.gz")
		for _, size := range []int{40, 64} {
			want := readGzFloat32(t, fmt.Sprintf("pilf_%s_%d.f32.gz", name, size))
			r := NewResizer(size)
			got := make([]float32, r.OutputSize())
			r.ResizeFloat(got, in)
			var maxd float64
			for i := range got {
				maxd = max(maxd, math.Abs(float64(got[i]-want[i])))
			}
			if maxd > 1e-3 {
				t.Errorf("%s→%d: max |float − PIL float| = %g, want ≤ 1e-3", name, size, maxd)
			}
		}
		r := NewResizer(DefaultSize)
		f := make([]float32, r.OutputSize())
		r.ResizeFloat(f, in)
		u := readGz(t, fmt.Sprintf("pil_%s_224.u8.gz", name))
		var maxd float64
		for i := range f {
			maxd = max(maxd, math.Abs(float64(f[i])-float64(u[i])))
		}
		if maxd > 1+1e-3 {
			t.Errorf("%s→224: max |float − PIL uint8| = %g, want ≤ 1", name, maxd)
		}
		t.Logf("%s→224: max |float − PIL uint8| = %.3f", name, maxd)
	}
}

// TestResizeIdentityAndConstant: resizing to 32 is the identity (PIL
// returns a copy), and a constant image stays constant at any size (the
// weights sum to exactly one after fixed-point rounding).
func TestResizeIdentityAndConstant(t *testing.T) {
	in := readGz(t, "input_noise.u8.gz")
	r := NewResizer(32)
	out := make([]uint8, ImageSize)
	r.Resize(out, in)
	if !bytes.Equal(out, in) {
		t.Error("resize 32→32 is not the identity")
	}
	for _, v := range []uint8{0, 1, 127, 254, 255} {
		c := bytes.Repeat([]uint8{v}, ImageSize)
		r := NewResizer(DefaultSize)
		o := make([]uint8, r.OutputSize())
		r.Resize(o, c)
		for i, x := range o {
			if x != v {
				t.Fatalf("constant %d: output[%d] = %d", v, i, x)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	want := readGzFloat32(t, "normalize.f32.gz")
	src := make([]uint8, 256)
	for i := range src {
		src[i] = uint8(i)
	}
	got := make([]float32, 256)
	Normalize(got, src)
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("Normalize(%d) = %v, torchvision float32 gives %v", i, got[i], want[i])
		}
	}
	if got[0] != -1 || got[255] != 1 || NormalizeValue(0) != -1 {
		t.Errorf("endpoints: %v %v, want -1 1", got[0], got[255])
	}
	if d := math.Abs(float64(got[128]) - (128.0/255-0.5)/0.5); d > 1e-7 {
		t.Errorf("Normalize(128) = %v", got[128])
	}
}

// BenchmarkResizeBatch224 measures the host-side cost of one training batch
// of 32 upsampled to 224 (uint8 and normalized float32).
func BenchmarkResizeBatch224(b *testing.B) {
	train, _ := Synthetic(64, 0, 1)
	idx := make([]int, 32)
	for i := range idx {
		idx[i] = 2 * i
	}
	r := NewResizer(DefaultSize)
	b.Run("uint8", func(b *testing.B) {
		dst := make([]uint8, len(idx)*r.OutputSize())
		b.SetBytes(int64(len(dst)))
		b.ReportAllocs()
		for b.Loop() {
			r.GatherResize(dst, train, idx)
		}
	})
	b.Run("float32", func(b *testing.B) {
		dst := make([]float32, len(idx)*r.OutputSize())
		b.SetBytes(int64(4 * len(dst)))
		b.ReportAllocs()
		for b.Loop() {
			r.GatherResizeNormalize(dst, train, idx)
		}
	})
}
