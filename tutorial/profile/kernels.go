package profile

// Kernel-level metrics over a time window, with the definitions of PyTorch's TensorBoard profile plugin
// (torch-tb-profiler, "GPU Summary"), so that the Go numbers can be read next to the PyTorch tutorial's:
//
//   - GPU Utilization = GPU busy time / window, where busy time is the union of kernel intervals (the time during
//     which at least one kernel runs). Copies and memsets are not kernels and do not count.
//   - Est. SM Efficiency: per kernel SM_Eff_K = min(blocks / SM count, 100%); overall = the time integral of
//     min(Σ blocks/SMs of the kernels running at that instant, 1) divided by the window (the plugin's
//     merge_ranges_with_value sweep), so overlapping kernels never exceed 100%.
//   - Est. Achieved Occupancy: per kernel OCC_K = min(threads / SM count / max threads per SM, theoretical
//     occupancy), averaged over kernels weighted by duration. XLA records the theoretical occupancy (CUDA's
//     occupancy calculator) as "theoretical_occupancy_pct"; max threads per SM comes from the compute capability.
//   - Kernel time using Tensor Cores = time of tensor-core kernels / total kernel time, tensor-core kernels being
//     recognised by name with the rules of tensorCoreRules (the plugin uses a list of kernel names the same way).
//
// Every interval is first clipped to the window, so kernel busy time cannot exceed the window by construction;
// summarize also checks it.

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace"
)

// kernelNameRule matches kernel names (and HLO op names) case-insensitively.
type kernelNameRule struct {
	Pattern string `json:"pattern"`
	Why     string `json:"why"`
	re      *regexp.Regexp
}

func (r *kernelNameRule) match(s string) bool {
	if r.re == nil { // Rules added after init; compiled on first use.
		r.re = regexp.MustCompile("(?i)" + r.Pattern)
	}
	return r.re.MatchString(s)
}

func init() {
	for i := range tensorCoreRules {
		tensorCoreRules[i].re = regexp.MustCompile("(?i)" + tensorCoreRules[i].Pattern)
	}
	for i := range kernelCategoryRules {
		r := &kernelCategoryRules[i].Rule
		r.re = regexp.MustCompile("(?i)" + r.Pattern)
	}
}

// tensorCoreRules is the single table deciding which kernels run on tensor cores: a kernel does if its name
// matches any rule. Names come from cuDNN, cuBLAS/cuBLASLt, CUTLASS and XLA's Triton emitter on Ampere/Hopper.
// A rule can be wrong for a given dtype (a Triton GEMM on plain f32 without TF32 does not use tensor cores), so
// the share is an estimate, like the plugin's.
var tensorCoreRules = []kernelNameRule{
	{Pattern: `xmma_`, Why: "cuDNN/cuBLAS XMMA kernels (sm80_xmma_*, sm90_xmma_*: convolutions and GEMMs on HMMA/GMMA)"},
	{Pattern: `hmma|imma|wgmma|gmma`, Why: "named after tensor-core MMA instructions (hmma, imma, wgmma, *_gmma_*)"},
	{Pattern: `tensorop`, Why: "CUTLASS / cuBLAS tensor-op kernels (cutlass_80_tensorop_*, cutlass3x_sm90_tensorop_*gemm*)"},
	{Pattern: `[hsi](884|1688|16816|8816|16832)gemm`, Why: "cuBLAS names that encode the MMA shape (volta_h884gemm, ampere_bf16_s16816gemm)"},
	{Pattern: `nvjet`, Why: "cuBLASLt nvjet GEMM kernels (Hopper and later)"},
	{Pattern: `triton_gemm|gemm_fusion|triton_dot`, Why: "XLA Triton GEMM fusions (tensor cores for bf16/f16/tf32 inputs)"},
}

// isTensorCoreKernel applies tensorCoreRules to a kernel name and the HLO op that launched it (may be "").
func isTensorCoreKernel(name, hloOp string) bool {
	s := name + " " + hloOp
	for i := range tensorCoreRules {
		if tensorCoreRules[i].match(s) {
			return true
		}
	}
	return false
}

