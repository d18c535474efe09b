package pipeline

import (
	"testing"
	"time"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
)

// TestBatchesMatchTheSet: every format, with and without workers, yields batches whose labels belong to their
// images (checked through the 32×32 gather) and whose shapes are what the step expects.
func TestBatchesMatchTheSet(t *testing.T) {
	set, _ := cifar.Synthetic(64, 1, 3)
	byImage := map[string]int32{}
	for i := range set.Len() {
		byImage[string(set.Image(i))] = int32(set.Labels[i])
	}
	for _, workers := range []int{0, 3} {
		for _, f := range []Format{Float32, Uint8, Uint8Small} {
			src, err := New(set, Config{Format: f, Batch: 8, Size: 40, Workers: workers, Seed: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for range 10 { // more than one epoch (64/8 = 8 batches)
				b, err := src.Next()
				if err != nil {
					t.Fatal(err)
				}
				side := 40
				if f == Uint8Small {
					side = 32
				}
				if d := b.X.Shape().Dimensions; len(d) != 4 || d[0] != 8 || d[1] != side || d[2] != side || d[3] != 3 {
					t.Fatalf("format %d: batch shape %s", f, b.X.Shape())
				}
				labels := tensors.MustCopyFlatData[int32](b.Labels)
				if f == Uint8Small {
					x := tensors.MustCopyFlatData[uint8](b.X)
					for i, l := range labels {
						if want, ok := byImage[string(x[i*3072:(i+1)*3072])]; !ok || want != l {
							t.Fatalf("workers %d: image %d of the batch has label %d, the set says %d (found %v)", workers, i, l, want, ok)
						}
					}
				}
			}
			done := make(chan struct{})
			go func() { src.Close(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not return: a worker is stuck")
			}
		}
	}
}

// TestBadConfig: a batch larger than the set, or Upload without a backend, is an error, not a hang.
func TestBadConfig(t *testing.T) {
	set, _ := cifar.Synthetic(16, 1, 3)
	if _, err := New(set, Config{Batch: 32}, nil); err == nil {
		t.Error("batch 32 of 16 images: want an error")
	}
	if _, err := New(set, Config{Batch: 8, Upload: true}, nil); err == nil {
		t.Error("Upload without a backend: want an error")
	}
}

// TestBytes: what crosses the bus per batch, the point of rungs 4 and 7.
func TestBytes(t *testing.T) {
	f32 := Config{Format: Float32, Batch: 128, Size: 224}.Bytes()
	u8 := Config{Format: Uint8, Batch: 128, Size: 224}.Bytes()
	small := Config{Format: Uint8Small, Batch: 128, Size: 224}.Bytes()
	if f32 != 128*224*224*3*4+512 || u8 != 128*224*224*3+512 || small != 128*32*32*3+512 {
		t.Errorf("bytes per batch: f32 %d, u8 %d, 32×32 %d", f32, u8, small)
	}
}
