package backend

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Backend kinds reported in [Plan.Kind] and [Choice.Kind].
const (
	KindCUDA   = "cuda"    // XLA with a CUDA PJRT plugin: NVIDIA GPU.
	KindROCm   = "rocm"    // XLA with a ROCm PJRT plugin: AMD GPU.
	KindTPU    = "tpu"     // XLA with a TPU PJRT plugin.
	KindXLACPU = "cpu-xla" // XLA's CPU PJRT plugin.
	KindXLA    = "xla"     // XLA with a plugin chosen by go-xla (cuda > rocm > cpu) or not recognized.
	KindGo     = "cpu-go"  // The pure-Go backend (github.com/gomlx/compute/gobackend).
	KindOther  = "other"   // Any other registered backend named in GOMLX_BACKEND.
)

// ConfigEnvVar is GoMLX's backend configuration variable (compute.ConfigEnvVar): when set it wins.
const ConfigEnvVar = "GOMLX_BACKEND"

// NoAutoInstallEnv is go-xla's switch (xla.NoAutoInstallEnv). go-xla reads it once, at package init, so
// [Discover] also calls xla.EnableAutoInstall; the variable is still set for child processes.
const NoAutoInstallEnv = "GOMLX_NO_AUTO_INSTALL"

// EnvVar is one environment variable [Discover] sets before creating the backend.
type EnvVar struct{ Name, Value string }

// Plan is the decision [MakePlan] reached, before anything is changed or loaded: what config to create,
// which environment variables to set first, and why. Paths are logical (see [Env]).
type Plan struct {
	// Config is the GoMLX backend config to create, e.g. "go" or "xla:/abs/xla_cuda_plugin.so,preallocate=false".
	Config string
	// Kind is one of the Kind* constants.
	Kind string
	// IsGPU is true for CUDA/ROCm configs.
	IsGPU bool
	// FromEnv is true when GOMLX_BACKEND decided (then Discover never falls back).
	FromEnv bool
	// PluginPath is the absolute PJRT plugin path when known.
	PluginPath string
	// CUDADataDir is the directory put in XLA_FLAGS' --xla_gpu_cuda_data_dir ("" if none was needed or found).
	CUDADataDir string
	// AutotuneCache is the file XLA saves its autotuning results to ("" if none; see autotune.go), and
	// AutotuneCacheWarm whether it already held results to load.
	AutotuneCache        string
	AutotuneCacheWarm    bool
	AutotuneCacheDamaged bool // a file was there but cut short: not loaded
	// KernelCache is XLA's compiled-kernel cache beside it (see autotune.go), KernelCacheWarm whether it held
	// kernels already.
	KernelCache     string
	KernelCacheWarm bool
	// ExecutableCache is the directory of serialized executables ("" if none; see executables.go).
	ExecutableCache string
	// FastStart is fast-start mode's choice ([FastStartEnv]; CUDA only): Triton depthwise kernels in the model,
	// or conv fusion added to XLA_FLAGS.
	FastStart FastStartMode
	// GPU is what was found about NVIDIA GPUs.
	GPU GPUInfo
	// SetEnv lists the variables to set, in order, before creating the backend.
	SetEnv []EnvVar
	// AutoInstall is true when the backend may download a plugin (only if opted in, see WithAutoInstall).
	AutoInstall bool
	// AutoInstallPlugin is the plugin name to install ("cuda"; "" for go-xla's default set).
	AutoInstallPlugin string
	// Reason is the short why, for the one-line summary.
	Reason string
	// Notes are secondary facts (what was searched, what was kept), for Details.
	Notes []string
	// Warnings are the notes about something the user asked for that was not done (a PJRT_PLUGIN that is not
	// there): the one-line Choice says them too.
	Warnings []string
	// NumCPU is copied from Env for the CPU device description.
	NumCPU int
}

