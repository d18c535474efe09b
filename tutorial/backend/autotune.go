package backend

// A persistent autotune cache, so that a second process (the next notebook cell, the next ladder run) does not
// pay XLA's autotuning again.
//
// Where the first call's minute goes: XLA's GPU compiler times every candidate cuDNN algorithm for every
// convolution shape (and Triton/cuBLAS configurations for GEMM fusions), on the device, with correctness
// checks. MobileNetV2's training step has dozens of distinct convolution shapes (forward, input gradient and
// kernel gradient of each layer), so autotuning is most of the 55–100 s first call; within one process XLA keeps
// the results in memory, which is why a later ladder step with the same shapes compiled in ~15 s. Turning
// autotuning off (--xla_gpu_autotune_level=0) compiles faster but steps run 40× slower.
//
// XLA can write those in-memory results to a file after every compilation and read them back at start-up:
// --xla_gpu_dump_autotune_results_to=F and --xla_gpu_load_autotune_results_from=F (debug_options_flags.cc;
// binary unless F ends in .txt/.textproto; with this plugin's XLA the file is an xla.autotuner.AutotuneCache, which
// autotune.ReadCache, in the autotune subpackage, summarises). Both are ordinary XLA_FLAGS, so they add to
// XLA's defaults instead of replacing them (go-xla's XLA_DEBUG_OPTIONS replaces the whole DebugOptions, and a kernel
// then ran slower). The per-fusion cache directory covers fusions only, not convolution algorithms. Skipping
// compilation entirely takes serialized executables, which go-xla does not expose: executables.go reaches them below
// go-xla.
//
// The rest of a warm first call is XLA's HLO passes, LLVM and ptxas for ~900 kernels and, most of it, the first
// execution. cuDNN's API log of one puts most of that in finalizing the execution plans of the 51 depthwise
// convolutions, whose engines cuDNN 9.19 compiles at run time with NVRTC; XLA keeps those plans neither in this
// cache nor in a serialized executable. Fast-start mode (executables_plan.go) avoids them: the depthwise
// convolutions by Triton kernels (no plans), or conv fusion (cuDNN graphs built while compiling, for a slower
// step). Excluding the engines (CUDNN_ERRATA_JSON_FILE, cache re-tuned) shortened the first call but made the step
// several times slower: they stay (README, "Compile time").
//
// XLA's kernel cache (--xla_gpu_kernel_cache_file=F: compiled kernels, appended after each compilation) skips
// LLVM and ptxas for kernels compiled before, which shortened a warm first call on the H200. But a process that ran
// ladder step 1 and then compiled step 2 with the same kernel file died in step 2's first execution
// (CUDA_ERROR_ILLEGAL_INSTRUCTION, cuDNN status 5001, then a segmentation fault), which step 2 never did without it
// (README, "Compile time"). So the kernel cache is opt-in: TRAINOPT_KERNEL_CACHE=on puts it beside the autotune file
// (<autotune file without extension>.kernels); only with the autotune cache; a damaged file is renamed aside
// (<file>.damaged) rather than handed to XLA.
// (--xla_gpu_enable_llvm_module_compilation_parallelism, the other compile-time flag of debug_options, is not
// known to this plugin: the process aborts on it.)
//
// Keys inside the file include the device model and the instruction's HLO, so a file is only ever used for what
// it describes; the file name also carries a hash of the plugin (path, size, modification time), so a plugin
// upgrade starts a fresh file rather than trusting results from another XLA. XLA reads the file once per process
// and rewrites it, whole, after each compilation: two processes compiling at the same time may each write their
// own results last (no corruption of what is loaded, only lost entries, tuned again next time).

