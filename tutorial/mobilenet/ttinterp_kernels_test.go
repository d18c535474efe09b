package mobilenet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
)

// The depthwise kernels run by the IR interpreter (ttinterp_test.go) against the float64 references: the checks
// of TestDepthwiseTritonMatchesReference and TestBNPrologueMatchesReference that need no GPU.

// ttGeometries are small layers: strides 1 and 2, odd sizes, channel counts that leave a partial channel block,
// row kernels' chunks that end past the last row (forward: 9 and 13 output rows; dx: 26 input rows), and wide
// rows (the gather kernels' tiles of 8 columns, newTiling).
func ttGeometries(elem string, bn bool) []dwGeometry {
	var out []dwGeometry
	for _, s := range [][5]int{{2, 9, 9, 40, 1}, {2, 9, 9, 40, 2}, {1, 7, 6, 24, 1}, {1, 18, 14, 16, 1}, {1, 19, 17, 16, 2},
		{1, 26, 13, 24, 2}, {2, 8, 56, 16, 1}, {2, 16, 112, 8, 2}} {
		n, h, w, c, st := s[0], s[1], s[2], s[3], s[4]
		out = append(out, dwGeometry{N: n, H: h, W: w, C: c, HO: (h-1)/st + 1, WO: (w-1)/st + 1, S: st, Elem: elem, BN: bn})
	}
	return out
}

// ttData is a layer's random inputs, rounded to the element type, and the float64 references.
type ttData struct {
	x, k, v      []float64 // x is z with g.BN; v is dy
	scale, shift []float64 // g.BN
	pass         []bool    // g.BN: 0 < z·scale + shift < 6
	act          []float64 // what the layer convolves: x, or with g.BN ReLU6(z·scale + shift)
	y, dx, dk    []float64
}

func newTTData(g dwGeometry) *ttData {
	rng := rand.New(rand.NewPCG(uint64(g.N*g.H*g.W*g.C), uint64(g.S)))
	round := func(s []float64) []float64 {
		for i := range s {
			s[i] = ttRound(g.Elem, s[i])
		}
		return s
	}
	d := &ttData{x: round(randSlice(rng, g.N*g.H*g.W*g.C)), k: round(randSlice(rng, 9*g.C))}
	act := d.x
	if g.BN { // z·scale + shift reaches past both 0 and 6, but not within 0.2 of either, where rounding decides the gate
		d.scale, d.shift = randSlice(rng, g.C), randSlice(rng, g.C)
		for c := range d.scale {
			d.scale[c], d.shift[c] = ttRound("f32", 3*d.scale[c]), ttRound("f32", 3+2*d.shift[c])
		}
		act, d.pass = make([]float64, len(d.x)), make([]bool, len(d.x))
		for i := range d.x {
			pre := d.x[i]*d.scale[i%g.C] + d.shift[i%g.C]
			for math.Abs(pre) < 0.2 || math.Abs(pre-6) < 0.2 {
				d.x[i] = ttRound(g.Elem, rng.NormFloat64())
				pre = d.x[i]*d.scale[i%g.C] + d.shift[i%g.C]
			}
			act[i], d.pass[i] = min(max(pre, 0), 6), pre > 0 && pre < 6
		}
	}
	var oh, ow int
	d.act = act
	d.y, oh, ow = refDepthwise(act, g.N, g.H, g.W, g.C, d.k, 3, 3, g.S)
	if oh != g.HO || ow != g.WO {
		panic(fmt.Sprintf("%s: output %dx%d", g, oh, ow))
	}
	d.v = round(randSlice(rng, len(d.y)))
	d.dx, d.dk = refDepthwiseGrads(act, g.N, g.H, g.W, g.C, d.k, d.v, oh, ow, g.S)
	return d
}

// inputs is x (or z), then second (K or dy), then with g.BN scale and shift.
func (d *ttData) inputs(g dwGeometry, second []float64) [][]float64 {
	if g.BN {
		return [][]float64{d.x, second, d.scale, d.shift}
	}
	return [][]float64{d.x, second}
}

// ttOutput is an output buffer of n elements, NaN until the kernel writes it.
func ttOutput(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}

