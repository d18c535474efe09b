package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
)

var errHelp = flag.ErrHelp

// parse parses flags, turning problems into usage errors.
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	return nil
}

// The missing-data message names this command's own ways to get the data, not the library's functions.
func init() {
	cifar.MissingDataHint = "get it with `trainopt data -download` (the official archive, 170 MB, verified), or write " +
		"the synthetic stand-in with `trainopt data -synthetic` (add -dir DIR for another folder than data)"
}

func cmdData(args []string) error {
	fs := flag.NewFlagSet("data", flag.ContinueOnError)
	dir := fs.String("dir", "data", "where CIFAR-10 lives (the folder holding cifar-10-batches-bin/)")
	download := fs.Bool("download", false, "download and verify the official CIFAR-10 binary archive (170 MB)")
	synthetic := fs.Bool("synthetic", false, "write the deterministic synthetic stand-in (same binary format)")
	timeout := fs.Duration("timeout", cifar.DefaultResponseTimeout, "with -download: give up when the server (or a "+
		"proxy) has not answered within this long")
	if err := parse(fs, args); err != nil {
		return err
	}
	var c checks
	if *download == *synthetic {
		c.failf("give exactly one of -download or -synthetic")
	}
	if *timeout <= 0 {
		c.failf("-timeout must be > 0, got %s", *timeout)
	}
	if err := c.err("data"); err != nil {
		return err
	}
	switch {
	case *download:
		// Ctrl-C cancels the download, which removes its partial file before the interrupt's message and exit.
		keptOnInterrupt("nothing (the partial download is removed)", "CIFAR-10")
		var path string
		err := uninterrupted(func() (string, string, error) {
			var err error
			path, err = cifar.Download(interruptContext(), *dir, os.Stderr, cifar.WithTimeouts(0, *timeout, 0))
			return "CIFAR-10 in " + path, "", err
		})
		if err != nil {
			return dataError{err}
		}
		fmt.Printf("CIFAR-10 ready in %s\n", path)
	default:
		if err := cifar.WriteSynthetic(*dir, cifar.SyntheticSeed); err != nil {
			return dataError{err}
		}
		fmt.Printf("synthetic CIFAR-10-shaped data written to %s (marked SYNTHETIC)\n", *dir)
	}
	return nil
}

// loadData returns the training and test sets: real CIFAR-10 from dir when present, otherwise the synthetic
// stand-in generated in memory (said loudly). n > 0 keeps only the first n training images (smoke runs).
// With requireReal (-real) no data, or data carrying the SYNTHETIC marker, is refused.
func loadData(dir string, requireReal bool, nTrain, nTest int) (trainSet, testSet *cifar.Set, err error) {
	trainSet, testSet, err = cifar.Load(dir)
	switch {
	case err == nil && requireReal && trainSet.Synthetic:
		return nil, nil, dataError{fmt.Errorf("-real: %s is the synthetic stand-in (it carries the %s marker), not "+
			"CIFAR-10: %w", dir, cifar.SyntheticMarker, cifar.ErrSyntheticData)}
	case err == nil:
		fmt.Fprintf(os.Stderr, "data: %s (%d train / %d test images)\n", trainSet.Source, trainSet.Len(), testSet.Len())
	case requireReal || !errors.Is(err, cifar.ErrNoData):
		return nil, nil, dataError{err}
	default:
		fmt.Fprintf(os.Stderr, "data: no CIFAR-10 in %q — using SYNTHETIC class-dependent data generated in memory "+
			"(run `trainopt data -download` for the real set)\n", dir)
	}
	// The same sets (or, with no data, the generated stand-in) at the sizes asked for.
	if trainSet, testSet, err = cifar.LoadOrSynthetic(dir, nTrain, nTest); err != nil {
		return nil, nil, dataError{err}
	}
	return trainSet, testSet, nil
}
