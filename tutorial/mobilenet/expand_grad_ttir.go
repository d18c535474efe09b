package mobilenet

import (
	"fmt"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
)

// The expansion's backward pass in one kernel (-model expand-grad=fused; expand_grad.go says where it goes).
//
// A block's expansion is z = x·W (a 1×1 convolution: pixels × channels), then batch norm and ReLU6. Batch norm's
// backward pass ends in dz = A·g + B·z + C per channel (g: the gradient through ReLU6, from the depthwise dx kernel;
// A, B, C from batch norm's sums), and the convolution's backward pass reads dz twice: dx = dz·Wᵀ and dW = xᵀ·dz.
// XLA writes dz in a pass of its own (run61's largest loop_convert_fusions, at the memory's speed) and the two
// products read it again. This kernel makes dz from g and z tile by tile, in registers, and feeds it to both
// products at once: g and z are read once, dz is never written. Each program walks `tiles` tiles of bp pixels,
// storing each tile's rows of dx and adding xᵀ·dz into a [K, C] accumulator, which it stores as its partial sum of
// dW ([programs, K, C] f32, added up by XLA).

// expandGradTiling is how the kernel covers P pixels of K input and C output channels: kp and cp are K and C
// rounded up to powers of two (at least 16, tt.dot's smallest), bp pixels a tile, tiles tiles a program.
type expandGradTiling struct{ p, k, c, kp, cp, bp, tiles, programs int }

// Most channels the kernel takes: dz's tile [bp, cp] and the accumulator [kp, cp] live in registers.
const (
	expandGradMaxC   = 256
	expandGradMaxK   = 64
	expandGradPixels = 64 // bp
	// About this many programs (a few an SM): each writes a [K, C] partial sum of dW, which on the 28×28 layers
	// (32 → 192 channels) is 24 KB against the 196 KB of g and z a program reads at batch 128, 640 KB at 512.
	expandGradPrograms  = 512
	expandGradMinTiling = 16
)

func newExpandGradTiling(p, k, c int) expandGradTiling {
	t := expandGradTiling{p: p, k: k, c: c, kp: pow2AtLeast(k, expandGradMinTiling), cp: pow2AtLeast(c, expandGradMinTiling),
		bp: expandGradPixels}
	t.tiles = cdiv(cdiv(p, t.bp), expandGradPrograms)
	t.programs = cdiv(p, t.bp*t.tiles)
	return t
}

