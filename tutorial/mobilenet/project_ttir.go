package mobilenet

import (
	"cmp"
	"fmt"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
)

// The projection's two products with batch norm and ReLU6 applied as they load (-model project-prologue=bn-relu6;
// project.go says where they go).
//
// A block ends a = ReLU6(batch norm(y)) → projection out = a·W (a 1×1 convolution narrowing C to K channels), y
// being the depthwise layer's output. XLA writes a in a pass of its own (read y, write a), cuDNN's convolution reads
// it, and the backward pass reads it once more for dW = aᵀ·dout: four passes of y's size, where these two kernels
// make two — each reads y and makes a tile of a in registers (one FMA and two bounds an element, as the depthwise
// prologue does) for its tt.dot, and a is never written.
//
// projectForwardKernel: a program takes bp pixels and walks the channels in blocks of bc, adding each block's a·W
// into its [bp, kp] accumulator, stored once the channels are done.
// projectWeightGradKernel: a program takes one block of bc channels and `tiles` tiles of bp pixels, adding aᵀ·dout
// for each into its [bc, kp] accumulator, stored as its partial sum of dW ([programs, C, K] f32, added up by XLA).
// Both keep every tile at most [128, 64] (the fused expansion kernel, with [64, 256] tiles, ran out of registers)
// and take K ≤ 64: the narrow projections of the large early blocks (to 16, 24, 32 and 64 channels), which are
// most of y's bytes; the wider ones keep XLA's.

// projectTiling is how the kernels cover P pixels of C input and K output channels: kp is K rounded up to a power of
// two (at least 16, tt.dot's smallest), bc the channels of a block and blocks their count, bp pixels a tile; the
// weight-gradient kernel takes tiles tiles a program, programs programs along the pixels. warps and stages are
// Triton's num_warps and num_stages (the latter only matters to the weight-gradient kernel's loop).
type projectTiling struct{ p, c, k, kp, bc, blocks, bp, tiles, programs, warps, stages int }

// The default tile, which ProjectTile's fields override: the fastest of a sweep of each field alone in kernel
// profiles at batch 128 on an H100 (assets/gpu-runs/2026-12-07-h100-run75/proj-tiles.txt). The forward kernels of
// the layers to at most 32 channels from at most 192 are faster on 128 pixels a tile (the 14×14 ones, to 64,
// slower), and the weight-gradient loop faster with Triton's software pipelining (num_stages 3) on six of its seven
// layers, most of all on the 112×112 one, which the 256 programs of one 64-pixel tile after another had left
// waiting on memory. Warps, channel blocks and 32 pixels lost or tied everywhere.
const (
	projectMaxK       = 64
	projectPixels     = 64
	projectWidePixels = 128 // the forward kernel's, to at most projectWideMaxK channels from at most projectWideMaxC
	projectWideMaxK   = 32
	projectWideMaxC   = 192
	projectBlock      = 64
	projectGradStages = 3
	projectWarps      = 4
	// About this many programs of the weight-gradient kernel along the pixels, each writing a [C, K] partial sum:
	// at batch 128 on the 56×56 layers (144 → 24 channels) 14 KB against the 1.1 MB of y a program reads. More
	// programs (1024 and 4096 in the same sweep) made XLA's sums of them slower by more than the kernels gained.
	projectPrograms = 256
)

// excerpt: projection-tiling

