package autotune

// XLA's GPU autotune results file: what the first call's minute was spent on.
//
// On a cold compile XLA's GPU autotuner picks, for every distinct autotunable instruction (a convolution, a GEMM
// fusion, an ordinary fusion), the fastest of several candidate implementations: it compiles every candidate and,
// when more than one compiles, runs them on the device to time them. That is most of the 55–100 s first call of
// a MobileNetV2 training step (tutorial/backend/autotune.go). --xla_gpu_dump_autotune_results_to=FILE writes the
// winners after each compilation and --xla_gpu_load_autotune_results_from=FILE reads them back, so that a second
// process looks the winners up instead of timing them again (tutorial/backend/autotune.go sets both flags). This
// file reads such a file, so the tutorial can show what was tuned: how many instructions, by which backend, and
// what each backend chose.
//
// Format. The file written by the jax-cuda13-pjrt plugin of jax 0.11.2 (XLA of late 2026) is the binary proto of
// the cache of XLA's "new" autotuner (xla/backends/autotuner/, 2025–2026), message xla.autotuner.AutotuneCache,
// not the xla.AutotuneResults (version=1, results=4) that XLA's older autotuner wrote and that
// tutorial/backend/autotune.go still names; this decoder recognises that older one and says so. An
// AutotuneCache holds entries, each a key (the target: device, explicit version, HLO fingerprint; the
// environment: codegen version and options fingerprint) and a value (the winning Config: a Backend and its
// BackendConfig, a oneof of one message per backend kind, and the backend's version). The messages, with XLA's
// field numbers and the files they come from, are in tutorial/internal/xlaproto/autotunepb/autotune.proto, which
// the decoder's generated code follows. In the 2026 copies of the Backend enum, 3, 5, 12 and 15 are reserved,
// i.e. retired; 16 and up differ between copies and are reported as unknown.
//
// What the keys hold (xla/backends/autotuner/autotuner_cache_interface.cc, autotune_fingerprint.cc):
// target.device is a 16-hex Fingerprint64 of "CUDA: 9.0, Cores: …, GPU clock: …, Memory bandwidth: …, L2 cache: …"
// (so one value per GPU model and clock, not a GPU index); hlo_fingerprint is a 32-hex Fingerprint128 of the
// instruction's HLO text with operand shapes and backend config, which is why every entry is one distinct
// instruction; environment.codegen_version is a 16-hex Fingerprint64 of "BACKEND:version,…" over the backends
// XLA had, and optimal_backend_version is the winning backend's own version (cuDNN "9.19.0", Triton a commit
// hash, the native emitter "v1").

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/textfmt"
	pb "github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/autotunepb"
)

// Errors returned by Decode (wrapped, test them with errors.Is).
var (
	// ErrEmpty: the file holds no entry: no bytes at all (what a killed writer leaves, or the
	// serialization of a cache with nothing in it), or only the cache's scope strings.
	ErrEmpty = errors.New("empty autotune results file (no autotuned instruction)")
	// ErrTruncated: a message runs past the end of the file (a partial write or a cut copy).
	ErrTruncated = errors.New("truncated autotune results file")
	// ErrNotCache: the bytes are not an xla.autotuner.AutotuneCache (another proto, the legacy
	// xla.AutotuneResults, a text proto, random bytes).
	ErrNotCache = errors.New("not an XLA autotune cache (xla.autotuner.AutotuneCache)")
)

// Backend is the xla.autotuner.Backend enum value of the backend that won an instruction.
type Backend int32

// The Backend values named in xla/backends/autotuner/backends.proto.
const (
	BackendCUDNN               Backend = 1
	BackendTriton              Backend = 2
	BackendCUBLAS              Backend = 3 // Retired (reserved) in 2026.
	BackendCUBLASLt            Backend = 4
	BackendROCBLAS             Backend = 5 // Retired (reserved) in 2026.
	BackendHIPBLASLt           Backend = 6
	BackendMIOpen              Backend = 7
	BackendCustomKernel        Backend = 8
	BackendBlockLevelEmitter   Backend = 9
	BackendNativeEmitter       Backend = 10
	BackendLLVMKernelEmitter   Backend = 11
	BackendCUBLASFission       Backend = 12 // Retired (reserved) in 2026.
	BackendCUBLASLtFission     Backend = 13
	BackendCustomKernelFission Backend = 14
	BackendROCBLASFission      Backend = 15 // Retired (reserved) in 2026.
)

