package mobilenet

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestDepthwiseIRIsWellFormed checks what can be checked of the kernels' Triton IR without a GPU: every SSA value
// is defined before it is used, braces and parentheses balance, the function takes the pointer arguments the
// custom call passes, and the launch grid covers every pixel tile and channel block. (The GPU test binary checks
// that XLA compiles the IR and that the kernels compute the convolution.)
func TestDepthwiseIRIsWellFormed(t *testing.T) {
	if bad := undefinedValues("module {\n    %0 = arith.addi %1, %arg0 : i32\n    %1 = arith.constant 1 : i32\n}", 1); len(bad) != 1 {
		t.Fatalf("the checker finds %v in IR that uses %%1 before defining it", bad)
	}
	loopIR := "    %2 = arith.constant 0 : i32\n    %3:1 = scf.for %iv3 = %2 to %2 step %2 iter_args(%c3_0 = %2) -> (i32) : i32 {\n" +
		"    %4 = arith.addi %c3_0, %iv3 : i32\n    scf.yield %4 : i32\n    }\n    %5 = arith.addi %3#0, %4 : i32\n"
	if bad := undefinedValues(loopIR, 0); len(bad) != 1 || !strings.Contains(bad[0], "%4 where") {
		t.Fatalf("the checker finds %v in IR that uses a loop body's value after the loop", bad)
	}
	for _, g := range []dwGeometry{
		{N: 128, H: 112, W: 112, C: 32, HO: 112, WO: 112, S: 1, Elem: "bf16"},
		{N: 128, H: 112, W: 112, C: 96, HO: 56, WO: 56, S: 2, Elem: "bf16"},
		{N: 3, H: 7, W: 6, C: 70, HO: 7, WO: 6, S: 1, Elem: "f32"},
		{N: 2, H: 9, W: 9, C: 40, HO: 5, WO: 5, S: 2, Elem: "f16"},
	} {
		bn := g
		bn.BN = true
		rows, dxRows := newRowTiling(g.HO, g.WO, RowTile{}), newRowTiling(g.H, g.W, RowTile{})
		dxChunks := cdiv(g.H, cdiv(dxRows.rows, g.S)*g.S)
		for _, k := range []struct {
			name  string
			ir    string
			args  int
			grid  [3]int
			tiles int
		}{
			{"forward", dwGatherKernel(g, false, false, 64, 32).IR, 3, dwGatherKernel(g, false, false, 64, 32).Grid, newTiling(g.N, g.HO, g.WO, 64).tiles()},
			{"forward+stats", dwGatherKernel(g, false, true, 64, 32).IR, 4, dwGatherKernel(g, false, true, 64, 32).Grid, newTiling(g.N, g.HO, g.WO, 64).tiles()},
			{"input grad", dwGatherKernel(g, true, false, 64, 32).IR, 3, dwGatherKernel(g, true, false, 64, 32).Grid, newTiling(g.N, g.H, g.W, 64).tiles()},
			{"kernel grad", dwKernelGradKernel(g, 32, 32, 7, 3).IR, 3, dwKernelGradKernel(g, 32, 32, 7, 3).Grid, 7},
			// dw-prologue=bn-relu6: scale and shift come after the kernel (or dy), before the outputs
			{"forward+bn", dwGatherKernel(bn, false, false, 64, 32).IR, 5, dwGatherKernel(bn, false, false, 64, 32).Grid, newTiling(g.N, g.HO, g.WO, 64).tiles()},
			{"forward+bn+stats", dwGatherKernel(bn, false, true, 64, 32).IR, 6, dwGatherKernel(bn, false, true, 64, 32).Grid, newTiling(g.N, g.HO, g.WO, 64).tiles()},
			{"kernel grad+bn", dwKernelGradKernel(bn, 32, 32, 7, 3).IR, 5, dwKernelGradKernel(bn, 32, 32, 7, 3).Grid, 7},
			// dw-tiling=rows: programs over images × row chunks × strips, and for dK image groups × strips
			{"forward rows", dwRowsForward(g, false, RowTile{}).IR, 3, dwRowsForward(g, false, RowTile{}).Grid, g.N * rows.chunks * rows.strips},
			{"forward rows+stats", dwRowsForward(g, true, RowTile{}).IR, 4, dwRowsForward(g, true, RowTile{}).Grid, g.N * rows.chunks * rows.strips},
			{"forward rows+bn+stats", dwRowsForward(bn, true, RowTile{}).IR, 6, dwRowsForward(bn, true, RowTile{}).Grid, g.N * rows.chunks * rows.strips},
			{"kernel grad rows", dwRowsKernelGrad(g, RowTile{}, 3).IR, 3, dwRowsKernelGrad(g, RowTile{}, 3).Grid, cdiv(g.N, 3) * rows.strips},
			{"kernel grad rows+bn", dwRowsKernelGrad(bn, RowTile{}, 1).IR, 5, dwRowsKernelGrad(bn, RowTile{}, 1).Grid, g.N * rows.strips},
			// dx by rows walks dx's grid S rows an iteration; with the backward prologue it also takes z, scale and
			// shift and writes the sums
			{"input grad rows", dwRowsInputGrad(g, false, RowTile{}).IR, 3, dwRowsInputGrad(g, false, RowTile{}).Grid, g.N * dxChunks * dxRows.strips},
			{"input grad rows+bn", dwRowsInputGrad(bn, true, RowTile{}).IR, 7, dwRowsInputGrad(bn, true, RowTile{}).Grid, g.N * dxChunks * dxRows.strips},
		} {
			if strings.Count(k.ir, "!tt.ptr") < k.args || strings.Contains(k.ir, fmt.Sprintf("%%arg%d:", k.args)) {
				t.Errorf("%s %s: want %d pointer arguments", g, k.name, k.args)
			}
			for _, problem := range undefinedValues(k.ir, k.args) {
				t.Errorf("%s %s: %s", g, k.name, problem)
			}
			for _, pair := range []string{"{}", "()"} {
				if strings.Count(k.ir, pair[:1]) != strings.Count(k.ir, pair[1:]) {
					t.Errorf("%s %s: unbalanced %s", g, k.name, pair)
				}
			}
			if k.grid[0] != k.tiles || k.grid[1] != cdiv(g.C, 32) && k.name != "kernel grad" {
				t.Errorf("%s %s: grid %v, want %d pixel tiles × %d channel blocks", g, k.name, k.grid, k.tiles, cdiv(g.C, 32))
			}
		}
	}
}

