package mobilenet

import (
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

// TestRowTileTableNamesRealLayers: every entry of rowTileTable is a depthwise layer of MobileNetV2 at 224×224 (a
// mistyped height, channel count or stride would silently leave that layer on the default tile), and every tile
// builds its kernel for that layer at batch 128 within Triton's limits.
func TestRowTileTableNamesRealLayers(t *testing.T) {
	layers := map[rowKernelSite]bool{}
	h := 112 // after the stem's stride 2
	for _, b := range New(Default()).blocks {
		for _, kind := range []rowKernelKind{rowsForward, rowsInputGrad, rowsKernelGrad, rowsInputKernelGrad} {
			layers[rowKernelSite{kind, h, b.hidden, b.stride}] = true
		}
		h /= b.stride
	}
	if len(layers) != 4*10 { // 17 blocks, 10 distinct (height, channels, stride)
		t.Fatalf("%d depthwise kernels found, want 40", len(layers))
	}
	for site, tile := range rowTileTable {
		if !layers[site] {
			t.Errorf("rowTileTable has %+v, which is no depthwise layer of MobileNetV2", site)
			continue
		}
		if tile == (RowTile{}) || tile.Unroll != 0 || tile.CarrySums || tile.PerLayer {
			t.Errorf("rowTileTable[%+v] = %+v: want a tile (channels, width, rows, per-thread) other than the default", site, tile)
		}
		g := dwGeometry{N: 128, H: site.h, W: site.h, C: site.c, S: site.s, Elem: "bf16", BN: true}
		g.HO, g.WO = cdiv(g.H, g.S), cdiv(g.W, g.S)
		perLayer := RowTile{PerLayer: true}.forKernel(site.kind, g)
		var warps int
		switch site.kind {
		case rowsForward:
			warps = dwRowsForward(g, true, perLayer).Warps
		case rowsInputGrad:
			warps = dwRowsInputGrad(g, true, perLayer).Warps
		case rowsKernelGrad:
			warps = dwRowsKernelGrad(g, perLayer, 1).Warps
		case rowsInputKernelGrad:
			warps = dwRowsInputKernelGrad(g, perLayer).Warps
		}
		if warps < 1 || warps > 16 {
			t.Errorf("%+v with %+v: %d warps", site, tile, warps)
		}
	}
}

// TestRowTileForKernel: without PerLayer a kernel takes the tile it is given; with it, the table's tile for its
// kind and geometry (the default where the table has none), keeping the loop settings.
func TestRowTileForKernel(t *testing.T) {
	g := dwGeometry{N: 4, H: 28, W: 28, C: 192, HO: 28, WO: 28, S: 1}
	own := RowTile{Channels: 16, Unroll: 2}
	if got := own.forKernel(rowsForward, g); got != own {
		t.Errorf("forKernel without PerLayer = %+v, want %+v", got, own)
	}
	loop := RowTile{PerLayer: true, Unroll: 3, CarrySums: true}
	for _, c := range []struct {
		kind rowKernelKind
		g    dwGeometry
		want RowTile
	}{
		{rowsForward, g, RowTile{Rows: 16, Width: 8, Unroll: 3, CarrySums: true}},
		{rowsInputGrad, g, RowTile{Rows: 16, Unroll: 3, CarrySums: true}},
		{rowsKernelGrad, g, RowTile{PerThread: 2, Unroll: 3, CarrySums: true}},
		{rowsInputKernelGrad, g, RowTile{Rows: 16, Width: 8, Unroll: 3, CarrySums: true}},
		{rowsForward, dwGeometry{N: 4, H: 7, W: 7, C: 960, HO: 7, WO: 7, S: 1}, RowTile{Unroll: 3, CarrySums: true}}, // none better by 3%
		{rowsForward, dwGeometry{N: 4, H: 9, W: 9, C: 8, HO: 9, WO: 9, S: 1}, RowTile{Unroll: 3, CarrySums: true}},   // no such layer
	} {
		if got := loop.forKernel(c.kind, c.g); got != c.want {
			t.Errorf("forKernel(%d, %s) = %+v, want %+v", c.kind, c.g, got, c.want)
		}
	}
}

// TestPerLayerTilesReachTheKernels: the model's kernels change with dw-row-tiles=per-layer, through the same
// entry points the step uses (forwardKernel, inputGradKernel): the 14×14×384 layer's forward kernel and the
// 28×28 layer's dx kernel run 16 rows a program (fewer programs).
func TestPerLayerTilesReachTheKernels(t *testing.T) {
	var c Config
	if err := c.SetFormulation("dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=triton,dw-tiling=rows,dw-row-tiles=per-layer"); err != nil {
		t.Fatal(err)
	}
	one := c.Depthwise
	one.RowTile.PerLayer = false
	g := dwGeometry{N: 128, H: 28, W: 28, C: 192, HO: 28, WO: 28, S: 1, Elem: "bf16"}
	g14 := dwGeometry{N: 128, H: 14, W: 14, C: 384, HO: 14, WO: 14, S: 1, Elem: "bf16"}
	if a, b := forwardKernel(g14, true, c.Depthwise), forwardKernel(g14, true, one); a.Grid[0]*2 != b.Grid[0] || !strings.Contains(a.Name, "forward_rows") {
		t.Errorf("forward kernel: %d programs per-layer, %d with one tile; want half (16 rows a program, not 8)", a.Grid[0], b.Grid[0])
	}
	if a, b := inputGradKernel(g, true, c.Depthwise), inputGradKernel(g, true, one); a.Grid[0]*2 != b.Grid[0] {
		t.Errorf("dx kernel: %d programs per-layer, %d with one tile; want half (16 rows a program, not 8)", a.Grid[0], b.Grid[0])
	}
}

// TestGateKernelBuffersMatchItsGrid: on every depthwise layer of MobileNetV2 at batch 128, the buffers the gating
// kernel writes its per-program sums (and with dw-kernel-grad=in-dx its partial dK) into have one row per program
// of the kernel that runs. With per-layer tiles the merged dx + dK kernel's grid differs from the dx kernel's on
// six layers; buffers sized by the dx kernel's grid were written past their end, and training went to NaN (run70).
func TestGateKernelBuffersMatchItsGrid(t *testing.T) {
	dxOnly := FastestDepthwise()
	dxOnly.Kernel = KernelGradTriton
	h := 112
	for _, b := range New(Default()).blocks {
		g := dwGeometry{N: 128, H: h, W: h, C: b.hidden, S: b.stride, Elem: "bf16", BN: true}
		g.HO, g.WO = cdiv(g.H, g.S), cdiv(g.W, g.S)
		h /= b.stride
		x := shapes.Make(dtypes.BFloat16, g.N, g.H, g.W, g.C)
		for _, c := range []struct {
			form   DepthwiseForm
			makeDy bool
		}{{FastestDepthwise(), false}, {FastestDepthwise(), true}, {dxOnly, false}} {
			form := c.form
			k, outs, withDK := gateKernel(g, form, x, c.makeDy)
			if want := "dw_input_kernel_grad_rows_out_"; c.makeDy != strings.HasPrefix(k.Name, want) {
				t.Errorf("%s, makeDy %t: kernel %s", g, c.makeDy, k.Name)
			}
			if want := form.Kernel == KernelGradInDx; withDK != want {
				t.Errorf("%s, kernel grad %d: withDK %t, want %t", g, form.Kernel, withDK, want)
			}
			if len(outs) != 2+btoi(withDK) || !outs[0].Equal(x) {
				t.Fatalf("%s: outputs %v, want g %v, the sums and (in-dx) dK", g, outs, x)
			}
			for i, rows := range []int{2, 9}[:len(outs)-1] {
				if want := shapes.Make(dtypes.Float32, k.Grid[0], rows, g.C); !outs[1+i].Equal(want) {
					t.Errorf("%s, kernel grad %d: output %d is %v, want %v (the kernel runs %d programs)", g, form.Kernel, 1+i, outs[1+i], want, k.Grid[0])
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
