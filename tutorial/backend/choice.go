package backend

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gomlx/compute"
)

// Choice is the backend [Discover] created and why: printed as one line before any timing so results are
// never read without knowing where they ran.
type Choice struct {
	// Backend is the created backend; the caller owns it (Finalize when done).
	Backend compute.Backend
	// Config is the config string it was created with, e.g. "xla:/abs/xla_cuda_plugin.so,preallocate=false".
	Config string
	// Kind is one of the Kind* constants ("cuda", "cpu-go", ...).
	Kind string
	// Device describes where it runs, e.g. "NVIDIA H200" or "CPU (2 cores)".
	Device string
	// Reason says why this backend was chosen (and what fell back, if anything did).
	Reason string
	// PluginPath is the PJRT plugin's absolute path when known.
	PluginPath string
	// IsGPU is true when the computation runs on a GPU.
	IsGPU bool
	// CUDADataDir is the --xla_gpu_cuda_data_dir this package put in XLA_FLAGS ("" if none).
	CUDADataDir string
	// EnvSet lists the environment variables Discover set in this process.
	EnvSet []EnvVar
	// Plan is the full decision, including notes on what was searched.
	Plan Plan
	// ExecutableCache is the cache the plugin's compilations go through (nil: none; see executables.go).
	ExecutableCache *ExecutableCache
}

// FastStartKernels says whether fast-start mode wants the model's depthwise convolutions by the Triton kernels
// ([FastStartKernels]; for ladder.Options.FastStart).
func (c *Choice) FastStartKernels() bool { return c.Plan.FastStart == FastStartKernels }

// String is the one-line explanation, e.g.
//
//	backend: xla:cuda (plugin /…/xla_cuda_plugin.so) on NVIDIA H200 — found pip's jax-cuda13-pjrt plugin; GOMLX_BACKEND not set
//	backend: go (pure Go, CPU, 2 cores) — no NVIDIA GPU found (no /dev/nvidia0); set GOMLX_BACKEND to override
func (c *Choice) String() string {
	s := "backend: " + c.label()
	if c.Kind != KindGo && c.Device != "" {
		s += " on " + c.Device
	}
	if c.Reason != "" {
		s += " — " + c.Reason
	}
	return oneLine(s)
}

// label is the config in words: the plugin path is shown apart so the line stays readable.
func (c *Choice) label() string {
	name, plugin, options := splitConfig(c.Config)
	switch {
	case c.Config == "go":
		return fmt.Sprintf("go (pure Go, %s)", cpuWords(c.Plan.NumCPU))
	case isXLAName(name) && filepath.IsAbs(plugin):
		short := c.Kind
		if c.Kind != KindCUDA && c.Kind != KindROCm && c.Kind != KindTPU {
			short = filepath.Base(plugin)
		}
		extra := "plugin " + plugin
		if options != "" {
			extra += ", " + options
		}
		return fmt.Sprintf("%s:%s (%s)", name, short, extra)
	}
	return c.Config
}

// Details is a multi-line report (config, backend description, environment set, notes, versions) for
// --verbose output and notebooks; String stays the one line.
func (c *Choice) Details() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  config: %s\n", c, c.Config)
	if c.Backend != nil {
		fmt.Fprintf(&b, "  description: %s\n", oneLine(c.Backend.Description()))
	}
	for _, e := range c.EnvSet {
		fmt.Fprintf(&b, "  set %s=%s\n", e.Name, e.Value)
	}
	for _, n := range c.Plan.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	fmt.Fprintf(&b, "  versions: %s\n", Versions())
	return b.String()
}

func cpuWords(n int) string {
	if n <= 0 {
		return "CPU"
	}
	return fmt.Sprintf("CPU, %d cores", n)
}

// oneLine joins lines and collapses runs of blanks: error texts from PJRT span lines.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ExecutableCacheLine says what the executable cache did in this process, e.g. "executable cache: 1 loaded
// (0.9 s), 0 compiled"; "" without one.
func (c *Choice) ExecutableCacheLine() string {
	if c == nil || c.ExecutableCache == nil {
		return ""
	}
	return "executable cache: " + c.ExecutableCache.Stats().String()
}
