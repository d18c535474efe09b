package mobilenet

import (
	"cmp"
	"fmt"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
)

// The expansion's backward pass in one kernel (-model expand-grad=fused; expand_grad.go says where it goes).
//
// A block's expansion is z = x·W (a 1×1 convolution: pixels × channels), then batch norm and ReLU6. Batch norm's
// backward pass ends in dz = A·g + B·z + C per channel (g: the gradient through ReLU6, from the depthwise dx kernel;
// A, B, C from batch norm's sums), and the convolution's backward pass reads dz twice: dx = dz·Wᵀ and dW = xᵀ·dz.
// XLA writes dz in a pass of its own (a profile's largest loop_convert_fusions, at the memory's speed) and the two
// products read it again. This kernel makes dz from g and z tile by tile, in registers, and feeds it to both
// products at once: g and z are read once, dz is never written. Each program walks `tiles` tiles of bp pixels; in
// each it goes through the channels in blocks of bc, adding each block's dz·Wᵀ into the tile's dx (stored once the
// channels are done) and xᵀ·dz into that block's [K, bc] accumulator, which it stores at the end as its partial sum
// of dW ([programs, K, C] f32, added up by XLA). Why blocks: a first version held [64, cp] tiles of g, z and dz for
// all channels at once and ran out of registers, at low occupancy and well under the memory's speed (README,
// "Kernels that walk rows").

// expandGradTiling is how the kernel covers P pixels of K input and C output channels: kp is K rounded up to a
// power of two (at least 16, tt.dot's smallest), bc the channels of a block (at most 64) and blocks their count, bp
// pixels a tile, tiles tiles a program.
type expandGradTiling struct{ p, k, c, kp, bc, blocks, bp, tiles, programs, warps int }

// The kernel's limits and tile: the blocks' accumulators [kp, bc] stay in registers for the whole program.
const (
	expandGradMaxC   = 256
	expandGradMaxK   = 64
	expandGradPixels = 64 // bp, unless ExpandGradTile says
	expandGradBlock  = 64 // bc, at most
	expandGradWarps  = 4  // unless ExpandGradTile says
	// About this many programs (a few an SM): each writes a [K, C] partial sum of dW, which on the 28×28 layers
	// (32 → 192 channels) is 24 KB against the 196 KB of g and z a program reads at batch 128, 640 KB at 512.
	expandGradPrograms  = 512
	expandGradMinTiling = 16
)

func newExpandGradTiling(p, k, c int, tile ExpandGradTile) expandGradTiling {
	t := expandGradTiling{p: p, k: k, c: c, kp: pow2AtLeast(k, expandGradMinTiling),
		bc: min(expandGradBlock, pow2AtLeast(c, expandGradMinTiling)), bp: cmp.Or(tile.Pixels, expandGradPixels),
		warps: cmp.Or(tile.Warps, expandGradWarps)}
	t.blocks = cdiv(c, t.bc)
	t.tiles = cdiv(cdiv(p, t.bp), expandGradPrograms)
	t.programs = cdiv(p, t.bp*t.tiles)
	return t
}

// expandGradFits says whether the kernel takes a layer of K input and C output channels.
func expandGradFits(k, c int) bool { return k <= expandGradMaxK && c <= expandGradMaxC }

func pow2AtLeast(n, least int) int {
	p := least
	for p < n {
		p *= 2
	}
	return p
}

