package mobilenet

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
)

// TestTTInterpProject: the projection kernels' out = a·W and dW = Σ over programs of aᵀ·dout, with a = ReLU6(y·scale +
// shift) made as they load y, against float64 — in f32 and bf16, with pixel and channel counts that leave partial
// tiles (past the last pixel a is ReLU6(shift), which must reach neither product), several channel blocks, several
// tiles a program, tiles other than the default's (ProjectTile), and scales of both signs so that ReLU6 clips on both
// sides.
func TestTTInterpProject(t *testing.T) {
	for _, c := range []struct {
		p, c, k, tiles int
		elem           string
		tile           ProjectTile
	}{{200, 40, 24, 0, "f32", ProjectTile{}}, {130, 144, 24, 2, "bf16", ProjectTile{}}, {300, 17, 16, 3, "f32", ProjectTile{}},
		{100, 96, 64, 1, "bf16", ProjectTile{}}, {300, 144, 24, 0, "bf16", ProjectTile{Pixels: 128, Channels: 32}},
		{90, 40, 16, 0, "f32", ProjectTile{Pixels: 16, Channels: 16, Programs: 2}}} {
		t.Run(fmt.Sprintf("p%d_c%d_k%d_tiles%d_%s_%v", c.p, c.c, c.k, c.tiles, c.elem, c.tile), func(t *testing.T) {
			fw, tl := newProjectTiling(c.p, c.c, c.k, c.tile, true), newProjectTiling(c.p, c.c, c.k, c.tile, false)
			if c.tiles > 0 {
				tl.tiles, tl.programs = c.tiles, cdiv(c.p, tl.bp*c.tiles)
			}
			rng := rand.New(rand.NewPCG(uint64(c.p), uint64(c.c)))
			round := func(s []float64) []float64 {
				for i := range s {
					s[i] = ttRound(c.elem, s[i])
				}
				return s
			}
			y, w, dout := round(randSlice(rng, c.p*c.c)), round(randSlice(rng, c.c*c.k)), round(randSlice(rng, c.p*c.k))
			scale, shift := randSlice(rng, c.c), randSlice(rng, c.c)
			for i := range scale {
				scale[i], shift[i] = float64(float32(3*scale[i])), float64(float32(2+2*shift[i]))
			}
			// a as the kernels make it: in f32, then rounded to the element type for the dots.
			a := make([]float64, c.p*c.c)
			for i := range a {
				ch := i % c.c
				a[i] = ttRound(c.elem, min(max(float64(float32(y[i]*scale[ch]+shift[ch])), 0), 6))
			}
			out, part := make([]float64, c.p*c.k), make([]float64, tl.programs*c.c*c.k)
			mustRunTT(t, projectForwardKernel(fw, c.elem, false), y, scale, shift, w, out)
			// With stats the same output and the per-program sums of it and its square (project-sums=kernel): of the
			// stored, rounded values, and none from the rows past the last pixel.
			statsKernel := projectForwardKernel(fw, c.elem, true)
			out2, sums := make([]float64, c.p*c.k), make([]float64, statsKernel.Grid[0]*2*c.k)
			mustRunTT(t, statsKernel, y, scale, shift, w, out2, sums)
			for i, o := range out2 {
				if o != out[i] {
					t.Fatalf("out[%d, %d] = %g with stats, %g without", i/c.k, i%c.k, o, out[i])
				}
			}
			// sums [programs, 2, K]: row 0 of each program sums the stored output, row 1 its square.
			checkProduct(t, "sums", 2, c.k, c.p, 1e-4, programSums(sums, statsKernel.Grid[0], 2, c.k),
				func(s, k, p int) float64 {
					o := out2[p*c.k+k]
					if s == 1 {
						return o * o
					}
					return o
				})
			mustRunTT(t, projectWeightGradKernel(tl, c.elem), y, scale, shift, dout, part)
			tol := 1e-4
			if c.elem == "bf16" {
				tol = 2e-2 // out is stored in bf16
			}
			checkProduct(t, "out", c.p, c.k, c.c, tol, func(p, k int) float64 { return out[p*c.k+k] },
				func(p, k, ch int) float64 { return a[p*c.c+ch] * w[ch*c.k+k] })
			checkProduct(t, "dW", c.c, c.k, c.p, 1e-4, programSums(part, tl.programs, c.c, c.k),
				func(ch, k, p int) float64 { return a[p*c.c+ch] * dout[p*c.k+k] })
		})
	}
}

