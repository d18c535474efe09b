// Command trainopt runs the tutorial headless: `train` one configuration, `ladder` the optimisation ladder (results
// to assets/results), `data` to fetch CIFAR-10 or write the synthetic stand-in.
//
// Exit codes a script can rely on (the README's table; main_test.go asserts each): 0 success (also for -h), 1 the
// run failed, 2 bad usage (a flag's value, an unwritable -out), 3 data problem (missing, corrupt, not
// downloadable, not a results file), 130 interrupted (Ctrl-C; 143 for SIGTERM), after saying what was kept.
package main

import (
	"errors"
	"fmt"
	"os"
)

const usage = `trainopt — MobileNetV2 / CIFAR-10 training optimisations in Go (GoMLX + XLA)

usage:
  trainopt train  [flags]   train one configuration with live progress and a summary
  trainopt ladder [flags]   run the optimisation ladder and write a new assets/results/<gpu>-<date>T<time>Z-<id>.{json,md,svg}
  trainopt profile [flags]  profile one ladder step: step-time split, NVML, XLA's kernel trace, memory,
                            recommendations → assets/profiles/<gpu>-<date>T<time>Z-<id>-step<ID>/
  trainopt memory [flags]   predict the largest batch from compiled memory statistics and check it by running
                            just below and above it → assets/profiles/<gpu>-<date>T<time>Z-<id>-memory-step<ID>/
  trainopt autotune [FILE]  what XLA's autotune cache holds: instructions tuned per backend, and the winners
  trainopt autotune -drop-cudnn-algos IDS -o OUT [FILE]
                            the cache without the convolutions that chose those cuDNN algos: XLA re-tunes
                            just them (to try an errata file that excludes engines)
  trainopt results FILE.json…  re-render a results file's table and charts
  trainopt data   [flags]   download CIFAR-10 (-download) or write the synthetic stand-in (-synthetic)

Run "trainopt <command> -h" for a command's flags. The backend is chosen automatically (GOMLX_BACKEND wins; then a
CUDA PJRT plugin; else the pure-Go CPU backend) and printed on the first line.

On a GPU, these environment variables change how long a first call takes (README, "Compile time"):
  TRAINOPT_AUTOTUNE_CACHE=off|FILE     XLA's autotuning results, kept across processes (default ~/.cache/trainopt/)
  TRAINOPT_EXECUTABLE_CACHE=off|DIR    compiled programs, kept across processes (default beside the autotune cache)
  TRAINOPT_FAST_START=on|conv-fusion   depthwise convolutions by Triton kernels: no cuDNN plans built at run time,
                                       a warm first call of ~1 s (conv-fusion: the older way, a step 5–35% slower).
                                       Off by default here; the notebooks turn it on. README, "Executable cache
                                       and fast start": what its step costs or gains.
`

// Exit codes.
const (
	exitOK    = 0
	exitRun   = 1
	exitUsage = 2
	exitData  = 3
	// exitInterrupted is 128 + SIGINT, what a shell reports for a process Ctrl-C killed (SIGTERM: 128 + 15).
	exitInterrupted = 130
)

// usageError marks errors caused by the command line.
type usageError struct{ error }

// Unwrap lets errors.Is see through it (flag.ErrHelp for -h).
func (e usageError) Unwrap() error { return e.error }

// dataError marks errors caused by missing or bad data.
type dataError struct{ error }

func (e dataError) Unwrap() error { return e.error }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(exitUsage)
	}
	handleInterrupts()
	var err error
	switch os.Args[1] {
	case "train":
		err = cmdTrain(os.Args[2:])
	case "ladder":
		err = cmdLadder(os.Args[2:])
	case "data":
		err = cmdData(os.Args[2:])
	case "profile":
		err = cmdProfile(os.Args[2:])
	case "results":
		err = cmdResults(os.Args[2:])
	case "memory":
		err = cmdMemory(os.Args[2:])
	case "autotune":
		err = cmdAutotune(os.Args[2:])
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return
	default:
		err = usageError{fmt.Errorf("unknown command %q", os.Args[1])}
	}
	os.Exit(report(err))
}

// report prints err (if any) and returns the exit code it means. A command interrupted by a signal exits here
// with the interrupt's message instead (see interrupt.go), whatever its error.
func report(err error) int {
	exitIfInterrupted()
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errHelp) { // -h: the flag package printed the command's flags; asking is not an error
		return exitOK
	}
	fmt.Fprintf(os.Stderr, "trainopt: %v\n", err)
	var ue usageError
	var de dataError
	switch {
	case errors.As(err, &ue):
		fmt.Fprint(os.Stderr, "\n", usage)
		return exitUsage
	case errors.As(err, &de):
		return exitData
	}
	return exitRun
}
