package backend

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/compute"

	// Registers the "go" backend and, where supported and not built with -tags noxla, "xla".
	_ "github.com/gomlx/gomlx/backends/default"
)

// Discover picks the backend (see [MakePlan]), sets the environment variables the plan needs, creates the
// backend and prints the [Choice] as one line (to os.Stderr unless [WithOutput] says otherwise).
//
// A GOMLX_BACKEND that fails is an error naming the config. An auto-chosen GPU backend that fails falls back
// to the pure-Go backend, saying so in the Reason, unless [WithStrict]. Auto-install is disabled process-wide
// (xla.EnableAutoInstall(false)) unless [WithAutoInstall], and even then the download is run here, announced
// and bounded by a timeout, never inside the backend constructor.
func Discover(opts ...Option) (*Choice, error) {
	s := newSettings(opts)
	c, err := discover(planWithCache(OSEnv(), opts...), s, opts)
	if err != nil {
		return nil, err
	}
	if s.out != nil {
		fmt.Fprintln(s.out, c.String())
	}
	return c, nil
}

func discover(plan Plan, s settings, opts []Option) (*Choice, error) {
	envSet, err := applyEnv(plan.SetEnv)
	if err != nil {
		return nil, err
	}
	xlaEnableAutoInstall(false) // downloads only happen in autoInstall below, announced and bounded

	var fallback string // why the planned backend is not used
	if plan.AutoInstall {
		if err := autoInstall(plan.AutoInstallPlugin, s); err != nil {
			if plan.FromEnv || s.strict {
				return nil, err
			}
			fallback = err.Error()
		} else {
			// The installer put the plugin (and NVIDIA's libdevice) in go-xla's directory: plan again to use
			// it by absolute path and to find the CUDA data dir; a GOMLX_BACKEND config stays as given.
			replan := planWithCache(OSEnv(), opts...)
			switch {
			case replan.FromEnv:
				replan.Reason += "; plugin auto-installed"
			case replan.PluginPath == "":
				fallback = "auto-install finished but no CUDA PJRT plugin appeared (go-xla saw no GPU?)"
			default:
				replan.Reason = "auto-installed " + replan.Reason
			}
			if fallback == "" {
				plan = replan
				more, err := applyEnv(plan.SetEnv)
				if err != nil {
					return nil, err
				}
				envSet = append(envSet, more...)
			}
		}
	}
	if fallback == "" {
		b, err := create(plan.Config)
		if err == nil {
			c := newChoice(plan, b, envSet)
			if cache, note := installExecutableCache(plan, c.Device); note != "" {
				c.ExecutableCache = cache
				c.Reason += "; " + note
			}
			return c, nil
		}
		err = fmt.Errorf("backend: creating %q failed (%s): %w", plan.Config, plan.Reason, err)
		if plan.FromEnv || s.strict || plan.Kind == KindGo {
			return nil, err
		}
		fallback = err.Error()
	}
	b, err := create("go")
	if err != nil {
		return nil, fmt.Errorf("backend: fallback to %q failed too: %w (after: %s)", "go", err, fallback)
	}
	failed := plan
	plan = Plan{Config: "go", Kind: KindGo, GPU: failed.GPU, NumCPU: failed.NumCPU, SetEnv: failed.SetEnv,
		Notes: append(failed.Notes, "planned "+failed.Config+": "+failed.Reason), Warnings: failed.Warnings,
		Reason: fmt.Sprintf("fell back to pure Go: %s; set %s to override", shorten(fallback, 240), ConfigEnvVar)}
	return newChoice(plan, b, envSet), nil
}

// applyEnv sets the planned variables in this process (and so in the C environment the PJRT plugin reads).
func applyEnv(vars []EnvVar) ([]EnvVar, error) {
	var set []EnvVar
	for _, v := range vars {
		if cur, ok := os.LookupEnv(v.Name); ok && cur == v.Value {
			continue
		}
		if err := os.Setenv(v.Name, v.Value); err != nil {
			return set, fmt.Errorf("backend: setting %s=%q: %w", v.Name, v.Value, err)
		}
		set = append(set, v)
	}
	return set, nil
}

