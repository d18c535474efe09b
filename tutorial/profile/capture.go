package profile

// CaptureAround is the one call a training CLI needs: profile a few steps and get a Report.

import (
	"errors"
	"fmt"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/nvml"
)

// CaptureAround starts XLA's profiler in the loaded CUDA PJRT plugin (pluginPath as in StartCapture; "" finds it),
// runs steps — typically a few warmed-up training steps, each waiting for its results — while an NVML sampler
// polls the GPU, stops the profiler and summarizes the GPU plane over the wall-clock window of steps.
//
// The returned Report carries the raw XSpace (Report.Raw) and the kernel summary; the caller adds the conditions
// (batch, precision, data, Steps — then Resummarize for per-step figures), the step breakdown and memory, calls
// Recommend, and WriteFiles. If steps fails, the capture is still stopped and the error returned along with what
// was captured. Without the CUDA plugin it returns ErrNoPlugin before running steps.
func CaptureAround(pluginPath string, steps func() error) (*Report, error) {
	return CaptureAroundWith(pluginPath, DefaultCaptureOptions(), steps)
}

// CaptureAroundWith is CaptureAround with explicit profiler options.
func CaptureAroundWith(pluginPath string, opts CaptureOptions, steps func() error) (*Report, error) {
	capture, err := StartCapture(pluginPath, opts)
	if err != nil {
		return nil, err
	}
	r := &Report{Title: "GPU profile", Conditions: artifact.Now()}
	info := capture.Plugin()
	r.Conditions.Plugin, r.Conditions.PJRTAPI = info.Path, fmt.Sprintf("%d.%d", info.APIMajor, info.APIMinor)

	sampler, serr := nvml.StartSampler(0, 0)
	if serr != nil {
		r.Notes = append(r.Notes, serr.Error())
	}
	start := time.Now()
	stepsErr := runSteps(steps)
	end := time.Now()
	summary := sampler.Stop()
	if summary.Available {
		r.GPUSampler = &summary
	}

	raw, stopErr := capture.Stop()
	r.Raw = raw
	r.Window = Window{StartNs: start.UnixNano(), EndNs: end.UnixNano()}
	if stopErr != nil {
		return r, errors.Join(stepsErr, fmt.Errorf("stopping the profiler: %w", stopErr))
	}
	if err := r.Resummarize(SummaryOptions{}); err != nil {
		r.Notes = append(r.Notes, "GPU summary: "+err.Error())
	} else if r.Conditions.GPU == "" && r.GPUSampler != nil {
		r.Conditions.GPU = r.GPUSampler.Device
	}
	if space, err := r.decodedSpace(); err == nil {
		for _, e := range space.Errors {
			r.Notes = append(r.Notes, "profiler error: "+e)
		}
		for _, w := range space.Warnings {
			r.Notes = append(r.Notes, "profiler warning: "+w)
		}
	}
	return r, stepsErr
}

// runSteps runs the steps, turning a panic into an error so the profiler is always stopped.
func runSteps(steps func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("steps panicked: %v", p)
		}
	}()
	if steps == nil {
		return nil
	}
	return steps()
}
