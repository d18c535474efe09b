package plot_test

import (
	"bytes"
	"fmt"

	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
)

// Table renders a Markdown table whose numeric columns are right-aligned.
func ExampleTable() {
	fmt.Print(plot.Table([]string{"step", "samples/s", "× step 1"},
		[][]string{{"1", "940", "1.00×"}, {"12@512", "14098", "15.00×"}}))
	// Output:
	// | step   | samples/s | × step 1 |
	// | ------ | --------: | -------: |
	// | 1      |       940 |    1.00× |
	// | 12@512 |     14098 |   15.00× |
}

// Bars renders an SVG bar chart with the measurement's conditions drawn under it; Display shows it in a GoNB
// cell and does nothing elsewhere.
func ExampleBars() {
	svg, err := plot.Bars("throughput", "samples/s", "NVIDIA H200, 2026-12-03, SYNTHETIC data",
		[]plot.Bar{{Label: "1", Value: 940}, {Label: "12@512", Value: 14098, Low: 14000, High: 14150}})
	if err != nil {
		panic(err)
	}
	fmt.Println(bytes.Contains(svg, []byte("<svg")))
	plot.Display(svg)
	// Output:
	// true
}

// FormatBytes is a byte count in words.
func ExampleFormatBytes() {
	fmt.Println(plot.FormatBytes(512), plot.FormatBytes(3200), plot.FormatBytes(1610612736))
	// Output:
	// 512 B 3.1 KiB 1.50 GiB
}
