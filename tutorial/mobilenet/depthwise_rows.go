package mobilenet

import (
	"cmp"
	"fmt"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
)

// The depthwise kernels walked down the rows (-model dw-tiling=rows; measurements in the README, "Kernels that
// walk rows").
//
// The gather kernels (depthwise_triton.go) load the input once per tap: nine masked loads per output element, and
// with dw-prologue nine applications of batch norm and ReLU6 to each input element, which cost the Triton kernels
// about what the prologue saved in XLA's passes. Here a program owns a strip of tw output columns × bc channels and
// walks down its output rows: each input row is loaded once as the three column-shifted tiles that the three taps
// of a kernel row read (the prologue applied once per tile), kept in registers while the next one or two output
// rows need it, and the nine taps are products of those tiles. That is three loads and three prologues per input
// element (a little more at a program's first rows) instead of nine. dK and dx (depthwise_rows_grad.go) walk their
// rows the same way, dx over dy. RowTile.CarrySums keeps partial sums across iterations instead of rows' tiles.

// rowTiling is how the row kernels split a layer's output [n, ho, wo]: a program owns tw output columns (one of
// strips per row) × bc channels and, in the forward pass, rows consecutive output rows of one image (one of chunks
// per image); dK's programs take every row of their strip in a group of images. perThread is how many elements of
// a [tw, bc] tile each thread holds, which sets the warps; unroll how many output rows a loop iteration takes.
type rowTiling struct{ tw, strips, rows, chunks, bc, perThread, unroll int }

// The row kernels' default tile (RowTile's zero fields): rowsPerProgram bounds the forward pass's output rows per
// program (the first rows of each program reload the rows above, one for stride 1, so more rows waste less, and
// fewer give more programs); rowChannels channels, and four elements per thread (the kernels keep about twenty
// such tiles live).
const (
	rowsPerProgram = 8
	rowChannels    = 32
	rowPerThread   = 4
)

func newRowTiling(ho, wo int, tile RowTile) rowTiling {
	t := rowTiling{tw: tile.Width, bc: cmp.Or(tile.Channels, rowChannels), perThread: cmp.Or(tile.PerThread, rowPerThread),
		unroll: max(1, tile.Unroll)}
	if t.tw == 0 {
		t.tw = 8
		waste := func(tw int) int { return cdiv(wo, tw)*tw - wo }
		for _, tw := range []int{16, 32} { // the widest strip that wastes no more columns than a narrower one
			if waste(tw) <= waste(t.tw) {
				t.tw = tw
			}
		}
	}
	t.strips = cdiv(wo, t.tw)
	t.chunks = cdiv(ho, cmp.Or(tile.Rows, rowsPerProgram))
	t.rows = cdiv(ho, t.chunks)
	t.wholeIterations(ho, 1)
	return t
}

// wholeIterations rounds a program's rows up to whole loop iterations of unroll·step rows (step: the rows one
// iteration of unroll 1 takes) of a grid ho rows high, which may leave fewer programs.
func (t *rowTiling) wholeIterations(ho, step int) {
	t.rows = cdiv(t.rows, step*t.unroll) * step * t.unroll
	t.chunks = cdiv(ho, t.rows)
}

// warps gives each thread perThread elements of a [tw, bc] tile, within Triton's 1 to 16 warps.
func (t rowTiling) warps() int { return min(16, max(1, t.tw*t.bc/(32*t.perThread))) }

// rowKernel is what the row kernels share: the channel block, a strip's source-column offsets and masks for each
// tap column, its destination offsets, batch norm's scale and shift, and the loader of one source row. The
// forward and dK kernels read x (source, [N, H, W, C]) and write or read the output grid ([N, HO, WO, C]); dx
// reads dy (source, the output grid) and writes dx (destination, x's grid).
type rowKernel struct {
	w          *ttWriter
	g          dwGeometry
	t          rowTiling
	bc         int
	shape      string // "twxbc"
	c, cm      string // the channel block [bc] and its mask
	srcH, srcW int    // the source grid
	dstH, dstW int    // the destination grid (the strip's columns)
	cols       [3]string
	colMasks   [3]string // [tw, bc] source offsets within a row for each tap column, and their masks
	outCols    string    // [tw, bc] destination offsets q·C + c within a row
	outMask    string    // their mask
	scale      string
	shift      string      // [tw, bc] f32 tiles (g.BN, forward and dK)
	other      string      // what masked source loads return
	args       []string    // the pointer arguments' element types so far
	dyFrom     *dyPrologue // dx: dy made as it loads (buildRowsInputGrad's outBN), else nil
}

