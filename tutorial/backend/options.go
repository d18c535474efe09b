package backend

import (
	"io"
	"os"
	"time"
)

// DefaultAutoInstallTimeout bounds a plugin download when auto-install is on: long enough for the CUDA
// plugin plus NVIDIA wheels (a few GB) on a decent link, short enough that a firewalled machine gets an
// answer instead of a hang (go-xla's installer uses http.DefaultClient, which has no timeout).
const DefaultAutoInstallTimeout = 10 * time.Minute

// Option configures [MakePlan] and [Discover].
type Option func(*settings)

type settings struct {
	xlaOptions  []string
	autoInstall bool
	timeout     time.Duration
	out         io.Writer
	strict      bool
}

func newSettings(opts []Option) settings {
	s := settings{timeout: DefaultAutoInstallTimeout, out: os.Stderr}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// WithXLAOptions appends go-xla backend options to an auto-chosen XLA config, e.g. "preallocate=false",
// "memory_fraction=0.5", "allocator=cuda_async", "tf32=false", "visible_devices=0;1". go-xla v0.4.13
// parses tf32, shared_buffers, preallocate (CUDA default false since v0.4), memory_fraction, allocator,
// visible_devices and use_tfrt_gpu_client, and rejects anything else when the backend is created
// (GOMLX_BACKEND=xla:help prints them). A GOMLX_BACKEND set by the user is never modified.
func WithXLAOptions(opts ...string) Option {
	return func(s *settings) { s.xlaOptions = append(s.xlaOptions, opts...) }
}

// WithAutoInstall lets go-xla download a missing PJRT plugin (from pypi.org) when an NVIDIA GPU exists but no
// CUDA plugin is installed, or when GOMLX_BACKEND names a plugin by name. [Discover] prints a line saying it
// will download and gives up after timeout (0: [DefaultAutoInstallTimeout]). Without this option
// auto-install is disabled (GOMLX_NO_AUTO_INSTALL=1 and xla.EnableAutoInstall(false)): nothing is ever
// downloaded silently. A GOMLX_NO_AUTO_INSTALL already in the environment still wins.
func WithAutoInstall(timeout time.Duration) Option {
	return func(s *settings) {
		s.autoInstall = true
		if timeout > 0 {
			s.timeout = timeout
		}
	}
}

// WithOutput sets where [Discover] prints its one-line explanation (default os.Stderr, so a CLI's stdout
// stays clean for results); nil prints nothing.
func WithOutput(w io.Writer) Option { return func(s *settings) { s.out = w } }

// WithStrict makes [Discover] return an error when an auto-chosen GPU backend fails to start, instead of
// falling back to the pure-Go backend (the fallback is always stated in the Reason).
func WithStrict() Option { return func(s *settings) { s.strict = true } }
