package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
)

// The validation layer: every command's options have a validate method that runs before any work (no backend, no
// data, no file written) and returns one usage error (exit 2) listing every bad flag. The configurations the flags
// build are checked by their own packages' Validate (train.Config, mobilenet.Config), so a rule lives in one
// place; the checks below are the flags' own.

// checks collects flag problems.
type checks struct{ errs []error }

func (c *checks) add(err error) {
	if err != nil {
		c.errs = append(c.errs, err)
	}
}

func (c *checks) failf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

// atLeast: -name must be ≥ min.
func (c *checks) atLeast(name string, v, min int) {
	if v < min {
		c.failf("-%s must be ≥ %d, got %d", name, min, v)
	}
}

// finiteAtLeast: -name must be a finite number ≥ min.
func (c *checks) finiteAtLeast(name string, v, min float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < min {
		c.failf("-%s must be a finite number ≥ %g, got %g", name, min, v)
	}
}

// positive: -name must be a finite number > 0.
func (c *checks) positive(name string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		c.failf("-%s must be a finite number > 0, got %g", name, v)
	}
}

// config: a configuration's own Validate, said as the flags'.
func (c *checks) config(what string, err error) {
	if err != nil {
		c.failf("%s: %w", what, err)
	}
}

// err is the usage error, nil when every check passed.
func (c *checks) err(cmd string) error {
	if len(c.errs) == 0 {
		return nil
	}
	return usageError{fmt.Errorf("%s: %w", cmd, errors.Join(c.errs...))}
}

// checkOut makes sure the -out folder can be written before any work: a file is created and removed in it or, when
// it does not exist yet, in the nearest folder above it that does (the command creates the rest when it writes).
// A folder that cannot be written is a usage error (the flag's value), said before minutes of training instead of
// after them.
func checkOut(cmd, dir string) error {
	probe := filepath.Clean(dir)
	for {
		fi, err := os.Stat(probe)
		if err == nil {
			if !fi.IsDir() {
				return usageError{fmt.Errorf("%s: -out %s: %s is not a folder", cmd, dir, probe)}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return usageError{fmt.Errorf("%s: -out %s: %w", cmd, dir, err)}
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return usageError{fmt.Errorf("%s: -out %s: %w", cmd, dir, err)}
		}
		probe = parent
	}
	f, err := os.CreateTemp(probe, ".trainopt-write-check-*")
	if err != nil {
		return usageError{fmt.Errorf("%s: -out %s is not writable: %w", cmd, dir, err)}
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return usageError{fmt.Errorf("%s: -out %s: %w", cmd, dir, err)}
	}
	return nil
}
