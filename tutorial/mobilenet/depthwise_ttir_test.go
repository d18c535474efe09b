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
	for _, g := range []dwGeometry{
		{N: 128, H: 112, W: 112, C: 32, HO: 112, WO: 112, S: 1, Elem: "bf16"},
		{N: 128, H: 112, W: 112, C: 96, HO: 56, WO: 56, S: 2, Elem: "bf16"},
		{N: 3, H: 7, W: 6, C: 70, HO: 7, WO: 6, S: 1, Elem: "f32"},
		{N: 2, H: 9, W: 9, C: 40, HO: 5, WO: 5, S: 2, Elem: "f16"},
	} {
		bn := g
		bn.BN = true
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
	ssaBlockArg = regexp.MustCompile(`(%\w+)(?: = %\w+)?(?:: f32)?[,)]`)
	ssaUse      = regexp.MustCompile(`%\w+`)
)

// undefinedValues lists the SSA values ir uses before defining them (arguments %arg0… count as defined; a
// result's #k suffix and region arguments are understood).
func undefinedValues(ir string, args int) (problems []string) {
	defined := map[string]bool{}
	for i := range args {
		defined[fmt.Sprintf("%%arg%d", i)] = true
	}
	for n, line := range strings.Split(ir, "\n") {
		body := line
		m := ssaDef.FindStringSubmatch(line)
		if m != nil {
			body = line[len(m[0]):]
		}
		if strings.Contains(line, "scf.for") || strings.Contains(line, "^bb0") {
			for _, a := range ssaBlockArg.FindAllStringSubmatch(line, -1) {
				defined[a[1]] = true
			}
			defined["%i"] = defined["%i"] || strings.Contains(line, "scf.for %i")
			if strings.Contains(line, "^bb0") {
				continue
			}
			body = line[strings.Index(line, "iter_args"):]
		}
		for _, u := range ssaUse.FindAllString(body, -1) {
			if !defined[u] {
				problems = append(problems, fmt.Sprintf("line %d uses %s before defining it: %s", n+1, u, strings.TrimSpace(line)))
			}
		}
		if m != nil {
			defined[m[1]] = true
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
