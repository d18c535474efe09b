// Package pipeline is the host side of the input path: it turns the uint8 CIFAR-10 set into batches for the
// training step, the way torch.utils.data.DataLoader does in the PyTorch tutorial — in the caller's goroutine
// (num_workers=0), in N worker goroutines with prefetching (num_workers=N), and with the upload to the device done
// by the workers too, so the next batch is already on the device when a step ends (pin_memory=True +
// non_blocking=True).
package pipeline

import (
	"fmt"
	"sync"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
)

// Format is what a batch holds: what the device input stage (train.Input) leaves to the host. ladder.Config.Feed
// derives it from the rung's input stage, so the two never disagree.
type Format int

const (
	Float32    Format = iota // [B,S,S,3] float32: gather → resize → normalise on the host (ToTensor + Normalize)
	Uint8                    // [B,S,S,3] uint8: gather → resize on the host (PILToTensor); normalised on the device
	Uint8Small               // [B,32,32,3] uint8: gather only; resized and normalised on the device
)

// Config says how batches are made.
type Config struct {
	Format   Format
	Batch    int
	Size     int    // output side (224); ignored for Uint8Small
	Workers  int    // 0: build each batch in the caller's goroutine when asked (num_workers=0)
	Prefetch int    // batches in flight per worker (DataLoader's prefetch_factor, 2)
	Upload   bool   // workers also copy the batch to the device (the pin_memory + non_blocking analogue)
	Seed     uint64 // shuffling
}

// Batch is one batch, on the device when the source has a backend, else on the host.
type Batch struct {
	X, Labels *tensors.Tensor
	// Build is the host time spent making the batch (gather, resize, normalise); Upload the time its copy to the
	// device took in a worker (Upload with Workers > 0), so both overlap the step and are not on its critical
	// path. Transfer is the time Next itself spent copying the batch to the device, on the caller's critical
	// path: the copy a loop without overlapped uploads waits for.
	Build, Upload, Transfer time.Duration
	OnDevice                bool
}

// Source hands out batches forever (epoch after epoch, reshuffled, drop_last).
type Source struct {
	cfg     Config
	set     *cifar.Set
	backend compute.Backend
	resizer *cifar.Resizer
	jobs    chan []int
	out     chan result
	stop    chan struct{}
	wg      sync.WaitGroup
	next    func() []int // sequential index batches (Workers == 0)
}

type result struct {
	b   Batch
	err error
}

// New starts a source over set. With a backend every batch Next returns is on the device (uploaded by the workers
// with Upload, else by Next); backend is needed when Upload is set.
func New(set *cifar.Set, cfg Config, backend compute.Backend) (*Source, error) {
	if cfg.Batch < 1 || cfg.Batch > set.Len() {
		return nil, fmt.Errorf("pipeline: batch %d for a set of %d images", cfg.Batch, set.Len())
	}
	if cfg.Upload && backend == nil {
		return nil, fmt.Errorf("pipeline: Upload needs a backend")
	}
	if cfg.Prefetch < 1 {
		cfg.Prefetch = 2
	}
	s := &Source{cfg: cfg, set: set, backend: backend, stop: make(chan struct{})}
	if cfg.Format != Uint8Small {
		s.resizer = cifar.NewResizer(cfg.Size)
	}
	indices := s.indexBatches()
	if cfg.Workers == 0 {
		s.next = indices
		return s, nil
	}
	s.jobs = make(chan []int, cfg.Workers*cfg.Prefetch)
	s.out = make(chan result, cfg.Workers*cfg.Prefetch)
	s.wg.Add(1)
	go func() { // the sampler: hands index batches to the workers in epoch order
		defer s.wg.Done()
		defer close(s.jobs)
		for {
			select {
			case s.jobs <- indices():
			case <-s.stop:
				return
			}
		}
	}()
	// excerpt: loader-workers
	for range cfg.Workers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for idx := range s.jobs {
				b, err := s.build(idx)
				select {
				case s.out <- result{b, err}:
				case <-s.stop:
					return
				}
			}
		}()
	}
	// excerpt end
	return s, nil
}