// newProjectTiling is the tiling of the forward kernel (forward) or the weight-gradient kernel: tile's fields where
// set, else the defaults a profile sweep picked — 128 pixels a tile for the forward kernel of a layer to at most 32
// channels from at most 192, num_stages 3 for the weight gradient's loop, and otherwise 64 pixels, blocks of 64
// channels, about 256 programs and 4 warps.
func newProjectTiling(p, c, k int, tile ProjectTile, forward bool) projectTiling {
	pixels, stages := projectPixels, cmp.Or(tile.Stages, projectGradStages)
	if forward {
		stages = 1 // no loop to pipeline, whatever ProjectTile.Stages says
		if k <= projectWideMaxK && c <= projectWideMaxC {
			pixels = projectWidePixels
		}
	}
	t := projectTiling{p: p, c: c, k: k, kp: pow2AtLeast(k, expandGradMinTiling),
		bc:    min(cmp.Or(tile.Channels, projectBlock), pow2AtLeast(c, expandGradMinTiling)),
		bp:    cmp.Or(tile.Pixels, pixels),
		warps: cmp.Or(tile.Warps, projectWarps), stages: stages}
	t.blocks = cdiv(c, t.bc)
	t.tiles = cdiv(cdiv(p, t.bp), cmp.Or(tile.Programs, projectPrograms))
	t.programs = cdiv(p, t.bp*t.tiles)
	return t
}

// excerpt end

// projectFits says whether the kernels take a projection to K channels.
func projectFits(k int) bool { return k <= projectMaxK }

// dot is tt.dot a·b + acc of element types ta, tb into tc (f32 operands in ieee precision, not tf32): the
// projection kernels' and the fused expansion kernel's products.
func (w *ttWriter) dot(a, b, acc, ta, tb, tc, elem string) string {
	prec := ""
	if elem == "f32" {
		prec = ", inputPrecision = ieee"
	}
	return w.op("tt.dot %s, %s, %s%s : %s * %s -> %s", a, b, acc, prec, ta, tb, tc)
}