// dyPrologue makes the dx kernel's dy as it loads it, from what the pass after the layer reads: y, the layer's
// output, argument yArg; gp, the gradient of ReLU6(batch norm(y)), in dy's place. Per channel ([tw, bc] f32 tiles)
// the gate's scale2 and shift2 (the batch norm after the layer: ReLU6 passes where 0 < y·scale2 + shift2 < 6) and
// batch norm's backward as dy = a·g + b·y + c with g = gp where ReLU6 passed (a = γ/σ; b and c from the sums Σg,
// Σg·y). Positions past the edge are 0, as a loaded dy would be.
type dyPrologue struct {
	yArg                    string
	scale2, shift2, a, b, c string
}

// newRowKernel writes the strip's index arithmetic for strip number strip (an i32 scalar). Forward and dK (grad
// false): source column q·S + j − 1 for tap column j; arguments x (z with g.BN), then K or dy, then with g.BN
// scale and shift. dx (grad true): source column (q + 1 − j)/S where that divides; arguments dy, K.
func newRowKernel(w *ttWriter, g dwGeometry, t rowTiling, strip string, grad bool) *rowKernel {
	bc := t.bc
	k := &rowKernel{w: w, g: g, t: t, bc: bc, shape: fmt.Sprintf("%dx%d", t.tw, bc), args: []string{g.Elem, g.Elem},
		srcH: g.H, srcW: g.W, dstH: g.HO, dstW: g.WO}
	if grad {
		k.srcH, k.srcW, k.dstH, k.dstW = g.HO, g.WO, g.H, g.W
	}
	vW, vB, vC, iT, bT := vec(t.tw, "i32"), vec(t.tw, "i1"), vec(bc, "i32"), mat(t.tw, bc, "i32"), mat(t.tw, bc, "i1")
	k.c = w.blockRange("y", bc)
	k.cm = w.cmp("slt", k.c, g.C, vC)
	cTile, cmTile := w.cols(k.c, t.tw, bc, "i32"), w.cols(k.cm, t.tw, bc, "i1")
	q := w.op("arith.addi %s, %s : %s", w.splat(w.bin("muli", strip, t.tw, "i32"), "i32", vW),
		w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", t.tw, vW), vW)
	qm := w.cmp("slt", q, k.dstW, vW)
	for j := range 3 {
		var src, m string
		if !grad { // q·S + j − 1
			src = w.bin("addi", w.bin("muli", q, g.S, vW), j-1, vW)
			m = w.bin("andi", qm, w.cmp("sge", src, 0, vW), vB)
		} else { // (q + 1 − j)/S where it divides
			num := w.bin("addi", q, 1-j, vW)
			m = w.bin("andi", qm, w.cmp("sge", num, 0, vW), vB)
			src = num
			if g.S > 1 {
				m = w.bin("andi", m, w.cmp("eq", w.bin("remsi", num, g.S, vW), 0, vW), vB)
				src = w.bin("divsi", num, g.S, vW)
			}
		}
		m = w.bin("andi", m, w.cmp("slt", src, k.srcW, vW), vB)
		k.cols[j] = w.op("arith.addi %s, %s : %s", w.rows(w.bin("muli", src, g.C, vW), t.tw, bc, "i32"), cTile, iT)
		k.colMasks[j] = w.op("arith.andi %s, %s : %s", w.rows(m, t.tw, bc, "i1"), cmTile, bT)
	}
	k.outCols = w.op("arith.addi %s, %s : %s", w.rows(w.bin("muli", q, g.C, vW), t.tw, bc, "i32"), cTile, iT)
	k.outMask = w.op("arith.andi %s, %s : %s", w.rows(qm, t.tw, bc, "i1"), cmTile, bT)
	k.other = w.zeros(mat(t.tw, bc, g.Elem))
	if g.BN && !grad {
		k.scale, k.shift = w.affineTiles(k.c, k.cm, "%arg2", "%arg3", t.tw, bc)
		k.args = append(k.args, "f32", "f32")
		k.other = w.padZ(k.scale, g.Elem, k.shape)
	}
	return k
}

// taps loads the kernel K ([3·3·C], pointer argument arg) for the channel block as nine f32 [tw, bc] tiles.
func (k *rowKernel) taps(arg string) (taps [9]string) {
	w, e := k.w, k.g.Elem
	other := w.zeros(vec(k.bc, e))
	for tap := range taps {
		kv := w.op("tt.load %s, %s, %s : tensor<%dx%s>", w.ptrs(arg, e, w.bin("addi", k.c, tap*k.g.C, vec(k.bc, "i32")),
			fmt.Sprint(k.bc)), k.cm, other, k.bc, ptrOf(e))
		taps[tap] = w.cols(w.toF32(kv, e, fmt.Sprint(k.bc)), k.t.tw, k.bc, "f32")
	}
	return taps
}

// sourceRow loads source row r (an i32 scalar, possibly outside the grid: then it is padding) of image n, valid
// being an extra i1 scalar condition ("" for none), as the three tiles its tap columns read, in f32, the prologue
// applied.
func (k *rowKernel) sourceRow(n, r, valid string) [3]string {
	w, g := k.w, k.g
	ok := w.and(w.scmp("sge", r, 0), w.scmp("slt", r, k.srcH))
	if valid != "" {
		ok = w.and(ok, valid)
	}
	okTile := w.splat(ok, "i1", mat(k.t.tw, k.bc, "i1"))
	base := w.splat(w.bin("muli", w.op("arith.addi %s, %s : i32", w.bin("muli", n, k.srcH, "i32"), r), k.srcW*g.C, "i32"),
		"i32", mat(k.t.tw, k.bc, "i32"))
	var out [3]string
	for j := range 3 {
		off := w.op("arith.addi %s, %s : %s", base, k.cols[j], mat(k.t.tw, k.bc, "i32"))
		mask := w.op("arith.andi %s, %s : %s", k.colMasks[j], okTile, mat(k.t.tw, k.bc, "i1"))
		v := w.toF32(w.op("tt.load %s, %s, %s : tensor<%sx%s>", w.ptrs("%arg0", g.Elem, off, k.shape), mask, k.other,
			k.shape, ptrOf(g.Elem)), g.Elem, k.shape)
		if k.scale != "" {
			v = w.bnReLU6(v, k.scale, k.shift, k.shape)
		}
		if p := k.dyFrom; p != nil {
			fT := mat(k.t.tw, k.bc, "f32")
			y := w.toF32(w.op("tt.load %s, %s, %s : tensor<%sx%s>", w.ptrs(p.yArg, g.Elem, off, k.shape), mask, k.other,
				k.shape, ptrOf(g.Elem)), g.Elem, k.shape)
			dy := w.mulAdd(w.mulAdd(p.c, p.b, y, fT), p.a, w.reluGate(v, y, p.scale2, p.shift2, k.shape), fT)
			v = w.op("arith.select %s, %s, %s : tensor<%sxi1>, %s", mask, dy, w.zeros(fT), k.shape, fT)
		}
		out[j] = v
	}
	return out
}

// outRow is the offsets of destination row h of image n (the output, dy for dK, dx for dx), and their mask with
// valid ("" for none).
func (k *rowKernel) outRow(n, h, valid string) (off, mask string) {
	w, g := k.w, k.g
	iT, bT := mat(k.t.tw, k.bc, "i32"), mat(k.t.tw, k.bc, "i1")
	base := w.bin("muli", w.op("arith.addi %s, %s : i32", w.bin("muli", n, k.dstH, "i32"), h), k.dstW*g.C, "i32")
	off = w.op("arith.addi %s, %s : %s", w.splat(base, "i32", iT), k.outCols, iT)
	mask = k.outMask
	if valid != "" {
		mask = w.op("arith.andi %s, %s : %s", mask, w.splat(valid, "i1", bT), bT)
	}
	return off, mask
}

// excerpt: depthwise-rows

// window is the input rows that output rows h … h + u − 1 read (h·S − 1 + i, i = 0 … u·S + 2 − S; output row
// h + d reads rows d·S, d·S + 1, d·S + 2 of it): the first 3 − S carried from the rows before (as 3·(3 − S)
// tiles), the rest loaded, all of them before any is used. It returns the rows and what to carry to the next u
// output rows.
func (k *rowKernel) window(n, h string, u int, valid string, carried []string) (rows [][3]string, next []string) {
	keep := 3 - k.g.S
	rows = make([][3]string, u*k.g.S+keep)
	for i := range keep {
		copy(rows[i][:], carried[3*i:3*i+3])
	}
	for i := keep; i < len(rows); i++ {
		rows[i] = k.tapRow(n, h, i, valid)
	}
	for _, row := range rows[len(rows)-keep:] {
		next = append(next, row[:]...)
	}
	return rows, next
}

// excerpt end

// sumWindow is window for RowTile.CarrySums: it loads the u·S input rows h·S + 2 − S … (h + u)·S + 1 − S that
// output rows h … h + u − 1 read past what the rows before loaded, all before any product, adds each row's
// products to the sums of the output rows that read it (partial: those of rows h … h + len(partial) − 1 so far),
// and returns the finished sums of rows h … h + u − 1 and the partial sums to carry to the next u rows.
func (k *rowKernel) sumWindow(n, h string, u int, valid string, partial []string, taps [9]string) (out, next []string) {
	keep := 3 - k.g.S
	sums := make([]string, u+len(partial))
	copy(sums, partial)
	rows := make([][3]string, u*k.g.S)
	for i := range rows {
		rows[i] = k.tapRow(n, h, keep+i, valid)
	}
	for i, row := range rows {
		k.addRow(sums, row, keep+i, taps)
	}
	return sums[:u], sums[u:]
}

// firstSums is what sumWindow carries into output row h0: the sums of output rows h0 … over the 3 − S input rows
// above the first that its loop loads (one partial sum for stride 2, two for stride 1).
func (k *rowKernel) firstSums(n, h0, valid string, taps [9]string) []string {
	keep := 3 - k.g.S
	sums := make([]string, cdiv(keep, k.g.S))
	for i := range keep {
		k.addRow(sums, k.tapRow(n, h0, i, valid), i, taps)
	}
	return sums
}

// addRow adds the products of window row i (input row h·S − 1 + i, as its three tap-column tiles) to sums[d], the
// sum of output row h + d, for each d that reads it.
func (k *rowKernel) addRow(sums []string, row [3]string, i int, taps [9]string) {
	fT := mat(k.t.tw, k.bc, "f32")
	k.readers(i, len(sums), func(kh, d int) {
		for kw := range 3 {
			sums[d] = k.w.mulAdd(sums[d], row[kw], taps[kh*3+kw], fT)
		}
	})
}

// readers calls f for each output row h + d, d < n, that reads window row i (input row h·S − 1 + i), with the
// kernel row kh it reads it at: i = d·S + kh.
func (k *rowKernel) readers(i, n int, f func(kh, d int)) {
	for kh := range 3 {
		if d := (i - kh) / k.g.S; i >= kh && (i-kh)%k.g.S == 0 && d < n {
			f(kh, d)
		}
	}
}

// firstWindow is what window carries into output row h0: input rows h0·S − 1 … h0·S − 1 + (2 − S).
func (k *rowKernel) firstWindow(n, h0, valid string) []string {
	var out []string
	for i := range 3 - k.g.S {
		row := k.tapRow(n, h0, i, valid)
		out = append(out, row[:]...)
	}
	return out
}

// tapRow is the input row that kernel row i reads for output row h: h·S + i − 1 (i ≥ 3: kernel row i − S of
// output row h + 1, and so on).
func (k *rowKernel) tapRow(n, h string, i int, valid string) [3]string {
	return k.sourceRow(n, k.w.bin("addi", k.w.bin("muli", h, k.g.S, "i32"), i-1, "i32"), valid)
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// dwRowsForward is the forward pass (dwGatherKernel's arguments and outputs, stats included) by rows: programs
// [n · chunks · strips, C/bc], each writing t.rows output rows of its strip, t.unroll an iteration.
func dwRowsForward(g dwGeometry, stats bool, tile RowTile) triton.Kernel {
	t := newRowTiling(g.HO, g.WO, tile)
	bc := t.bc
	name := "dw_forward_rows_" + g.String()
	if stats {
		name = "dw_forward_rows_stats_" + g.String()
	}
	w := &ttWriter{}
	pid := w.op("tt.get_program_id x : i32")
	perImage := t.chunks * t.strips
	n := w.bin("divsi", pid, perImage, "i32")
	within := w.bin("remsi", pid, perImage, "i32")
	h0 := w.bin("muli", w.bin("divsi", within, t.strips, "i32"), t.rows, "i32")
	k := newRowKernel(w, g, t, w.bin("remsi", within, t.strips, "i32"), false)
	e, fT := g.Elem, mat(t.tw, bc, "f32")
	taps := k.taps("%arg1")
	args := k.args
	dst := fmt.Sprintf("%%arg%d", len(args))
	args = append(args, e)
	zero := w.zeros(fT)
	var init []string
	if tile.CarrySums {
		init = k.firstSums(n, h0, "", taps)
	} else {
		init = k.firstWindow(n, h0, "")
	}
	kept := len(init)
	if stats {
		init = append(init, zero, zero)
	}
	// excerpt: depthwise-rows-loop
	u := t.unroll
	res := w.loop(t.rows/u, init, repeat(fT, len(init)), func(iv string, carried []string) []string {
		h := w.op("arith.addi %s, %s : i32", h0, w.bin("muli", iv, u, "i32"))
		var rows [][3]string
		var outs, next []string // with CarrySums the sums of output rows h … h + u − 1; what the next rows need
		if tile.CarrySums {
			outs, next = k.sumWindow(n, h, u, "", carried[:kept], taps)
		} else {
			rows, next = k.window(n, h, u, "", carried)
		}
		var sums []string
		if stats {
			sums = carried[kept:]
		}
		for d := range u { // output row h + d
			acc := ""
			if outs != nil {
				acc = outs[d]
			} else {
				for kh := range 3 {
					for kw := range 3 {
						acc = w.mulAdd(acc, rows[d*g.S+kh][kw], taps[kh*3+kw], fT)
					}
				}
			}
			hd := w.bin("addi", h, d, "i32")
			off, mask := k.outRow(n, hd, w.scmp("slt", hd, g.HO))
			y := w.fromF32(acc, e, k.shape)
			w.line("tt.store %s, %s, %s : tensor<%sx%s>", w.ptrs(dst, e, off, k.shape), y, mask, k.shape, ptrOf(e))
			if stats { // sums of the rounded y, as batch norm would read it back; rows and columns past the edge are 0
				yq := w.op("arith.select %s, %s, %s : tensor<%sxi1>, %s", mask, w.toF32(y, e, k.shape), zero, k.shape, fT)
				sums = []string{w.op("arith.addf %s, %s : %s", sums[0], yq, fT), w.mulAdd(sums[1], yq, yq, fT)}
			}
		}
		return append(next, sums...)
	})
	// excerpt end
	if stats {
		w.storeProgramRows(fmt.Sprintf("%%arg%d", len(args)), pid, k.c, k.cm, g.C, bc, w.sumTiles(res[len(res)-2:], t.tw, bc))
		args = append(args, "f32")
	}
	return triton.Kernel{Name: name, IR: w.module(name, args), Grid: [3]int{g.N * perImage, cdiv(g.C, bc)},
		Warps: t.warps()}
}