// fits says whether the kernel takes a layer of K input and C output channels.
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
	bp, kp, cp := t.bp, t.kp, t.cp
	pc, kc, pk := fmt.Sprintf("%dx%d", bp, cp), fmt.Sprintf("%dx%d", kp, cp), fmt.Sprintf("%dx%d", bp, kp)
	pid := w.op("tt.get_program_id x : i32")
	// Channel and input-channel ranges, their masks, and W as [cp, kp] (Wᵀ: element (c, k) at k·C + c), loaded once.
	cr := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", cp, vec(cp, "i32"))
	kr := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", kp, vec(kp, "i32"))
	cm, km := w.cmp("slt", cr, t.c, vec(cp, "i32")), w.cmp("slt", kr, t.k, vec(kp, "i32"))
	wOff := w.op("arith.addi %s, %s : %s", w.rows(cr, cp, kp, "i32"), w.bin("muli", w.cols(kr, cp, kp, "i32"), t.c, mat(cp, kp, "i32")), mat(cp, kp, "i32"))
	wMask := w.op("arith.andi %s, %s : %s", w.rows(cm, cp, kp, "i1"), w.cols(km, cp, kp, "i1"), mat(cp, kp, "i1"))
	wT := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg3", elem, wOff, fmt.Sprintf("%dx%d", cp, kp)), wMask, w.zeros(mat(cp, kp, elem)),
		mat(cp, kp, ptrOf(elem)))
	// A, B and C as [bp, cp] tiles.
	coef := make([]string, 3)
	for i := range coef {
		off := w.bin("addi", cr, w.splat(w.i32(i*t.c), "i32", vec(cp, "i32")), vec(cp, "i32"))
		v := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg4", "f32", off, fmt.Sprint(cp)), cm, w.zeros(vec(cp, "f32")), vec(cp, ptrOf("f32")))
		coef[i] = w.cols(v, bp, cp, "f32")
	}
	colsC, colsCm := w.cols(cr, bp, cp, "i32"), w.cols(cm, bp, cp, "i1")
	colsK, colsKm := w.cols(kr, bp, kp, "i32"), w.cols(km, bp, kp, "i1")
	rowsK, rowsKm := w.rows(kr, kp, bp, "i32"), w.rows(km, kp, bp, "i1")
	pr := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", bp, vec(bp, "i32"))
	first := w.bin("muli", pid, t.tiles*bp, "i32")
	dot := func(a, b, acc, ta, tb, tc string) string {
		prec := ""
		if elem == "f32" {
			prec = ", inputPrecision = ieee"
		}
		return w.op("tt.dot %s, %s, %s%s : %s * %s -> %s", a, b, acc, prec, ta, tb, tc)
	}
	acc := w.loop(t.tiles, []string{w.zeros(mat(kp, cp, "f32"))}, []string{mat(kp, cp, "f32")}, func(iv string, carried []string) []string {
		p := w.op("arith.addi %s, %s : %s", w.splat(w.bin("addi", first, w.bin("muli", iv, bp, "i32"), "i32"), "i32", vec(bp, "i32")), pr, vec(bp, "i32"))
		pm := w.cmp("slt", p, t.p, vec(bp, "i32"))
		// g and z [bp, cp], dz = A·g + B·z + C. Past the last channel A, B and C load as 0, so dz is 0; past the last
		// pixel dz is C, which nothing uses: x loads as 0 there and those rows of dx are not stored.
		gzOff := w.op("arith.addi %s, %s : %s", w.bin("muli", w.rows(p, bp, cp, "i32"), t.c, mat(bp, cp, "i32")), colsC, mat(bp, cp, "i32"))
		gzMask := w.op("arith.andi %s, %s : %s", w.rows(pm, bp, cp, "i1"), colsCm, mat(bp, cp, "i1"))
		load := func(arg string) string {
			v := w.op("tt.load %s, %s, %s : %s", w.ptrs(arg, elem, gzOff, pc), gzMask, w.zeros(mat(bp, cp, elem)), mat(bp, cp, ptrOf(elem)))
			return w.toF32(v, elem, pc)
		}
		g, z := load("%arg0"), load("%arg1")
		dz := w.op("arith.addf %s, %s : %s", w.mulAdd(w.mulAdd("", coef[0], g, mat(bp, cp, "f32")), coef[1], z, mat(bp, cp, "f32")), coef[2], mat(bp, cp, "f32"))
		dzE := w.fromF32(dz, elem, pc) // rounded as the stored dz of the unfused pass is
		// dx [bp, kp] = dz · Wᵀ, stored.
		dx := dot(dzE, wT, w.zeros(mat(bp, kp, "f32")), mat(bp, cp, elem), mat(cp, kp, elem), mat(bp, kp, "f32"))
		dxOff := w.op("arith.addi %s, %s : %s", w.bin("muli", w.rows(p, bp, kp, "i32"), t.k, mat(bp, kp, "i32")), colsK, mat(bp, kp, "i32"))
		dxMask := w.op("arith.andi %s, %s : %s", w.rows(pm, bp, kp, "i1"), colsKm, mat(bp, kp, "i1"))
		w.line("tt.store %s, %s, %s : %s", w.ptrs("%arg5", elem, dxOff, pk), w.fromF32(dx, elem, pk), dxMask, mat(bp, kp, ptrOf(elem)))
		// acc [kp, cp] += xᵀ · dz, x loaded as [kp, bp] (element (k, p) at p·K + k).
		xOff := w.op("arith.addi %s, %s : %s", rowsK, w.bin("muli", w.cols(p, kp, bp, "i32"), t.k, mat(kp, bp, "i32")), mat(kp, bp, "i32"))
		xMask := w.op("arith.andi %s, %s : %s", rowsKm, w.cols(pm, kp, bp, "i1"), mat(kp, bp, "i1"))
		xT := w.op("tt.load %s, %s, %s : %s", w.ptrs("%arg2", elem, xOff, fmt.Sprintf("%dx%d", kp, bp)), xMask, w.zeros(mat(kp, bp, elem)),
			mat(kp, bp, ptrOf(elem)))
		return []string{dot(xT, dzE, carried[0], mat(kp, bp, elem), mat(bp, cp, elem), mat(kp, cp, "f32"))}
	})
	// dW's partial sum: acc at (pid·K + k)·C + c.
	base := w.splat(w.bin("muli", pid, t.k*t.c, "i32"), "i32", mat(kp, cp, "i32"))
	off := w.op("arith.addi %s, %s : %s", base, w.op("arith.addi %s, %s : %s", w.bin("muli", w.rows(kr, kp, cp, "i32"), t.c, mat(kp, cp, "i32")),
		w.cols(cr, kp, cp, "i32"), mat(kp, cp, "i32")), mat(kp, cp, "i32"))
	mask := w.op("arith.andi %s, %s : %s", w.rows(km, kp, cp, "i1"), w.cols(cm, kp, cp, "i1"), mat(kp, cp, "i1"))
	w.line("tt.store %s, %s, %s : %s", w.ptrs("%arg6", "f32", off, kc), acc[0], mask, mat(kp, cp, ptrOf("f32")))
	args := []string{elem, elem, elem, elem, "f32", elem, "f32"}
	// Four warps for a [64, 128] tile of dz, eight for [64, 256]: 64 f32 values of it a thread.
	return triton.Kernel{Name: name, IR: w.module(name, args), Grid: [3]int{t.programs, 1, 1}, Warps: max(4, bp*cp/(32*64))}
}
