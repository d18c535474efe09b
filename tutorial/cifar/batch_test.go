package cifar

import (
	"slices"
	"testing"
)

func TestSamplerPermutation(t *testing.T) {
	s := Sampler{N: 1000, BatchSize: 32, Seed: 9, Shuffle: true, DropLast: true}
	p0 := s.Permutation(0, nil)
	sorted := slices.Sorted(slices.Values(p0))
	for i, v := range sorted {
		if v != i {
			t.Fatalf("epoch 0 order is not a permutation of 0..%d", s.N-1)
		}
	}
	if !slices.Equal(p0, s.Permutation(0, make([]int, 5))) {
		t.Error("same seed and epoch gave different orders")
	}
	p1 := s.Permutation(1, nil)
	if slices.Equal(p0, p1) {
		t.Error("epochs 0 and 1 have the same order")
	}
	s2 := s
	s2.Seed = 10
	if slices.Equal(p0, s2.Permutation(0, nil)) {
		t.Error("seeds 9 and 10 have the same order")
	}
	if slices.Equal(p0, sorted) {
		t.Error("shuffled order is the identity")
	}
	s.Shuffle = false
	if !slices.Equal(s.Permutation(3, nil), sorted) {
		t.Error("unshuffled order is not the identity")
	}
}

func TestSamplerBatches(t *testing.T) {
	for _, tc := range []struct {
		n, b     int
		dropLast bool
		batches  int
		lastSize int
	}{
		{10, 3, true, 3, 3},
		{10, 3, false, 4, 1},
		{9, 3, true, 3, 3},
		{9, 3, false, 3, 3},
		{2, 3, true, 0, 0},
		{50000, 32, true, 1562, 32},
	} {
		s := Sampler{N: tc.n, BatchSize: tc.b, Seed: 1, Shuffle: true, DropLast: tc.dropLast}
		if got := s.NumBatches(); got != tc.batches {
			t.Errorf("%+v: NumBatches %d, want %d", tc, got, tc.batches)
		}
		seen := make([]int, tc.n)
		count, last := 0, 0
		for b, idx := range s.Batches(2) {
			if b != count {
				t.Errorf("batch number %d, want %d", b, count)
			}
			count++
			last = len(idx)
			for _, i := range idx {
				seen[i]++
			}
		}
		if count != tc.batches || last != tc.lastSize {
			t.Errorf("%+v: %d batches, last of %d", tc, count, last)
		}
		total := 0
		for i, c := range seen {
			if c > 1 {
				t.Errorf("%+v: index %d seen %d times", tc, i, c)
			}
			total += c
		}
		if want := tc.batches*tc.b - (tc.b-tc.lastSize)*min(1, tc.batches); total != want {
			t.Errorf("%+v: %d indices yielded, want %d", tc, total, want)
		}
	}
	// Breaking out of the loop stops the iteration.
	n := 0
	for range (Sampler{N: 100, BatchSize: 10}).Batches(0) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Error("break did not stop the iterator")
	}
}

func TestGatherAndBatches(t *testing.T) {
	train, _ := Synthetic(20, 0, 5)
	idx := []int{7, 3, 19, 3}
	dst := make([]uint8, len(idx)*ImageSize)
	Gather(train, idx, dst)
	labels := make([]int32, len(idx))
	GatherLabels(train, idx, labels)
	for i, j := range idx {
		if !slices.Equal(dst[i*ImageSize:(i+1)*ImageSize], train.Image(j)) || labels[i] != int32(train.Labels[j]) {
			t.Errorf("batch item %d is not image %d", i, j)
		}
	}

	r := NewResizer(40)
	n := r.OutputSize()
	u8 := make([]uint8, len(idx)*n)
	f32 := make([]float32, len(idx)*n)
	r.GatherResize(u8, train, idx)
	r.GatherResizeNormalize(f32, train, idx)
	one := make([]uint8, n)
	norm := make([]float32, n)
	for i, j := range idx {
		r.Resize(one, train.Image(j))
		Normalize(norm, one)
		if !slices.Equal(u8[i*n:(i+1)*n], one) || !slices.Equal(f32[i*n:(i+1)*n], norm) {
			t.Errorf("resized batch item %d differs from resizing image %d alone", i, j)
		}
	}

	func() {
		defer func() {
			if recover() == nil {
				t.Error("short destination did not panic")
			}
		}()
		Gather(train, idx, dst[:10])
	}()

	// The hot path reuses buffers: no allocation per batch (sync.Pool may
	// rarely refill after a GC, hence < 1 rather than == 0).
	r.GatherResizeNormalize(f32, train, idx)
	if raceEnabled {
		return
	}
	if a := testing.AllocsPerRun(20, func() { r.GatherResizeNormalize(f32, train, idx) }); a >= 1 {
		t.Errorf("GatherResizeNormalize allocates %.1f times per batch", a)
	}
	if a := testing.AllocsPerRun(20, func() { r.GatherResize(u8, train, idx); Gather(train, idx, dst) }); a >= 1 {
		t.Errorf("GatherResize/Gather allocate %.1f times per batch", a)
	}

}
