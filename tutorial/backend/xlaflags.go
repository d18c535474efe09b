package backend

import (
	"path/filepath"
	"strings"
)

// CUDADataDirFlag is the XLA flag that tells XLA's GPU compiler where the CUDA toolkit files it needs at run
// time live: <dir>/nvvm/libdevice/libdevice.10.bc (and <dir>/bin/ptxas, else ptxas on $PATH).
//
// Why it is set here: go-xla v0.1.x appended a hard-coded, wrong data dir unless XLA_FLAGS already had one.
// go-xla v0.4.13 no longer hard-codes it, but after loading a plugin whose name looks like CUDA (and only if
// GOPJRT_CUDA_CHECKS is not disabled) it still appends --xla_gpu_cuda_data_dir=<plugin dir>/../nvidia when
// that directory exists and XLA_FLAGS has no such flag (pjrt/cuda_linux.go, cudaSetCUDADir). For its own
// installer's layout that is <lib>/go-xla/nvidia, which holds bin/ptxas but keeps libdevice one level down
// in nvidia/cu13/nvvm; for pip's layout the directory does not exist and nothing is set. Setting the flag
// first, to a directory that does hold libdevice, makes both cases right.
const CUDADataDirFlag = "--xla_gpu_cuda_data_dir"

// libdeviceRel is the file XLA looks for under the CUDA data dir.
const libdeviceRel = "nvvm/libdevice/libdevice.10.bc"

// HasXLAFlag reports whether flags (an XLA_FLAGS value) already sets flag, as "--flag=value" or "--flag".
func HasXLAFlag(flags, flag string) bool {
	for _, f := range strings.Fields(flags) {
		if f == flag || strings.HasPrefix(f, flag+"=") {
			return true
		}
	}
	return false
}

// MergeXLAFlags returns XLA_FLAGS with --xla_gpu_cuda_data_dir=dataDir added, keeping every existing flag.
// If existing already sets a data dir (whatever its value: the user's choice wins) or dataDir is "", it
// returns existing unchanged and changed=false, so the flag is never duplicated.
func MergeXLAFlags(existing, dataDir string) (merged string, changed bool) {
	if dataDir == "" || HasXLAFlag(existing, CUDADataDirFlag) {
		return existing, false
	}
	flag := CUDADataDirFlag + "=" + dataDir
	if t := strings.TrimSpace(existing); t != "" {
		return t + " " + flag, true
	}
	return flag, true
}

// cudaDataDirCandidates lists, in order of preference: $CUDA_DATA_DIR (jax-cuda-env.sh's override),
// $CUDA_HOME, /usr/local/cuda, then pip's / go-xla's NVIDIA wheels near the plugin
// (<site-packages>/nvidia/cu13, <site-packages>/nvidia/cuda_nvcc, <lib>/go-xla/nvidia/cu13, ...) and in
// every site-packages directory.
func cudaDataDirCandidates(env Env, pluginPath string, sites []string) []string {
	var c []string
	for _, v := range []string{"CUDA_DATA_DIR", "CUDA_HOME"} {
		if p := env.Getenv(v); filepath.IsAbs(p) {
			c = append(c, p)
		}
	}
	c = append(c, "/usr/local/cuda")
	var nvidiaDirs []string
	if pluginPath != "" {
		d := filepath.Dir(pluginPath)
		if filepath.Base(d) == "nvidia" { // go-xla's installer: <lib>/go-xla/nvidia/pjrt_c_api_cuda_plugin.so
			nvidiaDirs = append(nvidiaDirs, d)
		}
		// The plugin's RPATH: $ORIGIN/../nvidia, $ORIGIN/../../nvidia (pip: site-packages/nvidia).
		nvidiaDirs = append(nvidiaDirs, filepath.Join(d, "../nvidia"), filepath.Join(d, "../../nvidia"))
	}
	for _, sp := range sites {
		nvidiaDirs = append(nvidiaDirs, filepath.Join(sp, "nvidia"))
	}
	if h := env.home(); h != "" {
		nvidiaDirs = append(nvidiaDirs, filepath.Join(h, ".local/lib/go-xla/nvidia"))
	}
	nvidiaDirs = append(nvidiaDirs, "/usr/local/lib/go-xla/nvidia")
	for _, n := range nvidiaDirs {
		c = append(c, filepath.Join(n, "cu13"), filepath.Join(n, "cuda_nvcc"))
	}
	return uniq(c)
}

// findCUDADataDir returns the first candidate holding nvvm/libdevice/libdevice.10.bc.
func findCUDADataDir(env Env, candidates []string) string {
	for _, d := range candidates {
		if env.isFile(filepath.Join(d, libdeviceRel)) {
			return filepath.Clean(d)
		}
	}
	return ""
}

// uniq drops repeated strings, keeping the first occurrence's position.
func uniq(list []string) []string {
	seen := make(map[string]bool, len(list))
	out := list[:0:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
