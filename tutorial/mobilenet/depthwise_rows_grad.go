package mobilenet

import (
	"fmt"
	"slices"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
)

// The row kernels' backward pass: dK and dx walk the rows as the forward pass does (depthwise_rows.go).

// dwRowsKernelGrad is dK by rows as partial sums: programs [⌈n/images⌉ · strips, C/bc], each summing dy·x for the
// nine taps over every output row of its strip (t.unroll an iteration) in images images and writing part[program,
// tap, c] (float32). The step uses one image per program: the loop waits on its loads, so more programs in flight
// hide more of that latency (measured faster than about 1024 programs in all), and the partial sums stay small
// ([batch · strips, 9, C] float32). With CarrySums the walk down each image is kernelGradSums.
// Arguments: x (z with g.BN), dy, with g.BN scale and shift, then part.
func dwRowsKernelGrad(g dwGeometry, tile RowTile, images int) triton.Kernel {
	t := newRowTiling(g.HO, g.WO, tile)
	bc := t.bc
	name := "dw_kernel_grad_rows_" + g.String()
	w := &ttWriter{}
	pid := w.op("tt.get_program_id x : i32")
	n0 := w.bin("muli", w.bin("divsi", pid, t.strips, "i32"), images, "i32")
	k := newRowKernel(w, g, t, w.bin("remsi", pid, t.strips, "i32"), false)
	e, fT := g.Elem, mat(t.tw, bc, "f32")
	args := k.args
	part := fmt.Sprintf("%%arg%d", len(args))
	args = append(args, "f32")
	zero := w.zeros(fT)
	sums := w.loop(images, repeat(zero, 9), repeat(fT, 9), func(j string, acc []string) []string {
		n := w.op("arith.addi %s, %s : i32", n0, j)
		valid := w.scmp("slt", n, g.N)
		// dyRow loads dy row hd of image n; masked where hd may pass the grid's last row.
		dyRow := func(hd string, past bool) string {
			ok := valid
			if past {
				ok = w.and(valid, w.scmp("slt", hd, g.HO))
			}
			off, mask := k.outRow(n, hd, ok)
			return w.toF32(w.op("tt.load %s, %s, %s : tensor<%sx%s>", w.ptrs("%arg1", e, off, k.shape), mask,
				w.zeros(mat(t.tw, bc, e)), k.shape, ptrOf(e)), e, k.shape)
		}
		u := t.unroll
		if tile.CarrySums {
			return k.kernelGradSums(n, valid, acc, dyRow)
		}
		init := append(k.firstWindow(n, w.i32(0), valid), acc...)
		res := w.loop(cdiv(g.HO, u), init, repeat(fT, len(init)), func(iv string, carried []string) []string {
			h := w.bin("muli", iv, u, "i32")
			rows, next := k.window(n, h, u, valid, carried)
			dys := make([]string, u)
			for d := range dys { // dy rows h … h + u − 1, loaded with the window's rows before any product
				dys[d] = dyRow(w.bin("addi", h, d, "i32"), g.HO%u != 0)
			}
			acc := carried[len(carried)-9:]
			for d, dy := range dys {
				for tap := range 9 {
					acc[tap] = w.mulAdd(acc[tap], dy, rows[d*g.S+tap/3][tap%3], fT)
				}
			}
			return append(next, acc...)
		})
		return res[len(res)-9:]
	})
	w.storeProgramRows(part, pid, k.c, k.cm, g.C, bc, w.sumTiles(sums, t.tw, bc))
	return triton.Kernel{Name: name, IR: w.module(name, args), Grid: [3]int{cdiv(g.N, images) * t.strips, cdiv(g.C, bc)},
		Warps: t.warps()}
}

