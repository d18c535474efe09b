package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	stdfont "golang.org/x/image/font"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default picture size: wide enough for ~10 labelled bars, and the 16:9 shape
// fits both a notebook cell and a README column.
const (
	Width  = 8 * vg.Inch
	Height = 4.5 * vg.Inch
)

// margin is the white border around the whole picture.
const margin = vg.Length(8)

// palette is Okabe & Ito's colour-blind-safe set ("Color Universal Design"),
// reordered so the first colours have the most contrast on white; yellow is
// last because it is hard to see on white.
var palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

// colorAt cycles through the palette so any number of series gets a colour.
func colorAt(i int) color.NRGBA { return palette[i%len(palette)] }

var (
	sansFont     = font.Font{Typeface: "Liberation", Variant: "Sans"}
	sansBoldFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: stdfont.WeightBold}
	captionColor = color.NRGBA{0x33, 0x33, 0x33, 0xff}
	gridColor    = color.NRGBA{0xdd, 0xdd, 0xdd, 0xff}
)

// textStyle returns a sans-serif style; sans-serif reads better at small sizes
// than gonum's serif default.
func textStyle(size vg.Length, bold bool) text.Style {
	f := sansFont
	if bold {
		f = sansBoldFont
	}
	return text.Style{
		Color:   color.Black,
		Font:    font.From(f, size),
		XAlign:  draw.XCenter,
		YAlign:  draw.YBottom,
		Handler: gplot.DefaultTextHandler,
	}
}

// newPlot returns a gonum plot with this package's fonts and a light
// horizontal grid. Globals such as plot.DefaultFont are left alone so that
// other users of gonum/plot in the same program are not affected.
func newPlot(title, xLabel, yLabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.Title.TextStyle = textStyle(14, true)
	p.Title.TextStyle.YAlign = draw.YTop
	p.Title.Padding = 8
	for _, ax := range []*gplot.Axis{&p.X, &p.Y} {
		keepX, keepY := ax.Tick.Label.XAlign, ax.Tick.Label.YAlign
		ax.Label.TextStyle = textStyle(11, false)
		ax.Tick.Label = textStyle(10, false)
		ax.Tick.Label.XAlign, ax.Tick.Label.YAlign = keepX, keepY
	}
	p.Y.Tick.Marker = niceTicks{}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal = draw.LineStyle{Color: gridColor, Width: 0.5}
	p.Add(grid)
	return p
}

// legendEntry is one item of the legend row drawn under the chart.
type legendEntry struct {
	name  string
	fill  color.Color     // a filled square (bars), or nil
	line  *draw.LineStyle // a short line (series), or nil
	glyph bool            // draw a marker on the line swatch
}

// render lays out chart, legend and caption on one SVG canvas. The legend and
// the caption live outside the data area so they never hide data, and the
// caption is wrapped to the picture width so long conditions stay readable.
func render(p *gplot.Plot, legend []legendEntry, caption string) (out []byte, err error) {
	// gonum/plot panics on some degenerate input; a chart helper should return
	// an error instead of taking a notebook kernel down.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("plot: rendering %q failed: %v", p.Title.Text, r)
		}
	}()
	c := vgsvg.New(Width, Height)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	inner := draw.Crop(dc, margin, -margin, margin, -margin)

	bottom := inner.Min.Y
	capStyle := textStyle(9, false)
	capStyle.Color = captionColor
	capStyle.XAlign = draw.XLeft
	// Wrap a little short of the full width: a viewer without Liberation Sans
	// or Arial substitutes a wider font, which should not run off the edge.
	lines := wrapText(capStyle, caption, (inner.Max.X-inner.Min.X)*0.92)
	lineH := capStyle.FontExtents().Height * 1.15
	for i := len(lines) - 1; i >= 0; i-- {
		inner.FillText(capStyle, vg.Point{X: inner.Min.X, Y: bottom + capStyle.FontExtents().Descent}, lines[i])
		bottom += lineH
	}
	if len(lines) > 0 {
		bottom += 6
	}
	if len(legend) > 0 {
		bottom = drawLegend(inner, bottom, legend) + 4
	}
	chart := inner
	chart.Min.Y = bottom
	p.Draw(chart)

	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot: writing SVG: %w", err)
	}
	return fixFonts(buf.Bytes()), nil
}

