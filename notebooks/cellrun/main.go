// Command cellrun runs the notebooks' code cells without Jupyter: every code cell of notebooks/0N-*.ipynb is a
// function here (cells_*.go, generated from the notebooks by `go test ./notebooks -run TestCellProgram -update`),
// and each runs in a process of its own, as GoNB runs a cell. It exists for the GPU machine, which has neither Go
// nor Jupyter: built here (cgo), carried there and run from the repository's root, it makes the notebooks' own
// calls on the GPU, and -compare then sets what they measured beside the recorded results the notebooks show.
//
//	cellrun                      every cell, in notebook order; a summary line per cell; exit 1 if any failed
//	cellrun -notebooks 01,07     the cells of those notebooks
//	cellrun -list                the cell IDs
//	cellrun -cell 07.13          one cell, in this process
//	cellrun -compare RUNS.json   the runs file the cells wrote (notebooks/runs/<device>.json) beside the canonical
//	                             results file (Markdown)
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
)

type cell struct {
	id, notebook string
	run          func()
}

var cells []cell

// register is called by the generated files' init, in notebook order.
func register(id, notebook string, run func()) { cells = append(cells, cell{id, notebook, run}) }

func main() {
	list := flag.Bool("list", false, "print the cell IDs and exit")
	one := flag.String("cell", "", "run this cell (e.g. 07.13) in this process")
	notebooks := flag.String("notebooks", "", "comma-separated notebook numbers to run (default: all)")
	compare := flag.String("compare", "", "compare this runs file (what the cells measured) with the canonical results")
	flag.Parse()
	slices.SortStableFunc(cells, func(a, b cell) int { return strings.Compare(a.notebook, b.notebook) })
	switch {
	case *list:
		for _, c := range cells {
			fmt.Printf("%s\t%s\n", c.id, c.notebook)
		}
	case *one != "":
		i := slices.IndexFunc(cells, func(c cell) bool { return c.id == *one })
		if i < 0 {
			fmt.Fprintf(os.Stderr, "cellrun: no cell %q (cellrun -list)\n", *one)
			os.Exit(2)
		}
		cells[i].run()
	case *compare != "":
		if err := compareRuns(*compare); err != nil {
			fmt.Fprintln(os.Stderr, "cellrun:", err)
			os.Exit(1)
		}
	default:
		if runAll(strings.Split(*notebooks, ",")) > 0 {
			os.Exit(1)
		}
	}
}

// runAll runs the cells of the notebooks named by number ("" in the list: all), each as `cellrun -cell ID` in a
// process of its own with the output passed through, and returns how many failed.
func runAll(numbers []string) (failed int) {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cellrun:", err)
		return 1
	}
	var summary []string
	for _, c := range cells {
		num, _, _ := strings.Cut(c.notebook, "-")
		if !slices.Contains(numbers, "") && !slices.Contains(numbers, num) {
			continue
		}
		fmt.Printf("=== %s cell %s\n", c.notebook, c.id)
		start := time.Now()
		cmd := exec.Command(self, "-cell", c.id)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		status := "ok"
		if err := cmd.Run(); err != nil {
			status = "FAILED: " + err.Error()
			failed++
		}
		line := fmt.Sprintf("%-22s %-6s %6.1f s  %s", c.notebook, c.id, time.Since(start).Seconds(), status)
		fmt.Printf("=== %s\n", line)
		summary = append(summary, line)
	}
	fmt.Printf("\n%d cells, %d failed\n%s\n", len(summary), failed, strings.Join(summary, "\n"))
	return failed
}

// compareRuns prints, for every step the cells measured, its throughput beside the canonical measurement's
// (assets/results/ladder.CanonicalResults, which the notebooks show as the H200 evidence).
func compareRuns(path string) error {
	runs, err := ladder.Read(path)
	if err != nil {
		return err
	}
	canonical, err := ladder.ReadCanonical(".")
	if err != nil {
		return err
	}
	fmt.Printf("| step | cells' run samples/s | first call s | recorded (%s) samples/s | ratio |\n|---|---:|---:|---:|---:|\n",
		ladder.CanonicalResults)
	for _, r := range runs.Results {
		if r.Error != "" {
			fmt.Printf("| %s | FAILED: %s | | | |\n", r.ID, r.Error)
			continue
		}
		rec, ratio := "—", "—"
		if c := canonical.Result(r.ID); c != nil && c.SamplesPerSec > 0 {
			rec, ratio = fmt.Sprintf("%.0f", c.SamplesPerSec), fmt.Sprintf("%.2f", r.SamplesPerSec/c.SamplesPerSec)
		}
		fmt.Printf("| %s | %.0f | %.1f | %s | %s |\n", r.ID, r.SamplesPerSec, r.FirstCallS, rec, ratio)
	}
	return nil
}
