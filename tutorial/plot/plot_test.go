package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

const testCaption = "NVIDIA H200, 2025-01-01, Go 1.27 / GoMLX 0.28, synthetic data, batch 256 at 224 px"

// ladder is a realistic optimisation-ladder result, shared by the tests.
var ladder = []Bar{
	{Label: "0 baseline", Value: 412.3, Low: 398, High: 420, Group: "Go"},
	{Label: "1 workers", Value: 801.9, Low: 780, High: 815, Group: "Go"},
	{Label: "2 pinned", Value: 955.5, Low: 930, High: 970, Group: "Go"},
	{Label: "3 bf16", Value: 1634, Low: 1600, High: 1650, Group: "Go"},
	{Label: "4 channels-last", Value: 1910, Low: 1880, High: 1935, Group: "Go"},
	{Label: "4 PyTorch", Value: 2050, Low: 2010, High: 2080, Group: "PyTorch"},
}

// svgTexts checks that svg is well-formed XML and returns the character data
// of its <text> elements in document order.
func svgTexts(t *testing.T, svg []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var texts []string
	inText := false
	sawSVG := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			sawSVG = sawSVG || tok.Name.Local == "svg"
			if tok.Name.Local == "text" {
				inText = true
				texts = append(texts, "")
			}
		case xml.EndElement:
			if tok.Name.Local == "text" {
				inText = false
			}
		case xml.CharData:
			if inText {
				texts[len(texts)-1] += string(tok)
			}
		}
	}
	if !sawSVG {
		t.Fatal("no <svg> element")
	}
	return texts
}

// hasText reports whether want appears in the SVG's text, where wrapped lines
// (e.g. of the caption) are joined by a space.
func hasText(texts []string, want string) bool {
	return strings.Contains(strings.Join(texts, " "), want)
}

func mustContain(t *testing.T, texts []string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !hasText(texts, w) {
			t.Errorf("SVG text lacks %q; has %q", w, texts)
		}
	}
}

func TestBars(t *testing.T) {
	svg, err := Bars("Throughput per ladder step", "images/s", testCaption, ladder)
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, svg)
	mustContain(t, texts, "Throughput per ladder step", "images/s", testCaption,
		"412", "802", "956", "1634", "1910", "2050", "Go", "PyTorch")
	for _, b := range ladder {
		mustContain(t, texts, b.Label)
	}
	again, err := Bars("Throughput per ladder step", "images/s", testCaption, ladder)
	if err != nil || !bytes.Equal(svg, again) {
		t.Errorf("Bars is not deterministic (err=%v)", err)
	}
}

func TestBarsErrorBarsAndLegend(t *testing.T) {
	plain := make([]Bar, len(ladder))
	for i, b := range ladder {
		plain[i] = Bar{Label: b.Label, Value: b.Value}
	}
	withErr, err := Bars("t", "y", "c", ladder)
	if err != nil {
		t.Fatal(err)
	}
	without, err := Bars("t", "y", "c", plain)
	if err != nil {
		t.Fatal(err)
	}
	// Each error bar is a stem and two caps; the legend adds one swatch per group.
	got := bytes.Count(withErr, []byte("<path")) - bytes.Count(without, []byte("<path"))
	if want := 3*len(ladder) + 2; got != want {
		t.Errorf("error bars + legend added %d paths, want %d", got, want)
	}
	texts := svgTexts(t, without)
	if hasText(texts, "Go") {
		t.Errorf("single-group chart should have no legend, texts %q", texts)
	}
}

func TestNegativeAndZeroBars(t *testing.T) {
	svg, err := Bars("delta", "%", "", []Bar{{Label: "a", Value: -12.5}, {Label: "b", Value: 0}, {Label: "c", Value: 0.0123}})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, svgTexts(t, svg), "-12.5", "0", "0.0123")
}