// indexBatches returns a function yielding the next batch of indices, epoch after epoch.
func (s *Source) indexBatches() func() []int {
	sampler := cifar.Sampler{N: s.set.Len(), BatchSize: s.cfg.Batch, Seed: s.cfg.Seed, Shuffle: true, DropLast: true}
	epoch, pos, n := 0, 0, sampler.NumBatches()
	var perm []int
	return func() []int {
		if perm == nil || pos >= n {
			perm = sampler.Permutation(epoch, perm)
			epoch, pos = epoch+1, 0
		}
		idx := append([]int(nil), perm[pos*s.cfg.Batch:(pos+1)*s.cfg.Batch]...)
		pos++
		return idx
	}
}

// Next returns the next batch: built now (Workers == 0) or the first one a worker finished, copied to the device
// now if no worker did and the source has a backend.
func (s *Source) Next() (Batch, error) {
	var b Batch
	var err error
	if s.cfg.Workers == 0 {
		b, err = s.build(s.next())
	} else {
		r := <-s.out
		b, err = r.b, r.err
	}
	if err != nil || b.OnDevice || s.backend == nil {
		return b, err
	}
	t := time.Now()
	if err := Upload(s.backend, b.X, b.Labels); err != nil {
		return b, err
	}
	b.Transfer, b.OnDevice = time.Since(t), true
	return b, nil
}

// Close stops the workers.
func (s *Source) Close() {
	if s.cfg.Workers > 0 {
		close(s.stop)
		go func() { // drain so no worker blocks on a full channel
			for range s.out {
			}
		}()
		s.wg.Wait()
		close(s.out)
	}
}

// build makes one batch. Each call allocates its buffers: a batch handed to another goroutine (and, with Upload,
// to the device) must not be overwritten while in use; Go's allocator recycles them cheaply.
func (s *Source) build(idx []int) (Batch, error) {
	start := time.Now()
	bsz := len(idx)
	labels := make([]int32, bsz)
	cifar.GatherLabels(s.set, idx, labels)
	var x *tensors.Tensor
	// excerpt: host-batch
	switch s.cfg.Format {
	case Float32:
		buf := make([]float32, bsz*s.resizer.OutputSize())
		s.resizer.GatherResizeNormalize(buf, s.set, idx)
		x = tensors.FromFlatDataAndDimensions(buf, bsz, s.cfg.Size, s.cfg.Size, 3)
	case Uint8:
		buf := make([]uint8, bsz*s.resizer.OutputSize())
		s.resizer.GatherResize(buf, s.set, idx)
		x = tensors.FromFlatDataAndDimensions(buf, bsz, s.cfg.Size, s.cfg.Size, 3)
	default:
		buf := make([]uint8, bsz*cifar.ImageSize)
		cifar.Gather(s.set, idx, buf)
		x = tensors.FromFlatDataAndDimensions(buf, bsz, 32, 32, 3)
	}
	// excerpt end
	b := Batch{X: x, Labels: tensors.FromFlatDataAndDimensions(labels, bsz), Build: time.Since(start)}
	// excerpt: overlapped-upload
	if s.cfg.Upload {
		t := time.Now()
		if err := Upload(s.backend, b.X, b.Labels); err != nil {
			return b, err
		}
		b.Upload, b.OnDevice = time.Since(t), true
	}
	// excerpt end
	return b, nil
}

// Upload copies tensors to device 0 and returns when the copy is done.
//
// What happens to host memory on this path: go-xla calls PJRT_Client_BufferFromHostBuffer with
// kImmutableUntilTransferCompletes on the tensor's Go-allocated bytes and waits for the transfer to complete
// (BufferFromHostAndWait), so the Go slice is ordinary pageable memory that the CUDA client copies through staging
// buffers of its own; go-xla exposes no pinned host allocation to fill directly. What we take from the PyTorch
// recipe (pin_memory=True + non_blocking=True) is therefore the overlap, not the pinning: a worker goroutine makes
// the copy while the device runs the previous step, and the step finds its input already on the device.
func Upload(backend compute.Backend, ts ...*tensors.Tensor) error {
	for _, t := range ts {
		if err := t.MaterializeOnDevice(backend, false, 0); err != nil {
			return fmt.Errorf("upload %s: %w", t.Shape(), err)
		}
	}
	return nil
}

// Bytes is the number of bytes a batch of this format moves host→device (images and labels).
func (c Config) Bytes() int {
	side := c.Size
	dt := dtypes.Uint8
	switch c.Format {
	case Float32:
		dt = dtypes.Float32
	case Uint8Small:
		side = 32
	}
	return int(shapes.Make(dt, c.Batch, side, side, 3).ByteSize()) + 4*c.Batch
}