// MakePlan decides which backend to use from env alone, with no side effects: nothing is loaded, set or
// downloaded. See the package documentation for the order of the rules.
func MakePlan(env Env, opts ...Option) Plan {
	s := newSettings(opts)
	p := Plan{NumCPU: env.NumCPU, GPU: detectGPU(env)}
	_, userNoAuto := env.Lookup(NoAutoInstallEnv)
	autoOK := s.autoInstall && !userNoAuto
	switch {
	case !s.autoInstall:
		p.setEnv(env, NoAutoInstallEnv, "1")
	case userNoAuto:
		p.note("auto-install requested but %s is set in the environment: not downloading", NoAutoInstallEnv)
	}

	if cfg := strings.TrimSpace(env.Getenv(ConfigEnvVar)); cfg != "" {
		p.FromEnv, p.Config = true, cfg
		p.Kind, p.IsGPU = kindOfConfig(cfg)
		p.PluginPath = pluginPathOf(cfg)
		p.Reason = fmt.Sprintf("%s=%q is set", ConfigEnvVar, cfg)
		if p.Kind == KindCUDA || (p.Kind == KindXLA && p.GPU.Found) {
			p.cudaFixes(env, p.PluginPath)
		}
		if name, byName := xlaPluginByName(cfg); byName && autoOK {
			p.AutoInstall, p.AutoInstallPlugin = true, name
		}
		return p
	}

	// An explicit plugin path is the user's word: honoured even without GPU evidence.
	if pp := env.Getenv("PJRT_PLUGIN"); pp != "" {
		if filepath.IsAbs(pp) && env.isFile(pp) {
			p.useXLA(env, pp, s.xlaOptions)
			p.Reason = fmt.Sprintf("PJRT_PLUGIN is set; %s not set", ConfigEnvVar)
			if !p.GPU.Found && p.IsGPU {
				p.Reason += "; no NVIDIA GPU evidence (" + p.GPU.Hint + ")"
			}
			return p
		}
		p.warn("PJRT_PLUGIN=%q ignored: not an absolute path to an existing file", pp)
	}

	if !p.GPU.Found {
		return p.useGo(fmt.Sprintf("no NVIDIA GPU found (%s); set %s to override", p.GPU.Hint, ConfigEnvVar))
	}
	dirs := goXLAPluginDirs(env)
	sites := sitePackagesDirs(env)
	hit, ok := findGoXLAPlugin(env, dirs)
	if !ok {
		hit, ok = findPipPlugin(env, sites)
	}
	if ok {
		p.useXLA(env, hit.Path, s.xlaOptions)
		p.Reason = fmt.Sprintf("found %s; %s not set", hit.Source, ConfigEnvVar)
		return p
	}
	searched := fmt.Sprintf("searched %d go-xla dirs and %d python site-packages", len(dirs), len(sites))
	if autoOK {
		p.Config, p.Kind, p.IsGPU = "xla:cuda"+optionSuffix(s.xlaOptions), KindCUDA, true
		p.AutoInstall, p.AutoInstallPlugin = true, "cuda"
		p.Reason = fmt.Sprintf("NVIDIA GPU found (%s), no CUDA PJRT plugin (%s): auto-install opted in", p.GPU.Evidence, searched)
		p.cudaFixes(env, "")
		return p
	}
	return p.useGo(fmt.Sprintf("NVIDIA GPU found (%s) but no CUDA PJRT plugin (%s; pip install jax-cuda13-pjrt or "+
		"opt into auto-install); set %s to override", p.GPU.Evidence, searched, ConfigEnvVar))
}

func (p *Plan) useGo(reason string) Plan {
	p.Config, p.Kind, p.IsGPU, p.Reason = "go", KindGo, false, reason
	return *p
}

// useXLA plans "xla:<abs plugin path>[,options]" and, for CUDA plugins, the environment fixes.
func (p *Plan) useXLA(env Env, pluginPath string, options []string) {
	p.Config = "xla:" + pluginPath + optionSuffix(options)
	p.Kind, p.IsGPU = kindOfConfig(p.Config)
	p.PluginPath = pluginPath
	if p.Kind == KindCUDA {
		p.cudaFixes(env, pluginPath)
	}
}