// TestRowTilingCoversTheGrid: the row kernels' strips and row chunks cover every output pixel, no program is left
// with nothing to do, and the network's widths get the strips that waste the fewest columns.
func TestRowTilingCoversTheGrid(t *testing.T) {
	for _, tc := range []struct {
		ho, wo   int
		tile     RowTile
		tw, rows int
		warps    int
	}{
		{112, 112, RowTile{}, 16, 8, 4}, {56, 56, RowTile{}, 8, 8, 2}, {28, 28, RowTile{}, 32, 7, 8}, {14, 14, RowTile{}, 16, 7, 4},
		{7, 7, RowTile{}, 8, 7, 2}, {9, 9, RowTile{}, 16, 5, 4}, {5, 5, RowTile{}, 8, 5, 2}, {19, 17, RowTile{}, 8, 7, 2},
		// dw-row-…: the strip and rows as set, the warps from channels × columns ÷ elements a thread, within 1…16
		{112, 112, RowTile{Width: 8, Rows: 4, Channels: 64, PerThread: 2}, 8, 4, 8}, {56, 56, RowTile{Rows: 16}, 8, 14, 2},
		{14, 14, RowTile{Width: 32, Channels: 128, PerThread: 1}, 32, 7, 16}, {7, 7, RowTile{Width: 4, Channels: 8, PerThread: 16}, 4, 7, 1},
		// dw-row-unroll: rows rounded up to whole iterations, which may leave fewer programs
		{56, 56, RowTile{Unroll: 2}, 8, 8, 2}, {28, 28, RowTile{Unroll: 2}, 32, 8, 8}, {112, 112, RowTile{Unroll: 3}, 16, 9, 4},
		{7, 7, RowTile{Unroll: 4}, 8, 8, 2}, {19, 17, RowTile{Unroll: 4, Rows: 5}, 8, 8, 2},
	} {
		rt := newRowTiling(tc.ho, tc.wo, tc.tile)
		if rt.tw != tc.tw || rt.rows != tc.rows || rt.warps() != tc.warps {
			t.Errorf("%+v: strips of %d columns and %d rows, %d warps", tc, rt.tw, rt.rows, rt.warps())
		}
		if rt.strips*rt.tw < tc.wo || (rt.strips-1)*rt.tw >= tc.wo || rt.chunks*rt.rows < tc.ho || (rt.chunks-1)*rt.rows >= tc.ho {
			t.Errorf("%+v: %d strips of %d columns and %d chunks of %d rows do not just cover it", tc, rt.strips, rt.tw, rt.chunks, rt.rows)
		}
	}
}