// kernelGradSums is dK's walk down image n with RowTile.CarrySums: each input row is loaded once, with the dy rows
// it pairs with (input row h·S − 1 + i and dy row h + d at kernel row i − d·S), and the loop carries the 3 − S dy
// rows that the next rows pair with instead of 3 − S input rows' tiles. acc is the nine tap sums so far.
func (k *rowKernel) kernelGradSums(n, valid string, acc []string, dyRow func(hd string, past bool) string) []string {
	w, g, u, keep := k.w, k.g, k.t.unroll, 3-k.g.S
	fT := mat(k.t.tw, k.bc, "f32")
	// addPairs adds the products of window rows first … (input rows h·S − 1 + first …) with dy rows h + d.
	addPairs := func(acc []string, xs [][3]string, first int, dys []string) {
		for i, x := range xs {
			k.readers(first+i, len(dys), func(kh, d int) {
				for kw := range 3 {
					acc[kh*3+kw] = w.mulAdd(acc[kh*3+kw], dys[d], x[kw], fT)
				}
			})
		}
	}
	// Input rows −1 … 1 − S, above the first that the loop loads, with dy rows 0 … 2 − S.
	xs, dys := make([][3]string, keep), make([]string, keep)
	for i := range xs {
		xs[i] = k.tapRow(n, w.i32(0), i, valid)
	}
	for d := range dys {
		dys[d] = dyRow(w.i32(d), true)
	}
	acc = slices.Clone(acc)
	addPairs(acc, xs, 0, dys)
	init := append(dys, acc...)
	res := w.loop(cdiv(g.HO, u), init, repeat(fT, len(init)), func(iv string, carried []string) []string {
		h := w.bin("muli", iv, u, "i32")
		xs := make([][3]string, u*g.S) // input rows h·S + 2 − S …, then dy rows h + 3 − S …: all loads first
		for i := range xs {
			xs[i] = k.tapRow(n, h, keep+i, valid)
		}
		dys := slices.Clone(carried[:keep])
		for d := range u {
			dys = append(dys, dyRow(w.bin("addi", h, keep+d, "i32"), true))
		}
		acc := slices.Clone(carried[keep:])
		addPairs(acc, xs, keep, dys)
		return append(dys[u:], acc...)
	})
	return res[keep:]
}

// dwRowsInputGrad is dx by rows (dwGatherKernel's grad arguments and outputs: dy, K, then with g.BN and stats z,
// scale and shift, then dx — or g, ReLU6's gate applied — and the per-program sums Σg, Σg·z). Programs [n ·
// chunks · strips, C/bc] over dx's grid, each walking its rows S at a time: dx rows S·i … S·i + S − 1 read dy
// rows i − 1 … i + 1 (stride 1) or i, i + 1 (stride 2), so each iteration loads one new dy row, as three
// column-gathered tiles (dy column (q + 1 − kw)/S for tap column kw, where that divides), and carries the rest
// (with CarrySums: the partial sums of the next two dx rows instead). Against the gather it is faster on the two
// largest layers and slower on the narrow ones, the same in sum.
func dwRowsInputGrad(g dwGeometry, stats bool, tile RowTile) triton.Kernel {
	return buildRowsInputGrad(g, stats, false, false, tile)
}

// dwRowsInputKernelGrad is dwRowsInputGrad with batch norm's backward prologue (g.BN) that also makes dK
// (-model dw-kernel-grad=in-dx): one more output, dK's per-program partial sums [programs, 9, C] float32, after Σg
// and Σg·z. The dK kernel reads dy and z again — one pass over each of the layer's two activations, with its own
// three column-shifted loads of z a row and the prologue applied to each — to pair every input value x =
// ReLU6(z·scale + shift) with the dy values its taps reach. The dx kernel already holds both: z for the gate,
// and the window of dy rows that dx row r reads, as the tiles of tap columns kw (dy column (q + 1 − kw)/S). The
// same tile that dx multiplies by K[kh, kw] is the one dK[kh, kw] multiplies by x at row r:
//
//	dx[r, q] = Σ dy[(r + 1 − kh)/S, (q + 1 − kw)/S]·K[kh, kw],   dK[kh, kw] = Σ over r, q of the same dy · x[r, q],
//
// the sum taken where the divisions are exact. So each dx row adds nine products into nine [tw, bc] sums that the
// loop carries. It walks with dy rows' tiles (the window), not carried sums (CarrySums is ignored): dK needs the
// dy rows that each dx row pairs with while that row's x is in registers. Arguments: dy, K, z, scale, shift, then
// g, the sums and dK's sums.
func dwRowsInputKernelGrad(g dwGeometry, tile RowTile) triton.Kernel {
	tile.CarrySums = false
	return buildRowsInputGrad(g, true, true, false, tile)
}

// dwRowsInputKernelGradOut is dwRowsInputKernelGrad that also makes dy as it loads it (dyPrologue): the backward
// pass of the batch norm and ReLU6 after the layer, which XLA otherwise runs as a pass of its own that reads y and
// gp and writes dy for this kernel to read back. Arguments: gp (in dy's place), K, z, scale, shift, y, scale2,
// shift2, a, b, c, then g, the sums and dK's sums.
func dwRowsInputKernelGradOut(g dwGeometry, tile RowTile) triton.Kernel {
	tile.CarrySums = false
	return buildRowsInputGrad(g, true, true, true, tile)
}

