package mobilenet

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTTInterpExpandGrad: the fused kernel's dx = dz·Wᵀ and dW = Σ over programs of xᵀ·dz, with dz = A·g + B·z + C,
// against float64 — in f32 and bf16, with pixel counts and channels that leave partial tiles (past the last pixel
// dz is C, which must reach neither product), several tiles a program, and several channel blocks with them.
func TestTTInterpExpandGrad(t *testing.T) {
	for _, c := range []struct {
		p, k, c, tiles, pixels int
		elem                   string
	}{{200, 16, 96, 0, 0, "f32"}, {200, 24, 40, 2, 0, "f32"}, {130, 32, 144, 1, 0, "bf16"}, {300, 16, 17, 3, 0, "bf16"},
		{260, 16, 144, 2, 0, "f32"}, {130, 32, 144, 2, 32, "bf16"}, {100, 16, 96, 3, 16, "f32"}} {
		t.Run(fmt.Sprintf("p%d_k%d_c%d_tiles%d_px%d_%s", c.p, c.k, c.c, c.tiles, c.pixels, c.elem), func(t *testing.T) {
			tl := newExpandGradTiling(c.p, c.k, c.c, ExpandGradTile{Pixels: c.pixels})
			if c.pixels > 0 && tl.bp != c.pixels {
				t.Fatalf("tile of %d pixels asked, %d made", c.pixels, tl.bp)
			}
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
			g, z := round(randSlice(rng, c.p*c.c)), round(randSlice(rng, c.p*c.c))
			x, w := round(randSlice(rng, c.p*c.k)), round(randSlice(rng, c.k*c.c))
			coef := round(randSlice(rng, 3*c.c))
			dx, part := make([]float64, c.p*c.k), make([]float64, tl.programs*c.k*c.c)
			mustRunTT(t, expandGradKernel(tl, c.elem), g, z, x, w, coef, dx, part)
			// The reference: dz rounded to the element type, as the kernel feeds it to both products.
			dz := make([]float64, c.p*c.c)
			for i := range dz {
				ch := i % c.c
				dz[i] = ttRound(c.elem, coef[ch]*g[i]+coef[c.c+ch]*z[i]+coef[2*c.c+ch])
			}
			tol := 1e-4
			if c.elem == "bf16" {
				tol = 2e-2 // dx is stored in bf16; dz's rounding is in the reference too
			}
			checkProduct(t, "dx", c.p, c.k, c.c, tol, func(p, k int) float64 { return dx[p*c.k+k] },
				func(p, k, ch int) float64 { return dz[p*c.c+ch] * w[k*c.c+ch] })
			checkProduct(t, "dW", c.k, c.c, c.p, 1e-4, programSums(part, tl.programs, c.k, c.c),
				func(k, ch, p int) float64 { return x[p*c.k+k] * dz[p*c.c+ch] })
		})
	}
}

// TestExpandGradIR: the kernel's IR for MobileNetV2's expansions that it takes, at batch 128: two tt.dot a channel
// block on the element type into f32 (ieee precision only for f32), and no tile larger than [64, 64] — run62's first
// version, with [64, 256] tiles, ran at 255 registers a thread.
func TestExpandGradIR(t *testing.T) {
	for _, l := range []struct{ h, k, c int }{{112, 16, 96}, {56, 24, 144}, {28, 32, 192}} {
		tl := newExpandGradTiling(128*l.h*l.h, l.k, l.c, ExpandGradTile{})
		if !expandGradFits(l.k, l.c) || tl.programs*tl.tiles*tl.bp < tl.p || (tl.programs-1)*tl.tiles*tl.bp >= tl.p {
			t.Errorf("%+v: tiling %+v does not cover the pixels exactly once", l, tl)
		}
		k := expandGradKernel(tl, "bf16")
		if n := strings.Count(k.IR, "tt.dot "); n != 2*cdiv(l.c, 64) || strings.Contains(k.IR, "ieee") {
			t.Errorf("%+v: %d tt.dot, ieee %v", l, n, strings.Contains(k.IR, "ieee"))
		}
		_, body := parseTT(k) // every operation's result type, loop bodies included
		for len(body) > 0 {
			op := body[0]
			body = append(body[1:], op.body...)
			if ttSize(op.typ.shape) > 64*64 {
				t.Errorf("%+v: a %v tile at line %d", l, op.typ.shape, op.line)
				break
			}
		}
	}
	if expandGradFits(64, 384) || expandGradFits(96, 256) {
		t.Error("expandGradFits takes layers past its limits")
	}
	if k := expandGradKernel(newExpandGradTiling(100, 16, 16, ExpandGradTile{Warps: 8}), "f32"); k.Warps != 8 {
		t.Errorf("expand-grad-warps=8 made a kernel of %d warps", k.Warps)
	}
	if !strings.Contains(expandGradKernel(newExpandGradTiling(100, 16, 16, ExpandGradTile{}), "f32").IR, "inputPrecision = ieee") {
		t.Error("f32 dots without inputPrecision = ieee would run in tf32")
	}
}
