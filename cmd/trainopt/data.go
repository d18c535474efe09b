package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

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

func cmdData(args []string) error {
	fs := flag.NewFlagSet("data", flag.ContinueOnError)
	dir := fs.String("dir", "data", "where CIFAR-10 lives (the folder holding cifar-10-batches-bin/)")
	download := fs.Bool("download", false, "download and verify the official CIFAR-10 binary archive (170 MB)")
	synthetic := fs.Bool("synthetic", false, "write the deterministic synthetic stand-in (same binary format)")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *download == *synthetic:
		return usageError{errors.New("data: give exactly one of -download or -synthetic")}
	case *download:
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		path, err := cifar.Download(ctx, *dir, os.Stderr)
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

// loadData returns the training and test sets: real CIFAR-10 from dir when present, otherwise the synthetic stand-in
// generated in memory (said loudly). n > 0 keeps only the first n training images (smoke runs).
func loadData(dir string, requireReal bool, nTrain, nTest int) (trainSet, testSet *cifar.Set, err error) {
	if requireReal {
		if _, err := cifar.Check(dir); err != nil {
			return nil, nil, dataError{err}
		}
	}
	if trainSet, testSet, err = cifar.LoadOrSynthetic(dir, nTrain, nTest); err != nil {
		return nil, nil, dataError{err}
	}
	if trainSet.Synthetic {
		fmt.Fprintf(os.Stderr, "data: no CIFAR-10 in %q — using SYNTHETIC class-dependent data generated in memory "+
			"(run `trainopt data -download` for the real set)\n", dir)
	} else {
		fmt.Fprintf(os.Stderr, "data: %s (%d train / %d test images)\n", trainSet.Source, trainSet.Len(), testSet.Len())
	}
	return trainSet, testSet, nil
}
