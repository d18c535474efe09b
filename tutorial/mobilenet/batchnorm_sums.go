package mobilenet

import (
	"fmt"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// BNSums is how batch norm computes its forward sums Σx and Σx² in training (Config.Sums).
type BNSums int

const (
	SumsSeparate BNSums = iota // two reductions, split and fused as XLA decides
	SumsJoint                  // partial sums per group of rows by hand, one second stage for both (batchnorm.go)
	SumsTriton                 // a Triton kernel that reads x once (below); XLA on a CUDA GPU only
	SumsGram                   // after a widening 1×1 convolution, from its input's Gram matrix (batchnorm_gram.go)
)

// Batch norm's forward sums by a Triton kernel (-model bn-sums=triton), an experiment: on the H100 its first form
// took as long as the XLA reductions it replaced (README, "Formulations that lost").
//
// Why: after a 1×1 convolution, whose output comes from cuDNN or a GEMM that XLA cannot fuse into, every batch norm
// reads the activation once more for Σx and Σx². Those reductions are about half of the step's "reduction" kernel time
// at batch 128 on the H100, and XLA writes them as column reductions of [pixels, C] — or, with reduction-row, of a
// wider view — whose efficiency depends on C. The activation itself is one contiguous range of memory: a tile of whole
// pixel rows [rows, C] is a contiguous piece of it whatever C is. So each program here walks down a band of pixel rows
// in tiles of [tr, bc] (bc channels, bnSumsChannels), summing x and x² in float32 per element, and at the end reduces
// its tiles over rows and writes its [bc] sums as one row of part [programs, 2, C]; XLA adds the rows up (a reduction
// of a few hundred values per channel). With dw-forward=triton-stats the depthwise outputs' sums come from the
// depthwise kernel instead, so this kernel runs on the other batch norms: the stem's and those after the 1×1
// convolutions.

// bnSumsValues is the size of one tile [tr, bc] (16 values a thread over bnSumsWarps warps: two float32
// accumulators of 16 registers each); bnSumsPrograms is about how many programs a launch has, enough for every
// SM of an H100 or H200 to hold several at once.
const (
	bnSumsValues   = 4096
	bnSumsWarps    = 8
	bnSumsPrograms = 1024
)

// bnSumsChannels is the channel block for c channels. A tile of whole rows is one contiguous range of memory, so
// the default is every channel, rounded up to a power of two (Triton's tensor sizes): the masked lanes cost lanes,
// not memory. Where the largest power of two dividing c is 64 or more (128 bytes of bf16 and up), blocks of that
// many channels, which split each row at 128-byte boundaries and use every lane. Narrower blocks were slow: on the
// H100, C = 144 in blocks of 16 channels — 32 bytes of every 288-byte row per program — read the memory far more
// slowly than whole-row tiles or blocks of 64 channels and up (assets/gpu-runs/2026-12-06-h100-run61).
func bnSumsChannels(c int) int {
	bc := 1
	for c%(2*bc) == 0 && 2*bc <= 128 {
		bc *= 2
	}
	if bc >= 64 {
		return bc
	}
	for bc = 1; bc < c; bc *= 2 {
	}
	return bc
}

// bnSumsKernel sums x and x² per channel over the rows of x [rows, c] (elem): programs [bands, ⌈c/bc⌉], each
// summing its band of rows for its channel block and writing part[band, 0, ch] = Σx and part[band, 1, ch] = Σx²
// (float32). Arguments: x, part.
func bnSumsKernel(rows, c int, elem string) triton.Kernel {
	if rows*c >= 1<<31 {
		exceptions.Panicf("bn-sums=triton: %d×%d values exceed the kernel's 32-bit offsets", rows, c)
	}
	bc := bnSumsChannels(c)
	tr := max(1, bnSumsValues/bc)
	blocks := cdiv(c, bc)
	bands := max(1, min(cdiv(rows, tr), bnSumsPrograms/blocks))
	iters := cdiv(rows, bands*tr)
	bands = cdiv(rows, iters*tr) // no program without a row
	name := fmt.Sprintf("bn_sums_r%d_c%d_%s", rows, c, elem)

	w := &ttWriter{}
	shape, fT, iT, bT := fmt.Sprintf("%dx%d", tr, bc), mat(tr, bc, "f32"), mat(tr, bc, "i32"), mat(tr, bc, "i1")
	pid := w.op("tt.get_program_id x : i32")
	ch := w.blockRange("y", bc)
	cm := w.cmp("slt", ch, c, vec(bc, "i32"))
	chTile, cmTile := w.cols(ch, tr, bc, "i32"), w.cols(cm, tr, bc, "i1")
	first := w.bin("muli", pid, iters*tr, "i32")
	within := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", tr, vec(tr, "i32"))
	zero, other := w.zeros(fT), w.zeros(mat(tr, bc, elem))
	sums := w.loop(iters, []string{zero, zero}, []string{fT, fT}, func(iv string, s []string) []string {
		start := w.op("arith.addi %s, %s : i32", first, w.bin("muli", iv, tr, "i32"))
		r := w.op("arith.addi %s, %s : %s", w.splat(start, "i32", vec(tr, "i32")), within, vec(tr, "i32"))
		off := w.op("arith.addi %s, %s : %s", w.rows(w.bin("muli", r, c, vec(tr, "i32")), tr, bc, "i32"), chTile, iT)
		mask := w.op("arith.andi %s, %s : %s", w.rows(w.cmp("slt", r, rows, vec(tr, "i32")), tr, bc, "i1"), cmTile, bT)
		x := w.toF32(w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg0", elem, off, shape), mask, other,
			mat(tr, bc, ptrOf(elem))), elem, shape)
		return []string{w.op("arith.addf %s, %s : %s", s[0], x, fT), w.mulAdd(s[1], x, x, fT)}
	})
	w.storeProgramRows("%arg1", pid, ch, cm, c, bc, w.sumTiles(sums, tr, bc))
	return triton.Kernel{Name: name, IR: w.module(name, []string{elem, "f32"}), Grid: [3]int{bands, blocks},
		Warps: bnSumsWarps}
}

// bnSumsTriton returns Σx and Σx² over every axis of x but the last, [C] float32 each, from bnSumsKernel. It
// panics (GoMLX's way of failing while a graph is built) where the graph cannot take Triton kernels.
func bnSumsTriton(x *Node) (sum, sumSq *Node) {
	if err := triton.Check(x.Graph()); err != nil {
		exceptions.Panicf("bn-sums=triton: %v", err)
	}
	c := x.Shape().Dim(-1)
	k := bnSumsKernel(x.Shape().Size()/c, c, ttElem(x.DType()))
	return partialSums(triton.Call(k, shapes.Make(dtypes.Float32, k.Grid[0], 2, c), x))
}
