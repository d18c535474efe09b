package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/nvml"
)

func cmdProfile(args []string) error {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	lf := addLadderFlags(fs, 50)
	stepID := fs.String("step", "1", "ladder step to profile (e.g. 1, 8, 10@256)")
	capture := fs.Int("capture", 20, "training steps inside the kernel-level capture (keep it small: traces grow fast)")
	out := fs.String("out", "assets/profiles", "folder for <gpu>-<date>T<time>Z-<id>-step<ID>/")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := validateProfile(lf, *stepID, *capture); err != nil {
		return err
	}
	if err := checkOut("profile", *out); err != nil {
		return err
	}
	choice, steps, opt, trainSet, err := lf.setup("profile", *stepID)
	if err != nil {
		return err
	}
	step := &steps[0] // "10" names every 10@batch: the first
	if lf.smoke {     // smaller defaults on the CPU; a value given is kept
		if !lf.given("timed") {
			opt.Steps = min(opt.Steps, 10)
		}
		if !lf.given("capture") {
			*capture = min(*capture, 3)
		}
	}

	report := &profile.Report{Title: fmt.Sprintf("Profile of ladder step %s: %s", step.ID, step.Name)}
	var windowSampler nvml.Summary
	opt.Window = func() func() {
		s, err := nvml.StartSampler(0, 25*time.Millisecond)
		if err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err) // one line; the rest of the report still works
		}
		return func() { windowSampler = s.Stop() }
	}
	opt.After = func(runSteps func(int) error) error {
		fmt.Fprintf(os.Stderr, "profile: capturing %d steps with XLA's profiler…\n", *capture)
		r, err := profile.CaptureAround(choice.PluginPath, func() error { return runSteps(*capture) })
		if r != nil {
			report = r
		}
		if err != nil {
			if errors.Is(err, profile.ErrNoPlugin) || !choice.IsGPU {
				report.Notes = append(report.Notes, "no kernel-level profile: "+err.Error())
				fmt.Fprintln(os.Stderr, "profile: no kernel-level profile:", err)
				return nil
			}
			return err
		}
		return nil
	}
	res, err := ladder.Run(choice.Backend, *step, trainSet, opt)
	if err != nil {
		return err
	}
	report.Title = fmt.Sprintf("Profile of ladder step %s: %s", step.ID, step.Name)
	c := ladder.NewConditions(choice, trainSet, *step, opt, lf.smoke)
	c.Plugin, c.PJRTAPI = cmp.Or(report.Conditions.Plugin, c.Plugin), report.Conditions.PJRTAPI // the capture's
	c.Batch, c.Precision, c.Steps = res.Batch, res.Precision, *capture
	report.Conditions = c
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	report.Step = &profile.StepBreakdown{DataWait: ms(res.DataWaitMs), Transfer: ms(res.TransferMs),
		Compute: ms(res.ComputeMs), Other: ms(res.OtherMs), Steps: 1}
	if report.Kernels != nil {
		if err := report.Resummarize(profile.SummaryOptions{Window: report.Window, Steps: *capture}); err != nil {
			report.Notes = append(report.Notes, err.Error())
		}
	}
	if windowSampler.Available {
		report.Notes = append(report.Notes, fmt.Sprintf("NVML over the %d-step timed window: utilization mean %.0f%%, median %.0f%%",
			opt.Steps, windowSampler.UtilMeanPct, windowSampler.UtilMedianPct))
	}
	mem := &memory.Report{}
	if res.Memory != nil {
		mem.Compiled = append(mem.Compiled, memory.CompiledAt{Batch: res.Batch, Stats: memory.Stats{
			Device: memory.Usage{Arguments: res.Memory["arguments"], Outputs: res.Memory["outputs"],
				Aliases: res.Memory["aliases"], Temporary: res.Memory["temporary"], GeneratedCode: res.Memory["generated_code"]}}})
	}
	if dm, err := profile.DeviceMemory(choice.Backend, 0); err == nil {
		mem.Device = &dm
		mem.CapacityBytes = dm.BytesLimit
	} else {
		report.Notes = append(report.Notes, "device memory statistics: "+err.Error())
	}
	report.Memory = mem
	report.Recommend()
	// A folder of its own (artifact.RunName): a second profile of the same step never replaces the first.
	device := artifact.DeviceName(choice.Device)
	if lf.smoke {
		device = "smoke-" + device
	}
	dir, err := artifact.CreateRunDir(*out, artifact.SafeName(device), "-step"+artifact.SafeName(step.ID.String()))
	if err != nil {
		return err
	}
	if err := report.WriteFiles(dir); err != nil {
		return err
	}
	fmt.Print(report.Markdown())
	fmt.Printf("\nprofile written to %s\n", dir)
	return nil
}

// validateProfile checks profile's flags: the shared ones, one step (a list would profile only its first), and
// the capture's length.
func validateProfile(lf *ladderFlags, stepID string, capture int) error {
	var c checks
	if err := oneStep(stepID); err != nil {
		c.add(err)
	}
	c.atLeast("capture", capture, 1)
	if err := c.err("profile"); err != nil {
		return err
	}
	return lf.validate("profile", stepID)
}

// oneStep refuses a -step that names several steps ("1,2", "all"): profile and memory look at one step.
func oneStep(id string) error {
	if strings.Contains(id, ",") || strings.TrimSpace(id) == "all" {
		return fmt.Errorf("-step %q: give one ladder step (e.g. 1, 8, 10@256); run the command once per step", id)
	}
	return nil
}
