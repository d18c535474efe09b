package backend

import (
	"path/filepath"
	"slices"
	"strings"
)

// GPUInfo is what [MakePlan] learned about NVIDIA GPUs from device and /proc files, without loading any
// library: loading a CUDA plugin on a machine without a GPU fails slowly and confusingly, so it is only
// tried when a GPU is plausible.
type GPUInfo struct {
	// Found is true when some evidence of an NVIDIA GPU (not just a driver library) exists.
	Found bool
	// Evidence names the file that made Found true, e.g. "/dev/nvidia0".
	Evidence string
	// Model is the GPU's name from /proc/driver/nvidia/gpus/*/information, e.g. "NVIDIA H200" ("" if unknown).
	Model string
	// Count is the number of GPUs seen (device files or /proc entries).
	Count int
	// Hint explains a negative answer, e.g. "no /dev/nvidia0".
	Hint string
}

// libDirs are where a driver's libcuda.so.1 / libnvidia-ml.so.1 usually live (Debian/Ubuntu, RHEL, WSL).
var libDirs = []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/lib/wsl/lib"}

func detectGPU(env Env) GPUInfo {
	var g GPUInfo
	devs := env.glob("/dev/nvidia[0-9]*")
	infos := env.glob("/proc/driver/nvidia/gpus/*/information")
	g.Count = max(len(devs), len(infos))
	for _, f := range infos {
		if data, err := env.readFile(f); err == nil {
			if g.Model = parseModel(string(data)); g.Model != "" {
				break
			}
		}
	}
	switch {
	case slices.Contains(devs, "/dev/nvidia0"):
		g.Found, g.Evidence = true, "/dev/nvidia0"
	case len(devs) > 0:
		g.Found, g.Evidence = true, devs[0]
	case len(infos) > 0:
		g.Found, g.Evidence = true, filepath.Dir(infos[0])
	case env.exists("/proc/driver/nvidia/version"):
		g.Found, g.Evidence = true, "/proc/driver/nvidia/version"
	case env.exists("/dev/dxg") && env.exists("/usr/lib/wsl/lib/libcuda.so.1"):
		g.Found, g.Evidence = true, "/dev/dxg (WSL2)"
	}
	if g.Found {
		g.Count = max(g.Count, 1)
		return g
	}
	g.Hint = "no /dev/nvidia0"
	// A driver library alone is not a GPU (CUDA images run on CPU-only hosts): mention it, don't trust it.
	for _, lib := range []string{"libcuda.so.1", "libnvidia-ml.so.1"} {
		for _, d := range libDirs {
			if p := filepath.Join(d, lib); env.exists(p) {
				g.Hint += "; " + p + " exists but no device: driver without a GPU?"
				return g
			}
		}
	}
	return g
}

// parseModel extracts "NVIDIA H200" from the "Model:" line of /proc/driver/nvidia/gpus/*/information.
func parseModel(info string) string {
	for line := range strings.SplitSeq(info, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "Model" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