// ttSumPrograms adds up per-program partial sums [programs, size] into [size].
func ttSumPrograms(part []float64, size int) []float64 {
	out := make([]float64, size)
	for i, v := range part {
		out[i%size] += v
	}
	return out
}

// ttErr is the largest error |got − want| (NaN counting as infinite) relative to the largest |want|, and where.
func ttErr(got, want []float64) (rel float64, worst int) {
	var num, den float64
	for i := range want {
		e := math.Abs(got[i] - want[i])
		if math.IsNaN(e) {
			e = math.Inf(1)
		}
		if e > num {
			num, worst = e, i
		}
		den = max(den, math.Abs(want[i]))
	}
	return num / den, worst
}

// ttCheck compares got with want, naming the worst element by its index in dims.
func ttCheck(t *testing.T, what string, got, want []float64, tol float64, dims ...int) {
	t.Helper()
	rel, i := ttErr(got, want)
	if rel < tol {
		return
	}
	idx := make([]int, len(dims))
	for j, rest := len(dims)-1, i; j >= 0; j-- {
		idx[j], rest = rest%dims[j], rest/dims[j]
	}
	t.Errorf("%s: element %v (flat %d) is %g, want %g: max relative error %.3g ≥ %.1g", what, idx, i, got[i], want[i], rel, tol)
}

var ttTol = map[string]float64{"f32": 1e-5, "bf16": 2e-2, "f16": 3e-3}

// ttForward runs a forward kernel and checks y and, with stats, the sums Σy and Σy² per channel.
func ttForward(t *testing.T, g dwGeometry, k triton.Kernel, stats bool) {
	d := newTTData(g)
	y := ttOutput(len(d.y))
	bufs := append(d.inputs(g, d.k), y)
	var sums []float64
	if stats {
		sums = ttOutput(k.Grid[0] * 2 * g.C)
		bufs = append(bufs, sums)
	}
	mustRunTT(t, k, bufs...)
	ttCheck(t, "y", y, d.y, ttTol[g.Elem], g.N, g.HO, g.WO, g.C)
	if stats {
		want := make([]float64, 2*g.C)
		for i, v := range d.y {
			want[i%g.C] += v
			want[g.C+i%g.C] += v * v
		}
		ttCheck(t, "Σy, Σy²", ttSumPrograms(sums, 2*g.C), want, ttTol[g.Elem], 2, g.C)
	}
}

func testTTForward(t *testing.T, geometries []dwGeometry) {
	for _, g := range geometries {
		for _, stats := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stats=%v/gather", g, stats), func(t *testing.T) {
				ttForward(t, g, dwGatherKernel(g, false, stats, gatherPixels, gatherChannels), stats)
			})
			t.Run(fmt.Sprintf("%s/stats=%v/rows", g, stats), func(t *testing.T) {
				ttForward(t, g, dwRowsForward(g, stats, RowTile{}), stats)
			})
			t.Run(fmt.Sprintf("%s/stats=%v/rows-carry", g, stats), func(t *testing.T) {
				ttForward(t, g, dwRowsForward(g, stats, RowTile{CarrySums: true}), stats)
			})
		}
	}
}

// TestTTInterpForward: y = x ⊛ K, and the per-program sums of y and y², by the gather and row kernels (the latter
// also with RowTile.CarrySums).
func TestTTInterpForward(t *testing.T) { testTTForward(t, ttGeometries("f32", false)) }

// TestTTInterpForwardBN: the same with the prologue (dw-prologue=bn-relu6): the input is z and the kernels convolve
// ReLU6(z·scale + shift), with padding 0 in the activation.
func TestTTInterpForwardBN(t *testing.T) { testTTForward(t, ttGeometries("f32", true)) }