// String is the enum name from backends.proto, or "unknown (Backend N)".
func (b Backend) String() string {
	if s, ok := pb.Backend_name[int32(b)]; ok {
		return s
	}
	return fmt.Sprintf("unknown (Backend %d)", int32(b))
}

// Tunes says in words what the backend chooses per instruction (from its BackendConfig member and the backend's
// source in xla/backends/gpu/autotuner/).
func (b Backend) Tunes() string {
	switch b {
	case BackendCUDNN:
		return "cuDNN engine for a convolution (AlgorithmProto: algo_id, tuning knobs, workspace) or plan of a cuDNN fusion"
	case BackendTriton:
		return "Triton GEMM tiling of a dot fusion (TritonGemmKey: block_m×block_n×block_k, stages, warps, CTAs)"
	case BackendBlockLevelEmitter:
		return "Triton tiling of a non-GEMM fusion (BlockLevelFusionConfig: output tile, warps, CTAs, stages)"
	case BackendNativeEmitter:
		return "XLA's own (non-Triton) emitter for a fusion (NativeEmitterBackendConfig: emitter type, unroll factor)"
	case BackendCUBLAS, BackendCUBLASLt, BackendROCBLAS, BackendHIPBLASLt:
		return "BLAS library algorithm for a GEMM (GemmKey: algorithm, workspace)"
	case BackendCUBLASFission, BackendCUBLASLtFission, BackendROCBLASFission:
		return "a dot fusion split so its dot runs in the BLAS library (GemmKey: algorithm, workspace)"
	case BackendMIOpen:
		return "MIOpen algorithm for a convolution (AlgorithmProto)"
	case BackendCustomKernel, BackendCustomKernelFission:
		return "a pre-built custom kernel for the fusion"
	case BackendLLVMKernelEmitter:
		return "CPU LLVM kernel options"
	}
	return "unknown"
}

// Cache summarizes one autotune results file.
type Cache struct {
	NumEntries int // Autotuned instructions: one per distinct HLO fingerprint and device.
	// Scope fields of the cache itself (empty in the H200 file; newer writers fill them).
	DeviceScope, ExplicitVersionScope string
	Devices                           []string         // Distinct AutotuneTargetKey.device fingerprints, sorted.
	CodegenVersions                   []string         // Distinct AutotuneEnvironmentKey.codegen_version, sorted.
	Backends                          []BackendSummary // Most entries first.
	Entries                           []Entry          // In file order.
}

// BackendSummary is what one backend won.
type BackendSummary struct {
	Backend  Backend
	Name     string // Backend.String().
	Entries  int
	Versions []string // Distinct optimal_backend_version, sorted (cuDNN "9.19.0", Triton a commit hash, ...).
	// Configs is every distinct chosen config in words (Config.Choice) with how many entries chose it,
	// most frequent first.
	Configs []Count
	// AlgoIDs is the cuDNN (or MIOpen) algo_id histogram, most frequent first; nil for other backends.
	AlgoIDs []Count
}

// Count is one histogram bar.
type Count struct {
	What  string
	Count int
}

// Entry is one decoded xla.autotuner.Entry.
type Entry struct {
	Device, ExplicitVersion, HLOFingerprint   string // AutotuneTargetKey.
	CodegenVersion, CodegenOptionsFingerprint string // AutotuneEnvironmentKey.
	Backend                                   Backend
	BackendVersion                            string // AutotuneValue.optimal_backend_version.
	Config                                    Config
}

// Config is the chosen BackendConfig; at most one of the pointers is set (it is a oneof).
type Config struct {
	Field         int    // The oneof member's field number, 0 when the BackendConfig is empty.
	Kind          string // Its name in backend_config.proto, or "unknown (field N)".
	Gemm          *GemmKeyConfig
	Triton        *TritonGemmConfig
	BlockLevel    *BlockLevelConfig
	Algorithm     *DNNAlgorithm
	NativeEmitter *NativeEmitterConfig
}

// GemmKeyConfig is xla.AutotuneResult.GemmKey: an index into the BLAS library's candidate list.
type GemmKeyConfig struct{ Algorithm, WorkspaceSize int64 }

