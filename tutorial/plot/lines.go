package plot

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Point is one (x, y) sample of a line series.
type Point struct{ X, Y float64 }

// markerLimit is the most points a series may have and still get a marker on
// every point; beyond it markers would merge into a thick smear.
const markerLimit = 40

// dashes distinguish series without relying on colour alone.
var dashes = [][]vg.Length{nil, {6, 3}, {2, 2}, {8, 3, 2, 3}, {4, 4}, {1, 3}}

// Lines renders one line per series, e.g. loss per step or GPU utilisation
// over time. Series are drawn and listed in the legend in name order, so the
// map's random iteration order never changes the picture; points are joined
// in the order given.
func Lines(title, xLabel, yLabel, caption string, series map[string][]Point) ([]byte, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: Lines(%q) got no series", ErrEmpty, title)
	}
	names := make([]string, 0, len(series))
	for name, pts := range series {
		if len(pts) == 0 {
			return nil, fmt.Errorf("%w: Lines(%q): series %q has no points", ErrEmpty, title, name)
		}
		for _, pt := range pts {
			if !finite(pt.X, pt.Y) {
				return nil, fmt.Errorf("plot: Lines(%q): series %q has a non-finite point (%g, %g)", title, name, pt.X, pt.Y)
			}
		}
		names = append(names, name)
	}
	sort.Strings(names)

	p := newPlot(title, xLabel, yLabel)
	p.X.Tick.Marker = niceTicks{}
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	grid.Vertical = draw.LineStyle{Color: gridColor, Width: 0.5}
	p.Add(grid)
	var legend []legendEntry
	for i, name := range names {
		pts := series[name]
		xys := make(plotter.XYs, len(pts))
		for k, pt := range pts {
			xys[k].X, xys[k].Y = pt.X, pt.Y
		}
		style := draw.LineStyle{Color: colorAt(i), Width: 1.5, Dashes: dashes[i%len(dashes)]}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("plot: Lines(%q): series %q: %w", title, name, err)
		}
		line.LineStyle = style
		p.Add(line)
		glyph := len(pts) <= markerLimit
		if glyph {
			points.GlyphStyle = draw.GlyphStyle{Color: style.Color, Radius: 2.5, Shape: draw.CircleGlyph{}}
			p.Add(points)
		}
		if len(names) > 1 {
			legend = append(legend, legendEntry{name: name, line: &style, glyph: glyph})
		}
	}
	return render(p, legend, caption)
}
