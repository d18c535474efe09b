package plot

import (
	"bytes"

	"github.com/janpfeifer/gonb/gonbui"
)

// Display shows an SVG inline when the program runs inside a GoNB notebook
// cell, and does nothing otherwise, so the same code serves notebooks, tests
// and command-line tools.
func Display(svg []byte) {
	if !gonbui.IsNotebook || len(svg) == 0 {
		return
	}
	gonbui.DisplaySvg(string(stripProlog(svg)))
	gonbui.Sync() // a cell's program may exit right after; make sure GoNB has read the output
}

// DisplayHTML shows HTML (e.g. from HTMLTable) inline when running inside
// GoNB, and does nothing otherwise.
func DisplayHTML(html string) {
	if !gonbui.IsNotebook || html == "" {
		return
	}
	gonbui.DisplayHTML(html)
	gonbui.Sync()
}

// stripProlog drops the XML declaration and comments before <svg: GoNB
// embeds the SVG inside an HTML <div>, where a declaration is not allowed.
func stripProlog(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		return svg[i:]
	}
	return svg
}
