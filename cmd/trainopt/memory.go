package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

// cmdMemory predicts the largest batch of a ladder step from XLA's compiled statistics at small batches, then
// (with -verify) runs just below and just above the prediction to find the real boundary.
//
// Check it with the PJRT client preallocating one arena (GOMLX_BACKEND="xla:…,preallocate=true,memory_fraction=F"):
// without preallocation XLA's BFC allocator grows region by region as buffers are asked for and keeps the regions
// it grew, so memory freed by a smaller batch may sit in regions too small for the next batch's largest buffer —
// on the H200 a batch-256 step (one 6.45 GiB temporary) ran out of memory under an 8.6 GB cap after a batch-128
// step had run in the same process. The boundary then depends on the process's history, not on the program.
func cmdMemory(args []string) error {
	fs := flag.NewFlagSet("memory", flag.ContinueOnError)
	lf := addLadderFlags(fs, 0)
	// -batches means the fit points here; two sizes whose compilation the autotune cache usually already holds.
	b := fs.Lookup("batches")
	b.Usage, b.DefValue = "batch sizes whose compiled statistics fit the memory model (two or more)", "128,256"
	if err := b.Value.Set(b.DefValue); err != nil {
		return err
	}
	stepID := fs.String("step", "10", "ladder step (9 or 10: the steps whose batch is free)")
	headroom := fs.Float64("headroom", 0, "fraction of the allocator's limit to keep free (0.1 = 10%)")
	limitGB := fs.Float64("limit-gb", 0, "predict for this many GB instead of the device allocator's limit (no -verify)")
	verify := fs.Bool("verify", true, "run just below and above the prediction to find the real boundary")
	out := fs.String("out", "assets/profiles", "folder for <gpu>-<date>T<time>Z-<id>-memory-step<ID>/")
	if err := parse(fs, args); err != nil {
		return err
	}
	var c checks
	c.add(oneStep(*stepID))
	c.finiteAtLeast("limit-gb", *limitGB, 0)
	if !(*headroom >= 0 && *headroom < 1) {
		c.failf("-headroom must be a fraction in [0, 1), got %g", *headroom)
	}
	if err := c.err("memory"); err != nil {
		return err
	}
	if err := lf.validate("memory", *stepID); err != nil {
		return err
	}
	if err := checkOut("memory", *out); err != nil {
		return err
	}
	choice, steps, opt, trainSet, err := lf.setup("memory", *stepID)
	if err != nil {
		return err
	}
	if len(steps) < 2 {
		return usageError{fmt.Errorf("memory: step %s has one batch size; use step 9 or 10 with -batches of two or more sizes", *stepID)}
	}
	opt.Warmup, opt.Steps = 0, max(1, steps[0].StepsPerCall) // one call after the compiling one
	limit := int64(*limitGB * 1e9)
	if limit <= 0 {
		dm, err := profile.DeviceMemory(choice.Backend, 0)
		if err != nil || dm.BytesLimit <= 0 {
			return fmt.Errorf("memory: the device allocator's limit is unknown (%v); give -limit-gb", err)
		}
		limit = dm.BytesLimit
		fmt.Fprintf(os.Stderr, "memory: the allocator's limit is %.2f GB\n", float64(limit)/1e9)
	} else {
		*verify = false
	}
	var points []memory.Point
	for _, s := range steps {
		res, err := ladder.Run(choice.Backend, s, trainSet, opt)
		if memory.IsOutOfMemory(err) {
			return fmt.Errorf("memory: batch %d, a point of the fit, does not fit in the allocator's %.2f GB: "+
				"give smaller -batches (%w)", s.Batch, float64(limit)/1e9, err)
		}
		if err != nil {
			return err
		}
		total, ok := res.Memory["total"]
		if !ok {
			return fmt.Errorf("memory: %s reports no compiled memory statistics; the memory model needs the XLA backend", choice.Backend)
		}
		points = append(points, memory.Point{Batch: s.Batch, Bytes: total})
		fmt.Fprintf(os.Stderr, "memory: step %s compiled to %.2f GB\n", s.ID, float64(total)/1e9)
	}
	base := steps[0]
	id := ladder.StepID{Rung: base.ID.Rung, Formulation: base.ID.Formulation} // the step at any batch
	atBatch := func(batch int) string {                                       // the step's name, at another batch size
		return strings.Replace(base.Name, fmt.Sprintf("batch %d", base.Batch), fmt.Sprintf("batch %d", batch), 1)
	}
	var try func(batch int) error // nil: predict only
	if *verify {
		try = func(batch int) error {
			s := base
			s.ID, s.Name, s.Batch = id, atBatch(batch), batch
			s.ID.Batch = batch
			fmt.Fprintf(os.Stderr, "memory: trying batch %d…\n", batch)
			_, err := ladder.Run(choice.Backend, s, trainSet, opt)
			return err
		}
	}
	peak := func() int64 {
		if dm, err := profile.DeviceMemory(choice.Backend, 0); err == nil {
			return dm.PeakBytesInUse
		}
		return 0
	}
	check, err := memory.CheckMaxBatch(points, limit, *headroom, try, peak)
	if err != nil {
		return err
	}
	date := time.Now().UTC().Format("2006-01-02")
	md := fmt.Sprintf("# Largest batch of ladder step %s (%s)\n\n- %s\n- date %s\n\n%s", id, atBatch(check.Predicted), choice.String(),
		date, check.Markdown())
	dir, err := artifact.CreateRunDir(*out, artifact.SafeName(artifact.DeviceName(choice.Device)), "-memory-step"+artifact.SafeName(id.String()))
	if err != nil {
		return err
	}
	rec := memory.MaxBatchRecord{Conditions: ladder.NewConditions(choice, trainSet, base, opt, lf.smoke),
		Backend: choice.String(), Step: id.String(), Check: check}
	if err := artifact.WriteJSON(filepath.Join(dir, "memory.json"), rec); err != nil {
		return err
	}
	if err := artifact.WriteFile(filepath.Join(dir, "memory.md"), []byte(md)); err != nil {
		return err
	}
	fmt.Print(md)
	fmt.Printf("\nwritten to %s\n", dir)
	if *verify && !check.Within(10) {
		return fmt.Errorf("memory: the prediction (%d) is not within 10%% of the real boundary", check.Predicted)
	}
	return nil
}