// TritonGemmConfig is xla.AutotuneResult.TritonGemmKey.
type TritonGemmConfig struct {
	BlockM, BlockN, BlockK, SplitK, NumStages, NumWarps, NumCTAs int64
	TMAAllowed, WarpSpecializationAllowed                        bool
	WavesPerEU, GroupSize                                        int64
}

// BlockLevelConfig is xla.xtile.BlockLevelFusionConfig.
type BlockLevelConfig struct {
	OutputTiles                    [][]int64 // One tile per fusion root.
	NumWarps, NumCTAs, NumStages   int64
	TMAAllowed, WarpSpecialization bool
}

// DNNAlgorithm is stream_executor.dnn.AlgorithmProto.
type DNNAlgorithm struct {
	AlgoID      int64
	TensorOps   bool            // math_type == TENSOR_OP_MATH.
	TuningKnobs map[int64]int64 // cuDNN knob id → value.
	Workspace   *uint64         // nil when the workspace size is not recorded.
}

// NativeEmitterConfig is xla.gpu.NativeEmitterBackendConfig.
type NativeEmitterConfig struct {
	Type         int32 // xla.gpu.NativeEmitterType; 0 (INVALID) means "the emitter XLA picks by default".
	UnrollFactor int32
}

// String says the chosen config in words, with the cuDNN workspace size (which follows from the choice and the
// shape).
func (c Config) String() string {
	s := c.Choice()
	if c.Algorithm != nil && c.Algorithm.Workspace != nil {
		s += ", workspace " + textfmt.Bytes(int64(*c.Algorithm.Workspace))
	}
	return s
}