// fixFonts adds fallbacks to the font families vgsvg writes. The layout was
// measured with Liberation Sans, which is metric-compatible with Arial and
// Helvetica, so a viewer without Liberation installed still places every
// label where it was measured instead of falling back to a serif font.
func fixFonts(svg []byte) []byte {
	return bytes.ReplaceAll(svg,
		[]byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// drawLegend draws the entries as centred rows starting at y (bottom-up,
// wrapping when a row is full) and returns the y above the last row.
func drawLegend(c draw.Canvas, y vg.Length, entries []legendEntry) vg.Length {
	sty := textStyle(10, false)
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YCenter
	const swatch, gap, between = vg.Length(14), vg.Length(4), vg.Length(16)
	width := func(e legendEntry) vg.Length { return swatch + gap + sty.Width(e.name) }
	maxW := c.Max.X - c.Min.X
	// Split into rows greedily.
	var rows [][]legendEntry
	var cur []legendEntry
	var curW vg.Length
	for _, e := range entries {
		w := width(e)
		if len(cur) > 0 && curW+between+w > maxW {
			rows = append(rows, cur)
			cur, curW = nil, 0
		}
		if len(cur) > 0 {
			curW += between
		}
		cur = append(cur, e)
		curW += w
	}
	rows = append(rows, cur)
	rowH := sty.FontExtents().Height * 1.4
	// Rows are listed top-down but drawn bottom-up.
	for r := len(rows) - 1; r >= 0; r-- {
		row := rows[r]
		var w vg.Length
		for i, e := range row {
			if i > 0 {
				w += between
			}
			w += width(e)
		}
		x := c.Min.X + (maxW-w)/2
		cy := y + rowH/2
		for _, e := range row {
			switch {
			case e.fill != nil:
				c.FillPolygon(e.fill, rectPts(x, cy-swatch/2+2, x+swatch, cy+swatch/2-2))
			case e.line != nil:
				c.StrokeLine2(*e.line, x, cy, x+swatch, cy)
				if e.glyph {
					c.DrawGlyph(draw.GlyphStyle{Color: e.line.Color, Radius: 2.5, Shape: draw.CircleGlyph{}}, vg.Point{X: x + swatch/2, Y: cy})
				}
			}
			c.FillText(sty, vg.Point{X: x + swatch + gap, Y: cy}, e.name)
			x += width(e) + between
		}
		y += rowH
	}
	return y
}

// rectPts is an axis-aligned rectangle as a polygon.
func rectPts(x0, y0, x1, y1 vg.Length) []vg.Point {
	return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}

// wrapText splits s into lines no wider than maxW, breaking at spaces;
// explicit newlines are kept. A single word longer than maxW stays whole
// (it is better to overflow the margin than to cut a version string).
func wrapText(sty text.Style, s string, maxW vg.Length) []string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(s), "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			continue
		}
		line := words[0]
		for _, w := range words[1:] {
			if sty.Width(line+" "+w) > maxW {
				out = append(out, line)
				line = w
				continue
			}
			line += " " + w
		}
		out = append(out, line)
	}
	return out
}

// formatValue prints a bar value with ~3 significant digits and no trailing
// zeros (412, 12.3, 7.5, 0.042): enough to read a speed-up off the chart
// without the noise of full float precision.
func formatValue(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// ErrEmpty is wrapped by every "nothing to draw" error, so callers can test
// for it with errors.Is.
var ErrEmpty = errors.New("plot: nothing to draw")

// finite reports whether all values are usable coordinates.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