// TestProjectIR: the kernels for MobileNetV2's projections that they take, at batch 128: one tt.dot a channel block
// (forward) or a tile (weight gradient), no tile larger than [128, 64], tilings that cover the pixels exactly once,
// the defaults run75 picked (128 pixels for the narrow layers' forward kernel, num_stages 3 for the weight
// gradient's loop), and the wider projections left to XLA.
func TestProjectIR(t *testing.T) {
	for _, l := range []struct {
		h, c, k, forwardPixels int
	}{{112, 32, 16, 128}, {56, 144, 24, 128}, {28, 192, 32, 128}, {14, 384, 64, 64}, {14, 192, 64, 64}} {
		fw, tl := newProjectTiling(128*l.h*l.h, l.c, l.k, ProjectTile{}, true), newProjectTiling(128*l.h*l.h, l.c, l.k, ProjectTile{}, false)
		if !projectFits(l.k) || tl.programs*tl.tiles*tl.bp < tl.p || (tl.programs-1)*tl.tiles*tl.bp >= tl.p {
			t.Errorf("%+v: tiling %+v does not cover the pixels exactly once", l, tl)
		}
		if fw.bp != l.forwardPixels || tl.bp != 64 || fw.stages != 1 || tl.stages != 3 {
			t.Errorf("%+v: forward tiling %+v, weight-gradient tiling %+v", l, fw, tl)
		}
		for i, k := range []struct {
			kernel triton.Kernel
			dots   int
		}{{projectForwardKernel(fw, "bf16", false), fw.blocks}, {projectForwardKernel(fw, "bf16", true), fw.blocks}, {projectWeightGradKernel(tl, "bf16"), 1}} {
			ir := k.kernel.IR
			if n := strings.Count(ir, "tt.dot "); n != k.dots || strings.Contains(ir, "ieee") {
				t.Errorf("%+v kernel %d: %d tt.dot (want %d), ieee %v", l, i, n, k.dots, strings.Contains(ir, "ieee"))
			}
			_, body := parseTT(k.kernel)
			for len(body) > 0 {
				op := body[0]
				body = append(body[1:], op.body...)
				if ttSize(op.typ.shape) > 128*64 {
					t.Errorf("%+v kernel %d: a %v tile at line %d", l, i, op.typ.shape, op.line)
					break
				}
			}
		}
	}
	if c := projectWeightGradKernel(newProjectTiling(4096, 32, 16, ProjectTile{Stages: 2, Warps: 8}, false), "bf16").Config(); !strings.Contains(c, "num_stages = 2 : i32, num_warps = 8 : i32") {
		t.Errorf("ProjectTile's stages and warps do not reach the kernel: %.80s…", c[len(c)-160:])
	}
	if fw := newProjectTiling(4096, 32, 16, ProjectTile{Stages: 2}, true); fw.stages != 1 {
		t.Errorf("ProjectTile.Stages reached the forward kernel, which has no loop to pipeline: stages %d", fw.stages)
	}
	if projectFits(96) || projectFits(160) {
		t.Error("projectFits takes projections past its limit")
	}
	if !strings.Contains(projectForwardKernel(newProjectTiling(100, 16, 16, ProjectTile{}, true), "f32", false).IR, "inputPrecision = ieee") {
		t.Error("f32 dots without inputPrecision = ieee would run in tf32")
	}
}
