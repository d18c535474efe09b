package xspace

// XLA's CUDA tracer (xla/backends/profiler/gpu/cupti_collector.cc) writes one XPlane per GPU, named
// "/device:GPU:<ordinal>" (tsl kGpuPlanePrefix). Each CUDA stream is a line named "Stream #<id>(<event types>)";
// a line "CUPTI overhead" and a counter line "_counters_" may also be present and are not GPU work.
//
// What an event on a stream line is, is told by its stats (xla/tsl/profiler/utils/xplane_schema.cc names):
//   - kernel:  "kernel_details" = "regs:80 static_shared:0 dynamic_shared:0 grid:8512,1,1 block:128,1,1 occ_pct:37.5"
//     (a ref value: the string is the name of a StatMetadata entry), plus "theoretical_occupancy_pct",
//     "correlation_id", "cuda_graph_id"; the event name is the demangled kernel name.
//   - memcpy:  "memcpy_details" = "kind_src:pinned kind_dst:device size:<bytes> dest:<dev> async:<0|1>" (older
//     builds: "kind:<kind> size:..."); the event name is the CUPTI type name: MemcpyH2D, MemcpyD2H, MemcpyD2D,
//     MemcpyP2P or MemcpyOther.
//   - memset:  "Memset_details" = "kind:<kind> num_bytes:<n> async:<0|1>"; name "Memset".
//   - XLA's annotations of the launching thunk become stats too: "tf_op" (the annotation name) and its key=value
//     metadata, typically "hlo_op", "hlo_module", "program_id".
// Anything else on a stream line (e.g. whole-CUDA-graph events carrying "cuda_graph_exec_id") is counted as
// "other" and kept out of kernel metrics, so that graph-level spans never double count their kernels.

import (
	"sort"
	"strconv"
	"strings"
)

// EventKind classifies an event of a GPU stream.
type EventKind uint8

// Event kinds of GPU stream events.
const (
	KindOther EventKind = iota
	KindKernel
	KindMemcpyH2D
	KindMemcpyD2H
	KindMemcpyD2D
	KindMemcpyOther
	KindMemset
)

