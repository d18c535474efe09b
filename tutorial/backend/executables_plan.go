package backend

import (
	"fmt"
	"path/filepath"
	"strings"
)

// FastStartEnv = "on" adds [ConvFusionFlag] to XLA_FLAGS: cuDNN builds its convolution plans while XLA
// compiles, so they travel in the serialized executable and the first execution of a cached program takes
// about a second instead of ~14 s (plans built at run time for every depthwise convolution). The cost is a
// slower step (7–13% on the H200 for MobileNetV2; see assets/gpu-runs), so it suits a notebook cell, which is a new
// process every time, and not the ladder's timed figures.
const FastStartEnv = "TRAINOPT_FAST_START"

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

// fastStart returns the XLA flag fast-start mode adds (none when off or when XLA_FLAGS already decides).
func (p *Plan) fastStart(env Env, existingFlags string) []string {
	switch v := strings.ToLower(env.Getenv(FastStartEnv)); v {
	case "", "off", "0", "false":
		return nil
	case "on", "1", "true":
	default:
		p.note("%s=%q is neither on nor off: fast start stays off", FastStartEnv, v)
		return nil
	}
	if HasXLAFlag(existingFlags, ConvFusionFlag) {
		p.note("XLA_FLAGS already sets %s: kept as is", ConvFusionFlag)
		return nil
	}
	p.FastStart = true
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