// TestTTInterpKernelGrad: dK, the partial sums [programs, 9, C] added up, by the gather kernel (with the splits
// and chunks depthwiseKernelGradTriton picks, and with three chunks a program, whose last split runs past the
// tiles) and by the row kernel (one and two images a program; two with carried dy rows), without and with the
// prologue.
func TestTTInterpKernelGrad(t *testing.T) {
	for _, bn := range []bool{false, true} {
		for _, g := range ttGeometries("f32", bn) {
			tiles := newTiling(g.N, g.HO, g.WO, dkPixels).tiles()
			chunks := cdiv(tiles, max(1, dkPrograms/cdiv(g.C, dkChannels)))
			for _, k := range []struct {
				name string
				k    triton.Kernel
			}{
				{"gather", dwKernelGradKernel(g, dkPixels, dkChannels, cdiv(tiles, chunks), chunks)},
				{"gather-chunks=3", dwKernelGradKernel(g, dkPixels, dkChannels, cdiv(tiles, 3), 3)},
				{"rows-images=1", dwRowsKernelGrad(g, RowTile{}, 1)},
				{"rows-images=2", dwRowsKernelGrad(g, RowTile{}, 2)},
				{"rows-carry-images=2", dwRowsKernelGrad(g, RowTile{CarrySums: true}, 2)},
			} {
				t.Run(g.String()+"/"+k.name, func(t *testing.T) { ttKernelGrad(t, g, k.k) })
			}
		}
	}
}

// ttKernelGrad runs a dK kernel (arguments x or z, dy, with g.BN scale and shift, then the partial sums).
func ttKernelGrad(t *testing.T, g dwGeometry, k triton.Kernel) {
	d := newTTData(g)
	part := ttOutput(k.Grid[0] * 9 * g.C)
	mustRunTT(t, k, append(d.inputs(g, d.v), part)...)
	ttCheck(t, "dK", ttSumPrograms(part, 9*g.C), d.dk, ttTol[g.Elem], 9, g.C)
}

// TestTTInterpInputGrad: dx by the gather kernel over input pixels and by the row kernel (also with carried sums).
func TestTTInterpInputGrad(t *testing.T) {
	for _, g := range ttGeometries("f32", false) {
		for _, tiling := range []string{"gather", "rows", "rows-carry"} {
			t.Run(g.String()+"/"+tiling, func(t *testing.T) {
				k := dwGatherKernel(g, true, false, gatherPixels, gatherChannels)
				if tiling != "gather" {
					k = dwRowsInputGrad(g, false, RowTile{CarrySums: tiling == "rows-carry"})
				}
				d := newTTData(g)
				dx := ttOutput(len(d.dx))
				mustRunTT(t, k, d.v, d.k, dx)
				ttCheck(t, "dx", dx, d.dx, ttTol[g.Elem], g.N, g.H, g.W, g.C)
			})
		}
	}
}

// ttInputGradBN runs a dx kernel with batch norm's backward prologue (arguments dy, K, z, scale, shift, then g and
// the sums): g is dx where 0 < z·scale + shift < 6, else 0, and the sums are Σg and Σg·z per channel.
func ttInputGradBN(t *testing.T, g dwGeometry, k triton.Kernel) {
	d := newTTData(g)
	want, sums := make([]float64, len(d.dx)), make([]float64, 2*g.C)
	for i, v := range d.dx {
		if d.pass[i] {
			want[i] = v
			sums[i%g.C] += v
			sums[g.C+i%g.C] += v * d.x[i]
		}
	}
	gate, part := ttOutput(len(d.dx)), ttOutput(k.Grid[0]*2*g.C)
	mustRunTT(t, k, d.v, d.k, d.x, d.scale, d.shift, gate, part)
	ttCheck(t, "g", gate, want, ttTol[g.Elem], g.N, g.H, g.W, g.C)
	ttCheck(t, "Σg, Σg·z", ttSumPrograms(part, 2*g.C), sums, ttTol[g.Elem], 2, g.C)
}

// ttInputKernelGrad runs dx with batch norm's backward prologue and dK in one kernel (dwRowsInputKernelGrad:
// arguments dy, K, z, scale, shift, then g, the sums and dK's partial sums): g and the sums as ttInputGradBN
// checks them, and dK as ttKernelGrad does.
func ttInputKernelGrad(t *testing.T, g dwGeometry, k triton.Kernel) {
	d := newTTData(g)
	ttCheckInputKernelGrad(t, g, k, d, d.v, d.k, d.x, d.scale, d.shift)
}