// create wraps compute.NewWithConfig, which panics for an unknown backend name.
func create(config string) (b compute.Backend, err error) {
	name, _, _ := splitConfig(config)
	if !slices.Contains(compute.List(), name) {
		if isXLAName(name) && !xlaLinked {
			return nil, fmt.Errorf("backend %q is not compiled into this binary (built with -tags noxla?)", name)
		}
		return nil, fmt.Errorf("backend %q is not registered (available: %s)", name, strings.Join(compute.List(), ", "))
	}
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	b, err = compute.NewWithConfig(config)
	if err == nil && b == nil {
		err = errors.New("constructor returned no backend")
	}
	return b, err
}

// autoInstall runs go-xla's installer in a goroutine, after saying it will download, and stops waiting
// after the timeout (the installer itself cannot be cancelled: it keeps going in the background).
func autoInstall(plugin string, s settings) error {
	what := plugin
	if what == "" {
		what = "default"
	}
	where := "~/.local/lib/go-xla"
	if h, err := os.UserHomeDir(); err == nil {
		where = filepath.Join(h, ".local/lib/go-xla")
	}
	var out io.Writer = os.Stderr
	if s.out != nil {
		out = s.out
	}
	fmt.Fprintf(out, "backend: auto-install: downloading the %q PJRT plugin (for cuda also NVIDIA's CUDA wheels, a few GB) "+
		"from pypi.org into %s; giving up after %s\n", what, where, s.timeout)
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		done <- xlaAutoInstall(plugin)
	}()
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("backend: auto-install of the %q PJRT plugin failed (no network?): %w", what, err)
		}
		return nil
	case <-timer.C:
		return fmt.Errorf("backend: auto-install of the %q PJRT plugin did not finish within %s (no network or a slow "+
			"link?); it may still be running in the background. Install the plugin (pip install jax-cuda13-pjrt) "+
			"or set %s=go", what, s.timeout, ConfigEnvVar)
	}
}

// newChoice fills a Choice from the plan and the created backend.
func newChoice(plan Plan, b compute.Backend, envSet []EnvVar) *Choice {
	c := &Choice{Backend: b, Config: plan.Config, Kind: plan.Kind, Reason: plan.Reason, PluginPath: plan.PluginPath,
		IsGPU: plan.IsGPU, CUDADataDir: plan.CUDADataDir, EnvSet: envSet, Plan: plan}
	if c.CUDADataDir != "" && slices.ContainsFunc(envSet, func(v EnvVar) bool { return v.Name == "XLA_FLAGS" }) {
		c.Reason += "; XLA_FLAGS += " + CUDADataDirFlag + "=" + c.CUDADataDir
	}
	if plan.AutotuneCache != "" && plan.Kind != KindGo {
		state := "empty: this process fills it"
		switch {
		case plan.AutotuneCacheWarm:
			state = "loaded"
		case plan.AutotuneCacheDamaged:
			state = "damaged, not loaded: this process rewrites it"
		}
		c.Reason += "; autotune cache " + plan.AutotuneCache + " (" + state + ")"
		if plan.KernelCache != "" {
			c.Reason += map[bool]string{true: ", kernel cache loaded", false: ", kernel cache empty"}[plan.KernelCacheWarm]
		}
	}
	switch plan.FastStart {
	case FastStartKernels:
		c.Reason += "; fast start (depthwise convolutions by Triton kernels: no cuDNN plans built at run time)"
	case FastStartConvFusion:
		c.Reason += "; fast start (" + ConvFusionFlag + "=true: first execution ~1 s, step 5–35% slower)"
	}
	for _, w := range plan.Warnings {
		c.Reason += "; WARNING: " + w
	}
	c.Device = deviceWords(plan, b)
	return c
}

// deviceWords names the device: the GPU model from /proc when known (PJRT's own description is a debug
// string), the core count for CPU backends.
func deviceWords(plan Plan, b compute.Backend) string {
	n := 1
	if b != nil {
		n = max(b.NumDevices(), 1)
	}
	var d string
	switch {
	case plan.Kind == KindGo || plan.Kind == KindXLACPU:
		if plan.NumCPU > 0 {
			return fmt.Sprintf("CPU (%d cores)", plan.NumCPU)
		}
		return "CPU"
	case plan.Kind == KindCUDA && plan.GPU.Model != "":
		d = plan.GPU.Model
	case b != nil && b.NumDevices() > 0:
		d = shorten(oneLine(b.DeviceDescription(0)), 80)
	default:
		return ""
	}
	if n > 1 {
		return fmt.Sprintf("%d× %s", n, d)
	}
	return d
}

func shorten(s string, n int) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
