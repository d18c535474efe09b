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
	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
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
	p := &stepProfiler{choice: choice, capture: *capture, smoke: lf.smoke}
	p.hook(&opt, *step)
	res, err := ladder.Run(choice.Backend, *step, trainSet, opt)
	if err != nil {
		return err
	}
	report := p.report(*step, res, trainSet, opt)
	dir, err := p.write(report, *out, *step)
	if err != nil {
		return err
	}
	fmt.Print(report.Markdown())
	fmt.Printf("\nprofile written to %s\n", dir)
	return nil
}

// stepProfiler is what `trainopt profile` and `trainopt ladder -profile` share: after a step's timed window it
// runs a few more steps inside XLA's profiler (ladder.Options.After), then turns the capture and what ladder.Run
// measured into one profile report — so a ladder run can profile every rung without compiling any of them twice.
type stepProfiler struct {
	choice  *backend.Choice
	capture int // steps inside the capture
	smoke   bool

	steps    int             // steps the last capture ran: capture rounded up to whole calls of K steps
	captured *profile.Report // the last capture (nil until one ran)
	window   nvml.Summary    // NVML over the last timed window
}

// hook sets opt's Window (an NVML sampler over the timed window) and After (the capture) for the next Run, of
// step. A rung that runs K steps per Execute captures whole calls, so the per-step figures divide by what ran.
func (p *stepProfiler) hook(opt *ladder.Options, step ladder.Config) {
	k := max(1, step.StepsPerCall)
	p.steps = max(1, (p.capture+k-1)/k) * k
	p.captured, p.window = nil, nvml.Summary{}
	opt.Window = func() func() {
		s, err := nvml.StartSampler(0, 25*time.Millisecond)
		if err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err) // one line; the rest of the report still works
		}
		return func() { p.window = s.Stop() }
	}
	opt.After = func(runSteps func(int) error) error {
		fmt.Fprintf(os.Stderr, "profile: capturing %d steps with XLA's profiler…\n", p.steps)
		r, err := profile.CaptureAround(p.choice.PluginPath, func() error { return runSteps(p.steps) })
		p.captured = r
		if err != nil {
			if errors.Is(err, profile.ErrNoPlugin) || !p.choice.IsGPU {
				if p.captured == nil {
					p.captured = &profile.Report{}
				}
				p.captured.Notes = append(p.captured.Notes, "no kernel-level profile: "+err.Error())
				fmt.Fprintln(os.Stderr, "profile: no kernel-level profile:", err)
				return nil
			}
			return err
		}
		return nil
	}
}

// report is the profile of step: the capture's kernels, the step's time split and memory as Run measured them.
func (p *stepProfiler) report(step ladder.Config, res ladder.Result, set *cifar.Set, opt ladder.Options) *profile.Report {
	report := p.captured
	if report == nil {
		report = &profile.Report{}
	}
	report.Title = fmt.Sprintf("Profile of ladder step %s: %s", step.ID, step.Name)
	c := ladder.NewConditions(p.choice, set, step, opt, p.smoke)
	c.Plugin, c.PJRTAPI = cmp.Or(report.Conditions.Plugin, c.Plugin), report.Conditions.PJRTAPI // the capture's
	c.Batch, c.Precision, c.Steps = res.Batch, res.Precision, p.steps
	report.Conditions = c
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	report.Step = &profile.StepBreakdown{DataWait: ms(res.DataWaitMs), Transfer: ms(res.TransferMs),
		Compute: ms(res.ComputeMs), Other: ms(res.OtherMs), Steps: 1}
	if report.Kernels != nil {
		if err := report.Resummarize(profile.SummaryOptions{Window: report.Window, Steps: p.steps}); err != nil {
			report.Notes = append(report.Notes, err.Error())
		}
	}
	if p.window.Available {
		report.Notes = append(report.Notes, fmt.Sprintf("NVML over the %d-step timed window: utilization mean %.0f%%, median %.0f%%",
			opt.Steps, p.window.UtilMeanPct, p.window.UtilMedianPct))
	}
	mem := &memory.Report{}
	if res.Memory != nil {
		mem.Compiled = append(mem.Compiled, memory.CompiledAt{Batch: res.Batch, Stats: memory.Stats{
			Device: memory.Usage{Arguments: res.Memory["arguments"], Outputs: res.Memory["outputs"],
				Aliases: res.Memory["aliases"], Temporary: res.Memory["temporary"], GeneratedCode: res.Memory["generated_code"]}}})
	}
	if dm, err := profile.DeviceMemory(p.choice.Backend, 0); err == nil {
		mem.Device = &dm
		mem.CapacityBytes = dm.BytesLimit
	} else {
		report.Notes = append(report.Notes, "device memory statistics: "+err.Error())
	}
	report.Memory = mem
	report.Recommend()
	return report
}

// write puts report in a folder of its own under out (artifact.RunName): a second profile of the same step never
// replaces the first.
func (p *stepProfiler) write(report *profile.Report, out string, step ladder.Config) (string, error) {
	device := artifact.DeviceName(p.choice.Device)
	if p.smoke {
		device = "smoke-" + device
	}
	dir, err := artifact.CreateRunDir(out, artifact.SafeName(device), "-step"+artifact.SafeName(step.ID.String()))
	if err != nil {
		return "", err
	}
	return dir, report.WriteFiles(dir)
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
