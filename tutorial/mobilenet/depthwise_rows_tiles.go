package mobilenet

// Per-layer tiles for the row kernels (-model …,dw-row-tiles=per-layer; RowTile.PerLayer).
//
// No single tile suits every layer. Swept one tile at a time over the whole step (run61, an H100), no tile made the
// row kernels' sum more than 2% faster than the default tile, yet kernel by kernel the sweep's best tile was 3–33%
// faster: wider channel blocks where the image is small, two values a thread on the 56×56 and 28×28 stride-1
// layers, taller programs for dx. Taken kernel by kernel they add up to about 7% of the row kernels' time
// (assets/gpu-runs/2026-12-06-h100-run61/per-layer.txt). This is Triton's @autotune done ahead of time: the table
// is that measurement written down, not a search at compile time, because autotuning here would compile and time
// every tile of every layer inside XLA's compile of the whole step.

// rowKernelKind names the row kernels, for the table's key.
type rowKernelKind int

const (
	rowsForward rowKernelKind = iota
	rowsInputGrad
	rowsKernelGrad
	rowsInputKernelGrad // dx and dK in one kernel (dw-kernel-grad=in-dx)
)

// rowKernelSite is a row kernel and the geometry it runs on, batch aside: the table was measured at batch 128 and
// taken to hold at every batch (a program's share of a layer does not depend on how many images there are).
type rowKernelSite struct {
	kind    rowKernelKind
	h, c, s int // the layer's input height (= width in MobileNetV2), channels and stride
}

// Tiles from the sweep's names: pt = values a thread (PerThread), c = channels, r = rows.
var (
	tilePT2    = RowTile{PerThread: 2}
	tilePT8    = RowTile{PerThread: 8}
	tileC16    = RowTile{Channels: 16}
	tileC64    = RowTile{Channels: 64}
	tileC16PT2 = RowTile{Channels: 16, PerThread: 2}
	tileC64PT8 = RowTile{Channels: 64, PerThread: 8}
	tileR4     = RowTile{Rows: 4}
	tileR16    = RowTile{Rows: 16}
	tileW8     = RowTile{Width: 8}
	// run72's second round, combining run69's winners.
	tileR32       = RowTile{Rows: 32}
	tileR16W8     = RowTile{Rows: 16, Width: 8}
	tileR16W8PT2  = RowTile{Rows: 16, Width: 8, PerThread: 2}
	tileR16C64    = RowTile{Rows: 16, Channels: 64}
	tileR16C16PT2 = RowTile{Rows: 16, Channels: 16, PerThread: 2}
)