// ttCheckInputKernelGrad runs a merged kernel on inputs and checks g, the sums and dK against d's references.
func ttCheckInputKernelGrad(t *testing.T, g dwGeometry, k triton.Kernel, d *ttData, inputs ...[]float64) {
	want, sums := make([]float64, len(d.dx)), make([]float64, 2*g.C)
	for i, v := range d.dx {
		if d.pass[i] {
			want[i] = v
			sums[i%g.C] += v
			sums[g.C+i%g.C] += v * d.x[i]
		}
	}
	gate, part, dk := ttOutput(len(d.dx)), ttOutput(k.Grid[0]*2*g.C), ttOutput(k.Grid[0]*9*g.C)
	mustRunTT(t, k, append(inputs, gate, part, dk)...)
	ttCheck(t, "g", gate, want, ttTol[g.Elem], g.N, g.H, g.W, g.C)
	ttCheck(t, "Σg, Σg·z", ttSumPrograms(part, 2*g.C), sums, ttTol[g.Elem], 2, g.C)
	ttCheck(t, "dK", ttSumPrograms(dk, 9*g.C), d.dk, ttTol[g.Elem], 9, g.C)
}

// ttInputKernelGradOut runs dwRowsInputKernelGradOut: dy made as it loads from y and gp (the gradient of
// ReLU6(batch norm(y)) after the layer) as dy = a·(gp where 0 < y·scale2 + shift2 < 6) + b·y + c per channel, then
// checked as ttInputKernelGrad checks a loaded dy. y·scale2 + shift2 stays 0.2 away from 0 and 6, where rounding
// would decide the gate.
func ttInputKernelGradOut(t *testing.T, g dwGeometry, k triton.Kernel) {
	d := newTTData(g)
	rng := rand.New(rand.NewPCG(uint64(g.C), uint64(g.N*g.HO)))
	perChannel := func(mul, add float64) []float64 {
		v := randSlice(rng, g.C)
		for c := range v {
			v[c] = ttRound("f32", add+mul*v[c])
		}
		return v
	}
	scale2, shift2, a, b, c := perChannel(3, 0), perChannel(2, 3), perChannel(1, 0), perChannel(1, 0), perChannel(1, 0)
	gp, y := make([]float64, len(d.v)), make([]float64, len(d.v))
	for i := range d.v {
		ch := i % g.C
		gp[i] = ttRound(g.Elem, rng.NormFloat64())
		pre := 0.0
		for pre = 0; math.Abs(pre) < 0.2 || math.Abs(pre-6) < 0.2; pre = y[i]*scale2[ch] + shift2[ch] {
			y[i] = ttRound(g.Elem, rng.NormFloat64())
		}
		gated := 0.0
		if pre > 0 && pre < 6 {
			gated = gp[i]
		}
		d.v[i] = a[ch]*gated + b[ch]*y[i] + c[ch]
	}
	d.dx, d.dk = refDepthwiseGrads(d.act, g.N, g.H, g.W, g.C, d.k, d.v, g.HO, g.WO, g.S)
	ttCheckInputKernelGrad(t, g, k, d, gp, d.k, d.x, d.scale, d.shift, y, scale2, shift2, a, b, c)
}

// withMergedTableTiles is tiles and each of rowTileTable's tiles for the merged dx + dK kernel, with the loop
// settings FastestDepthwise gives them.
func withMergedTableTiles(tiles []RowTile) []RowTile {
	loop := FastestDepthwise().RowTile
	for site, tile := range rowTileTable {
		tile.Unroll, tile.CarrySums = loop.Unroll, loop.CarrySums
		if site.kind == rowsInputKernelGrad && !slices.Contains(tiles, tile) {
			tiles = append(tiles, tile)
		}
	}
	return tiles
}