// expandGradKernel writes the kernel for elem (the element type of g, z, x, W and dx). Arguments, in order: g [P, C],
// z [P, C], x [P, K], W [K, C], coef [3, C] f32 (A, B, C), then the outputs dx [P, K] and dW's partial sums
// [programs, K, C] f32.
func expandGradKernel(t expandGradTiling, elem string) triton.Kernel {
	name := fmt.Sprintf("expand_grad_p%d_k%d_c%d_%s", t.p, t.k, t.c, elem)
	w := &ttWriter{}
	bp, kp, bc := t.bp, t.kp, t.bc
	pc, kc, ck, pk := fmt.Sprintf("%dx%d", bp, bc), fmt.Sprintf("%dx%d", kp, bc), fmt.Sprintf("%dx%d", bc, kp), fmt.Sprintf("%dx%d", bp, kp)
	pid := w.op("tt.get_program_id x : i32")
	kr := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", kp, vec(kp, "i32"))
	km := w.cmp("slt", kr, t.k, vec(kp, "i32"))
	br := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", bc, vec(bc, "i32"))
	// Channel block b: its channels c and their mask, and A, B and C for them as [bp, bc] tiles (loaded where used:
	// three [bc] loads a block and tile, from L1).
	type block struct{ c, cm string }
	blocks := make([]block, t.blocks)
	for b := range blocks {
		c := w.bin("addi", br, b*bc, vec(bc, "i32"))
		blocks[b] = block{c, w.cmp("slt", c, t.c, vec(bc, "i32"))}
	}
	coefTiles := func(b block) [3]string {
		var out [3]string
		for i := range out {
			off := w.bin("addi", b.c, i*t.c, vec(bc, "i32"))
			v := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg4", "f32", off, fmt.Sprint(bc)), b.cm, w.zeros(vec(bc, "f32")), vec(bc, ptrOf("f32")))
			out[i] = w.cols(v, bp, bc, "f32")
		}
		return out
	}
	pr := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", bp, vec(bp, "i32"))
	first := w.bin("muli", pid, t.tiles*bp, "i32")
	init, types := make([]string, t.blocks), make([]string, t.blocks)
	for b := range init {
		init[b], types[b] = w.zeros(mat(kp, bc, "f32")), mat(kp, bc, "f32")
	}
	acc := w.loop(t.tiles, init, types, func(iv string, carried []string) []string {
		p := w.op("arith.addi %s, %s : %s", w.splat(w.bin("addi", first, w.bin("muli", iv, bp, "i32"), "i32"), "i32", vec(bp, "i32")), pr, vec(bp, "i32"))
		pm := w.cmp("slt", p, t.p, vec(bp, "i32"))
		rowsP, rowsPm := w.bin("muli", w.rows(p, bp, bc, "i32"), t.c, mat(bp, bc, "i32")), w.rows(pm, bp, bc, "i1")
		// x as [kp, bp] (element (k, p) at p·K + k), once a tile.
		xOff := w.op("arith.addi %s, %s : %s", w.rows(kr, kp, bp, "i32"), w.bin("muli", w.cols(p, kp, bp, "i32"), t.k, mat(kp, bp, "i32")), mat(kp, bp, "i32"))
		xMask := w.op("arith.andi %s, %s : %s", w.rows(km, kp, bp, "i1"), w.cols(pm, kp, bp, "i1"), mat(kp, bp, "i1"))
		xT := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg2", elem, xOff, fmt.Sprintf("%dx%d", kp, bp)), xMask, w.zeros(mat(kp, bp, elem)),
			mat(kp, bp, ptrOf(elem)))
		dx := w.zeros(mat(bp, kp, "f32"))
		next := make([]string, t.blocks)
		for b, blk := range blocks {
			// g and z [bp, bc], dz = A·g + B·z + C. Past the last channel A, B and C load as 0, so dz is 0; past the
			// last pixel dz is C, which nothing uses: x loads as 0 there and those rows of dx are not stored.
			off := w.op("arith.addi %s, %s : %s", rowsP, w.cols(blk.c, bp, bc, "i32"), mat(bp, bc, "i32"))
			mask := w.op("arith.andi %s, %s : %s", rowsPm, w.cols(blk.cm, bp, bc, "i1"), mat(bp, bc, "i1"))
			load := func(arg string) string {
				v := w.op("tt.load %s, %s, %s : %s", w.ptrs(arg, elem, off, pc), mask, w.zeros(mat(bp, bc, elem)), mat(bp, bc, ptrOf(elem)))
				return w.toF32(v, elem, pc)
			}
			coef := coefTiles(blk)
			g, z := load("%arg0"), load("%arg1")
			dz := w.op("arith.addf %s, %s : %s", w.mulAdd(w.mulAdd("", coef[0], g, mat(bp, bc, "f32")), coef[1], z, mat(bp, bc, "f32")), coef[2], mat(bp, bc, "f32"))
			dzE := w.fromF32(dz, elem, pc) // rounded as the stored dz of the unfused pass is
			// The block's Wᵀ [bc, kp] (element (c, k) at k·C + c), then dx += dz·Wᵀ and the block's dW += xᵀ·dz.
			wOff := w.op("arith.addi %s, %s : %s", w.rows(blk.c, bc, kp, "i32"), w.bin("muli", w.cols(kr, bc, kp, "i32"), t.c, mat(bc, kp, "i32")), mat(bc, kp, "i32"))
			wMask := w.op("arith.andi %s, %s : %s", w.rows(blk.cm, bc, kp, "i1"), w.cols(km, bc, kp, "i1"), mat(bc, kp, "i1"))
			wT := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg3", elem, wOff, ck), wMask, w.zeros(mat(bc, kp, elem)), mat(bc, kp, ptrOf(elem)))
			dx = w.dot(dzE, wT, dx, mat(bp, bc, elem), mat(bc, kp, elem), mat(bp, kp, "f32"), elem)
			next[b] = w.dot(xT, dzE, carried[b], mat(kp, bp, elem), mat(bp, bc, elem), mat(kp, bc, "f32"), elem)
		}
		dxOff := w.op("arith.addi %s, %s : %s", w.bin("muli", w.rows(p, bp, kp, "i32"), t.k, mat(bp, kp, "i32")), w.cols(kr, bp, kp, "i32"), mat(bp, kp, "i32"))
		dxMask := w.op("arith.andi %s, %s : %s", w.rows(pm, bp, kp, "i1"), w.cols(km, bp, kp, "i1"), mat(bp, kp, "i1"))
		w.line("tt.store %s, %s, %s : %s", w.ptrs("%arg5", elem, dxOff, pk), w.fromF32(dx, elem, pk), dxMask, mat(bp, kp, ptrOf(elem)))
		return next
	})
	// dW's partial sums: block b's accumulator at (pid·K + k)·C + c.
	rowsK := w.op("arith.addi %s, %s : %s", w.splat(w.bin("muli", pid, t.k*t.c, "i32"), "i32", mat(kp, bc, "i32")),
		w.bin("muli", w.rows(kr, kp, bc, "i32"), t.c, mat(kp, bc, "i32")), mat(kp, bc, "i32"))
	for b, blk := range blocks {
		off := w.op("arith.addi %s, %s : %s", rowsK, w.cols(blk.c, kp, bc, "i32"), mat(kp, bc, "i32"))
		mask := w.op("arith.andi %s, %s : %s", w.rows(km, kp, bc, "i1"), w.cols(blk.cm, kp, bc, "i1"), mat(kp, bc, "i1"))
		w.line("tt.store %s, %s, %s : %s", w.ptrs("%arg6", "f32", off, kc), acc[b], mask, mat(kp, bc, ptrOf("f32")))
	}
	args := []string{elem, elem, elem, elem, "f32", elem, "f32"}
	return triton.Kernel{Name: name, IR: w.module(name, args), Grid: [3]int{t.programs, 1, 1}, Warps: t.warps}
}
