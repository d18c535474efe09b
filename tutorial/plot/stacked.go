package plot

import (
	"fmt"
	"image/color"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Stack is one stacked bar, e.g. the step-time split of one ladder step;
// Parts are in the order of StackedBars' partNames, drawn bottom-up.
type Stack struct {
	Label string
	Parts []float64
}

// StackedBars renders one stacked bar per Stack, showing how a total (e.g.
// step time in ms) divides into named parts (e.g. data wait, transfer,
// compute, other). Part i always has the same colour, the total is printed
// above each stack and a part's value inside its segment when it fits.
// Parts must be non-negative: a split of time has no negative share.
func StackedBars(title, yLabel, caption string, partNames []string, stacks []Stack) ([]byte, error) {
	if len(stacks) == 0 || len(partNames) == 0 {
		return nil, fmt.Errorf("%w: StackedBars(%q) got %d stacks and %d part names", ErrEmpty, title, len(stacks), len(partNames))
	}
	labels := make([]string, len(stacks))
	for i, s := range stacks {
		if len(s.Parts) != len(partNames) {
			return nil, fmt.Errorf("plot: StackedBars(%q): stack %q has %d parts, want %d (one per part name)", title, s.Label, len(s.Parts), len(partNames))
		}
		for j, v := range s.Parts {
			if !finite(v) || v < 0 {
				return nil, fmt.Errorf("plot: StackedBars(%q): stack %q part %q is %g, want a finite value >= 0", title, s.Label, partNames[j], v)
			}
		}
		labels[i] = s.Label
	}
	p := newPlot(title, "", yLabel)
	nominalX(p, labels)
	p.Add(&stackPlotter{stacks: stacks, valueStyle: valueStyle()})
	legend := make([]legendEntry, len(partNames))
	for j, name := range partNames {
		legend[j] = legendEntry{name: name, fill: colorAt(j)}
	}
	return render(p, legend, caption)
}

// stackPlotter draws the stacks with their totals and segment values.
type stackPlotter struct {
	stacks     []Stack
	valueStyle text.Style
}

func total(parts []float64) (t float64) {
	for _, v := range parts {
		t += v
	}
	return t
}

// DataRange implements plot.DataRanger.
func (sp *stackPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	for _, s := range sp.stacks {
		ymax = max(ymax, total(s.Parts))
	}
	if ymax == 0 {
		ymax = 1
	}
	return -0.5, float64(len(sp.stacks)) - 0.5, 0, ymax
}

// Plot implements plot.Plotter.
func (sp *stackPlotter) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	half := (trX(1) - trX(0)) * barWidth / 2
	inner := sp.valueStyle
	inner.YAlign = draw.YCenter
	for i, s := range sp.stacks {
		x := trX(float64(i))
		base := 0.0
		for j, v := range s.Parts {
			y0, y1 := trY(base), trY(base+v)
			base += v
			if v == 0 {
				continue
			}
			fill := colorAt(j)
			c.FillPolygon(fill, rectPts(x-half, y0, x+half, y1))
			// A thin white seam keeps adjacent segments apart in greyscale.
			c.StrokeLine2(draw.LineStyle{Color: color.White, Width: 0.75}, x-half, y1, x+half, y1)
			label := formatValue(v)
			if y1-y0 >= inner.Height(label)+2 && inner.Width(label)+4 <= 2*half {
				inner.Color = textOn(fill)
				c.FillText(inner, vg.Point{X: x, Y: (y0 + y1) / 2}, label)
			}
		}
		c.FillText(sp.valueStyle, vg.Point{X: x, Y: trY(base) + valuePad}, formatValue(base))
	}
	y0 := trY(0)
	c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: 0.75}, c.Min.X, y0, c.Max.X, y0)
}

// GlyphBoxes implements plot.GlyphBoxer so the totals are never clipped.
func (sp *stackPlotter) GlyphBoxes(p *gplot.Plot) []gplot.GlyphBox {
	boxes := make([]gplot.GlyphBox, len(sp.stacks))
	for i, s := range sp.stacks {
		t := total(s.Parts)
		label := formatValue(t)
		w, h := sp.valueStyle.Width(label), sp.valueStyle.Height(label)+valuePad
		boxes[i] = gplot.GlyphBox{
			X:         p.X.Norm(float64(i)),
			Y:         p.Y.Norm(t),
			Rectangle: vg.Rectangle{Min: vg.Point{X: -w / 2}, Max: vg.Point{X: w / 2, Y: h}},
		}
	}
	return boxes
}

// textOn picks black or white text for legibility on the given fill, by its
// relative luminance.
func textOn(fill color.NRGBA) color.Color {
	l := 0.2126*float64(fill.R) + 0.7152*float64(fill.G) + 0.0722*float64(fill.B)
	if l > 140 {
		return color.Black
	}
	return color.White
}
