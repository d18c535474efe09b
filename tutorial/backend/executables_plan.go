package backend

import (
	"fmt"
	"path/filepath"
	"strings"
)

// FastStartEnv chooses fast-start mode ([FastStartMode]): "on" (the notebooks' default, every cell being a new
// process) or "kernels", "conv-fusion", or "off" (the default elsewhere). A cached executable removes the compile
// from a new process's first call but not its first execution, where cuDNN builds an execution plan for every
// depthwise convolution at run time (~10 s on the H200 for MobileNetV2). Fast start removes that too, at some cost
// to the step, so the ladder's timed figures leave it off.
const FastStartEnv = "TRAINOPT_FAST_START"

// FastStartMode is how fast-start mode avoids cuDNN's run-time plans.
type FastStartMode string

const (
	FastStartOff FastStartMode = ""
	// FastStartKernels ("on") has the model compute its depthwise convolutions with the project's Triton kernels
	// (mobilenet's dw-*=triton formulations), so there are no depthwise plans to build: a warm first call of about a
	// second (README, "Executable cache and fast start", says what its step costs or gains). The backend only
	// records the choice; the ladder applies it (ladder.Options.FastStart). CUDA XLA only.
	FastStartKernels FastStartMode = "kernels"
	// FastStartConvFusion adds [ConvFusionFlag]: cuDNN builds its plans while XLA compiles, and they travel in the
	// serialized executable. It was the first fast start; its step is slower than the Triton kernels' (README,
	// "Compile time"), and it is kept to compare.
	FastStartConvFusion FastStartMode = "conv-fusion"
)

// ConvFusionFlag lets XLA fuse convolutions into cuDNN graphs it compiles ahead of the run.
const ConvFusionFlag = "--xla_gpu_experimental_enable_conv_fusion"

// executableCache plans the executable cache directory (p.ExecutableCache; "" for none) from
// [ExecutableCacheEnv]: unset puts it beside the autotune cache, one directory per plugin build.
func (p *Plan) executableCache(env Env, pluginPath string) {
	dir := env.Getenv(ExecutableCacheEnv)
	switch {
	case dir == "off":
		p.note("%s=off: every process compiles its programs", ExecutableCacheEnv)
		return
	case dir == "":
		base := env.cacheDir()
		if base == "" {
			p.note("no cache directory ($XDG_CACHE_HOME, $HOME): no executable cache; set %s", ExecutableCacheEnv)
			return
		}
		dir = filepath.Join(base, "executables-"+env.pluginKey(pluginPath))
	case !filepath.IsAbs(dir):
		p.note("%s=%q is not an absolute path: no executable cache", ExecutableCacheEnv, dir)
		return
	}
	p.ExecutableCache = dir
}

// fastStart records fast-start mode in p.FastStart and returns the XLA flag it adds (none unless conv fusion,
// and none when XLA_FLAGS already decides conv fusion).
func (p *Plan) fastStart(env Env, existingFlags string) []string {
	switch v := strings.ToLower(env.Getenv(FastStartEnv)); v {
	case "", "off", "0", "false":
		return nil
	case "on", "1", "true", string(FastStartKernels):
		p.FastStart = FastStartKernels
		return nil
	case string(FastStartConvFusion):
	default:
		p.note("%s=%q is not on, kernels, conv-fusion or off: fast start stays off", FastStartEnv, v)
		return nil
	}
	if HasXLAFlag(existingFlags, ConvFusionFlag) {
		p.note("XLA_FLAGS already sets %s: kept as is", ConvFusionFlag)
		return nil
	}
	p.FastStart = FastStartConvFusion
	return []string{ConvFusionFlag + "=true"}
}

// installExecutableCache opens the planned cache and routes the plugin's compilations through it. It runs after
// the backend exists (the plugin is loaded) and after XLA_FLAGS is final (the flags are part of the key). A
// cache that cannot be set up costs compile time, not the run: the returned text says why.
func installExecutableCache(plan Plan, device string) (*ExecutableCache, string) {
	if plan.ExecutableCache == "" || plan.PluginPath == "" {
		return nil, ""
	}
	cache, err := NewExecutableCache(plan.ExecutableCache, ExecutableCacheSalt(OSEnv(), plan.PluginPath, device))
	if err == nil {
		err = InstallExecutableCache(plan.PluginPath, cache)
	}
	if err != nil {
		return nil, "no executable cache (" + shorten(err.Error(), 160) + "; set " + ExecutableCacheEnv + "=DIR or off)"
	}
	return cache, fmt.Sprintf("executable cache %s (%d programs)", plan.ExecutableCache, cache.Entries())
}
