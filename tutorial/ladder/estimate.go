package ladder

import (
	"fmt"
	"time"
)

// A newcomer who types the README's main job should know before the first table how long it will take: a cold
// XLA autotune cache makes every program's first call take minutes, and the whole ladder compiles over twenty
// programs. Estimate says it up front from what the H200 recorded.

// First-call costs on the H200 per program the run compiles, from the recorded runs (README, "Compile time"):
// with XLA's autotune cache warm a first call took 9.6–23.8 s (median 20.2 s); on a machine's first run XLA
// autotunes every convolution, 81–104 s per program.
const (
	WarmFirstCall = 20 * time.Second
	ColdFirstCall = 100 * time.Second
	// SmokeStep is what one step of the ladder at smoke sizes takes on 2 cores with the pure-Go backend (first
	// call, warm-up and timed window): the default 7 steps took 94 s on the machine this was written on.
	SmokeStep = 15 * time.Second
)

// RunEstimate is how long a ladder run should take.
type RunEstimate struct {
	Steps, Programs int
	// Warm is the time with XLA's autotune cache warm, Cold on a machine's first run; Windows is the part spent
	// in warm-up and timed steps (the recorded step times × the steps run).
	Warm, Cold, Windows time.Duration
	// Missing lists the steps the recorded file has no step time for (their windows are not counted).
	Missing []string
	Smoke   bool
}

// Estimate is how long running steps with opt takes: on a GPU, a first call per distinct program (consecutive
// steps with one TrainerKey share it, as [Run] with [Trainers] does) plus the warm-up and timed steps at the step
// times recorded for the same IDs (nil recorded: first calls only); at smoke sizes, [SmokeStep] per step.
func Estimate(steps []Config, recorded *File, opt Options, smoke bool) RunEstimate {
	e := RunEstimate{Steps: len(steps), Smoke: smoke}
	var last TrainerKey
	for i, s := range steps {
		if i == 0 || s.TrainerKey() != last {
			e.Programs++
		}
		last = s.TrainerKey()
		if smoke {
			continue
		}
		var ms float64
		if recorded != nil {
			if r := recorded.Result(s.ID.String()); r != nil && r.Error == "" {
				ms = r.StepMedianMs
			}
		}
		if ms == 0 {
			e.Missing = append(e.Missing, s.ID.String())
			continue
		}
		e.Windows += time.Duration(float64(opt.Warmup+opt.Steps) * ms * float64(time.Millisecond))
	}
	if smoke {
		e.Warm = time.Duration(e.Steps) * SmokeStep
		e.Cold = e.Warm
		return e
	}
	e.Warm = e.Windows + time.Duration(e.Programs)*WarmFirstCall
	e.Cold = e.Windows + time.Duration(e.Programs)*ColdFirstCall
	return e
}

// Words says the estimate in one line, for the start of a run; warmCache is whether this machine's autotune cache
// already holds results.
func (e RunEstimate) Words(warmCache bool) string {
	steps := count(e.Steps, "step")
	if e.Smoke {
		return fmt.Sprintf("%s at smoke sizes: about %s on 2 CPU cores", steps, minutes(e.Warm))
	}
	s := fmt.Sprintf("%s, %s to compile: on an H200 about %s with XLA's autotune cache warm, about %s on "+
		"a machine's first run (~%.0f s of autotuning per program)", steps, count(e.Programs, "program"),
		minutes(e.Warm), minutes(e.Cold), ColdFirstCall.Seconds())
	if warmCache {
		s += "; this machine's cache is warm"
	} else {
		s += "; this machine's cache is empty, so expect the longer figure"
	}
	if len(e.Missing) > 0 {
		s += fmt.Sprintf(" (no recorded step time for %v)", e.Missing)
	}
	return s
}

// count is "1 step", "7 steps".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// minutes rounds d for a person: "40 s", "3 min", "1.5 min".
func minutes(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.0f s", d.Seconds())
	case d < 10*time.Minute:
		return fmt.Sprintf("%.1f min", d.Minutes())
	}
	return fmt.Sprintf("%.0f min", d.Minutes())
}