// rowTileTable is the fastest of run61's tiles for each row kernel of MobileNetV2 at 224×224 that some tile beat by
// 3% or more (µs a step, default → tile; the profiles used dw-forward=triton, and the table serves triton-stats
// too), and run69's and run72's for the merged dx + dK kernel and the forward kernel (run72's second round: +2.6%
// at 512 and +1.8% at 128 as ladder configurations in run76). A kernel missing from it, or any other geometry,
// keeps the default tile.
var rowTileTable = map[rowKernelSite]RowTile{
	// The forward entries as run69's and run72's sweeps found them on FastestDepthwise's loop (two rows an
	// iteration, carried sums, the stats kernel; µs a step at 128, run61's tile → run69's best → run72's, whose
	// second round combined run69's winners): run61 swept the forward kernel without that loop.
	{rowsForward, 112, 32, 1}:    tileR16,    // 112.0
	{rowsForward, 112, 96, 2}:    tileC64,    // 208.0 (default) → 191.0
	{rowsForward, 56, 144, 1}:    tileR16C64, // 183.9 (default) → 177.6
	{rowsForward, 56, 144, 2}:    tileR16C64, // 117.6 → 109.7 → 96.0
	{rowsForward, 28, 192, 1}:    tileR16W8,  // 130.9 → 119.3 → 104.7
	{rowsForward, 28, 192, 2}:    tileR16C64, // 23.0 → 21.5
	{rowsForward, 14, 384, 1}:    tileR16,    // 124.6 → 104.2
	{rowsForward, 14, 576, 1}:    tileR16,    // 95.9 → 79.3
	{rowsForward, 14, 576, 2}:    tileC64,    // 16.7
	{rowsInputGrad, 112, 32, 1}:  tileR16,    // 184.7 → 172.2
	{rowsInputGrad, 112, 96, 2}:  tileR16,    // 450.9 → 436.9
	{rowsInputGrad, 56, 144, 1}:  tilePT2,    // 292.7 → 276.6
	{rowsInputGrad, 28, 192, 1}:  tileR16,    // 189.1 → 176.7
	{rowsInputGrad, 28, 192, 2}:  tileC16,    // 80.6 → 63.7
	{rowsInputGrad, 14, 384, 1}:  tileC16PT2, // 179.4 → 168.5
	{rowsInputGrad, 14, 576, 1}:  tileC16PT2, // 134.0 → 123.1
	{rowsInputGrad, 14, 576, 2}:  tileR16,    // 50.6 → 46.9
	{rowsInputGrad, 7, 960, 1}:   tileC64,    // 85.3 → 71.5
	{rowsKernelGrad, 112, 32, 1}: tilePT2,    // 158.8 → 150.2
	{rowsKernelGrad, 112, 96, 2}: tileC64,    // 227.7 → 190.3
	{rowsKernelGrad, 56, 144, 1}: tilePT2,    // 207.3 → 196.1
	{rowsKernelGrad, 56, 144, 2}: tileC64,    // 122.9 → 107.6
	{rowsKernelGrad, 28, 192, 1}: tilePT2,    // 165.6 → 153.3
	{rowsKernelGrad, 28, 192, 2}: tileC64PT8, // 42.9 → 28.6
	{rowsKernelGrad, 14, 384, 1}: tileC16PT2, // 171.2 → 162.9
	{rowsKernelGrad, 14, 576, 1}: tileC16PT2, // 119.2 → 115.2
	{rowsKernelGrad, 14, 576, 2}: tileC64,    // 29.8 → 26.0
	{rowsKernelGrad, 7, 960, 1}:  tileC16,    // 81.9 → 78.3
	// excerpt: merged-kernel-tiles
	// The merged dx + dK kernel holds both kernels' accumulators (157–168 registers a thread on most layers), so
	// the dx kernel's tile is not its best: run69 swept it alone, and run72 combined run69's winners (µs a step at
	// 128, the dx kernel's tile → run69's best → run72's). Where no tile beat the one before by 3%, it stays.
	{rowsInputKernelGrad, 112, 32, 1}: tileR32,       // 223.3, the dx tile → 212.5
	{rowsInputKernelGrad, 112, 96, 2}: tileR32,       // 487.6, the dx tile → 456.8
	{rowsInputKernelGrad, 56, 144, 1}: tileR16W8PT2,  // 354.7, the dx tile → 315.2
	{rowsInputKernelGrad, 56, 144, 2}: tileR16W8PT2,  // 264.6 → 239.7 → 229.9
	{rowsInputKernelGrad, 28, 192, 1}: tileR16W8,     // 313.3 → 265.1 → 222.4
	{rowsInputKernelGrad, 28, 192, 2}: tileR16W8PT2,  // 116.1 → 109.1 → 75.4
	{rowsInputKernelGrad, 14, 384, 1}: tileR16,       // 231.2 → 202.1
	{rowsInputKernelGrad, 14, 576, 1}: tileR16,       // 170.8 → 149.1
	{rowsInputKernelGrad, 14, 576, 2}: tileR16C16PT2, // 60.4, the dx tile → 57.7
	{rowsInputKernelGrad, 7, 960, 1}:  tileC16PT2,    // 131.9 → 114.5
	// excerpt end
}

// forKernel is the tile a row kernel of kind runs with on g: tile itself, or with PerLayer the table's tile for the
// kernel (or the default tile where it has none), keeping tile's loop settings — Unroll and CarrySums say how a
// program walks its rows, not what share of the layer it takes.
func (tile RowTile) forKernel(kind rowKernelKind, g dwGeometry) RowTile {
	if !tile.PerLayer {
		return tile
	}
	t := rowTileTable[rowKernelSite{kind, g.H, g.C, g.S}]
	t.Unroll, t.CarrySums = tile.Unroll, tile.CarrySums
	return t
}
