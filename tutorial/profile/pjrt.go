package profile

// Capturing a kernel-level trace from the CUDA PJRT plugin that go-xla already loaded.
//
// GoMLX has no profiler, but XLA's CUDA PJRT plugin carries one: PJRT_Api.extension_start is a linked list of
// PJRT_Extension_Base{struct_size, type, next}; the entry of type PJRT_Extension_Type_Profiler (= 1 in
// xla/pjrt/c/pjrt_c_api.h's enum, after Gpu_Custom_Call = 0) is a PJRT_Profiler_Extension
// (xla/pjrt/c/pjrt_c_api_profiler_extension.h: struct_size, type, next, PLUGIN_Profiler_Api* profiler_api,
// traceme_context_id) whose profiler_api (xla/backends/profiler/plugin/profiler_c_api.h) has create/start/stop/
// collect_data. That is the same path JAX uses to profile plugins (xla/backends/profiler/plugin/plugin_tracer.cc).
//
// go-xla v0.4.13 keeps its PJRT_Api pointer unexported (pjrt.Plugin.api), so pjrt_cgo.go finds the same library
// instance with dlopen(path, RTLD_LAZY|RTLD_NOLOAD) — NOLOAD never loads a second copy, it only returns the handle
// of the already-loaded one (or NULL) — and calls its GetPjrtApi, which returns the plugin's static PJRT_Api.
// RTLD_LAZY rather than RTLD_NOW: with NOLOAD the mode can only promote the existing mapping, and go-xla loaded it
// lazily; there is no reason to force-resolve every symbol of a 300 MB plugin.
//
// The profiler is configured by a serialized tensorflow.ProfileOptions (tsl/profiler/protobuf/profiler_options.proto):
//
//	include_dataset_ops=1 (bool), host_tracer_level=2, device_tracer_level=3, python_tracer_level=4 (uint32),
//	version=5 (uint32), device_type=6 (enum: UNSPECIFIED=0, CPU=1, GPU=2, TPU=3, PLUGGABLE_DEVICE=4),
//	enable_hlo_proto=7 (bool), start_timestamp_ns=8, duration_ms=9 (uint64), repository_path=10 (string),
//	trace_options=11, advanced_configuration=12, raise_error_on_start_failure=13 (bool), session_id=14,
//	override_hostname=15
//
// version must be 1, otherwise the tracer levels are ignored in favour of defaults.

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrNoPlugin is returned by StartCapture when no CUDA PJRT plugin is loaded in the process (e.g. GoMLX runs on
// its pure-Go or CPU backend).
var ErrNoPlugin = errors.New("no CUDA PJRT plugin loaded: kernel-level profile needs the XLA CUDA backend")

// ProfileOptions device types (tensorflow.ProfileOptions.DeviceType).
const (
	DeviceTypeUnspecified = 0
	DeviceTypeCPU         = 1
	DeviceTypeGPU         = 2
)

// CaptureOptions mirror the fields of tensorflow.ProfileOptions that matter here.
type CaptureOptions struct {
	DeviceType int // DeviceTypeGPU: CUPTI device tracer plus host tracer.
	// HostTracerLevel: 0 off, 1 user TraceMe only, 2 (default) + XLA ops and runtime, 3 verbose.
	HostTracerLevel int
	// DeviceTracerLevel: 0 off, 1 (default) kernels, copies and memsets through CUPTI.
	DeviceTracerLevel int
	PythonTracerLevel int  // Always 0 in Go.
	IncludeDatasetOps bool // TF data ops; irrelevant here.
	EnableHLOProto    bool // Ask XLA to attach the HLO modules to the profile (bigger, lets XProf show HLO ops).
}

// DefaultCaptureOptions are the settings measured to work on the H200 (see /work/shared/gpu/README.md).
func DefaultCaptureOptions() CaptureOptions {
	return CaptureOptions{DeviceType: DeviceTypeGPU, HostTracerLevel: 2, DeviceTracerLevel: 1}
}

// Marshal encodes the options as a serialized tensorflow.ProfileOptions (version 1).
func (o CaptureOptions) Marshal() []byte {
	var b []byte
	varint := func(num protowire.Number, v uint64) {
		b = protowire.AppendTag(b, num, protowire.VarintType)
		b = protowire.AppendVarint(b, v)
	}
	bool01 := func(x bool) uint64 {
		if x {
			return 1
		}
		return 0
	}
	varint(1, bool01(o.IncludeDatasetOps))
	varint(2, uint64(o.HostTracerLevel))
	varint(3, uint64(o.DeviceTracerLevel))
	varint(4, uint64(o.PythonTracerLevel))
	varint(5, 1) // version
	varint(6, uint64(o.DeviceType))
	varint(7, bool01(o.EnableHLOProto))
	return b
}

// PluginInfo describes the plugin a capture runs in.
type PluginInfo struct {
	Path             string `json:"path"`
	APIMajor         int    `json:"pjrt_api_major"`
	APIMinor         int    `json:"pjrt_api_minor"`
	ProfilerAPISize  int    `json:"profiler_api_struct_size"`
	ProfilerExtFound bool   `json:"-"`
}

// PluginPathFromEnv returns the plugin named by GOMLX_BACKEND (e.g. "xla:/abs/path/xla_cuda_plugin.so,preallocate=false"
// gives "/abs/path/xla_cuda_plugin.so"), or "" if it names none.
func PluginPathFromEnv() string {
	cfg := os.Getenv("GOMLX_BACKEND")
	for _, prefix := range []string{"xla:", "stablehlo:", "shlo:", "hlo:", "pjrt:"} {
		if strings.HasPrefix(cfg, prefix) {
			cfg = strings.TrimPrefix(cfg, prefix)
			cfg, _, _ = strings.Cut(cfg, ",")
			return cfg
		}
	}
	return ""
}

// loadedPluginCandidates lists the shared libraries mapped in this process that look like CUDA PJRT plugins
// (from /proc/self/maps), for when no explicit path is given.
func loadedPluginCandidates() []string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		path := fields[len(fields)-1]
		base := strings.ToLower(filepath.Base(path))
		if !strings.HasSuffix(base, ".so") && !strings.Contains(base, ".so.") {
			continue
		}
		isPJRT := strings.Contains(base, "pjrt") || strings.Contains(base, "xla_cuda_plugin") ||
			(strings.Contains(base, "xla") && strings.Contains(base, "plugin"))
		isCUDA := strings.Contains(base, "cuda") || strings.Contains(base, "gpu") || strings.Contains(base, "nvidia")
		if isPJRT && isCUDA && !seen[path] {
			seen[path] = true
			out = append(out, path)
		}
	}
	return out
}

