package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bar is one bar of a Bars chart: typically one ladder step.
type Bar struct {
	Label string  // x-axis label, e.g. "3: bf16 AMP"
	Value float64 // bar height, e.g. images/s
	// Low and High draw an optional error bar (e.g. p10/p90 of the per-step
	// samples); leave both 0 for none.
	Low, High float64
	// Group colours the bar (e.g. "Go" or "PyTorch"); a legend is drawn when
	// the bars use more than one group.
	Group string
}

func (b Bar) hasErrBar() bool { return b.Low != 0 || b.High != 0 }

// barWidth is the fraction of a category slot a bar fills.
const barWidth = 0.7

// valuePad is the gap between a bar (or its error bar) and its value text.
const valuePad = vg.Length(3)

// Bars renders a vertical bar chart as SVG, one bar per entry in order, with
// the value printed above each bar, optional error bars, a legend when more
// than one Group is used, and caption printed under the chart.
func Bars(title, yLabel, caption string, bars []Bar) ([]byte, error) {
	if len(bars) == 0 {
		return nil, fmt.Errorf("%w: Bars(%q) got no bars", ErrEmpty, title)
	}
	var groups []string
	groupIdx := map[string]int{}
	labels := make([]string, len(bars))
	for i, b := range bars {
		if !finite(b.Value, b.Low, b.High) {
			return nil, fmt.Errorf("plot: Bars(%q): bar %q has a non-finite value", title, b.Label)
		}
		if b.hasErrBar() && b.Low > b.High {
			return nil, fmt.Errorf("plot: Bars(%q): bar %q has Low %g > High %g", title, b.Label, b.Low, b.High)
		}
		if _, ok := groupIdx[b.Group]; !ok {
			groupIdx[b.Group] = len(groups)
			groups = append(groups, b.Group)
		}
		labels[i] = b.Label
	}

	p := newPlot(title, "", yLabel)
	nominalX(p, labels)
	bp := &barPlotter{bars: bars, colors: make([]color.Color, len(bars)), valueStyle: valueStyle()}
	for i, b := range bars {
		bp.colors[i] = colorAt(groupIdx[b.Group])
	}
	p.Add(bp)

	var legend []legendEntry
	if len(groups) > 1 {
		for i, g := range groups {
			if g == "" {
				g = "(no group)"
			}
			legend = append(legend, legendEntry{name: g, fill: colorAt(i)})
		}
	}
	return render(p, legend, caption)
}

// nominalX labels the x axis with one category per integer position and
// rotates the labels when they would not fit side by side — ladder step names
// are often longer than a bar is wide.
func nominalX(p *gplot.Plot, labels []string) {
	p.NominalX(labels...)
	p.Y.Padding = 0 // NominalX pads by half the first label; the slots already leave room.
	p.X.Padding = 0 // bars stand on the axis.
	// Estimated slot width: picture minus margins and a typical y axis.
	slot := (Width - 2*margin - 70) / vg.Length(len(labels))
	var widest vg.Length
	for _, l := range labels {
		widest = max(widest, p.X.Tick.Label.Width(l))
	}
	if widest > 0.95*slot {
		// Rotated about the label's top-right corner, so the text hangs
		// below the axis and ends under its bar.
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
		p.Add(labelPad{style: p.X.Tick.Label, labels: labels})
	}
}

// labelPad reserves room on the left for rotated x labels. gonum/plot pads
// the data area for plotters' glyph boxes on both sides but for x tick labels
// only on the right, so a long first label would run off the picture.
type labelPad struct {
	style  text.Style
	labels []string
}

// Plot implements plot.Plotter; labelPad draws nothing.
func (labelPad) Plot(draw.Canvas, *gplot.Plot) {}

