package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/backend/autotune"
)

// cmdAutotune summarises an XLA autotune cache file: how many instructions a cold compile had to time, by backend,
// and what won. Without an argument it reads the cache the backend would use now (tutorial/backend/autotune.go).
func cmdAutotune(args []string) error {
	fs := flag.NewFlagSet("autotune", flag.ContinueOnError)
	drop := fs.String("drop-cudnn-algos", "", "comma-separated cuDNN algo ids: write the cache without the convolutions "+
		"that chose them (to -o), so that XLA tunes just those again")
	outFile := fs.String("o", "", "with -drop-cudnn-algos: the file to write")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: trainopt autotune [-drop-cudnn-algos IDS -o OUT] [FILE]   (default: this machine's cache, see TRAINOPT_AUTOTUNE_CACHE)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 1 {
		return usageError{fmt.Errorf("autotune: one FILE at most, got %q", fs.Args())}
	}
	file := fs.Arg(0)
	if file == "" {
		var why string
		if file, why = defaultAutotuneCache(); file == "" {
			return usageError{fmt.Errorf("autotune: no autotune cache on this machine (%s): give a FILE", why)}
		}
	}
	if *drop != "" {
		return dropCudnnAlgos(file, *drop, *outFile)
	}
	c, err := autotune.ReadCache(file)
	if err != nil {
		return dataError{err}
	}
	fmt.Printf("# XLA autotune cache %s\n\n%s", file, c.Markdown())
	return nil
}

// defaultAutotuneCache is the cache the backend would use now: the file TRAINOPT_AUTOTUNE_CACHE names (on any
// machine: it may have been copied from a GPU one), else the CUDA backend's default file ("" without one).
func defaultAutotuneCache() (file, why string) {
	env := backend.OSEnv()
	if v := env.Getenv(backend.AutotuneCacheEnv); v != "" {
		return backend.AutotuneCacheFile(env, "")
	}
	if file = backend.MakePlan(env).AutotuneCache; file == "" {
		why = fmt.Sprintf("no CUDA backend, and %s is not set", backend.AutotuneCacheEnv)
	}
	return file, why
}

// dropCudnnAlgos writes file without the cuDNN entries that chose one of the algos in list to out.
func dropCudnnAlgos(file, list, out string) error {
	if out == "" {
		return usageError{fmt.Errorf("autotune: -drop-cudnn-algos needs -o OUT")}
	}
	var algos []int64
	for _, f := range strings.Split(list, ",") {
		a, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return usageError{fmt.Errorf("autotune: -drop-cudnn-algos %q: %q is not an algo id", list, f)}
		}
		algos = append(algos, a)
	}
	data, err := autotune.ReadFile(file)
	if err != nil {
		return dataError{err}
	}
	kept, n, err := autotune.Filter(data, autotune.DropCudnnAlgos(algos...))
	if err != nil {
		return dataError{fmt.Errorf("%s: %w", file, err)}
	}
	if err := artifact.WriteFile(out, kept); err != nil {
		return err
	}
	fmt.Printf("%s: dropped %d cuDNN entries that chose algo %s; %d bytes written to %s\n", file, n, list, len(kept), out)
	return nil
}