// cudaFixes adds what a CUDA plugin needs that nobody sets by default (see jax-cuda-env.sh):
//   - GOPJRT_CUDA_CHECKS=0 when the plugin has no nvidia/ directory two levels up: go-xla's check
//     expects its installer's layout and would only print a misleading warning for pip's layout, whose
//     plugin RPATH finds site-packages/nvidia by itself;
//   - XLA_FLAGS with --xla_gpu_cuda_data_dir=<dir holding nvvm/libdevice/libdevice.10.bc>, existing flags
//     kept, never duplicated (see CUDADataDirFlag);
//   - XLA_FLAGS that save XLA's autotuning results to a file and load them in the next process (autotune.go);
//   - the executable cache's directory and fast-start mode, which may add conv fusion (executables_plan.go).
func (p *Plan) cudaFixes(env Env, pluginPath string) {
	if pluginPath != "" && !env.isDir(filepath.Join(filepath.Dir(filepath.Dir(pluginPath)), "nvidia")) {
		if _, set := env.Lookup("GOPJRT_CUDA_CHECKS"); !set {
			p.setEnv(env, "GOPJRT_CUDA_CHECKS", "0")
		}
	}
	existing := env.Getenv("XLA_FLAGS")
	flags := existing
	add := append(p.autotuneCache(env, pluginPath, existing), p.fastStart(env, existing)...)
	if len(add) > 0 {
		flags = strings.TrimSpace(strings.Join(append([]string{flags}, add...), " "))
	}
	if pluginPath != "" {
		p.executableCache(env, pluginPath)
	}
	defer func() {
		if flags != existing {
			p.setEnv(env, "XLA_FLAGS", flags)
		}
	}()
	if HasXLAFlag(existing, CUDADataDirFlag) {
		p.note("XLA_FLAGS already sets %s: kept as is", CUDADataDirFlag)
		return
	}
	cands := cudaDataDirCandidates(env, pluginPath, sitePackagesDirs(env))
	dir := findCUDADataDir(env, cands)
	if dir == "" {
		p.note("no CUDA data dir with %s found (tried %s): XLA may fail to compile GPU kernels; set CUDA_DATA_DIR",
			libdeviceRel, strings.Join(cands, ", "))
		return
	}
	p.CUDADataDir = dir
	if !env.isFile(filepath.Join(dir, "bin/ptxas")) {
		p.note("%s has no bin/ptxas: XLA will look for ptxas on $PATH", dir)
	}
	flags, _ = MergeXLAFlags(flags, dir)
}

// setEnv records a variable to set, unless it already has that value.
func (p *Plan) setEnv(env Env, name, value string) {
	if cur, ok := env.Lookup(name); ok && cur == value {
		return
	}
	p.SetEnv = append(p.SetEnv, EnvVar{name, value})
}

func (p *Plan) note(format string, args ...any) {
	p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
}

// warn records a note that the one-line Choice also says: something the user asked for was not done.
func (p *Plan) warn(format string, args ...any) {
	p.note(format, args...)
	p.Warnings = append(p.Warnings, fmt.Sprintf(format, args...))
}

func optionSuffix(options []string) string {
	var b strings.Builder
	for _, o := range options {
		if o = strings.Trim(o, ", "); o != "" {
			b.WriteString("," + o)
		}
	}
	return b.String()
}

// splitConfig splits "xla:plugin,opt=1" into "xla", "plugin" and "opt=1".
func splitConfig(cfg string) (name, plugin, options string) {
	name, rest, _ := strings.Cut(cfg, ":")
	plugin, options, _ = strings.Cut(rest, ",")
	return name, plugin, options
}

func isXLAName(name string) bool {
	switch name {
	case "xla", "stablehlo", "hlo", "shlo":
		return true
	}
	return false
}

// kindOfConfig classifies a GoMLX config string.
func kindOfConfig(cfg string) (kind string, isGPU bool) {
	name, plugin, _ := splitConfig(cfg)
	if name == "go" {
		return KindGo, false
	}
	if !isXLAName(name) {
		return KindOther, false
	}
	base := strings.ToLower(filepath.Base(plugin))
	switch {
	case isCUDAName(base):
		return KindCUDA, true
	case strings.Contains(base, "rocm") || strings.Contains(base, "amd"):
		return KindROCm, true
	case strings.Contains(base, "tpu"):
		return KindTPU, false
	case strings.Contains(base, "cpu"):
		return KindXLACPU, false
	}
	return KindXLA, false
}

// pluginPathOf returns the absolute plugin path in an xla config, or "".
func pluginPathOf(cfg string) string {
	if name, plugin, _ := splitConfig(cfg); isXLAName(name) && filepath.IsAbs(plugin) {
		return plugin
	}
	return ""
}

// xlaPluginByName reports whether cfg makes go-xla search (and so maybe auto-install) a plugin by name.
func xlaPluginByName(cfg string) (plugin string, byName bool) {
	name, plugin, _ := splitConfig(cfg)
	return plugin, isXLAName(name) && !filepath.IsAbs(plugin) && plugin != "help"
}