// TestTTInterpInputKernelGradOut: the merged kernel with dy made as it loads (dwRowsInputKernelGradOut), with
// the default tile, tiles that unroll, take one or three rows a program and narrow strips, and rowTileTable's
// tiles for the merged kernel (which it takes too); in bfloat16 too.
func TestTTInterpInputKernelGradOut(t *testing.T) {
	tiles := withMergedTableTiles([]RowTile{{}, {Unroll: 2}, {Unroll: 3, Rows: 4}, {Channels: 16, Width: 8, Rows: 3, PerThread: 2}})
	for _, g := range ttGeometries("f32", true) {
		for _, tile := range tiles {
			name := fmt.Sprintf("%s/%dx%dr%dp%du%d", g, tile.Width, tile.Channels, tile.Rows, tile.PerThread, tile.Unroll)
			t.Run(name, func(t *testing.T) { ttInputKernelGradOut(t, g, dwRowsInputKernelGradOut(g, tile)) })
		}
	}
	for _, g := range ttGeometries("bf16", true)[:2] {
		t.Run(g.String(), func(t *testing.T) { ttInputKernelGradOut(t, g, dwRowsInputKernelGradOut(g, RowTile{Unroll: 2})) })
	}
}

// TestTTInterpInputKernelGrad: dx, its gate and sums, and dK from one row kernel (dw-kernel-grad=in-dx), with the
// default tile and with tiles that unroll, take one or three rows a program, narrow and wide strips, and ask for
// carried sums (which this kernel ignores), and each of rowTileTable's tiles for this kernel with the loop settings
// FastestDepthwise gives them; in bfloat16 too.
func TestTTInterpInputKernelGrad(t *testing.T) {
	tiles := withMergedTableTiles([]RowTile{{}, {Unroll: 2}, {Unroll: 3, Rows: 4}, {Channels: 16, Width: 8, Rows: 3, PerThread: 2},
		{Channels: 8, Width: 32, Rows: 1, PerThread: 1}, {CarrySums: true, Unroll: 2}})
	for _, g := range ttGeometries("f32", true) {
		for _, tile := range tiles {
			name := fmt.Sprintf("%s/%dx%dr%dp%du%dc%t", g, tile.Width, tile.Channels, tile.Rows, tile.PerThread, tile.Unroll, tile.CarrySums)
			t.Run(name, func(t *testing.T) { ttInputKernelGrad(t, g, dwRowsInputKernelGrad(g, tile)) })
		}
	}
	for _, g := range ttGeometries("bf16", true)[:2] {
		t.Run(g.String(), func(t *testing.T) { ttInputKernelGrad(t, g, dwRowsInputKernelGrad(g, RowTile{Unroll: 2})) })
	}
}

// TestTTInterpInputGradBN: dx gated by ReLU6's gradient, and batch norm's backward sums, by both kernels.
func TestTTInterpInputGradBN(t *testing.T) {
	for _, g := range ttGeometries("f32", true) {
		t.Run(g.String()+"/gather", func(t *testing.T) {
			ttInputGradBN(t, g, dwGatherKernel(g, true, true, gatherPixels, gatherChannels))
		})
		t.Run(g.String()+"/rows", func(t *testing.T) { ttInputGradBN(t, g, dwRowsInputGrad(g, true, RowTile{})) })
	}
}

// TestTTInterpRowTiles: the row kernels with tiles other than the default (the -model dw-row-… settings): narrow
// and wide channel blocks, strips narrower than the layer and wider than it, one to three rows a program, one to
// four rows a loop iteration with their loads first (heights they do not divide), and each tile of rowTileTable
// (dw-row-tiles=per-layer) — the forward pass with stats, gated dx and dK, with the prologue.
func TestTTInterpRowTiles(t *testing.T) {
	tiles := []RowTile{{Channels: 16, Width: 8, Rows: 3, PerThread: 2}, {Channels: 64, Width: 4, Rows: 1, PerThread: 8},
		{Channels: 8, Width: 32, Rows: 2, PerThread: 1}, {Unroll: 1}, {Unroll: 2}, {Unroll: 3, Rows: 4}, {Unroll: 4, Width: 8, Channels: 16},
		{CarrySums: true}, {CarrySums: true, Unroll: 2}, {CarrySums: true, Unroll: 3, Rows: 4, Width: 8}}
	for _, tile := range rowTileTable {
		if !slices.Contains(tiles, tile) {
			tiles = append(tiles, tile)
		}
	}
	for _, tile := range tiles {
		for _, g := range ttGeometries("f32", true)[:6] {
			name := fmt.Sprintf("%s/%dx%dr%dp%du%dc%t", g, tile.Width, tile.Channels, tile.Rows, tile.PerThread, tile.Unroll, tile.CarrySums)
			t.Run(name+"/forward", func(t *testing.T) { ttForward(t, g, dwRowsForward(g, true, tile), true) })
			t.Run(name+"/dx", func(t *testing.T) { ttInputGradBN(t, g, dwRowsInputGrad(g, true, tile)) })
			t.Run(name+"/dK", func(t *testing.T) { ttKernelGrad(t, g, dwRowsKernelGrad(g, tile, 1)) })
		}
	}
}