// kernelCategoryRules assign a coarse category to a kernel from "<kernel name> <hlo op>"; the first match wins
// (so "input_reduce_fusion" is a reduction and "loop_convert_fusion" — convert, not conv — a fusion).
var kernelCategoryRules = []struct {
	Category string
	Rule     kernelNameRule
}{
	{"convolution", kernelNameRule{Pattern: `(^|[^a-z])conv($|[^e])|fprop|dgrad|wgrad|implicit_convolve|implicit_gemm`}},
	{"matmul", kernelNameRule{Pattern: `gemm|nvjet|matmul|cublas|(^|[^a-z])dot`}},
	{"reduction", kernelNameRule{Pattern: `reduce|reduction`}},
	{"transpose", kernelNameRule{Pattern: `transpose`}},
	{"copy", kernelNameRule{Pattern: `copy|concatenate|dynamic.update.slice`}},
	{"fusion", kernelNameRule{Pattern: `fusion|loop_|elementwise`}},
}

// kernelCategory returns the category of a kernel ("other" if no rule matches).
func kernelCategory(name, hloOp string) string {
	s := name + " " + hloOp
	for i := range kernelCategoryRules {
		if kernelCategoryRules[i].Rule.match(s) {
			return kernelCategoryRules[i].Category
		}
	}
	return "other"
}

// Window is an absolute time interval in Unix nanoseconds (the clock of XLine.timestamp_ns and of time.Now()).
type Window struct {
	StartNs, EndNs int64
}

// SummaryOptions configure summarize.
type SummaryOptions struct {
	// Device is the GPU ordinal to summarize (planes "/device:GPU:<Device>").
	Device int
	// Window restricts the metrics to a time interval (e.g. around the measured training steps). Zero: the span
	// of the device's kernels and copies. If no kernel at all falls in the given window (host and GPU clocks not
	// aligned), the event span is used instead and a note says so; a note also tells when under 90% does.
	Window Window
	// SMCount overrides the plane's "core_count" (H200: 132).
	SMCount int
	// MaxThreadsPerSM overrides the value derived from the compute capability (Hopper: 2048).
	MaxThreadsPerSM int
	// Steps is the number of training steps inside the window, for per-step figures (0: unknown).
	Steps int
}

// CopyStat totals copies (or memsets) of one direction.
type CopyStat struct {
	Count  int     `json:"count"`
	Bytes  int64   `json:"bytes"`
	TimeUs float64 `json:"time_us"`
}

// KernelStat aggregates the launches of one kernel name.
type KernelStat struct {
	Name      string  `json:"name"`
	Category  string  `json:"category"`
	HloOp     string  `json:"hlo_op,omitempty"`  // The most frequent HLO op launching it.
	HloOps    int     `json:"hlo_ops,omitempty"` // Number of distinct HLO ops launching it.
	HloModule string  `json:"hlo_module,omitempty"`
	Count     int     `json:"count"`
	TotalUs   float64 `json:"total_us"`
	MeanUs    float64 `json:"mean_us"`
	MinUs     float64 `json:"min_us"`
	MaxUs     float64 `json:"max_us"`
	Grid      [3]int  `json:"grid"`  // Of the longest launch.
	Block     [3]int  `json:"block"` // Of the longest launch.
	Registers int     `json:"registers"`
	// TheoreticalOccPct of the longest launch (-1 unknown); AchievedOccPct is the duration-weighted OCC_K.
	TheoreticalOccPct float64 `json:"theoretical_occupancy_pct"`
	AchievedOccPct    float64 `json:"est_achieved_occupancy_pct"`
	TensorCore        bool    `json:"tensor_core"`

	hloOpCounts map[string]int
	occWeighted float64
	occTime     float64
	longestPs   int64
}

// CategoryTime is the kernel time of one category.
type CategoryTime struct {
	Category string  `json:"category"`
	TimeUs   float64 `json:"time_us"`
	Pct      float64 `json:"pct"` // Of total kernel time.
}

// KernelSummary is the GPU-side view of a window: utilization, kernel table and copies.
type KernelSummary struct {
	Device       string            `json:"device"`
	GPU          xspace.DeviceInfo `json:"gpu"`
	WindowUs     float64           `json:"window_us"`
	WindowSource string            `json:"window_source"` // "given" or "events".
	Steps        int               `json:"steps,omitempty"`

	KernelCount  int     `json:"kernel_count"`
	KernelTimeUs float64 `json:"kernel_time_us"` // Σ kernel durations (streams may overlap: can exceed busy time).
	BusyUs       float64 `json:"busy_us"`        // Union of kernel intervals, ≤ WindowUs.
	BusyPct      float64 `json:"gpu_busy_pct"`

	SMEfficiencyPct      float64 `json:"est_sm_efficiency_pct"`      // -1 if the SM count is unknown.
	AchievedOccupancyPct float64 `json:"est_achieved_occupancy_pct"` // -1 if no kernel has an occupancy.
	TensorCorePct        float64 `json:"tensor_core_kernel_time_pct"`
	TensorCoreTimeUs     float64 `json:"tensor_core_time_us"`

	Categories []CategoryTime `json:"categories"`
	Kernels    []KernelStat   `json:"kernels"` // All kernel names, by total time, longest first.

	H2D    CopyStat `json:"h2d"`
	D2H    CopyStat `json:"d2h"`
	D2D    CopyStat `json:"d2d"`
	Memset CopyStat `json:"memset"`

	Notes []string `json:"notes,omitempty"`
}

