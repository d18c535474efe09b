package main

import (
	"flag"
	"fmt"

	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
)

// cmdAutotune summarises an XLA autotune cache file: how many instructions a cold compile had to time, by backend,
// and what won. Without an argument it reads the cache the backend would use now (tutorial/backend/autotune.go).
func cmdAutotune(args []string) error {
	fs := flag.NewFlagSet("autotune", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: trainopt autotune [FILE]   (default: this machine's cache, see TRAINOPT_AUTOTUNE_CACHE)")
	}
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 1 {
		return usageError{fmt.Errorf("autotune: one FILE at most, got %q", fs.Args())}
	}
	file := fs.Arg(0)
	if file == "" {
		file = backend.MakePlan(backend.OSEnv()).AutotuneCache
		if file == "" {
			return usageError{fmt.Errorf("autotune: no autotune cache on this machine (no CUDA backend, or %s=off): give a FILE",
				backend.AutotuneCacheEnv)}
		}
	}
	c, err := profile.ReadAutotuneCache(file)
	if err != nil {
		return dataError{err}
	}
	fmt.Printf("# XLA autotune cache %s\n\n%s", file, c.Markdown())
	return nil
}