// projectForwardKernel writes the forward kernel for elem (the element type of y, W and out). Arguments, in order:
// y [P, C], scale [C] f32, shift [C] f32, W [C, K], then the output out [P, K] and, with stats, the per-program sums
// of out and out² [programs, 2, K] f32 (of out as stored, rounded to elem, as batch norm would read it back).
func projectForwardKernel(t projectTiling, elem string, stats bool) triton.Kernel {
	name := fmt.Sprintf("project_forward_p%d_c%d_k%d_%s", t.p, t.c, t.k, elem)
	if stats {
		name = fmt.Sprintf("project_forward_stats_p%d_c%d_k%d_%s", t.p, t.c, t.k, elem)
	}
	w := &ttWriter{}
	bp, kp, bc := t.bp, t.kp, t.bc
	pc := fmt.Sprintf("%dx%d", bp, bc)
	p := w.blockRange("x", bp)
	pm := w.cmp("slt", p, t.p, vec(bp, "i32"))
	kr := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", kp, vec(kp, "i32"))
	km := w.cmp("slt", kr, t.k, vec(kp, "i32"))
	br := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", bc, vec(bc, "i32"))
	rowsP, rowsPm := w.bin("muli", w.rows(p, bp, bc, "i32"), t.c, mat(bp, bc, "i32")), w.rows(pm, bp, bc, "i1")
	acc := w.zeros(mat(bp, kp, "f32"))
	// excerpt: projection-forward-blocks
	for b := range t.blocks {
		// y [bp, bc] and a = ReLU6(y·scale + shift): past the last channel y, scale and shift load as 0, so a is 0
		// and W's rows there load as 0 too; past the last pixel a is ReLU6(shift), in rows that are not stored.
		c := w.bin("addi", br, b*bc, vec(bc, "i32"))
		cm := w.cmp("slt", c, t.c, vec(bc, "i32"))
		off := w.op("arith.addi %s, %s : %s", rowsP, w.cols(c, bp, bc, "i32"), mat(bp, bc, "i32"))
		mask := w.op("arith.andi %s, %s : %s", rowsPm, w.cols(cm, bp, bc, "i1"), mat(bp, bc, "i1"))
		y := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg0", elem, off, pc), mask, w.zeros(mat(bp, bc, elem)), mat(bp, bc, ptrOf(elem)))
		scale, shift := w.affineTiles(c, cm, "%arg1", "%arg2", bp, bc)
		a := w.fromF32(w.bnReLU6(w.toF32(y, elem, pc), scale, shift, pc), elem, pc)
		// The block's W [bc, kp] (element (c, k) at c·K + k), then out += a·W.
		wOff := w.op("arith.addi %s, %s : %s", w.bin("muli", w.rows(c, bc, kp, "i32"), t.k, mat(bc, kp, "i32")), w.cols(kr, bc, kp, "i32"), mat(bc, kp, "i32"))
		wMask := w.op("arith.andi %s, %s : %s", w.rows(cm, bc, kp, "i1"), w.cols(km, bc, kp, "i1"), mat(bc, kp, "i1"))
		wt := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg3", elem, wOff, fmt.Sprintf("%dx%d", bc, kp)), wMask, w.zeros(mat(bc, kp, elem)), mat(bc, kp, ptrOf(elem)))
		acc = w.dot(a, wt, acc, mat(bp, bc, elem), mat(bc, kp, elem), mat(bp, kp, "f32"), elem)
	}
	// excerpt end
	outOff := w.op("arith.addi %s, %s : %s", w.bin("muli", w.rows(p, bp, kp, "i32"), t.k, mat(bp, kp, "i32")), w.cols(kr, bp, kp, "i32"), mat(bp, kp, "i32"))
	outMask := w.op("arith.andi %s, %s : %s", w.rows(pm, bp, kp, "i1"), w.cols(km, bp, kp, "i1"), mat(bp, kp, "i1"))
	pk := fmt.Sprintf("%dx%d", bp, kp)
	out := w.fromF32(acc, elem, pk)
	w.line("tt.store %s, %s, %s : %s", w.ptrs("%arg4", elem, outOff, pk), out, outMask, mat(bp, kp, ptrOf(elem)))
	args := []string{elem, "f32", "f32", elem, elem}
	if stats { // rows past the last pixel hold ReLU6(shift)·W, not zeros: masked out of the sums
		fT := mat(bp, kp, "f32")
		o := w.op("arith.select %s, %s, %s : %s, %s", outMask, w.toF32(out, elem, pk), w.zeros(fT), mat(bp, kp, "i1"), fT)
		sq := w.op("arith.mulf %s, %s : %s", o, o, fT)
		pid := w.op("tt.get_program_id x : i32")
		w.storeProgramRows("%arg5", pid, kr, km, t.k, kp, []string{w.sumRows(o, bp, kp), w.sumRows(sq, bp, kp)})
		args = append(args, "f32")
	}
	return triton.Kernel{Name: name, IR: w.module(name, args), Grid: [3]int{cdiv(t.p, bp), 1, 1}, Warps: t.warps}
}

