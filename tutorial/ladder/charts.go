package ladder

import (
	"fmt"
	"path/filepath"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
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
		label, group := fmt.Sprintf("pt%s@%d", r.Step, r.Batch), PyTorch
		if r.framework() == JAX {
			label, group = fmt.Sprintf("jax@%d", r.Batch), JAX
		}
		bars = append(bars, plot.Bar{Label: label, Value: r.SamplesPerSec, Group: group})
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

// TorchChart puts, for each batch size another framework was measured at, the fastest Go step of the file
// beside PyTorch's strongest step and JAX: the comparison the README leads with, all measured in one device call.
func (f *File) TorchChart() ([]byte, error) {
	var bars []plot.Bar
	for _, row := range f.Compare() {
		label := fmt.Sprintf("batch %d", row.Batch)
		bars = append(bars, plot.Bar{Label: label, Value: row.Go.SamplesPerSec, Group: "Go + XLA (GoMLX), fastest step"})
		if row.Torch != nil {
			bars = append(bars, plot.Bar{Label: label, Value: row.Torch.SamplesPerSec, Group: "PyTorch, strongest step"})
		}
		if row.JAX != nil {
			bars = append(bars, plot.Bar{Label: label, Value: row.JAX.SamplesPerSec, Group: "JAX/Flax"})
		}
	}
	return plot.Bars("Go + XLA vs PyTorch and JAX, same GPU, same device call", "samples/s", f.Conditions.Caption(), bars)
}

// WriteCharts writes <dir>/<Name>-throughput.svg and -split.svg, and -vs-pytorch.svg when PyTorch was measured
// beside, named after the results file Write wrote (so it must come after a Write).
func (f *File) WriteCharts(dir string) ([]string, error) {
	if f.Name() == "" {
		return nil, fmt.Errorf("results: charts of a results file not written yet (Write it first)")
	}
	return f.WriteChartsAs(dir, f.Name())
}

// WriteChartsAs writes <dir>/<name>-throughput.svg, -split.svg and (with PyTorch numbers) -vs-pytorch.svg.
func (f *File) WriteChartsAs(dir, name string) ([]string, error) {
	var paths []string
	type chart struct {
		suffix string
		make   func() ([]byte, error)
	}
	charts := []chart{{"throughput", f.ThroughputChart}, {"split", f.SplitChart}}
	if len(f.Reference) > 0 {
		charts = append(charts, chart{"vs-pytorch", f.TorchChart})
	}
	for _, c := range charts {
		svg, err := c.make()
		if err != nil {
			return paths, fmt.Errorf("%s chart: %w", c.suffix, err)
		}
		path := filepath.Join(dir, name+"-"+c.suffix+".svg")
		if err := artifact.WriteFile(path, svg); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