var eventKindNames = [...]string{"other", "kernel", "memcpy_h2d", "memcpy_d2h", "memcpy_d2d", "memcpy_other", "memset"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// IsCopy reports whether the event is a memcpy of any direction.
func (k EventKind) IsCopy() bool { return k >= KindMemcpyH2D && k <= KindMemcpyOther }

// GPUEvent is one kernel, copy or memset on a GPU stream, with times relative to GPUDevice.BaseNs.
type GPUEvent struct {
	Name          string
	Kind          EventKind
	Stream        string // Line name, e.g. "Stream #7(Kernel,MemcpyH2D)".
	StartPs       int64  // Relative to GPUDevice.BaseNs.
	DurPs         int64
	Grid, Block   [3]int // Zero when unknown.
	Registers     int
	StaticShared  int
	DynamicShared int
	// TheoreticalOccPct is CUDA's occupancy calculator result for the kernel's launch (0..100); -1 if unknown.
	TheoreticalOccPct float64
	HloOp, HloModule  string
	TfOp              string
	Bytes             int64 // Copies and memsets.
	CorrelationID     int64
	CudaGraphID       int64
}

// EndPs is the event's end, relative to GPUDevice.BaseNs.
func (e *GPUEvent) EndPs() int64 { return e.StartPs + e.DurPs }

// Blocks is the number of thread blocks launched (grid x*y*z), 0 if unknown.
func (e *GPUEvent) Blocks() int64 { return int64(e.Grid[0]) * int64(e.Grid[1]) * int64(e.Grid[2]) }

// ThreadsPerBlock is block x*y*z, 0 if unknown.
func (e *GPUEvent) ThreadsPerBlock() int64 {
	return int64(e.Block[0]) * int64(e.Block[1]) * int64(e.Block[2])
}

// DeviceInfo holds the device capabilities XLA records as plane stats of a GPU plane.
type DeviceInfo struct {
	Name              string `json:"name,omitempty"`
	Vendor            string `json:"vendor,omitempty"`
	SMCount           int    `json:"sm_count,omitempty"`       // "core_count" (CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).
	ClockRateKHz      int64  `json:"clock_rate_khz,omitempty"` // "clock_rate".
	ComputeCapability string `json:"compute_capability,omitempty"`
	MemoryBytes       int64  `json:"memory_bytes,omitempty"`         // "memory_size".
	MemoryBandwidth   int64  `json:"memory_bandwidth_bps,omitempty"` // "memory_bandwidth", bytes/s.
	// MaxThreadsPerSM is not recorded by XLA; it is derived from the compute capability (see maxThreadsPerSM).
	MaxThreadsPerSM int `json:"max_threads_per_sm,omitempty"`
}

// GPUDevice is the decoded content of one "/device:GPU:N" plane.
type GPUDevice struct {
	Ordinal int
	Plane   string
	Info    DeviceInfo
	BaseNs  int64 // Unix ns that GPUEvent times are relative to (the earliest line timestamp).
	Events  []GPUEvent
	// Skipped counts events on stream lines that are neither kernels, copies nor memsets (e.g. CUDA graph spans).
	Skipped int
}

// GPUPlanePrefix is the name prefix of GPU device planes (tsl kGpuPlanePrefix).
const GPUPlanePrefix = "/device:GPU:"

// GPUDevices extracts the GPU planes of a space, events sorted by start time.
func GPUDevices(space *XSpace) []*GPUDevice {
	var devs []*GPUDevice
	for _, p := range space.Planes {
		if !strings.HasPrefix(p.Name, GPUPlanePrefix) {
			continue
		}
		ord, _ := strconv.Atoi(strings.TrimPrefix(p.Name, GPUPlanePrefix))
		d := &GPUDevice{Ordinal: ord, Plane: p.Name, Info: deviceInfo(p)}
		first := true
		for _, l := range p.Lines {
			if !isStreamLine(l) {
				continue
			}
			if first || l.TimestampNs < d.BaseNs {
				d.BaseNs, first = l.TimestampNs, false
			}
		}
		for _, l := range p.Lines {
			if !isStreamLine(l) {
				continue
			}
			lineBasePs := (l.TimestampNs - d.BaseNs) * 1000
			for i := range l.Events {
				xe := &l.Events[i]
				if xe.NumOccurrences != 0 && xe.OffsetPs == 0 {
					continue // An aggregate, not a trace event.
				}
				ev, ok := gpuEvent(p, l, xe)
				if !ok {
					d.Skipped++
					continue
				}
				ev.StartPs = lineBasePs + xe.OffsetPs
				d.Events = append(d.Events, ev)
			}
		}
		sort.SliceStable(d.Events, func(i, j int) bool { return d.Events[i].StartPs < d.Events[j].StartPs })
		devs = append(devs, d)
	}
	sort.SliceStable(devs, func(i, j int) bool { return devs[i].Ordinal < devs[j].Ordinal })
	return devs
}

// isStreamLine reports whether a device line is a CUDA stream (as opposed to "CUPTI overhead" or counters).
func isStreamLine(l *XLine) bool {
	return strings.HasPrefix(l.Name, "Stream #") || strings.HasPrefix(l.DisplayName, "Stream #")
}

func gpuEvent(p *XPlane, l *XLine, xe *XEvent) (GPUEvent, bool) {
	md := p.EventMetadata[xe.MetadataID]
	ev := GPUEvent{
		Name:              p.EventName(xe),
		Stream:            l.Name,
		DurPs:             max(xe.DurationPs, 0),
		TheoreticalOccPct: -1,
	}
	var kernelDetails, memcpyDetails, memsetDetails string
	var hasKernel, hasMemcpy, hasMemset bool
	visit := func(s XStat) {
		switch p.StatName(s) {
		case "kernel_details":
			kernelDetails, hasKernel = p.StatString(s), true
		case "memcpy_details":
			memcpyDetails, hasMemcpy = p.StatString(s), true
		case "Memset_details", "memset_details":
			memsetDetails, hasMemset = p.StatString(s), true
		case "theoretical_occupancy_pct":
			// XLA writes 0 when it could not run CUDA's occupancy calculator: unknown, not "no occupancy".
			if v, ok := StatNumber(s); ok && v > 0 {
				ev.TheoreticalOccPct = v
			}
		case "hlo_op":
			ev.HloOp = p.StatString(s)
		case "hlo_module":
			ev.HloModule = p.StatString(s)
		case "tf_op":
			ev.TfOp = p.StatString(s)
		case "correlation_id":
			if v, ok := StatNumber(s); ok {
				ev.CorrelationID = int64(v)
			}
		case "cuda_graph_id":
			if v, ok := StatNumber(s); ok {
				ev.CudaGraphID = int64(v)
			}
		}
	}
	if md != nil {
		for _, s := range md.Stats {
			visit(s)
		}
	}
	for _, s := range xe.Stats {
		visit(s)
	}
	switch {
	case hasKernel:
		ev.Kind = KindKernel
		parseKernelDetails(kernelDetails, &ev)
	case hasMemcpy || strings.HasPrefix(ev.Name, "Memcpy"):
		ev.Kind = memcpyKind(ev.Name, memcpyDetails)
		ev.Bytes = detailInt(memcpyDetails, "size", "num_bytes")
	case hasMemset || strings.HasPrefix(ev.Name, "Memset"):
		ev.Kind = KindMemset
		ev.Bytes = detailInt(memsetDetails, "num_bytes", "size")
	default:
		return ev, false
	}
	return ev, true
}

// parseDetails splits "k1:v1 k2:v2 ..." into a map.
func parseDetails(s string) map[string]string {
	m := map[string]string{}
	for _, tok := range strings.Fields(s) {
		if k, v, ok := strings.Cut(tok, ":"); ok {
			m[k] = v
		}
	}
	return m
}

func detailInt(details string, keys ...string) int64 {
	m := parseDetails(details)
	for _, k := range keys {
		if v, ok := m[k]; ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return 0
}

func parseKernelDetails(s string, ev *GPUEvent) {
	m := parseDetails(s)
	atoi := func(k string) int { n, _ := strconv.Atoi(m[k]); return n }
	ev.Registers = atoi("regs")
	ev.StaticShared = atoi("static_shared")
	if _, ok := m["shm"]; ok { // ROCm / older CUDA builds: "shm:<static>".
		ev.StaticShared = atoi("shm")
	}
	ev.DynamicShared = atoi("dynamic_shared")
	ev.Grid = parseDim3(m["grid"])
	ev.Block = parseDim3(m["block"])
	if ev.TheoreticalOccPct < 0 {
		if v, err := strconv.ParseFloat(m["occ_pct"], 64); err == nil && v > 0 {
			ev.TheoreticalOccPct = v
		}
	}
}

// parseDim3 parses "x,y,z" (missing components default to 1; an empty string is unknown: zeros).
func parseDim3(s string) [3]int {
	if s == "" {
		return [3]int{}
	}
	d := [3]int{1, 1, 1}
	for i, part := range strings.SplitN(s, ",", 3) {
		if n, err := strconv.Atoi(strings.TrimSpace(part)); err == nil {
			d[i] = n
		}
	}
	return d
}

// memcpyKind gets the copy direction from the CUPTI type name, or else from memcpy_details' memory kinds.
func memcpyKind(name, details string) EventKind {
	switch n := strings.ToUpper(name); {
	case strings.Contains(n, "H2D") || strings.Contains(n, "HTOD"):
		return KindMemcpyH2D
	case strings.Contains(n, "D2H") || strings.Contains(n, "DTOH"):
		return KindMemcpyD2H
	case strings.Contains(n, "D2D") || strings.Contains(n, "DTOD") || strings.Contains(n, "P2P"):
		return KindMemcpyD2D
	}
	m := parseDetails(details)
	src, dst := m["kind_src"] == "device", m["kind_dst"] == "device"
	switch {
	case src && dst:
		return KindMemcpyD2D
	case src && m["kind_dst"] != "":
		return KindMemcpyD2H
	case dst && m["kind_src"] != "":
		return KindMemcpyH2D
	}
	return KindMemcpyOther
}

func deviceInfo(p *XPlane) DeviceInfo {
	var info DeviceInfo
	var ccMajor, ccMinor = -1, -1
	numeric := map[string]func(v float64){ // Plane stats with a number.
		"core_count":        func(v float64) { info.SMCount = int(v) },
		"clock_rate":        func(v float64) { info.ClockRateKHz = int64(v) },
		"memory_size":       func(v float64) { info.MemoryBytes = int64(v) },
		"memory_bandwidth":  func(v float64) { info.MemoryBandwidth = int64(v) },
		"compute_cap_major": func(v float64) { ccMajor = int(v) },
		"compute_cap_minor": func(v float64) { ccMinor = int(v) },
	}
	for _, s := range p.Stats {
		switch name := p.StatName(s); name {
		case "gpu_device_name":
			info.Name = p.StatString(s)
		case "device_vendor":
			info.Vendor = p.StatString(s)
		default:
			if v, isNum := StatNumber(s); isNum && numeric[name] != nil {
				numeric[name](v)
			}
		}
	}
	if ccMajor >= 0 {
		info.ComputeCapability = strconv.Itoa(ccMajor) + "." + strconv.Itoa(max(ccMinor, 0))
		info.MaxThreadsPerSM = maxThreadsPerSM(ccMajor, max(ccMinor, 0))
	}
	return info
}

// maxThreadsPerSM is CUDA's "maximum resident threads per SM" by compute capability (CUDA C Programming Guide,
// compute capabilities table); 0 when unknown.
func maxThreadsPerSM(major, minor int) int {
	switch {
	case major == 7 && minor == 5:
		return 1024
	case major == 8 && (minor == 6 || minor == 9), major == 12:
		return 1536
	case major >= 5:
		return 2048
	}
	return 0
}