// projectWeightGradKernel writes the weight-gradient kernel for elem (the element type of y and dout). Arguments, in
// order: y [P, C], scale [C] f32, shift [C] f32, dout [P, K], then the output: dW's partial sums [programs, C, K]
// f32. Grid: programs along the pixels × blocks along the channels.
func projectWeightGradKernel(t projectTiling, elem string) triton.Kernel {
	name := fmt.Sprintf("project_weight_grad_p%d_c%d_k%d_%s", t.p, t.c, t.k, elem)
	w := &ttWriter{}
	bp, kp, bc := t.bp, t.kp, t.bc
	cp := fmt.Sprintf("%dx%d", bc, bp)
	pid := w.op("tt.get_program_id x : i32")
	c := w.blockRange("y", bc)
	cm := w.cmp("slt", c, t.c, vec(bc, "i32"))
	kr := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", kp, vec(kp, "i32"))
	km := w.cmp("slt", kr, t.k, vec(kp, "i32"))
	pr := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", bp, vec(bp, "i32"))
	first := w.bin("muli", pid, t.tiles*bp, "i32")
	// scale and shift as [bc, bp] tiles: the channels run down the rows of aᵀ.
	sv := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg1", "f32", c, fmt.Sprint(bc)), cm, w.zeros(vec(bc, "f32")), vec(bc, ptrOf("f32")))
	tv := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg2", "f32", c, fmt.Sprint(bc)), cm, w.zeros(vec(bc, "f32")), vec(bc, ptrOf("f32")))
	scale, shift := w.rows(sv, bc, bp, "f32"), w.rows(tv, bc, bp, "f32")
	rowsC, rowsCm := w.rows(c, bc, bp, "i32"), w.rows(cm, bc, bp, "i1")
	acc := w.loop(t.tiles, []string{w.zeros(mat(bc, kp, "f32"))}, []string{mat(bc, kp, "f32")}, func(iv string, carried []string) []string {
		p := w.op("arith.addi %s, %s : %s", w.splat(w.bin("addi", first, w.bin("muli", iv, bp, "i32"), "i32"), "i32", vec(bp, "i32")), pr, vec(bp, "i32"))
		pm := w.cmp("slt", p, t.p, vec(bp, "i32"))
		// aᵀ [bc, bp] (y's element (c, p) at p·C + c): past the last channel a is 0; past the last pixel it is
		// ReLU6(shift), met by dout's rows there, which load as 0.
		off := w.op("arith.addi %s, %s : %s", rowsC, w.bin("muli", w.cols(p, bc, bp, "i32"), t.c, mat(bc, bp, "i32")), mat(bc, bp, "i32"))
		mask := w.op("arith.andi %s, %s : %s", rowsCm, w.cols(pm, bc, bp, "i1"), mat(bc, bp, "i1"))
		y := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg0", elem, off, cp), mask, w.zeros(mat(bc, bp, elem)), mat(bc, bp, ptrOf(elem)))
		aT := w.fromF32(w.bnReLU6(w.toF32(y, elem, cp), scale, shift, cp), elem, cp)
		// dout [bp, kp] (element (p, k) at p·K + k).
		dOff := w.op("arith.addi %s, %s : %s", w.bin("muli", w.rows(p, bp, kp, "i32"), t.k, mat(bp, kp, "i32")), w.cols(kr, bp, kp, "i32"), mat(bp, kp, "i32"))
		dMask := w.op("arith.andi %s, %s : %s", w.rows(pm, bp, kp, "i1"), w.cols(km, bp, kp, "i1"), mat(bp, kp, "i1"))
		d := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg3", elem, dOff, fmt.Sprintf("%dx%d", bp, kp)), dMask, w.zeros(mat(bp, kp, elem)), mat(bp, kp, ptrOf(elem)))
		return []string{w.dot(aT, d, carried[0], mat(bc, bp, elem), mat(bp, kp, elem), mat(bc, kp, "f32"), elem)}
	})
	// The partial sum at (pid·C + c)·K + k.
	rowsOff := w.op("arith.addi %s, %s : %s", w.splat(w.bin("muli", pid, t.c*t.k, "i32"), "i32", mat(bc, kp, "i32")),
		w.bin("muli", w.rows(c, bc, kp, "i32"), t.k, mat(bc, kp, "i32")), mat(bc, kp, "i32"))
	off := w.op("arith.addi %s, %s : %s", rowsOff, w.cols(kr, bc, kp, "i32"), mat(bc, kp, "i32"))
	mask := w.op("arith.andi %s, %s : %s", w.rows(cm, bc, kp, "i1"), w.cols(km, bc, kp, "i1"), mat(bc, kp, "i1"))
	w.line("tt.store %s, %s, %s : %s", w.ptrs("%arg4", "f32", off, fmt.Sprintf("%dx%d", bc, kp)), acc[0], mask, mat(bc, kp, ptrOf("f32")))
	args := []string{elem, "f32", "f32", elem, "f32"}
	return triton.Kernel{Name: name, IR: w.module(name, args), Grid: [3]int{t.programs, t.blocks, 1}, Warps: t.warps,
		Stages: t.stages}
}