import (
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// AutotuneCacheEnv chooses the autotune cache file: unset means the default under the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache, then trainopt/), "off" disables it, anything else is the file to use.
const AutotuneCacheEnv = "TRAINOPT_AUTOTUNE_CACHE"

// The XLA flags that save and load autotuning results.
const (
	DumpAutotuneFlag = "--xla_gpu_dump_autotune_results_to"
	LoadAutotuneFlag = "--xla_gpu_load_autotune_results_from"
	KernelCacheFlag  = "--xla_gpu_kernel_cache_file"
)

// KernelCacheEnv = "on" turns XLA's kernel cache on (see above: it crashed a multi-program process).
const KernelCacheEnv = "TRAINOPT_KERNEL_CACHE"

// KernelCacheFile is the kernel cache that goes with an autotune cache file.
func KernelCacheFile(autotuneFile string) string {
	return strings.TrimSuffix(autotuneFile, filepath.Ext(autotuneFile)) + ".kernels"
}

// autotuneCache plans the cache: it sets p.AutotuneCache (and whether a file is there to load) and returns the
// flags to add to XLA_FLAGS. Flags the user already set are kept and nothing is added.
func (p *Plan) autotuneCache(env Env, pluginPath, existingFlags string) []string {
	if HasXLAFlag(existingFlags, DumpAutotuneFlag) || HasXLAFlag(existingFlags, LoadAutotuneFlag) {
		p.note("XLA_FLAGS already sets autotune results files: kept as is")
		return nil
	}
	file, why := AutotuneCacheFile(env, pluginPath)
	if file == "" {
		p.note("%s", why)
		return nil
	}
	p.AutotuneCache = file
	flags := []string{DumpAutotuneFlag + "=" + file}
	// XLA fails the compilation when the file to load is missing or does not parse, so only a whole file is
	// loaded: a process killed while XLA rewrote it can leave it empty or cut short. Such a file is ignored (and
	// said); this process's first compilation writes it again.
	if data, err := os.ReadFile(env.real(file)); err == nil && len(data) > 0 {
		if err := wellFormedProto(data); err != nil {
			p.note("autotune cache %s is damaged (%v): not loaded; this run rewrites it", file, err)
			p.AutotuneCacheDamaged = true
		} else {
			p.AutotuneCacheWarm = true
			flags = append(flags, LoadAutotuneFlag+"="+file)
		}
	}
	if HasXLAFlag(existingFlags, KernelCacheFlag) {
		p.note("XLA_FLAGS already sets a kernel cache file: kept as is")
		return flags
	}
	if env.Getenv(KernelCacheEnv) != "on" {
		return flags
	}
	p.KernelCache = KernelCacheFile(file)
	if data, err := os.ReadFile(env.real(p.KernelCache)); err == nil && len(data) > 0 {
		if err := wellFormedProto(data); err != nil {
			aside := p.KernelCache + ".damaged"
			if err2 := os.Rename(env.real(p.KernelCache), env.real(aside)); err2 != nil {
				p.note("kernel cache %s is damaged (%v) and cannot be moved aside (%v): not used", p.KernelCache, err, err2)
				p.KernelCache = ""
				return flags
			}
			p.note("kernel cache %s is damaged (%v): moved to %s; this run starts a new one", p.KernelCache, err, aside)
		} else {
			p.KernelCacheWarm = true
		}
	}
	return append(flags, KernelCacheFlag+"="+p.KernelCache)
}

// AutotuneCacheFile is the autotune cache file for a plugin under env: $TRAINOPT_AUTOTUNE_CACHE when it names one,
// else the default under the user's cache directory. "" with the reason when there is none (off, a relative path,
// no cache directory). The backend's plan and `trainopt autotune` both ask it, so they read the same file.
func AutotuneCacheFile(env Env, pluginPath string) (file, why string) {
	file = env.Getenv(AutotuneCacheEnv)
	switch {
	case file == "off":
		return "", fmt.Sprintf("%s=off: XLA autotunes every configuration in every process", AutotuneCacheEnv)
	case file == "":
		dir := env.cacheDir()
		if dir == "" {
			return "", fmt.Sprintf("no cache directory ($XDG_CACHE_HOME, $HOME): no autotune cache; set %s", AutotuneCacheEnv)
		}
		return filepath.Join(dir, "xla-autotune-"+env.pluginKey(pluginPath)+".pb"), ""
	case !filepath.IsAbs(file):
		return "", fmt.Sprintf("%s=%q is not an absolute path: no autotune cache", AutotuneCacheEnv, file)
	}
	return file, ""
}

// wellFormedProto checks that data is a sequence of whole protobuf fields (what a truncated write breaks),
// without knowing the message: the full decoder is autotune.Decode (the autotune subpackage).
func wellFormedProto(data []byte) error {
	for off := 0; off < len(data); {
		_, _, n := protowire.ConsumeField(data[off:])
		if n < 0 {
			return fmt.Errorf("not a whole protobuf message at byte %d of %d: %w", off, len(data), protowire.ParseError(n))
		}
		off += n
	}
	return nil
}

// pluginKey is a short hash of the plugin's path, size and modification time ("any" when unknown).
func (e Env) pluginKey(pluginPath string) string {
	if pluginPath == "" {
		return "any"
	}
	h := fnv.New32a()
	fmt.Fprint(h, pluginPath)
	if st, err := os.Stat(e.real(pluginPath)); err == nil {
		fmt.Fprint(h, st.Size(), st.ModTime().UnixNano())
	}
	return fmt.Sprintf("%08x", h.Sum32())
}

// prepareAutotuneCache creates the cache file's directory: XLA writes the file but not its parents.
func prepareAutotuneCache(env Env, file string) error {
	if file == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(env.real(file)), 0o755); err != nil {
		return fmt.Errorf("autotune cache %s: %w", file, err)
	}
	return nil
}

// planWithCache is MakePlan plus the cache's directory. A cache that cannot be created costs compile time, not
// the run: the plan is made again without it, and says why.
func planWithCache(env Env, opts ...Option) Plan {
	plan := MakePlan(env, opts...)
	if err := prepareAutotuneCache(env, plan.AutotuneCache); err != nil {
		env.Vars = maps.Clone(env.Vars) // the caller's Env stays as it was
		if env.Vars == nil {
			env.Vars = map[string]string{}
		}
		env.Vars[AutotuneCacheEnv] = "off"
		plan = MakePlan(env, opts...)
		plan.Notes = append(plan.Notes, err.Error())
		plan.Reason += "; no autotune cache (" + shorten(err.Error(), 160) + "; set " + AutotuneCacheEnv + "=FILE)"
	}
	return plan
}

// cacheDir is trainopt's folder under the user's cache directory ($XDG_CACHE_HOME, else ~/.cache), "" when
// neither is known: the autotune and executable caches live there by default.
func (e Env) cacheDir() string {
	dir := e.Getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(dir) {
		dir = ""
		if h := e.home(); h != "" {
			dir = filepath.Join(h, ".cache")
		}
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "trainopt")
}
