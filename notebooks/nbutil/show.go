package nbutil

import (
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
)

// Display hooks (tests replace them to see what a notebook would show). Each display waits until GoNB has taken
// it (gonbui.Sync): a cell's program exits right after its last display, and GoNB drops what it had not read yet.
var (
	displaySVG  = plot.Display
	displayHTML = plot.DisplayHTML
)

// show displays an SVG chart, or says in one line why there is none.
func show(what string, svg []byte, err error) {
	if err != nil {
		printf("(no %s chart: %v)\n", what, err)
		return
	}
	displaySVG(svg)
}

// showRuns displays the notebooks' own results so far: table, throughput, split and compile charts.
func showRuns(f *ladder.File, highlight string) {
	displayHTML(f.HTMLTable(highlight))
	chart("throughput", f, f.ThroughputChart)
	chart("step-time split", f, f.SplitChart)
	chart("compile time", f, f.CompileChart)
	if svg, err := f.MemoryChart(); err == nil { // the pure-Go backend has none: say nothing
		displaySVG(svg)
	}
}

// chart displays the chart make draws from f, or says in one line why there is none (no successful step, or no
// memory statistics).
func chart(what string, f *ladder.File, make func() ([]byte, error)) {
	if best, _ := f.BestAndBase(); best == nil { // no step without an error
		printf("(no %s chart: no successful step)\n", what)
		return
	}
	svg, err := make()
	show(what, svg, err)
}