func buildRowsInputGrad(g dwGeometry, stats, kernelGrad, outBN bool, tile RowTile) triton.Kernel {
	t := newRowTiling(g.H, g.W, tile)
	bc := t.bc
	t.wholeIterations(g.H, g.S) // an iteration loads t.unroll dy rows and writes S dx rows for each
	bnGrad := g.BN && stats
	name := "dw_input_grad_rows_" + g.String()
	if bnGrad {
		name = "dw_input_grad_rows_bn_" + g.String()
	}
	if kernelGrad = kernelGrad && bnGrad; kernelGrad {
		name = "dw_input_kernel_grad_rows_" + g.String()
	}
	if outBN = outBN && kernelGrad; outBN {
		name = "dw_input_kernel_grad_rows_out_" + g.String()
	}
	w := &ttWriter{}
	e, tw := g.Elem, t.tw
	shape, fT := fmt.Sprintf("%dx%d", tw, bc), mat(tw, bc, "f32")
	pid := w.op("tt.get_program_id x : i32")
	perImage := t.chunks * t.strips
	n := w.bin("divsi", pid, perImage, "i32")
	within := w.bin("remsi", pid, perImage, "i32")
	i0 := w.bin("muli", w.bin("divsi", within, t.strips, "i32"), t.rows/g.S, "i32") // first dy row index i
	k := newRowKernel(w, g, t, w.bin("remsi", within, t.strips, "i32"), true)
	args := k.args
	var scale, shift string
	if bnGrad {
		scale, shift = w.affineTiles(k.c, k.cm, "%arg3", "%arg4", tw, bc)
		args = append(args, e, "f32", "f32")
	}
	if outBN {
		v := w.channelTiles(k.c, k.cm, tw, bc, "%arg6", "%arg7", "%arg8", "%arg9", "%arg10")
		k.dyFrom = &dyPrologue{yArg: "%arg5", scale2: v[0], shift2: v[1], a: v[2], b: v[3], c: v[4]}
		args = append(args, e, "f32", "f32", "f32", "f32", "f32")
	}
	dst := fmt.Sprintf("%%arg%d", len(args))
	args = append(args, e)
	taps := k.taps("%arg1")
	zero := w.zeros(fT)
	// dyRow loads dy row i (an i32 scalar; outside [0, HO) it is zero) as the three tiles of tap columns kw.
	dyRow := func(i string) []string {
		row := k.sourceRow(n, i, "")
		return row[:]
	}
	// The window of dy rows i + lo … i + 1 that dx rows S·i … S·i + S − 1 read: lo = −1 for stride 1, 0 for 2.
	lo := g.S - 2
	// addDy adds the products of dy row i + rel (its three tap-column tiles) to sums[ρ], the sum of dx row S·i + ρ,
	// for each ρ that reads it (kernel row ρ + 1 − S·rel): RowTile.CarrySums.
	addDy := func(sums, row []string, rel int) {
		for kh := range 3 {
			if ρ := g.S*rel + kh - 1; ρ >= 0 && ρ < len(sums) {
				for kw := range 3 {
					sums[ρ] = w.mulAdd(sums[ρ], row[kw], taps[kh*3+kw], fT)
				}
			}
		}
	}
	var init []string
	if tile.CarrySums { // the partial sums of dx rows S·i0 and S·i0 + 1 over dy rows i0 + lo … i0
		init = make([]string, 2)
		for off := lo; off < 1; off++ {
			addDy(init, dyRow(w.bin("addi", i0, off, "i32")), off)
		}
	} else {
		for off := lo; off < 1; off++ {
			init = append(init, dyRow(w.bin("addi", i0, off, "i32"))...)
		}
	}
	kept, u := len(init), t.unroll
	if bnGrad {
		init = append(init, zero, zero)
	}
	if kernelGrad {
		init = append(init, repeat(zero, 9)...)
	}
	res := w.loop(t.rows/(g.S*u), init, repeat(fT, len(init)), func(iv string, carried []string) []string {
		i := w.op("arith.addi %s, %s : i32", i0, w.bin("muli", iv, u, "i32"))
		var window, dxSums, next []string
		if tile.CarrySums { // dy rows i + 1 … i + u, all loaded before any product, each then added where it goes
			rows := make([][]string, u)
			for d := range rows {
				rows[d] = dyRow(w.bin("addi", i, 1+d, "i32"))
			}
			dxSums = make([]string, g.S*u+2)
			copy(dxSums, carried[:kept])
			for d, row := range rows {
				addDy(dxSums, row, 1+d)
			}
			next = dxSums[g.S*u:]
		} else {
			window = append([]string(nil), carried[:kept]...)
			for d := range u { // dy rows i + 1 … i + u, loaded before any product
				window = append(window, dyRow(w.bin("addi", i, 1+d, "i32"))...)
			}
			next = window[3*u:]
		}
		var sums, dK []string
		if bnGrad {
			sums = carried[kept : kept+2]
		}
		if kernelGrad {
			dK = slices.Clone(carried[kept+2:])
		}
		// dx rows r = S·i + p: their offsets, and z where the gate needs it. With an unroll set, z's loads come before
		// the first product or store: a load written after a store to another argument may have to stay after it
		// (nothing tells the compiler the two do not overlap), and then each row's z is a round trip of its own.
		type dxRow struct{ off, mask, z string }
		out := make([]dxRow, g.S*u)
		loadZ := func(d *dxRow) {
			d.z = w.toF32(w.op("tt.load %s, %s, %s : tensor<%sx%s>", w.ptrs("%arg2", e, d.off, shape), d.mask, k.other,
				shape, ptrOf(e)), e, shape)
		}
		for p := range out {
			r := w.bin("addi", w.bin("muli", i, g.S, "i32"), p, "i32")
			out[p].off, out[p].mask = k.outRow(n, r, w.scmp("slt", r, g.H))
			if bnGrad && tile.Unroll > 0 {
				loadZ(&out[p])
			}
		}
		for p, o := range out {
			acc, x := "", ""
			if kernelGrad { // x = ReLU6(z·scale + shift), 0 outside the layer, for dK's products
				if o.z == "" {
					loadZ(&o)
				}
				x = w.op("arith.select %s, %s, %s : tensor<%sxi1>, %s", o.mask, w.bnReLU6(o.z, scale, shift, shape), zero,
					shape, fT)
			}
			if dxSums != nil {
				acc = dxSums[p]
			} else {
				for kh := range 3 {
					if (p%g.S+1-kh)%g.S != 0 {
						continue
					}
					row := p/g.S + (p%g.S+1-kh)/g.S - lo // the window row: dy row i + ⌊p/S⌋ + (p mod S + 1 − kh)/S
					for kw := range 3 {
						acc = w.mulAdd(acc, window[3*row+kw], taps[kh*3+kw], fT)
						if kernelGrad {
							dK[kh*3+kw] = w.mulAdd(dK[kh*3+kw], window[3*row+kw], x, fT)
						}
					}
				}
			}
			dx := w.fromF32(acc, e, shape)
			if bnGrad { // g = dx where 0 < z·scale + shift < 6, and its sums with z
				if o.z == "" {
					loadZ(&o)
				}
				gq := w.reluGate(w.toF32(dx, e, shape), o.z, scale, shift, shape)
				gq = w.op("arith.select %s, %s, %s : tensor<%sxi1>, %s", o.mask, gq, zero, shape, fT)
				dx = w.fromF32(gq, e, shape)
				sums = []string{w.op("arith.addf %s, %s : %s", sums[0], gq, fT), w.mulAdd(sums[1], gq, o.z, fT)}
			}
			w.line("tt.store %s, %s, %s : tensor<%sx%s>", w.ptrs(dst, e, o.off, shape), dx, o.mask, shape, ptrOf(e))
		}
		return append(append(next, sums...), dK...)
	})
	if bnGrad {
		w.storeProgramRows(fmt.Sprintf("%%arg%d", len(args)), pid, k.c, k.cm, g.C, bc, w.sumTiles(res[kept:kept+2], tw, bc))
		args = append(args, "f32")
	}
	if kernelGrad {
		w.storeProgramRows(fmt.Sprintf("%%arg%d", len(args)), pid, k.c, k.cm, g.C, bc, w.sumTiles(res[kept+2:], tw, bc))
		args = append(args, "f32")
	}
	return triton.Kernel{Name: name, IR: w.module(name, args), Grid: [3]int{g.N * perImage, cdiv(g.C, bc)}, Warps: t.warps()}
}