// TestRowKernelsLoadEachRowOnce: in the row kernels' loop over output rows, a stride-S layer loads S new input
// rows as three tiles each (with the prologue, once per tile) — the rows above come from the loop's carried values
// — and dK loads dy once more; the gather kernel applies the prologue once per tap.
func TestRowKernelsLoadEachRowOnce(t *testing.T) {
	inner := func(ir string) string { // the innermost loop's body
		i := strings.LastIndex(ir, "scf.for")
		return ir[i : i+strings.Index(ir[i:], "scf.yield")]
	}
	for _, s := range []int{1, 2} {
		g := dwGeometry{N: 4, H: 14, W: 14, C: 40, HO: (14-1)/s + 1, WO: (14-1)/s + 1, S: s, Elem: "bf16", BN: true}
		for name, tc := range map[string]struct {
			ir        string
			loads     int
			prologues int
		}{"forward": {dwRowsForward(g, true, RowTile{}).IR, 3 * s, 3 * s}, "kernel grad": {dwRowsKernelGrad(g, RowTile{}, 2).IR, 3*s + 1, 3 * s},
			// dx: one dy row (three tiles) an iteration for S rows of dx, and z for each of them
			"input grad": {dwRowsInputGrad(g, true, RowTile{}).IR, 3 + s, 0}} {
			body := inner(tc.ir)
			if n := strings.Count(body, "tt.load"); n != tc.loads {
				t.Errorf("stride %d %s: %d loads a row, want %d", s, name, n, tc.loads)
			}
			if n := strings.Count(body, "arith.minnumf"); n != tc.prologues {
				t.Errorf("stride %d %s: %d prologues a row, want %d", s, name, n, tc.prologues)
			}
		}
	}
}

// TestPixelTilingCoversTheGrid: the 8-column tiles are used only where they divide the grid, and the tile count
// times the pixels per tile covers every pixel exactly once.
func TestPixelTilingCoversTheGrid(t *testing.T) {
	for _, tc := range []struct{ n, h, w, bp, tw int }{
		{128, 112, 112, 64, 8}, {128, 56, 56, 64, 8}, {2, 56, 56, 32, 8}, {128, 28, 28, 64, 0}, {128, 7, 7, 64, 0}, {4, 60, 60, 64, 0},
	} {
		tl := newTiling(tc.n, tc.h, tc.w, tc.bp)
		if tl.tw != tc.tw {
			t.Errorf("%+v: tile width %d, want %d", tc, tl.tw, tc.tw)
		}
		if tl.tw > 0 && tl.tiles()*tc.bp != tc.n*tc.h*tc.w {
			t.Errorf("%+v: %d tiles of %d pixels for %d pixels", tc, tl.tiles(), tc.bp, tc.n*tc.h*tc.w)
		}
		if tl.tw == 0 && tl.tiles() != cdiv(tc.n*tc.h*tc.w, tc.bp) {
			t.Errorf("%+v: %d runs of %d pixels", tc, tl.tiles(), tc.bp)
		}
	}
}

var (
	ssaDef      = regexp.MustCompile(`^\s*(%\w+)(?::\d+)? = `)
	ssaBlockArg = regexp.MustCompile(`(%\w+)(?: = %[\w#]+)?(?:: f32)?[,)]`)
	ssaUse      = regexp.MustCompile(`%\w+`)
	loopVar     = regexp.MustCompile(`scf\.for (%\w+) =`)
)