// Choice says the chosen config in words, without the cuDNN workspace size: what the histograms count.
func (c Config) Choice() string {
	switch {
	case c.Field == 0:
		return "no config"
	case c.Gemm != nil:
		return fmt.Sprintf("algorithm %d, workspace %d B", c.Gemm.Algorithm, c.Gemm.WorkspaceSize)
	case c.Triton != nil:
		t := c.Triton
		s := fmt.Sprintf("tile %d×%d×%d (m×n×k), %d stage%s, %d warp%s, %d CTA", t.BlockM, t.BlockN, t.BlockK,
			t.NumStages, plural(t.NumStages), t.NumWarps, plural(t.NumWarps), t.NumCTAs)
		if t.SplitK > 1 {
			s += fmt.Sprintf(", split_k %d", t.SplitK)
		}
		if t.TMAAllowed {
			s += ", TMA allowed"
		}
		if t.WarpSpecializationAllowed {
			s += ", warp specialization"
		}
		return s
	case c.BlockLevel != nil:
		bl := c.BlockLevel
		tiles := make([]string, len(bl.OutputTiles))
		for i, t := range bl.OutputTiles {
			tiles[i] = intsString(t)
		}
		s := fmt.Sprintf("output tile %s, %d warp%s, %d CTA, %d stage%s", strings.Join(tiles, "+"),
			bl.NumWarps, plural(bl.NumWarps), bl.NumCTAs, bl.NumStages, plural(bl.NumStages))
		if bl.TMAAllowed {
			s += ", TMA allowed"
		}
		return s
	case c.Algorithm != nil:
		a := c.Algorithm
		s := fmt.Sprintf("algo %d", a.AlgoID)
		if a.TensorOps {
			s += ", tensor ops"
		}
		if len(a.TuningKnobs) > 0 {
			keys := make([]int64, 0, len(a.TuningKnobs))
			for k := range a.TuningKnobs {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
			knobs := make([]string, len(keys))
			for i, k := range keys {
				knobs[i] = fmt.Sprintf("%d=%d", k, a.TuningKnobs[k])
			}
			s += ", knobs " + strings.Join(knobs, " ")
		}
		return s
	case c.NativeEmitter != nil:
		ne := c.NativeEmitter
		if ne.Type == 0 && ne.UnrollFactor == 0 {
			return "default emitter (type and unroll factor unset)"
		}
		typ, ok := pb.NativeEmitterType_name[ne.Type]
		if !ok {
			typ = fmt.Sprintf("unknown (NativeEmitterType %d)", ne.Type)
		}
		return fmt.Sprintf("%s, unroll %d", typ, ne.UnrollFactor)
	}
	return c.Kind // llvm_kernel or an unknown member: not decoded.
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func intsString(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(s, ",") + "]"
}

func (c *Cache) summarize() {
	c.NumEntries = len(c.Entries)
	devices, codegen := map[string]bool{}, map[string]bool{}
	type acc struct {
		s        BackendSummary
		versions map[string]bool
		configs  map[string]int
		algos    map[string]int
	}
	byBackend := map[Backend]*acc{}
	for _, e := range c.Entries {
		devices[e.Device] = true
		codegen[e.CodegenVersion] = true
		a := byBackend[e.Backend]
		if a == nil {
			a = &acc{s: BackendSummary{Backend: e.Backend, Name: e.Backend.String()},
				versions: map[string]bool{}, configs: map[string]int{}, algos: map[string]int{}}
			byBackend[e.Backend] = a
		}
		a.s.Entries++
		a.versions[e.BackendVersion] = true
		a.configs[e.Config.Choice()]++
		if e.Config.Algorithm != nil {
			a.algos[strconv.FormatInt(e.Config.Algorithm.AlgoID, 10)]++
		}
	}
	c.Devices, c.CodegenVersions = sortedKeys(devices), sortedKeys(codegen)
	for _, a := range byBackend {
		a.s.Versions = sortedKeys(a.versions)
		a.s.Configs = histogram(a.configs)
		if len(a.algos) > 0 {
			a.s.AlgoIDs = histogram(a.algos)
		}
		c.Backends = append(c.Backends, a.s)
	}
	sort.Slice(c.Backends, func(i, j int) bool {
		if c.Backends[i].Entries != c.Backends[j].Entries {
			return c.Backends[i].Entries > c.Backends[j].Entries
		}
		return c.Backends[i].Backend < c.Backends[j].Backend
	})
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// histogram sorts counts by count, then by key (numerically when both keys are numbers).
func histogram(m map[string]int) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{What: k, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		a, errA := strconv.ParseInt(out[i].What, 10, 64)
		b, errB := strconv.ParseInt(out[j].What, 10, 64)
		if errA == nil && errB == nil {
			return a < b
		}
		return out[i].What < out[j].What
	})
	return out
}

// Backend returns the summary of one backend (zero value with Entries 0 when it won nothing).
func (c Cache) Backend(b Backend) BackendSummary {
	for _, s := range c.Backends {
		if s.Backend == b {
			return s
		}
	}
	return BackendSummary{Backend: b, Name: b.String()}
}

// Markdown is a short table of what was autotuned, and the most frequent choices of each backend.
func (c Cache) Markdown() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d autotuned instructions for %d device type%s:\n\n", c.NumEntries, len(c.Devices),
		plural(int64(len(c.Devices))))
	sb.WriteString("| backend | entries | what it tunes |\n|---|---:|---|\n")
	for _, b := range c.Backends {
		fmt.Fprintf(&sb, "| %s | %d | %s |\n", textfmt.MdEsc(b.Name), b.Entries, textfmt.MdEsc(b.Backend.Tunes()))
	}
	sb.WriteString("\nEach entry is one autotuned instruction (one convolution, GEMM or fusion shape, told apart " +
		"by the fingerprint of its HLO): on a cold compile XLA compiled every candidate config for it and, where " +
		"more than one compiled, timed them on the device, which is where the first call's time goes, while a " +
		"warm cache (--xla_gpu_load_autotune_results_from) turns each entry into a lookup.\n\nMost chosen:\n\n")
	for _, b := range c.Backends {
		if b.AlgoIDs != nil {
			fmt.Fprintf(&sb, "- %s algo_id: %s\n", textfmt.MdEsc(b.Name), topCounts(b.AlgoIDs, 5))
		}
		fmt.Fprintf(&sb, "- %s: %s\n", textfmt.MdEsc(b.Name), topCounts(b.Configs, 3))
	}
	return sb.String()
}

func topCounts(h []Count, n int) string {
	parts := make([]string, 0, n+1)
	for i, x := range h {
		if i == n {
			parts = append(parts, fmt.Sprintf("… (%d distinct)", len(h)))
			break
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", textfmt.MdEsc(x.What), x.Count))
	}
	return strings.Join(parts, "; ")
}
