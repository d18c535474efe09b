package ladder

import (
	"fmt"
	"path/filepath"

	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
)

// ThroughputChart is samples/s per step (error bars from the p10/p90 step times), with PyTorch's numbers from the
// same device call beside them when the file has them.
func (f *File) ThroughputChart() ([]byte, error) {
	var bars []plot.Bar
	for _, r := range f.Results {
		if r.Error != "" {
			continue
		}
		b := plot.Bar{Label: r.ID, Value: r.SamplesPerSec, Group: "Go + XLA (GoMLX)"}
		if r.StepP10Ms > 0 && r.StepP90Ms > 0 {
			b.Low, b.High = float64(r.Batch)*1e3/r.StepP90Ms, float64(r.Batch)*1e3/r.StepP10Ms
		}
		bars = append(bars, b)
	}
	for _, r := range f.Reference {
		bars = append(bars, plot.Bar{Label: fmt.Sprintf("pt%s@%d", r.Step, r.Batch), Value: r.SamplesPerSec, Group: "PyTorch"})
	}
	return plot.Bars("Training throughput per ladder step", "samples/s", f.Conditions.Caption(), bars)
}

// SplitChart is the median step time split into data wait, host→device transfer, device compute and the rest.
func (f *File) SplitChart() ([]byte, error) {
	var stacks []plot.Stack
	for _, r := range f.Results {
		if r.Error != "" {
			continue
		}
		stacks = append(stacks, plot.Stack{Label: r.ID, Parts: []float64{r.DataWaitMs, r.TransferMs, r.ComputeMs, r.OtherMs}})
	}
	return plot.StackedBars("Where a training step's time goes (median, ms per step)", "ms per step",
		f.Conditions.Caption(), []string{"data wait", "host→device", "compute (Execute)", "other"}, stacks)
}

// WriteCharts writes <dir>/<Name>-throughput.svg and -split.svg.
func (f *File) WriteCharts(dir string) ([]string, error) { return f.WriteChartsAs(dir, f.Name()) }

// WriteChartsAs writes <dir>/<name>-throughput.svg and -split.svg.
func (f *File) WriteChartsAs(dir, name string) ([]string, error) {
	var paths []string
	for _, c := range []struct {
		suffix string
		make   func() ([]byte, error)
	}{{"throughput", f.ThroughputChart}, {"split", f.SplitChart}} {
		svg, err := c.make()
		if err != nil {
			return paths, fmt.Errorf("%s chart: %w", c.suffix, err)
		}
		path := filepath.Join(dir, name+"-"+c.suffix+".svg")
		if err := plot.WriteFile(path, svg); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
