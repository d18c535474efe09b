// Package nbutil is what the tutorial's notebooks call around the code they show: a cell builds its rung in
// visible Go (ladder.Rung(n-1) plus one edit) and hands it to [Run], which measures it, records it and displays
// it; the other cells display what the ladder recorded on the GPU ([Recorded], [Profile], [Summary]). The
// computing — configurations, tables, charts, summaries — lives in tutorial/ladder and tutorial/plot; this package
// keeps what is GoNB's: one process per cell, printing and displaying.
//
// GoNB compiles and runs every cell as a new process: nothing survives between cells but declarations. So each
// function here is a whole cell's work — find the backend, load the data, run one rung, write its result,
// display tables and charts — and results pass from cell to cell (and from notebook to notebook) through a results
// file in [RunsDir].
//
// Without a GPU every measured run uses the ladder's smoke sizes on the pure-Go backend (it shows that the step
// runs and trains, not how fast), and the H200 numbers recorded by the `ladder` and `profile` commands under
// assets/ are shown beside it, each with its GPU, date and conditions. With a GPU the same cells measure the real
// thing, in fast-start mode unless TRAINOPT_FAST_START says otherwise.
package nbutil

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

// Module is the repository's module path; [Root] looks for the go.mod that declares it.
const Module = "github.com/gomlx-tutorials/trainopt"

// Environment variables that change what the notebooks do.
const (
	// EnvRoot names the repository root (default: found from GONB_DIR or the working directory).
	EnvRoot = "TRAINOPT_ROOT"
	// EnvRuns names the folder for the notebooks' own results (default <root>/notebooks/runs).
	EnvRuns = "TRAINOPT_NB_RUNS"
	// EnvTimed overrides the number of timed steps per measured run (default 30 at smoke sizes, 60 on a GPU).
	EnvTimed = "TRAINOPT_NB_TIMED"
	// EnvWarmup overrides the number of warm-up steps (default 3 at smoke sizes, 10 on a GPU).
	EnvWarmup = "TRAINOPT_NB_WARMUP"
	// EnvNoDownload, when set to anything but "" or "0", stops 00-setup from downloading CIFAR-10.
	EnvNoDownload = "TRAINOPT_NO_DOWNLOAD"
	// EnvSmoke, when "1", forces smoke sizes even on a GPU (a quick check of the cells).
	EnvSmoke = "TRAINOPT_NB_SMOKE"
)

// out is where the notebook functions print (the cell's stdout); tests replace it.
var out io.Writer = os.Stdout

func printf(format string, args ...any) { fmt.Fprintf(out, format, args...) }

// exit is called by [fail]; tests replace it.
var exit = os.Exit

// fail prints the error where a notebook shows it and ends the cell with a non-zero status, which GoNB shows as
// "exit status 1" (and the notebook test catches).
func fail(err error) {
	fmt.Fprintf(os.Stderr, "ERROR: %v\n", err)
	exit(1)
}

// Root returns the repository root: $TRAINOPT_ROOT, else the first folder holding the module's go.mod found walking
// up from $GONB_DIR (the notebook's folder) or the working directory ([artifact.ModuleRoot]).
func Root() (string, error) {
	if r := os.Getenv(EnvRoot); r != "" {
		if abs, err := filepath.Abs(r); err == nil && artifact.ModuleRoot(abs) == abs {
			return abs, nil
		}
		return "", fmt.Errorf("%s=%q does not hold the go.mod of %s", EnvRoot, r, Module)
	}
	var starts []string
	if d := os.Getenv("GONB_DIR"); d != "" {
		starts = append(starts, d)
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, s := range starts {
		if d, err := filepath.Abs(s); err == nil {
			if root := artifact.ModuleRoot(d); root != "" {
				return root, nil
			}
		}
	}
	return "", fmt.Errorf("cannot find the repository (a go.mod declaring %s) above %q; set %s", Module,
		strings.Join(starts, `" or "`), EnvRoot)
}

// withRoot runs a cell's work with the repository root, or ends the cell if there is none.
func withRoot(cell func(root string)) {
	root, err := Root()
	if err != nil {
		fail(err)
		return
	}
	cell(root)
}

// RunsDir is the folder of the notebooks' own results files.
func RunsDir(root string) string {
	if d := os.Getenv(EnvRuns); d != "" {
		return d
	}
	return filepath.Join(root, "notebooks", "runs")
}

// envInt reads a positive integer from the environment (def when unset); a bad value is an error.
func envInt(name string, def int) (int, error) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a non-negative integer", name, v)
	}
	return n, nil
}

func envTrue(name string) bool {
	v := strings.TrimSpace(os.Getenv(name))
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}