// Top returns the n kernels with the largest total time.
func (s *KernelSummary) Top(n int) []KernelStat {
	if n <= 0 || n > len(s.Kernels) {
		n = len(s.Kernels)
	}
	return s.Kernels[:n]
}

// PerStepUs divides a time by the number of steps (0 if unknown).
func (s *KernelSummary) PerStepUs(us float64) float64 {
	if s.Steps <= 0 {
		return 0
	}
	return us / float64(s.Steps)
}

// ErrNoGPUPlane is returned when a space has no "/device:GPU:N" plane (CPU backend, or device tracing off).
var ErrNoGPUPlane = errors.New("no GPU device plane in the profile: was it captured with the CUDA plugin and device_tracer_level=1?")

// summarize computes the kernel summary of one GPU of a decoded space.
func summarize(space *xspace.XSpace, opts SummaryOptions) (*KernelSummary, error) {
	for _, d := range xspace.GPUDevices(space) {
		if d.Ordinal == opts.Device {
			return summarizeDevice(d, opts)
		}
	}
	return nil, ErrNoGPUPlane
}

type interval struct {
	start, end int64
	value      float64
}

// summarizeDevice computes the kernel summary of one decoded GPU plane.
func summarizeDevice(d *xspace.GPUDevice, opts SummaryOptions) (*KernelSummary, error) {
	s := &KernelSummary{Device: d.Plane, GPU: d.Info, Steps: opts.Steps}
	if opts.SMCount > 0 {
		s.GPU.SMCount = opts.SMCount
	}
	if opts.MaxThreadsPerSM > 0 {
		s.GPU.MaxThreadsPerSM = opts.MaxThreadsPerSM
	}
	if d.Skipped > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d stream events were neither kernels nor copies (e.g. CUDA graph spans) and are left out", d.Skipped))
	}

	// Window, relative to d.BaseNs in ps.
	var evStart, evEnd int64 = math.MaxInt64, math.MinInt64
	for i := range d.Events {
		evStart = min(evStart, d.Events[i].StartPs)
		evEnd = max(evEnd, d.Events[i].EndPs())
	}
	if len(d.Events) == 0 {
		evStart, evEnd = 0, 0
	}
	wStart, wEnd, source := evStart, evEnd, "events"
	if opts.Window.EndNs > opts.Window.StartNs {
		gs, ge := (opts.Window.StartNs-d.BaseNs)*1000, (opts.Window.EndNs-d.BaseNs)*1000
		var in, all float64
		for i := range d.Events {
			if e := &d.Events[i]; e.Kind == xspace.KindKernel {
				all += float64(e.DurPs)
				in += float64(max(0, min(e.EndPs(), ge)-max(e.StartPs, gs)))
			}
		}
		switch {
		case all > 0 && in == 0:
			s.Notes = append(s.Notes, "no kernel falls in the given window (host and GPU clocks not aligned?): using the span of GPU events instead")
		default:
			wStart, wEnd, source = gs, ge, "given"
			if all > 0 && in < 0.9*all {
				s.Notes = append(s.Notes, fmt.Sprintf("%.0f%% of the captured kernel time falls in the given window", 100*in/all))
			}
		}
	}
	s.WindowSource = source
	windowPs := wEnd - wStart
	s.WindowUs = psToUs(windowPs)
	if windowPs <= 0 {
		s.Notes = append(s.Notes, "empty window: no GPU events")
		s.SMEfficiencyPct, s.AchievedOccupancyPct = -1, -1
		return s, nil
	}

	clip := func(e *xspace.GPUEvent) (int64, int64, bool) {
		a, b := max(e.StartPs, wStart), min(e.EndPs(), wEnd)
		return a, b, b > a
	}

	byName := map[string]*KernelStat{}
	categoryPs := map[string]int64{}
	var kernels []interval  // For busy time.
	var smRanges []interval // Blocks/SM per kernel, for SM efficiency.
	var kernelPs, tensorPs int64
	var occWeighted, occTime float64
	smCount := s.GPU.SMCount
	maxThreads := s.GPU.MaxThreadsPerSM
	if maxThreads <= 0 {
		maxThreads = 2048
		s.Notes = append(s.Notes, "compute capability unknown: assuming 2048 threads per SM for the occupancy estimate")
	}
	if smCount <= 0 {
		s.Notes = append(s.Notes, "SM count unknown (no core_count stat, no SMCount option): SM efficiency not estimated")
	}

	for i := range d.Events {
		e := &d.Events[i]
		a, b, ok := clip(e)
		if !ok {
			continue
		}
		dur := b - a
		switch {
		case e.Kind == xspace.KindKernel:
		case e.Kind == xspace.KindMemcpyH2D:
			addCopy(&s.H2D, e, dur)
			continue
		case e.Kind == xspace.KindMemcpyD2H:
			addCopy(&s.D2H, e, dur)
			continue
		case e.Kind == xspace.KindMemcpyD2D, e.Kind == xspace.KindMemcpyOther:
			addCopy(&s.D2D, e, dur)
			continue
		case e.Kind == xspace.KindMemset:
			addCopy(&s.Memset, e, dur)
			continue
		default:
			continue
		}

		s.KernelCount++
		kernelPs += dur
		kernels = append(kernels, interval{start: a, end: b})
		op := e.HloOp
		if op == "" {
			op = e.TfOp // The launching annotation's name, when XLA gave no hlo_op.
		}
		tc := isTensorCoreKernel(e.Name, op)
		if tc {
			tensorPs += dur
		}
		cat := kernelCategory(e.Name, op)
		categoryPs[cat] += dur

		if smCount > 0 && e.Blocks() > 0 {
			smRanges = append(smRanges, interval{start: a, end: b, value: float64(e.Blocks()) / float64(smCount)})
		}
		occ := -1.0
		if e.TheoreticalOccPct >= 0 && smCount > 0 && e.Blocks() > 0 && e.ThreadsPerBlock() > 0 {
			threadsPerSM := float64(e.Blocks()*e.ThreadsPerBlock()) / float64(smCount)
			occ = min(threadsPerSM/float64(maxThreads), e.TheoreticalOccPct/100)
			occWeighted += occ * float64(dur)
			occTime += float64(dur)
		}

		ks := byName[e.Name]
		if ks == nil {
			ks = &KernelStat{Name: e.Name, Category: cat, TensorCore: tc, MinUs: math.Inf(1), hloOpCounts: map[string]int{},
				TheoreticalOccPct: -1, AchievedOccPct: -1, longestPs: -1}
			byName[e.Name] = ks
		}
		ks.Count++
		us := psToUs(dur)
		ks.TotalUs += us
		ks.MinUs = min(ks.MinUs, us)
		ks.MaxUs = max(ks.MaxUs, us)
		if op != "" {
			ks.hloOpCounts[op]++
		}
		if ks.HloModule == "" {
			ks.HloModule = e.HloModule
		}
		if dur > ks.longestPs {
			ks.longestPs = dur
			ks.Grid, ks.Block, ks.Registers, ks.TheoreticalOccPct = e.Grid, e.Block, e.Registers, e.TheoreticalOccPct
		}
		if occ >= 0 {
			ks.occWeighted += occ * float64(dur)
			ks.occTime += float64(dur)
		}
	}

	busyPs := unionLength(kernels)
	if busyPs > windowPs { // Impossible by construction (intervals clipped to the window); kept as an assertion.
		return nil, fmt.Errorf("internal error: kernel busy time %d ps exceeds window %d ps", busyPs, windowPs)
	}
	s.KernelTimeUs = psToUs(kernelPs)
	s.BusyUs = psToUs(busyPs)
	s.BusyPct = 100 * float64(busyPs) / float64(windowPs)
	s.TensorCoreTimeUs = psToUs(tensorPs)
	if kernelPs > 0 {
		s.TensorCorePct = 100 * float64(tensorPs) / float64(kernelPs)
	}
	s.SMEfficiencyPct = -1
	if smCount > 0 {
		s.SMEfficiencyPct = 100 * cappedIntegral(smRanges) / float64(windowPs)
	}
	s.AchievedOccupancyPct = -1
	if occTime > 0 {
		s.AchievedOccupancyPct = 100 * occWeighted / occTime
	} else if s.KernelCount > 0 {
		s.Notes = append(s.Notes, "no kernel carries grid/block/theoretical occupancy: occupancy not estimated")
	}

	for _, ks := range byName {
		ks.MeanUs = ks.TotalUs / float64(ks.Count)
		best := 0
		for op, n := range ks.hloOpCounts {
			if n > best || (n == best && op < ks.HloOp) {
				ks.HloOp, best = op, n
			}
		}
		ks.HloOps = len(ks.hloOpCounts)
		if ks.occTime > 0 {
			ks.AchievedOccPct = 100 * ks.occWeighted / ks.occTime
		}
		s.Kernels = append(s.Kernels, *ks)
	}
	sort.Slice(s.Kernels, func(i, j int) bool {
		if s.Kernels[i].TotalUs != s.Kernels[j].TotalUs {
			return s.Kernels[i].TotalUs > s.Kernels[j].TotalUs
		}
		return s.Kernels[i].Name < s.Kernels[j].Name
	})
	for cat, ps := range categoryPs {
		s.Categories = append(s.Categories, CategoryTime{Category: cat, TimeUs: psToUs(ps), Pct: 100 * float64(ps) / float64(max(kernelPs, 1))})
	}
	sort.Slice(s.Categories, func(i, j int) bool {
		if s.Categories[i].TimeUs != s.Categories[j].TimeUs {
			return s.Categories[i].TimeUs > s.Categories[j].TimeUs
		}
		return s.Categories[i].Category < s.Categories[j].Category
	})
	return s, nil
}