// TestTTInterpLowPrecision: bfloat16 and float16 layers (loads and stores rounded to the type; the prologue's
// padding values made by truncf), forward with stats, dK and gated dx, all with the prologue.
func TestTTInterpLowPrecision(t *testing.T) {
	for _, elem := range []string{"bf16", "f16"} {
		for _, g := range ttGeometries(elem, true)[:2] {
			t.Run(g.String()+"/forward/gather", func(t *testing.T) {
				ttForward(t, g, dwGatherKernel(g, false, true, gatherPixels, gatherChannels), true)
			})
			t.Run(g.String()+"/forward/rows", func(t *testing.T) { ttForward(t, g, dwRowsForward(g, true, RowTile{}), true) })
			t.Run(g.String()+"/dx/gather", func(t *testing.T) {
				ttInputGradBN(t, g, dwGatherKernel(g, true, true, gatherPixels, gatherChannels))
			})
			t.Run(g.String()+"/dx/rows", func(t *testing.T) { ttInputGradBN(t, g, dwRowsInputGrad(g, true, RowTile{})) })
			t.Run(g.String()+"/dK/gather", func(t *testing.T) {
				ttKernelGrad(t, g, dwKernelGradKernel(g, dkPixels, dkChannels, newTiling(g.N, g.HO, g.WO, dkPixels).tiles(), 1))
			})
			t.Run(g.String()+"/dK/rows", func(t *testing.T) { ttKernelGrad(t, g, dwRowsKernelGrad(g, RowTile{}, 1)) })
		}
	}
}

// TestTTInterpSemantics checks the interpreter itself on a hand-written kernel: i32 division truncates and
// wraps, maxnumf and minnumf skip a NaN, ordered comparisons with a NaN are false, f32 arithmetic rounds, the
// reduction sums, and stores round to bf16.
func TestTTInterpSemantics(t *testing.T) {
	ir := `module {
  tt.func public @semantics(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %0 = arith.constant -7 : i32
    %1 = arith.constant 2 : i32
    %2 = arith.divsi %0, %1 : i32
    %3 = arith.remsi %0, %1 : i32
    %4 = arith.constant 65536 : i32
    %5 = arith.muli %4, %4 : i32
    %6 = arith.subi %5, %2 : i32
    %7 = arith.addi %6, %3 : i32
    %8 = tt.splat %7 : i32 -> tensor<2xi32>
    %9 = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %10 = arith.addi %8, %9 : tensor<2xi32>
    %11 = arith.constant dense<0x7FC00000> : tensor<2xf32>
    %12 = arith.constant dense<1.500000e+00> : tensor<2xf32>
    %13 = arith.maxnumf %11, %12 : tensor<2xf32>
    %14 = arith.minnumf %13, %11 : tensor<2xf32>
    %15 = arith.cmpf olt, %11, %12 : tensor<2xf32>
    %16 = arith.select %15, %11, %14 : tensor<2xi1>, tensor<2xf32>
    %17 = arith.constant dense<1.000000e-08> : tensor<2xf32>
    %18 = arith.addf %16, %17 : tensor<2xf32>
    %19 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<2x!tt.ptr<f32>>
    %20 = tt.addptr %19, %10 : tensor<2x!tt.ptr<f32>>, tensor<2xi32>
    %21 = arith.constant dense<1> : tensor<2xi32>
    %22 = arith.cmpi slt, %9, %21 : tensor<2xi32>
    tt.store %20, %18, %22 : tensor<2x!tt.ptr<f32>>
    %23 = arith.constant dense<1.010000e+00> : tensor<2x2xf32>
    %24 = "tt.reduce"(%23) <{axis = 0 : i32}> ({
    ^bb0(%l25: f32, %r25: f32):
      %s25 = arith.addf %l25, %r25 : f32
      tt.reduce.return %s25 : f32
    }) : (tensor<2x2xf32>) -> tensor<2xf32>
    %26 = arith.truncf %24 : tensor<2xf32> to tensor<2xbf16>
    %27 = tt.splat %arg1 : !tt.ptr<bf16> -> tensor<2x!tt.ptr<bf16>>
    %28 = tt.addptr %27, %9 : tensor<2x!tt.ptr<bf16>>, tensor<2xi32>
    %29 = arith.cmpi sge, %9, %9 : tensor<2xi32>
    tt.store %28, %26, %29 : tensor<2x!tt.ptr<bf16>>
    tt.return
  }
}
`
	a, b := []float64{0, 0, 0, 0}, []float64{0, 0}
	mustRunTT(t, triton.Kernel{Name: "semantics", IR: ir}, a, b)
	// −7/2 = −3 and −7 % 2 = −1 (truncated), 65536² wraps to 0: the store lands at 0 + 3 − 1 = 2, its second
	// element masked off; 1.5 + 1e-8 rounds to 1.5 in f32; 1.01 + 1.01 = 2.02 rounds to 2.015625 in bf16.
	if want := []float64{0, 0, 1.5, 0}; fmt.Sprint(a) != fmt.Sprint(want) {
		t.Errorf("f32 buffer %v, want %v", a, want)
	}
	if b[0] != 2.015625 || b[1] != 2.015625 {
		t.Errorf("bf16 buffer %v, want 2.015625 twice", b)
	}
}