// undefinedValues lists the SSA values ir uses where they are not defined: before their definition, or outside
// the region (a loop's or a reduction's body) that defines them. Arguments %arg0… count as defined; a result's #k
// suffix, a loop's induction variable and carried values, and a region's block arguments are understood; a
// region's result is defined where the region closes.
func undefinedValues(ir string, args int) (problems []string) {
	scopes := []map[string]bool{{}}
	pending := []string{} // each open region's result, defined when it closes
	for i := range args {
		scopes[0][fmt.Sprintf("%%arg%d", i)] = true
	}
	defined := func(v string) bool {
		for _, s := range scopes {
			if s[v] {
				return true
			}
		}
		return false
	}
	for n, line := range strings.Split(ir, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "}") {
			if len(scopes) > 1 {
				scopes = scopes[:len(scopes)-1]
				if r := pending[len(pending)-1]; r != "" {
					scopes[len(scopes)-1][r] = true
				}
				pending = pending[:len(pending)-1]
			}
			continue
		}
		body := line
		m := ssaDef.FindStringSubmatch(line)
		if m != nil {
			body = line[len(m[0]):]
		}
		var regionArgs []string
		if strings.Contains(line, "^bb0") {
			for _, a := range ssaBlockArg.FindAllStringSubmatch(line, -1) {
				scopes[len(scopes)-1][a[1]] = true
			}
			continue
		}
		if strings.Contains(line, "scf.for") {
			for _, a := range ssaBlockArg.FindAllStringSubmatch(line[strings.Index(line, "iter_args"):], -1) {
				regionArgs = append(regionArgs, a[1])
			}
			if v := loopVar.FindStringSubmatch(line); v != nil {
				regionArgs = append(regionArgs, v[1])
			}
			body = line[strings.Index(line, "iter_args"):]
			body = ssaBlockArg.ReplaceAllStringFunc(body, func(s string) string { // keep only the initial values
				if i := strings.Index(s, " = "); i >= 0 {
					return s[i+3:]
				}
				return s
			})
		}
		for _, u := range ssaUse.FindAllString(body, -1) {
			if !defined(u) {
				problems = append(problems, fmt.Sprintf("line %d uses %s where it is not defined: %s", n+1, u, trimmed))
			}
		}
		if strings.HasSuffix(trimmed, "{") {
			result := ""
			if m != nil {
				result = m[1]
			}
			scope := map[string]bool{}
			for _, a := range regionArgs {
				scope[a] = true
			}
			scopes, pending = append(scopes, scope), append(pending, result)
			continue
		}
		if m != nil {
			scopes[len(scopes)-1][m[1]] = true
		}
	}
	return problems
}

// TestBNPrologueIR: with dw-prologue=bn-relu6 the forward and dK kernels load scale and shift once, apply them to
// every tap's load, and pad z with ∓∞ so that the transform pads the activation with 0 (ReLU6 of the shift is not
// 0); the input gradient, which never reads x, is the same kernel with or without it.
func TestBNPrologueIR(t *testing.T) {
	g := dwGeometry{N: 2, H: 9, W: 9, C: 40, HO: 5, WO: 5, S: 2, Elem: "bf16", BN: true}
	plain := g
	plain.BN = false
	for name, ir := range map[string]string{
		"forward": dwGatherKernel(g, false, false, 64, 32).IR, "kernel grad": dwKernelGradKernel(g, 32, 32, 7, 3).IR,
	} {
		for _, want := range []struct {
			text  string
			count int
		}{{"arith.maxnumf", 9}, {"arith.minnumf", 9}, {"0xFF800000", 1}} {
			if n := strings.Count(ir, want.text); n != want.count {
				t.Errorf("%s: %d × %q, want %d (one per tap)", name, n, want.text, want.count)
			}
		}
		if !strings.Contains(ir, "%arg2: !tt.ptr<f32>") || !strings.Contains(ir, "%arg3: !tt.ptr<f32>") {
			t.Errorf("%s: scale and shift are not arguments 2 and 3 (float32):\n%.400s", name, ir)
		}
	}
	if a, b := dwGatherKernel(g, true, false, 64, 32).IR, dwGatherKernel(plain, true, false, 64, 32).IR; strings.ReplaceAll(a, "_bn", "") != b {
		t.Error("the input-gradient kernel changes with the prologue")
	}
	if strings.Contains(dwGatherKernel(plain, false, false, 64, 32).IR, "arith.maxnumf") {
		t.Error("the plain forward kernel applies a prologue")
	}
}