func addCopy(c *CopyStat, e *xspace.GPUEvent, durPs int64) {
	c.Count++
	c.Bytes += e.Bytes
	c.TimeUs += psToUs(durPs)
}

func psToUs(ps int64) float64 { return float64(ps) / 1e6 }

// unionLength is the total length covered by a set of intervals (overlaps counted once).
func unionLength(iv []interval) int64 {
	if len(iv) == 0 {
		return 0
	}
	sorted := append([]interval(nil), iv...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].start < sorted[j].start })
	var total int64
	curStart, curEnd := sorted[0].start, sorted[0].end
	for _, r := range sorted[1:] {
		if r.start > curEnd {
			total += curEnd - curStart
			curStart, curEnd = r.start, r.end
		} else if r.end > curEnd {
			curEnd = r.end
		}
	}
	return total + curEnd - curStart
}

// cappedIntegral is ∫ min(Σ values of the intervals covering t, 1) dt: the plugin's merge_ranges_with_value sweep.
func cappedIntegral(iv []interval) float64 {
	type endpoint struct {
		t     int64
		start bool
		v     float64
	}
	pts := make([]endpoint, 0, 2*len(iv))
	for _, r := range iv {
		if r.end > r.start && r.value > 0 {
			pts = append(pts, endpoint{r.start, true, r.value}, endpoint{r.end, false, r.value})
		}
	}
	sort.Slice(pts, func(i, j int) bool {
		if pts[i].t != pts[j].t {
			return pts[i].t < pts[j].t
		}
		return pts[i].start && !pts[j].start // Starts before ends at equal times.
	})
	var total, level float64
	for i, p := range pts {
		if i > 0 && p.t > pts[i-1].t && level > 1e-12 {
			total += min(level, 1) * float64(p.t-pts[i-1].t)
		}
		if p.start {
			level += p.v
		} else {
			level -= p.v
		}
	}
	return total
}

// String is a one-line summary, e.g. for logs.
func (s *KernelSummary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d kernels, %.1f ms kernel time in %.1f ms window, GPU busy %.1f%%", s.Device, s.KernelCount,
		s.KernelTimeUs/1e3, s.WindowUs/1e3, s.BusyPct)
	if s.SMEfficiencyPct >= 0 {
		fmt.Fprintf(&b, ", est. SM efficiency %.1f%%", s.SMEfficiencyPct)
	}
	if s.AchievedOccupancyPct >= 0 {
		fmt.Fprintf(&b, ", est. achieved occupancy %.1f%%", s.AchievedOccupancyPct)
	}
	fmt.Fprintf(&b, ", tensor-core kernel time %.1f%%", s.TensorCorePct)
	return b.String()
}