// TestTTInterpCatchesBrokenKernels: the interpreter's checks fail on broken kernels — a tap reading the wrong
// neighbour, a channel mask past the last channel (out-of-bounds loads), overlapping program tiles (elements
// stored twice) and an operation it does not know.
func TestTTInterpCatchesBrokenKernels(t *testing.T) {
	g := dwGeometry{N: 2, H: 9, W: 9, C: 40, HO: 9, WO: 9, S: 1, Elem: "f32"}
	d := newTTData(g)
	broken := func(k triton.Kernel, from, to string) triton.Kernel {
		if !strings.Contains(k.IR, from) {
			t.Fatalf("%s has no %q", k.Name, from)
		}
		k.IR = strings.Replace(k.IR, from, to, 1)
		return k
	}
	// The first tap row reads input row r instead of r − 1.
	k := broken(dwGatherKernel(g, false, false, gatherPixels, gatherChannels), "arith.constant dense<-1> : tensor<64xi32>",
		"arith.constant dense<0> : tensor<64xi32>")
	y := ttOutput(len(d.y))
	mustRunTT(t, k, d.x, d.k, y)
	if rel, _ := ttErr(y, d.y); !(rel > 0.1) {
		t.Errorf("a kernel reading the wrong neighbour passes: relative error %.3g", rel)
	}
	bn := g
	bn.BN = true
	for _, tc := range []struct {
		k             triton.Kernel
		from, to, msg string
	}{
		{dwRowsForward(g, false, RowTile{}), "arith.constant dense<40> : tensor<32xi32>", "arith.constant dense<64> : tensor<32xi32>",
			"outside"},
		{dwGatherKernel(g, false, false, gatherPixels, gatherChannels), "arith.constant 64 : i32", "arith.constant 32 : i32",
			"a second time"},
		{dwRowsForward(bn, false, RowTile{}), "arith.maxnumf", "arith.maximumf", `unknown operation "arith.maximumf"`},
	} {
		k := broken(tc.k, tc.from, tc.to)
		bufs := [][]float64{d.x, d.k, ttOutput(len(d.y))}
		if strings.HasSuffix(k.Name, "_bn") { // scale and shift
			bufs = [][]float64{d.x, d.k, d.k[:g.C], d.k[:g.C], ttOutput(len(d.y))}
		}
		if err := runTT(k, bufs...); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s with %q for %q: error %v, want one saying %q", k.Name, tc.to, tc.from, err, tc.msg)
		} else {
			t.Logf("%s with %q for %q: %v", k.Name, tc.to, tc.from, err)
		}
	}
}