func TestBadInput(t *testing.T) {
	if _, err := Bars("t", "y", "c", nil); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "no bars") {
		t.Errorf("Bars(nil) error = %v", err)
	}
	if _, err := StackedBars("t", "y", "c", []string{"a"}, nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("StackedBars(nil) error = %v", err)
	}
	if _, err := Lines("t", "x", "y", "c", nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("Lines(nil) error = %v", err)
	}
	if _, err := Lines("t", "x", "y", "c", map[string][]Point{"loss": nil}); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "loss") {
		t.Errorf("Lines(empty series) error = %v", err)
	}
	if _, err := StackedBars("t", "y", "c", []string{"a", "b"}, []Stack{{Label: "s", Parts: []float64{1}}}); err == nil {
		t.Error("StackedBars with a missing part: no error")
	}
	if _, err := StackedBars("t", "y", "c", []string{"a"}, []Stack{{Label: "s", Parts: []float64{-1}}}); err == nil {
		t.Error("StackedBars with a negative part: no error")
	}
	if _, err := Bars("t", "y", "c", []Bar{{Label: "x", Value: 1, Low: 3, High: 2}}); err == nil {
		t.Error("Bars with Low > High: no error")
	}
}

var stepParts = []string{"data wait", "host→device", "compute", "other"}

var stepSplit = []Stack{
	{Label: "0 baseline", Parts: []float64{310.2, 42.1, 250.7, 18.4}},
	{Label: "1 workers", Parts: []float64{45.3, 40.8, 248.9, 17.2}},
	{Label: "2 pinned", Parts: []float64{30.1, 12.4, 247.5, 15.9}},
	{Label: "3 bf16", Parts: []float64{28.4, 11.9, 110.3, 6.1}},
	{Label: "4 channels-last", Parts: []float64{27.5, 11.8, 86.2, 4.5}},
}

func TestStackedBars(t *testing.T) {
	svg, err := StackedBars("Step time split", "ms / step", testCaption, stepParts, stepSplit)
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, svg)
	mustContain(t, texts, "Step time split", "ms / step", testCaption, "621", "310", "data wait", "host→device", "compute", "other")
	for _, s := range stepSplit {
		mustContain(t, texts, s.Label)
	}
	again, _ := StackedBars("Step time split", "ms / step", testCaption, stepParts, stepSplit)
	if !bytes.Equal(svg, again) {
		t.Error("StackedBars is not deterministic")
	}
}

func lossSeries() map[string][]Point {
	s := map[string][]Point{}
	for _, name := range []string{"Go", "PyTorch", "Go bf16"} {
		var pts []Point
		for i := range 200 {
			x := float64(i)
			pts = append(pts, Point{X: x, Y: 2.3/(1+x/40) + 0.05*float64(len(name)%3)})
		}
		s[name] = pts
	}
	s["GPU util %"] = []Point{{0, 0.2}, {50, 1.9}, {100, 1.8}, {150, 1.95}, {199, 1.9}}
	return s
}

func TestLines(t *testing.T) {
	svg, err := Lines("Training loss", "step", "loss", testCaption, lossSeries())
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, svgTexts(t, svg), "Training loss", "step", "loss", testCaption, "Go", "PyTorch", "Go bf16", "GPU util %")
	for range 5 { // map iteration order differs between calls
		again, _ := Lines("Training loss", "step", "loss", testCaption, lossSeries())
		if !bytes.Equal(svg, again) {
			t.Fatal("Lines is not deterministic")
		}
	}
}

func TestTable(t *testing.T) {
	got := Table([]string{"step", "images/s", "speed-up"}, [][]string{
		{"0 baseline", "412", "1.00×"},
		{"3 a|b", "1634.5", "3.96×"},
		{"short"},
	})
	want := "" +
		"| step       | images/s | speed-up |\n" +
		"| ---------- | -------: | -------: |\n" +
		"| 0 baseline |      412 |    1.00× |\n" +
		"| 3 a\\|b     |   1634.5 |    3.96× |\n" +
		"| short      |          |          |\n"
	if got != want {
		t.Errorf("Table:\n%s\nwant:\n%s", got, want)
	}
	if Table(nil, nil) != "" {
		t.Error("empty Table should be empty")
	}
}

