package mobilenet

import (
	"fmt"
	"runtime"
	"sync"
	"weak"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// The depthwise convolution as three hand-written Triton kernels (issue 15's custom-kernel route). cuDNN's depthwise
// kernels, which XLA calls for the default formulation, spend about 2.5× per step what reading and writing the
// activations once costs (assets/gpu-runs/2026-12-04-h200-run40/, batch 128). These kernels read each activation tile
// once per program and take the nine taps from cache:
//
//   - forward: one program per tile of [bp output pixels × bc channels], nine masked loads of the input, f32
//     accumulation, one store;
//   - dx: the same gather, run over input pixels: input pixel i receives dy[(i + 1 − t)/s]·K[t] for each tap t
//     whose offset divides by the stride (no dilated copy of dy, the cost the dilated formulation pays);
//   - dK: programs over [splits × channel blocks], each summing dy·x for the nine taps over its share of the
//     pixels in f32 and writing a partial sum [splits, 9, C] that XLA reduces.
//
// Every shape is a constant of the kernel's IR, so the Triton compiler folds the index arithmetic.

// dwGeometry is one depthwise layer: input [N, H, W, C], output [N, HO, WO, C], 3×3 taps, stride S, padding 1.
type dwGeometry struct {
	N, H, W, C, HO, WO, S int
	Elem                  string // Triton element type of x, K and dy
	// BN says the layer's input is x = ReLU6(z·scale + shift), batch norm and ReLU6 per channel: the forward and
	// dK kernels then read z and take scale and shift ([C] float32) as two more inputs, applying both as they load
	// (dw-prologue=bn-relu6), so x itself is never written. dx does not read x and ignores it.
	BN bool
}

func (g dwGeometry) String() string {
	s := fmt.Sprintf("n%d_h%d_w%d_c%d_s%d_%s", g.N, g.H, g.W, g.C, g.S, g.Elem)
	if g.BN {
		s += "_bn"
	}
	return s
}

// geometry reads a layer's shapes from its input and stride; only 3×3 kernels with padding 1 are written.
func geometry(x, kernel *Node, stride int) dwGeometry {
	if kernel.Shape().Dim(0) != 3 || kernel.Shape().Dim(1) != 3 {
		exceptions.Panicf("depthwise Triton kernels are written for 3×3 taps, got kernel %s", kernel.Shape())
	}
	n, h, w, c := x.Shape().Dim(0), x.Shape().Dim(1), x.Shape().Dim(2), x.Shape().Dim(3)
	return dwGeometry{N: n, H: h, W: w, C: c, HO: (h-1)/stride + 1, WO: (w-1)/stride + 1, S: stride, Elem: ttElem(x.DType())}
}

// Tile sizes: bp pixels × bc channels per program for the gathers, and for dK about dkPrograms programs.
const (
	gatherPixels, gatherChannels = 64, 32
	dkPixels, dkChannels         = 32, 32
	dkPrograms                   = 1024
)

// excerpt: depthwise-triton

// depthwiseTritonForward makes y (DepthwiseConv's convolution node, which keeps its place in the graph and its
// registered gradient) compute with the forward kernel: its backend value becomes the kernel's, and XLA drops the
// convolution as dead code.
func depthwiseTritonForward(y, x, kernel *Node, stride int, form DepthwiseForm, pro *bnPrologue) {
	g := geometry(x, kernel, stride)
	inputs := pro.inputs(&g, x, ConvertDType(kernel, x.DType()))
	stats := form.Forward == ForwardTritonStats
	k := forwardKernel(g, stats, form)
	if !stats {
		triton.Replace(y, triton.Call(k, y.Shape(), inputs...))
		return
	}
	outs := triton.CallMulti(k, []shapes.Shape{y.Shape(), shapes.Make(dtypes.Float32, k.Grid[0], 2, g.C)}, inputs...)
	triton.Replace(y, outs[0])
	sum, sumSq := partialSums(outs[1])
	storeSums(y, [2]*Node{sum, sumSq})
}

// excerpt end

// forwardKernel is the forward kernel of a tiling; with stats it also writes batch norm's sums of y and y².
func forwardKernel(g dwGeometry, stats bool, form DepthwiseForm) triton.Kernel {
	if form.Tiling == TilingRows {
		return dwRowsForward(g, stats, form.RowTile.forKernel(rowsForward, g))
	}
	return dwGatherKernel(g, false, stats, gatherPixels, gatherChannels)
}

// inputGradKernel is the dx kernel of a tiling; with g.BN and stats it gates dx and sums what batch norm's backward
// pass needs (dw-prologue=bn-relu6-backward).
func inputGradKernel(g dwGeometry, stats bool, form DepthwiseForm) triton.Kernel {
	if form.Tiling == TilingRows {
		return dwRowsInputGrad(g, stats, form.RowTile.forKernel(rowsInputGrad, g))
	}
	return dwGatherKernel(g, true, stats, gatherPixels, gatherChannels)
}

// partialSums adds up a stats kernel's per-program sums [programs, 2, C] into its two sums, [C] each.
func partialSums(part *Node) (a, b *Node) {
	sums := ReduceSum(part, 0) // [2, C]
	c := part.Shape().Dim(-1)
	return Reshape(Slice(sums, AxisElem(0)), c), Reshape(Slice(sums, AxisElem(1)), c)
}

// storeSums records batch-norm sums of y made with it (see bnSums).
func storeSums(y *Node, sums [2]*Node) {
	key := weak.Make(y)
	bnSums.Store(key, sums)
	runtime.AddCleanup(y, func(k weak.Pointer[Node]) { bnSums.Delete(k) }, key)
}

// bnSums maps a node whose batch-norm sums were made with it (weak.Pointer[Node]) — a depthwise output computed by
// the stats kernel, a widening 1×1 convolution's output (batchnorm_gram.go) — to [2]*Node{Σy, Σy²}, each [C] float32;
// batchNorm takes them instead of reducing y again.
var bnSums sync.Map

// storedSums returns the sums of x and x² over batch and space stored with x (storeSums: by the depthwise stats
// kernel that wrote x, or from a widening 1×1 convolution's input), as [C] float32 nodes, or ok false when none were.
func storedSums(x *Node) (sum, sumSq *Node, ok bool) {
	v, found := bnSums.Load(weak.Make(x))
	if !found {
		return nil, nil, false
	}
	s := v.([2]*Node)
	return s[0], s[1], true
}

// depthwiseInputGradTriton is dx by the Triton kernel of form's tiling.
func depthwiseInputGradTriton(x, kernel, v *Node, stride int, form DepthwiseForm) *Node {
	g := geometry(x, kernel, stride)
	return triton.Call(inputGradKernel(g, false, form), x.Shape(), ConvertDType(v, x.DType()), ConvertDType(kernel, x.DType()))
}

// depthwiseKernelGradTriton is dK: the kernel's partial sums [splits, 9, C], summed by XLA, in kernel's dtype.
func depthwiseKernelGradTriton(x, kernel, v *Node, stride int, form DepthwiseForm, pro *bnPrologue) *Node {
	g := geometry(x, kernel, stride)
	inputs := pro.inputs(&g, x, ConvertDType(v, x.DType()))
	if form.Tiling == TilingRows {
		k := dwRowsKernelGrad(g, form.RowTile.forKernel(rowsKernelGrad, g), 1)
		part := triton.Call(k, shapes.Make(dtypes.Float32, k.Grid[0], 9, g.C), inputs...)
		return ConvertDType(Reshape(ReduceSum(part, 0), kernel.Shape().Dimensions...), kernel.DType())
	}
	blocks := cdiv(g.C, dkChannels)
	tiles := newTiling(g.N, g.HO, g.WO, dkPixels).tiles()
	chunks := cdiv(tiles, max(1, dkPrograms/blocks))
	splits := cdiv(tiles, chunks)
	part := triton.Call(dwKernelGradKernel(g, dkPixels, dkChannels, splits, chunks),
		shapes.Make(dtypes.Float32, splits, 9, g.C), inputs...)
	return ConvertDType(Reshape(ReduceSum(part, 0), kernel.Shape().Dimensions...), kernel.DType())
}

// pixelTiling is how a program's bp pixels lie on a grid of n images × h × w: a run of bp consecutive pixels
// (tw 0: short rows, where a run already covers several rows and their neighbours), or a tile of bp/tw rows × tw
// columns (wide rows: the nine taps' loads then overlap within the tile and come from L1 instead of L2).
type pixelTiling struct{ n, h, w, bp, tw int }

func newTiling(n, h, w, bp int) pixelTiling {
	t := pixelTiling{n: n, h: h, w: w, bp: bp}
	if w >= 56 && w%8 == 0 && h%(bp/8) == 0 {
		t.tw = 8
	}
	return t
}

// tiles is the number of pixel tiles (programs, or loop steps, over the grid).
func (t pixelTiling) tiles() int {
	if t.tw == 0 {
		return cdiv(t.n*t.h*t.w, t.bp)
	}
	return t.n * (t.h / (t.bp / t.tw)) * (t.w / t.tw)
}

// pixels writes, for tile index i (an i32 scalar), each pixel's row and column and image·scale (the image index
// times rowScale, for the caller's row offsets) and the in-range mask.
func (t pixelTiling) pixels(w *ttWriter, i string, rowScale int) (row, col, img, mask string) {
	vP := vec(t.bp, "i32")
	rng := w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", t.bp, vP)
	if t.tw == 0 {
		p := w.op("arith.addi %s, %s : %s", w.op("tt.splat %s : i32 -> %s", w.bin("muli", i, t.bp, "i32"), vP), rng, vP)
		mask = w.cmp("slt", p, t.n*t.h*t.w, vP)
		col = w.bin("remsi", p, t.w, vP)
		row = w.bin("remsi", w.bin("divsi", p, t.w, vP), t.h, vP)
		img = w.bin("muli", w.bin("divsi", p, t.w*t.h, vP), rowScale, vP)
		return
	}
	th := t.bp / t.tw
	perRow, perImage := t.w/t.tw, (t.h/th)*(t.w/t.tw)
	splat := func(v string) string { return w.op("tt.splat %s : i32 -> %s", v, vP) }
	n := w.bin("divsi", i, perImage, "i32")
	k := w.bin("remsi", i, perImage, "i32")
	r0 := w.bin("muli", w.bin("divsi", k, perRow, "i32"), th, "i32")
	c0 := w.bin("muli", w.bin("remsi", k, perRow, "i32"), t.tw, "i32")
	row = w.op("arith.addi %s, %s : %s", splat(r0), w.bin("divsi", rng, t.tw, vP), vP)
	col = w.op("arith.addi %s, %s : %s", splat(c0), w.bin("remsi", rng, t.tw, vP), vP)
	img = splat(w.bin("muli", n, rowScale, "i32"))
	mask = w.cmp("slt", splat(n), t.n, vP) // all true within the grid; loop tails past it are masked
	return
}

func cdiv(a, b int) int { return (a + b - 1) / b }

// dwGatherKernel is the forward pass (grad false: reads x, writes y) or dx (grad true: reads dy, writes dx),
// tiles of bp pixels × bc channels. Arguments: source, kernel [3·3·C], with g.BN in the forward pass scale and
// shift, then the destination, and with stats one more: per program, sums over its pixels, [programs along x, 2,
// C] float32, taken while the values are in registers instead of in another pass over them. In the forward pass
// they are the sums of y and y² (batch norm's statistics of the output). For dx with g.BN and stats they are
// batch norm's backward sums of the input's batch norm (dw-prologue=bn-relu6-backward): the kernel also takes z,
// scale and shift after the kernel, writes g = dx where 0 < z·scale + shift < 6 (ReLU6's gradient) instead of
// dx, and sums g and g·z.
func dwGatherKernel(g dwGeometry, grad, stats bool, bp, bc int) triton.Kernel {
	// The destination's grid (iterated) and the source's (read).
	dH, dW, sH, sW := g.HO, g.WO, g.H, g.W
	name := "dw_forward_" + g.String()
	if grad {
		dH, dW, sH, sW = g.H, g.W, g.HO, g.WO
		name = "dw_input_grad_" + g.String()
	}
	w := &ttWriter{}
	e, vP, vC, tile := g.Elem, vec(bp, "i32"), vec(bc, "i32"), mat(bp, bc, "i32")
	shape := fmt.Sprintf("%dx%d", bp, bc)
	tiling := newTiling(g.N, dH, dW, bp)
	c := w.blockRange("y", bc)
	cm := w.cmp("slt", c, g.C, vC)
	row, col, img, pm := tiling.pixels(w, w.op("tt.get_program_id x : i32"), sH) // img: n·sH
	dImg := w.bin("muli", w.bin("divsi", img, sH, vP), dH, vP)                   // n·dH
	cTile, cmTile := w.cols(c, bp, bc, "i32"), w.cols(cm, bp, bc, "i1")
	bn, bnGrad := g.BN && !grad, g.BN && grad && stats
	args := []string{e, e}
	var scale, shift string
	switch {
	case bn:
		scale, shift = w.affineTiles(c, cm, "%arg2", "%arg3", bp, bc)
		args = append(args, "f32", "f32")
	case bnGrad:
		name = "dw_input_grad_bn_" + g.String()
		scale, shift = w.affineTiles(c, cm, "%arg3", "%arg4", bp, bc)
		args = append(args, e, "f32", "f32")
	}
	dst := fmt.Sprintf("%%arg%d", len(args))
	acc := w.zeros(mat(bp, bc, "f32"))
	other := w.zeros(mat(bp, bc, e))
	otherX := other
	if bn {
		otherX = w.padZ(scale, e, shape)
	}
	otherK := w.zeros(vec(bc, e))
	// source coordinate for tap t along one axis, and its in-range mask.
	coord := func(pos string, t, limit int, m string) (string, string) {
		if !grad { // r = pos·s + t − 1
			r := w.bin("addi", w.bin("muli", pos, g.S, vP), t-1, vP)
			m = w.bin("andi", m, w.cmp("sge", r, 0, vP), vec(bp, "i1"))
			return r, w.bin("andi", m, w.cmp("slt", r, limit, vP), vec(bp, "i1"))
		}
		tr := w.bin("subi", w.bin("addi", pos, 1, vP), t, vP) // pos + 1 − t = r·s
		m = w.bin("andi", m, w.cmp("sge", tr, 0, vP), vec(bp, "i1"))
		r := tr
		if g.S > 1 {
			m = w.bin("andi", m, w.cmp("eq", w.bin("remsi", tr, g.S, vP), 0, vP), vec(bp, "i1"))
			r = w.bin("divsi", tr, g.S, vP)
		}
		return r, w.bin("andi", m, w.cmp("slt", r, limit, vP), vec(bp, "i1"))
	}
	for kh := range 3 {
		r, mr := coord(row, kh, sH, pm)
		base := w.bin("muli", w.bin("addi", img, r, vP), sW, vP) // (n·sH + r)·sW
		for kw := range 3 {
			q, m := coord(col, kw, sW, mr)
			off := w.bin("muli", w.bin("addi", base, q, vP), g.C, vP)
			off2 := w.op("arith.addi %s, %s : %s", w.rows(off, bp, bc, "i32"), cTile, tile)
			mask := w.op("arith.andi %s, %s : %s", w.rows(m, bp, bc, "i1"), cmTile, mat(bp, bc, "i1"))
			v := w.toF32(w.op("tt.load %s, %s, %s : tensor<%sx%s>", w.ptrs("%arg0", e, off2, shape), mask, otherX, shape, ptrOf(e)), e, shape)
			if bn {
				v = w.bnReLU6(v, scale, shift, shape)
			}
			kOff := w.bin("addi", c, (kh*3+kw)*g.C, vC)
			k := w.op("tt.load %s, %s, %s : tensor<%dx%s>", w.ptrs("%arg1", e, kOff, fmt.Sprint(bc)), cm, otherK, bc, ptrOf(e))
			kTile := w.cols(w.toF32(k, e, fmt.Sprint(bc)), bp, bc, "f32")
			acc = w.mulAdd(acc, v, kTile, mat(bp, bc, "f32"))
		}
	}
	p := w.op("arith.addi %s, %s : %s", w.bin("muli", w.op("arith.addi %s, %s : %s", dImg, row, vP), dW, vP), col, vP)
	outOff := w.op("arith.addi %s, %s : %s", w.rows(w.bin("muli", p, g.C, vP), bp, bc, "i32"), cTile, tile)
	outMask := w.op("arith.andi %s, %s : %s", w.rows(pm, bp, bc, "i1"), cmTile, mat(bp, bc, "i1"))
	y := w.fromF32(acc, e, shape)
	yq := w.toF32(y, e, shape) // the rounded y, as batch norm would read it back; masked rows are 0
	second := yq               // the second sum is of yq·second
	if bnGrad {
		z := w.toF32(w.op("tt.load %s, %s, %s : tensor<%sx%s>", w.ptrs("%arg2", e, outOff, shape), outMask, other, shape, ptrOf(e)), e, shape)
		yq = w.reluGate(yq, z, scale, shift, shape)
		y, second = w.fromF32(yq, e, shape), z
	}
	w.line("tt.store %s, %s, %s : tensor<%sx%s>", w.ptrs(dst, e, outOff, shape), y, outMask, shape, ptrOf(e))
	args = append(args, e)
	if stats {
		if !grad {
			name = "dw_forward_stats_" + g.String()
		}
		sums := w.sumTiles([]string{yq, w.op("arith.mulf %s, %s : %s", yq, second, mat(bp, bc, "f32"))}, bp, bc)
		w.storeProgramRows(fmt.Sprintf("%%arg%d", len(args)), w.op("tt.get_program_id x : i32"), c, cm, g.C, bc, sums)
		args = append(args, "f32")
	}
	return triton.Kernel{Name: name, IR: w.module(name, args), Grid: [3]int{tiling.tiles(), cdiv(g.C, bc)}}
}

// dwKernelGradKernel is dK as partial sums: programs [splits, C/bc], each looping over chunks tiles of bp output
// pixels and writing part[split, tap, c] (float32). Arguments: x, dy, with g.BN scale and shift (x is then z; see
// dwGeometry.BN), part.
func dwKernelGradKernel(g dwGeometry, bp, bc, splits, chunks int) triton.Kernel {
	name := "dw_kernel_grad_" + g.String()
	w := &ttWriter{}
	e, vP, vC := g.Elem, vec(bp, "i32"), vec(bc, "i32")
	shape, fT := fmt.Sprintf("%dx%d", bp, bc), mat(bp, bc, "f32")
	split := w.op("tt.get_program_id x : i32")
	c := w.blockRange("y", bc)
	cm := w.cmp("slt", c, g.C, vC)
	cTile, cmTile := w.cols(c, bp, bc, "i32"), w.cols(cm, bp, bc, "i1")
	tiling := newTiling(g.N, g.HO, g.WO, bp)
	zero, other := w.zeros(fT), w.zeros(mat(bp, bc, e))
	args := []string{e, e}
	var scale, shift string
	otherX := other
	if g.BN {
		scale, shift = w.affineTiles(c, cm, "%arg2", "%arg3", bp, bc)
		args = append(args, "f32", "f32")
		otherX = w.padZ(scale, e, shape)
	}
	part := fmt.Sprintf("%%arg%d", len(args))
	first := w.bin("muli", split, chunks, "i32")
	lb, ub, one := w.i32(0), w.i32(chunks), w.i32(1)
	var inits, types []string
	for t := range 9 {
		inits = append(inits, fmt.Sprintf("%%acc%d = %s", t, zero))
		types = append(types, fT)
	}
	res := fmt.Sprintf("%%%d", w.next)
	w.next++
	w.line("%s:9 = scf.for %%i = %s to %s step %s iter_args(%s) -> (%s) : i32 {", res, lb, ub, one,
		join(inits), join(types))
	row, col, img, pm := tiling.pixels(w, w.op("arith.addi %s, %%i : i32", first), g.H) // img: n·H
	pmTile := w.op("arith.andi %s, %s : %s", w.rows(pm, bp, bc, "i1"), cmTile, mat(bp, bc, "i1"))
	dImg := w.bin("muli", w.bin("divsi", img, g.H, vP), g.HO, vP)
	p := w.op("arith.addi %s, %s : %s", w.bin("muli", w.op("arith.addi %s, %s : %s", dImg, row, vP), g.WO, vP), col, vP)
	dyOff := w.op("arith.addi %s, %s : %s", w.rows(w.bin("muli", p, g.C, vP), bp, bc, "i32"), cTile, mat(bp, bc, "i32"))
	dy := w.toF32(w.op("tt.load %s, %s, %s : tensor<%sx%s>", w.ptrs("%arg1", e, dyOff, shape), pmTile, other, shape, ptrOf(e)), e, shape)
	var next []string
	for kh := range 3 {
		r := w.bin("addi", w.bin("muli", row, g.S, vP), kh-1, vP)
		mr := w.bin("andi", w.bin("andi", pm, w.cmp("sge", r, 0, vP), vec(bp, "i1")), w.cmp("slt", r, g.H, vP), vec(bp, "i1"))
		base := w.bin("muli", w.bin("addi", img, r, vP), g.W, vP)
		for kw := range 3 {
			q := w.bin("addi", w.bin("muli", col, g.S, vP), kw-1, vP)
			m := w.bin("andi", w.bin("andi", mr, w.cmp("sge", q, 0, vP), vec(bp, "i1")), w.cmp("slt", q, g.W, vP), vec(bp, "i1"))
			off := w.op("arith.addi %s, %s : %s", w.rows(w.bin("muli", w.bin("addi", base, q, vP), g.C, vP), bp, bc, "i32"), cTile, mat(bp, bc, "i32"))
			mask := w.op("arith.andi %s, %s : %s", w.rows(m, bp, bc, "i1"), cmTile, mat(bp, bc, "i1"))
			x := w.toF32(w.op("tt.load %s, %s, %s : tensor<%sx%s>", w.ptrs("%arg0", e, off, shape), mask, otherX, shape, ptrOf(e)), e, shape)
			if g.BN {
				x = w.bnReLU6(x, scale, shift, shape)
			}
			next = append(next, w.mulAdd(fmt.Sprintf("%%acc%d", kh*3+kw), dy, x, fT))
		}
	}
	w.line("scf.yield %s : %s", join(next), join(types))
	w.b.WriteString("    }\n")
	var accs []string
	for t := range 9 {
		accs = append(accs, fmt.Sprintf("%s#%d", res, t))
	}
	w.storeProgramRows(part, split, c, cm, g.C, bc, w.sumTiles(accs, bp, bc))
	return triton.Kernel{Name: name, IR: w.module(name, append(args, "f32")), Grid: [3]int{splits, cdiv(g.C, bc)}}
}

func join(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}