// GlyphBoxes implements plot.GlyphBoxer with zero-height boxes, so only the
// horizontal padding is affected.
func (lp labelPad) GlyphBoxes(p *gplot.Plot) []gplot.GlyphBox {
	boxes := make([]gplot.GlyphBox, len(lp.labels))
	for i, l := range lp.labels {
		r := lp.style.Rectangle(l)
		r.Min.Y, r.Max.Y = 0, 0
		boxes[i] = gplot.GlyphBox{X: p.X.Norm(float64(i)), Rectangle: r}
	}
	return boxes
}

// valueStyle is the style of the numbers printed on bars.
func valueStyle() text.Style {
	s := textStyle(9, false)
	s.Color = captionColor
	return s
}

// barPlotter draws bars, error bars and value labels. It is written here
// rather than using plotter.BarChart because that draws one colour per chart
// and no value text; and it reports the value text as glyph boxes so that
// gonum/plot leaves room for it above the tallest bar.
type barPlotter struct {
	bars       []Bar
	colors     []color.Color
	valueStyle text.Style
}

// extent returns the lowest and highest data value a bar occupies.
func (b Bar) extent() (lo, hi float64) {
	lo, hi = min(0, b.Value), max(0, b.Value)
	if b.hasErrBar() {
		lo, hi = min(lo, b.Low), max(hi, b.High)
	}
	return lo, hi
}

// DataRange implements plot.DataRanger; the bars always include zero so that
// their heights compare honestly.
func (bp *barPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	for _, b := range bp.bars {
		lo, hi := b.extent()
		ymin, ymax = min(ymin, lo), max(ymax, hi)
	}
	if ymin == ymax {
		ymax = 1
	}
	return -0.5, float64(len(bp.bars)) - 0.5, ymin, ymax
}

// Plot implements plot.Plotter.
func (bp *barPlotter) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	half := (trX(1) - trX(0)) * barWidth / 2
	y0 := trY(0)
	errStyle := draw.LineStyle{Color: color.Black, Width: 1}
	for i, b := range bp.bars {
		x := trX(float64(i))
		c.FillPolygon(bp.colors[i], rectPts(x-half, y0, x+half, trY(b.Value)))
		if b.hasErrBar() {
			lo, hi, capW := trY(b.Low), trY(b.High), half*0.35
			c.StrokeLine2(errStyle, x, lo, x, hi)
			c.StrokeLine2(errStyle, x-capW, lo, x+capW, lo)
			c.StrokeLine2(errStyle, x-capW, hi, x+capW, hi)
		}
		sty, pt := bp.valueAnchor(b, trY)
		pt.X = x
		c.FillText(sty, pt, formatValue(b.Value))
	}
	c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: 0.75}, c.Min.X, y0, c.Max.X, y0)
}

// valueAnchor places a value label just above a positive bar (or below a
// negative one), clear of its error bar.
func (bp *barPlotter) valueAnchor(b Bar, trY func(float64) vg.Length) (text.Style, vg.Point) {
	sty := bp.valueStyle
	lo, hi := b.extent()
	if b.Value < 0 {
		sty.YAlign = draw.YTop
		return sty, vg.Point{Y: trY(lo) - valuePad}
	}
	return sty, vg.Point{Y: trY(hi) + valuePad}
}

// GlyphBoxes implements plot.GlyphBoxer for the value labels.
func (bp *barPlotter) GlyphBoxes(p *gplot.Plot) []gplot.GlyphBox {
	boxes := make([]gplot.GlyphBox, len(bp.bars))
	for i, b := range bp.bars {
		s := formatValue(b.Value)
		w, h := bp.valueStyle.Width(s), bp.valueStyle.Height(s)+valuePad
		lo, hi := b.extent()
		box := gplot.GlyphBox{X: p.X.Norm(float64(i)), Y: p.Y.Norm(hi)}
		box.Rectangle = vg.Rectangle{Min: vg.Point{X: -w / 2}, Max: vg.Point{X: w / 2, Y: h}}
		if b.Value < 0 {
			box.Y = p.Y.Norm(lo)
			box.Rectangle.Min.Y, box.Rectangle.Max.Y = -h, 0
		}
		boxes[i] = box
	}
	return boxes
}