func TestHTMLTable(t *testing.T) {
	got := HTMLTable([]string{"step", "<b>"}, [][]string{{"<script>alert(1)</script>", "a & b"}}, `H200 "synthetic" <data>`)
	for _, bad := range []string{"<script>", "<b>", "<data>"} {
		if strings.Contains(got, bad) {
			t.Errorf("HTMLTable did not escape %q:\n%s", bad, got)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "&lt;b&gt;", "a &amp; b", "&lt;data&gt;", "<caption", "<table", "</table>"} {
		if !strings.Contains(got, want) {
			t.Errorf("HTMLTable lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(HTMLTable([]string{"a"}, nil, ""), "<caption") {
		t.Error("empty caption should be omitted")
	}
}

func TestDisplayIsNoOpOutsideGoNB(t *testing.T) {
	if gonbui.IsNotebook {
		t.Skip("running inside GoNB")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	Display([]byte("<svg></svg>"))
	DisplayHTML("<p>hi</p>")
	os.Stdout = stdout
	w.Close()
	if out, _ := io.ReadAll(r); len(out) != 0 {
		t.Errorf("Display wrote %q outside GoNB", out)
	}
}

func TestStripProlog(t *testing.T) {
	svg, _ := Bars("t", "y", "c", ladder[:1])
	if got := stripProlog(svg); !bytes.HasPrefix(got, []byte("<svg")) {
		t.Errorf("stripProlog left %q", got[:20])
	}
}

// TestExamples writes one picture of each kind, for looking at: set
// PLOT_EXAMPLES_DIR to keep them (e.g. to convert with rsvg-convert).
func TestExamples(t *testing.T) {
	dir := os.Getenv("PLOT_EXAMPLES_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	longLabels := make([]Bar, len(ladder))
	for i, b := range ladder {
		b.Label = "step " + b.Label + " (fused optimiser)"
		longLabels[i] = b
	}
	longCaption := testCaption + "; CUDA 12.8, cuDNN 9.7, XLA PJRT plugin 0.4.13, PyTorch 2.7 with torch.compile; medians of 200 steps after 20 warm-up steps; error bars p10–p90."
	charts := map[string]func() ([]byte, error){
		"bars.svg": func() ([]byte, error) {
			return Bars("Throughput per ladder step", "images/s", testCaption, ladder)
		},
		"bars_long.svg": func() ([]byte, error) {
			return Bars("Throughput per ladder step", "images/s", longCaption, longLabels)
		},
		"bars_mixed.svg": func() ([]byte, error) {
			return Bars("Change vs. previous step", "%", "", []Bar{
				{Label: "1", Value: 94.5}, {Label: "2", Value: 19.2}, {Label: "3", Value: -3.1, Low: -6, High: 1},
				{Label: "4", Value: 0}, {Label: "5", Value: 0.42}, {Label: "6", Value: 12}, {Label: "7", Value: 7.5},
				{Label: "8", Value: -0.8}, {Label: "9", Value: 3}, {Label: "10", Value: 1}, {Label: "11", Value: 2}, {Label: "12", Value: 5},
			})
		},
		"stacked.svg": func() ([]byte, error) {
			return StackedBars("Where a training step's time goes", "ms / step", testCaption, stepParts, stepSplit)
		},
		"lines.svg": func() ([]byte, error) {
			return Lines("Training loss", "step", "loss", longCaption, lossSeries())
		},
	}
	for name, fn := range charts {
		svg, err := fn()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := artifact.WriteFile(filepath.Join(dir, name), svg); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 2050, "0 500 1000 1500 2000"},
		{0.21, 2.35, "0.5 1.0 1.5 2.0"},
		{0, 199, "0 50 100 150"},
		{-12.5, 0.0123, "-12 -10 -8 -6 -4 -2 0"},
		{0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{0, 12.5, "0 2 4 6 8 10 12"},
		{0, 0.05, "0.00 0.01 0.02 0.03 0.04 0.05"},
		{100, 350, "100 150 200 250 300 350"},
		{0, 0.11, "0.00 0.02 0.04 0.06 0.08 0.10"},
		{0, 1.5, "0.00 0.25 0.50 0.75 1.00 1.25 1.50"},
	} {
		var got []string
		for _, tk := range (niceTicks{}).Ticks(tc.lo, tc.hi) {
			got = append(got, tk.Label)
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("Ticks(%g, %g) = %q, want %q", tc.lo, tc.hi, s, tc.want)
		}
	}
}

func TestFormatValue(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1634.4: "1634", 94.5: "94.5", 12: "12", 7.5: "7.5", 12.345: "12.3", -0.8: "-0.8", 0.0123: "0.0123"} {
		if got := formatValue(v); got != want {
			t.Errorf("formatValue(%g) = %q, want %q", v, got, want)
		}
	}
}