// pluginCandidates resolves StartCapture's pluginPath argument into paths to try with dlopen(RTLD_NOLOAD): an
// explicit path (or soname) is tried alone; "" means GOMLX_BACKEND's plugin, then any CUDA PJRT plugin mapped in
// the process; a bare name ("cuda") means go-xla's file naming convention, then the mapped ones.
func pluginCandidates(pluginPath string) []string {
	explicit := pluginPath != ""
	if !explicit {
		pluginPath = PluginPathFromEnv()
	}
	var c []string
	switch {
	case pluginPath == "":
	case strings.Contains(pluginPath, "/") || strings.Contains(pluginPath, ".so"):
		c = append(c, pluginPath)
		if explicit {
			return c
		}
	default:
		c = append(c, "pjrt_c_api_"+pluginPath+"_plugin.so")
	}
	return append(c, loadedPluginCandidates()...)
}

// captureClock records the wall-clock window of a capture (the clock of XLine.timestamp_ns).
type captureClock struct {
	start, stop time.Time
}

// Window returns the wall-clock interval between start and stop.
func (c captureClock) Window() Window {
	return Window{StartNs: c.start.UnixNano(), EndNs: c.stop.UnixNano()}
}

// trimTrailingZero drops the trailing NUL that the plugin appends to its own collect_data buffer (measured on the
// H200: size+1 bytes, last one 0). A single 0 byte at a top-level field boundary cannot be protobuf (field
// number 0 is invalid), so it is only removed when the bytes before it parse as a sequence of fields.
func trimTrailingZero(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		if !fieldsParse(b[:len(b)-1]) {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}

func fieldsParse(b []byte) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num == 0 {
			return false
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return false
		}
		b = b[n:]
	}
	return true
}
