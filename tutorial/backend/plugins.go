package backend

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// pluginHit is a CUDA PJRT plugin found on disk.
type pluginHit struct {
	Path   string // absolute (logical) path of the .so
	Source string // human words: "pip's jax-cuda13-pjrt plugin", "go-xla's installed plugin", "PJRT_PLUGIN"
}

// goXLAPluginDirs mirrors go-xla v0.4.13 pjrt.osDefaultLibraryPaths (pjrt/dynamiclib_posix.go): when
// PJRT_PLUGIN_LIBRARY_PATH is set only its ":"-separated entries are searched; otherwise
// ~/.local/lib/go-xla{,/nvidia}, ~/.local/lib/gomlx/pjrt, /usr/local/lib/go-xla{,/nvidia},
// /usr/local/lib/gomlx/pjrt and the absolute LD_LIBRARY_PATH entries (go-xla also reads /etc/ld.so.conf;
// plugins are not installed there, so that is skipped). The installer puts the CUDA plugin at
// <lib>/go-xla/nvidia/pjrt_c_api_cuda_plugin.so, beside the NVIDIA libraries it downloads.
func goXLAPluginDirs(env Env) []string {
	if v, ok := env.Lookup("PJRT_PLUGIN_LIBRARY_PATH"); ok {
		return slices.DeleteFunc(strings.Split(v, ":"), func(p string) bool { return p == "" })
	}
	var dirs []string
	if h := env.home(); h != "" {
		dirs = append(dirs, filepath.Join(h, ".local/lib/go-xla"), filepath.Join(h, ".local/lib/go-xla/nvidia"),
			filepath.Join(h, ".local/lib/gomlx/pjrt"))
	}
	dirs = append(dirs, "/usr/local/lib/go-xla", "/usr/local/lib/go-xla/nvidia", "/usr/local/lib/gomlx/pjrt")
	for p := range strings.SplitSeq(env.Getenv("LD_LIBRARY_PATH"), ":") {
		if filepath.IsAbs(p) {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

// rePluginName is go-xla's naming rule for plugins found by search (pjrt/dynamiclib_base.go).
var rePluginName = regexp.MustCompile(`^(?:pjrt_c_api_(.+)_plugin|pjrt[-_]plugin[-_](.+))\.so$`)

// isCUDAName is go-xla's pjrt.IsCUDAName, without importing cgo code into the planning step.
func isCUDAName(name string) bool {
	u := strings.ToUpper(name)
	return strings.Contains(u, "CUDA") || strings.Contains(u, "NVIDIA")
}

func findGoXLAPlugin(env Env, dirs []string) (pluginHit, bool) {
	for _, d := range dirs {
		for _, pat := range []string{"pjrt_c_api_*_plugin.so", "pjrt-plugin-*.so", "pjrt_plugin_*.so"} {
			for _, p := range env.glob(filepath.Join(d, pat)) {
				m := rePluginName.FindStringSubmatch(filepath.Base(p))
				if m != nil && isCUDAName(m[1]+m[2]) && env.isFile(p) {
					return pluginHit{Path: p, Source: "go-xla's installed CUDA plugin"}, true
				}
			}
		}
	}
	return pluginHit{}, false
}

// sitePackagesDirs lists existing python site-packages/dist-packages directories, most specific first:
// the active venv ($VIRTUAL_ENV, or $VENV as jax-cuda-env.sh uses), conda, the user's ~/.local, then
// system and /opt venvs (the GPU machine's torch/jax venv is /opt/torch/.venv). No python is run.
func sitePackagesDirs(env Env) []string {
	var prefixes []string
	for _, v := range []string{"VIRTUAL_ENV", "VENV", "CONDA_PREFIX"} {
		if p := env.Getenv(v); filepath.IsAbs(p) {
			prefixes = append(prefixes, p)
		}
	}
	if h := env.home(); h != "" {
		prefixes = append(prefixes, filepath.Join(h, ".local"))
	}
	prefixes = append(prefixes, "/usr/local", "/usr")
	var patterns []string
	for _, p := range prefixes {
		patterns = append(patterns, p+"/lib/python3*/site-packages", p+"/lib/python3*/dist-packages")
	}
	patterns = append(patterns, "/usr/lib64/python3*/site-packages",
		"/opt/*/.venv/lib/python3*/site-packages", "/opt/*/venv/lib/python3*/site-packages",
		"/opt/*/lib/python3*/site-packages")
	var dirs []string
	for _, pat := range patterns {
		found := env.glob(pat)
		slices.SortStableFunc(found, func(a, b string) int { return pythonMinor(b) - pythonMinor(a) }) // newest python first
		for _, d := range found {
			if !slices.Contains(dirs, d) && env.isDir(d) {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

var rePythonMinor = regexp.MustCompile(`/python3\.(\d+)/`)

func pythonMinor(p string) int {
	if m := rePythonMinor.FindStringSubmatch(p); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return -1
}

// findPipPlugin looks for pip's jax-cuda*-pjrt plugin: <site-packages>/jax_plugins/xla_cuda*/xla_cuda_plugin.so,
// the newest CUDA major first.
func findPipPlugin(env Env, sites []string) (pluginHit, bool) {
	for _, sp := range sites {
		hits := env.glob(filepath.Join(sp, "jax_plugins/xla_cuda*/xla_cuda_plugin.so"))
		slices.Reverse(hits) // xla_cuda13 before xla_cuda12
		for _, p := range hits {
			if env.isFile(p) {
				pkg := "jax-" + strings.TrimPrefix(filepath.Base(filepath.Dir(p)), "xla_") + "-pjrt"
				return pluginHit{Path: p, Source: "pip's " + pkg + " plugin"}, true
			}
		}
	}
	return pluginHit{}, false
}
