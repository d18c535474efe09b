package mobilenet

// Per-layer tiles for the row kernels (-model …,dw-row-tiles=per-layer; RowTile.PerLayer).
//
// No single tile suits every layer. Swept one tile at a time over the whole step on an H100, no tile made the row
// kernels' sum much faster than the default tile, yet kernel by kernel the sweep's best tile was faster: wider
// channel blocks where the image is small, two values a thread on the 56×56 and 28×28 stride-1 layers, taller
// programs for dx (assets/gpu-runs/2026-12-06-h100-run61/per-layer.txt). This is Triton's @autotune done ahead of
// time: the table is that measurement written down, not a search at compile time, because autotuning here would
// compile and time every tile of every layer inside XLA's compile of the whole step.

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

// rowTileTable is the fastest tile for each row kernel of MobileNetV2 at 224×224 that some tile beat by 3% or more,
// from kernel profiles at batch 128 on an H100: run61's sweep of one tile at a time (the profiles used
// dw-forward=triton, and the table serves triton-stats too), then run69's and run72's for the merged dx + dK kernel
// and the forward kernel. Each entry's comment names the sweep its tile comes from; the figures are in that run's
// directory of assets/gpu-runs (per-layer.txt, forward-tiles*.txt, merged-tiles*.txt). A kernel missing from it, or
// any other geometry, keeps the default tile.
var rowTileTable = map[rowKernelSite]RowTile{
	// The forward entries as run69's and run72's sweeps found them on FastestDepthwise's loop (two rows an
	// iteration, carried sums, the stats kernel; run72's second round combined run69's winners): run61 swept the
	// forward kernel without that loop.
	{rowsForward, 112, 32, 1}:    tileR16,    // run61
	{rowsForward, 112, 96, 2}:    tileC64,    // run69
	{rowsForward, 56, 144, 1}:    tileR16C64, // run72
	{rowsForward, 56, 144, 2}:    tileR16C64, // run72
	{rowsForward, 28, 192, 1}:    tileR16W8,  // run72
	{rowsForward, 28, 192, 2}:    tileR16C64, // run72
	{rowsForward, 14, 384, 1}:    tileR16,    // run69
	{rowsForward, 14, 576, 1}:    tileR16,    // run69
	{rowsForward, 14, 576, 2}:    tileC64,    // run61
	{rowsInputGrad, 112, 32, 1}:  tileR16,    // run61
	{rowsInputGrad, 112, 96, 2}:  tileR16,    // run61
	{rowsInputGrad, 56, 144, 1}:  tilePT2,    // run61
	{rowsInputGrad, 28, 192, 1}:  tileR16,    // run61
	{rowsInputGrad, 28, 192, 2}:  tileC16,    // run61
	{rowsInputGrad, 14, 384, 1}:  tileC16PT2, // run61
	{rowsInputGrad, 14, 576, 1}:  tileC16PT2, // run61
	{rowsInputGrad, 14, 576, 2}:  tileR16,    // run61
	{rowsInputGrad, 7, 960, 1}:   tileC64,    // run61
	{rowsKernelGrad, 112, 32, 1}: tilePT2,    // run61
	{rowsKernelGrad, 112, 96, 2}: tileC64,    // run61
	{rowsKernelGrad, 56, 144, 1}: tilePT2,    // run61
	{rowsKernelGrad, 56, 144, 2}: tileC64,    // run61
	{rowsKernelGrad, 28, 192, 1}: tilePT2,    // run61
	{rowsKernelGrad, 28, 192, 2}: tileC64PT8, // run61
	{rowsKernelGrad, 14, 384, 1}: tileC16PT2, // run61
	{rowsKernelGrad, 14, 576, 1}: tileC16PT2, // run61
	{rowsKernelGrad, 14, 576, 2}: tileC64,    // run61
	{rowsKernelGrad, 7, 960, 1}:  tileC16,    // run61
	// excerpt: merged-kernel-tiles
	// The merged dx + dK kernel holds both kernels' accumulators, so the dx kernel's tile is not its best: run69
	// swept it alone, and run72 combined run69's winners. Where no tile beat the one before by 3%, it stays.
	{rowsInputKernelGrad, 112, 32, 1}: tileR32,       // run72
	{rowsInputKernelGrad, 112, 96, 2}: tileR32,       // run72
	{rowsInputKernelGrad, 56, 144, 1}: tileR16W8PT2,  // run72
	{rowsInputKernelGrad, 56, 144, 2}: tileR16W8PT2,  // run72
	{rowsInputKernelGrad, 28, 192, 1}: tileR16W8,     // run72
	{rowsInputKernelGrad, 28, 192, 2}: tileR16W8PT2,  // run72
	{rowsInputKernelGrad, 14, 384, 1}: tileR16,       // run69
	{rowsInputKernelGrad, 14, 576, 1}: tileR16,       // run69
	{rowsInputKernelGrad, 14, 576, 2}: tileR16C16PT2, // run72
	{rowsInputKernelGrad, 7, 960, 1}:  tileC16PT2,    // run69
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
