package cifar

import (
	"fmt"
	"iter"
	"math/rand/v2"
)

// Sampler decides which images go into which batch in each epoch, like a
// PyTorch DataLoader's sampler + batch_sampler: a fresh random permutation
// per epoch when Shuffle is set, cut into batches of BatchSize, with the
// final short batch dropped when DropLast is set (the training loader uses
// drop_last so every step has the same batch shape, which also avoids
// recompiling the model graph for an odd last batch).
//
// The permutation depends only on (Seed, epoch), so a run can be resumed at
// any epoch and reproduces exactly the same batches.
type Sampler struct {
	N         int    // dataset size
	BatchSize int    // images per batch (> 0)
	Seed      uint64 // base seed of the per-epoch shuffles
	Shuffle   bool   // false for evaluation: indices in order
	DropLast  bool   // drop the final batch if it is short
}

// NumBatches returns the number of batches per epoch.
func (s Sampler) NumBatches() int {
	if s.BatchSize <= 0 || s.N <= 0 {
		return 0
	}
	if s.DropLast {
		return s.N / s.BatchSize
	}
	return (s.N + s.BatchSize - 1) / s.BatchSize
}

// Permutation returns the order of the images in the given epoch, written
// into dst (reused if it has capacity N). It is the identity when Shuffle
// is false.
func (s Sampler) Permutation(epoch int, dst []int) []int {
	if cap(dst) < s.N {
		dst = make([]int, s.N)
	}
	dst = dst[:s.N]
	for i := range dst {
		dst[i] = i
	}
	if s.Shuffle {
		// One independent PCG stream per epoch: epochs differ, and epoch e's
		// order does not depend on how many epochs ran before it.
		rng := rand.New(rand.NewPCG(s.Seed, uint64(epoch)))
		rng.Shuffle(len(dst), func(i, j int) { dst[i], dst[j] = dst[j], dst[i] })
	}
	return dst
}

// Batches iterates over the batches of one epoch, yielding the batch number
// and its image indices. The index slices alias one permutation allocated
// per epoch; they stay valid after the loop but must not be modified.
//
//	for b, idx := range sampler.Batches(epoch) { ... }
func (s Sampler) Batches(epoch int) iter.Seq2[int, []int] {
	if s.BatchSize <= 0 {
		panic(fmt.Sprintf("cifar.Sampler: BatchSize %d must be > 0", s.BatchSize))
	}
	return func(yield func(int, []int) bool) {
		perm := s.Permutation(epoch, nil)
		for b := range s.NumBatches() {
			lo := b * s.BatchSize
			hi := min(lo+s.BatchSize, s.N)
			if !yield(b, perm[lo:hi:hi]) {
				return
			}
		}
	}
}

// Gather copies images idx of s, in order, into dst (len(idx)×32×32×3 HWC
// bytes), making a contiguous NHWC uint8 batch — the most compact form to
// send to the device when resizing happens there. dst is caller-owned so a
// pipeline can reuse it across batches.
func Gather(s *Set, idx []int, dst []uint8) {
	checkLen("Gather", len(dst), len(idx)*ImageSize)
	for i, j := range idx {
		copy(dst[i*ImageSize:(i+1)*ImageSize], s.Image(j))
	}
}

// GatherLabels copies the labels of images idx into dst as int32, the
// integer type the model's loss takes.
func GatherLabels(s *Set, idx []int, dst []int32) {
	checkLen("GatherLabels", len(dst), len(idx))
	for i, j := range idx {
		dst[i] = int32(s.Labels[j])
	}
}

// GatherResize builds a uint8 batch of images idx resized to Size×Size
// (exactly as PIL would), NHWC, into dst (len(idx)×Size×Size×3). Use it when
// the device normalizes; it is 4× less data to transfer than float32.
func (r *Resizer) GatherResize(dst []uint8, s *Set, idx []int) {
	n := r.OutputSize()
	checkLen("GatherResize", len(dst), len(idx)*n)
	for i, j := range idx {
		r.Resize(dst[i*n:(i+1)*n], s.Image(j))
	}
}

// GatherResizeNormalize builds the float32 batch the PyTorch reference feeds
// its model — gather → Resize(Size) → ToTensor → Normalize(0.5, 0.5) — in
// NHWC order, into dst (len(idx)×Size×Size×3). It does not allocate, so a
// pipeline can call it for every batch with recycled buffers. Like all
// Resizer methods it is safe to call concurrently, e.g. on disjoint halves
// of idx and dst.
func (r *Resizer) GatherResizeNormalize(dst []float32, s *Set, idx []int) {
	n := r.OutputSize()
	checkLen("GatherResizeNormalize", len(dst), len(idx)*n)
	for i, j := range idx {
		r.ResizeNormalized(dst[i*n:(i+1)*n], s.Image(j))
	}
}

// checkLen panics with a clear message when a caller-provided buffer is too
// small; a silent partial batch would be much harder to debug.
func checkLen(fn string, got, want int) {
	if got < want {
		panic(fmt.Sprintf("cifar.%s: destination has %d elements, need %d", fn, got, want))
	}
}
