package autotune

// Decoding of the binary xla.autotuner.AutotuneCache (see cache.go for the format and the summary). The top level is
// walked field by field here, so that a cut copy, a text proto, an XSpace or the legacy xla.AutotuneResults is named
// as such instead of half-read; each entry is then read with protoc-gen-go's code for the cache's messages
// (tutorial/internal/xlaproto/autotunepb) and turned into an Entry.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto"
	pb "github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/autotunepb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// ReadCache reads and decodes a file written by --xla_gpu_dump_autotune_results_to (binary form: XLA
// writes text only when the name ends in .txt or .textproto, and this reader does not take those).
func ReadCache(path string) (Cache, error) {
	data, err := ReadFile(path)
	if err != nil {
		return Cache{}, err
	}
	c, err := Decode(data)
	if err != nil {
		return Cache{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// MaxFileBytes bounds what ReadFile reads: an autotune cache holds kilobytes to a few megabytes
// (testdata's H200 cache: 78 KB), so a file of hundreds of megabytes is not one to load whole into memory.
const MaxFileBytes = 256 << 20

// ErrTooLarge: the file (or device, such as /dev/zero) holds more than MaxFileBytes.
var ErrTooLarge = fmt.Errorf("larger than %d MiB: not an autotune results file", MaxFileBytes>>20)

// ReadFile reads an autotune cache file's bytes, at most MaxFileBytes: a larger file, or an endless
// device such as /dev/zero, is refused with ErrTooLarge after reading no more than the limit.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("autotune cache: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("autotune cache %s: %d bytes, %w", path, fi.Size(), ErrTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("autotune cache: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("autotune cache %s: %w", path, ErrTooLarge)
	}
	return data, nil
}

// Decode decodes a binary xla.autotuner.AutotuneCache and summarizes it. Unknown fields inside
// entries are skipped (newer XLAs add some); a file without a single entry is refused, since protobuf would
// otherwise accept almost any bytes as an empty message. A file cut exactly between two entries cannot be told
// from a shorter cache (protobuf has no end marker): it decodes, with fewer entries.
func Decode(data []byte) (Cache, error) {
	c, _, err := decode(data)
	return c, err
}

// decode is Decode that also says where each entry's field (tag and value) lies in data: [start, end).
func decode(data []byte) (c Cache, spans [][2]int, err error) {
	if len(data) == 0 {
		return c, nil, ErrEmpty
	}
	otherFields := map[protowire.Number]int{} // Top-level fields that are not AutotuneCache's, by number.
	for off := 0; off < len(data); {
		b := data[off:]
		num, typ, n := protowire.ConsumeTag(b)
		m := 0
		if n >= 0 {
			m = protowire.ConsumeFieldValue(num, typ, b[n:])
		}
		if n < 0 || m < 0 {
			err := protowire.ParseError(min(n, m))
			where := fmt.Sprintf("the field at byte %d (after %d entries)", off, len(c.Entries))
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return c, nil, fmt.Errorf("%w: %s runs past the end of the %d-byte file", ErrTruncated, where,
					len(data))
			}
			return c, nil, fmt.Errorf("%w: %s: %v%s", ErrNotCache, where, err, textHint(data))
		}
		var field []byte
		if typ == protowire.BytesType {
			field, _ = protowire.ConsumeBytes(b[n:])
		}
		switch {
		case num == 3 && typ == protowire.BytesType:
			e, err := decodeEntry(field)
			if err != nil {
				return c, nil, fmt.Errorf("%w: entry %d (byte %d): %v", ErrNotCache, len(c.Entries), off, err)
			}
			c.Entries = append(c.Entries, e)
			spans = append(spans, [2]int{off, off + n + m})
		case (num == 1 || num == 2) && typ == protowire.BytesType:
			if !utf8.Valid(field) {
				return c, nil, fmt.Errorf("%w: top-level field %d at byte %d is not a UTF-8 string (another "+
					"protobuf, such as a profiler XSpace?)", ErrNotCache, num, off)
			}
			if num == 1 {
				c.DeviceScope = string(field)
			} else {
				c.ExplicitVersionScope = string(field)
			}
		default:
			otherFields[num]++
		}
		off += n + m
	}
	var legacy pb.AutotuneResults // Field 1 an integer (version), field 4 messages (results).
	if otherFields[1] > 0 && otherFields[4] > 0 && len(c.Entries) == 0 && proto.Unmarshal(data, &legacy) == nil {
		return c, nil, fmt.Errorf("%w: this is the legacy xla.AutotuneResults (version %d, %d results in field 4), "+
			"written by XLA's older autotuner; this reader takes the newer xla.autotuner.AutotuneCache",
			ErrNotCache, legacy.Version, len(legacy.Results))
	}
	for _, num := range []protowire.Number{1, 2, 3} {
		if otherFields[num] > 0 {
			return c, nil, fmt.Errorf("%w: top-level field %d has the wrong wire type (AutotuneCache's is a string or "+
				"message)%s", ErrNotCache, num, fieldList(otherFields))
		}
	}
	if len(c.Entries) == 0 && len(otherFields) == 0 { // Only scope strings: a valid cache that holds nothing.
		return c, nil, fmt.Errorf("%w: the cache for device %q, version %q has no entries", ErrEmpty,
			c.DeviceScope, c.ExplicitVersionScope)
	}
	if len(c.Entries) == 0 {
		return c, nil, fmt.Errorf("%w: no entries (field 3) in %d bytes%s%s", ErrNotCache, len(data),
			fieldList(otherFields), textHint(data))
	}
	c.summarize()
	return c, spans, nil
}

func fieldList(fields map[protowire.Number]int) string {
	if len(fields) == 0 {
		return ""
	}
	var parts []string
	for num, n := range fields {
		parts = append(parts, fmt.Sprintf("field %d ×%d", num, n))
	}
	sort.Strings(parts)
	return "; other top-level fields: " + strings.Join(parts, ", ")
}

// textHint says when the bytes look like text: XLA writes a text proto when the file name ends in .txt or
// .textproto, and this reader takes the binary form only.
func textHint(data []byte) string {
	for _, b := range data[:min(len(data), 4096)] {
		if (b < ' ' || b > '~') && b != '\n' && b != '\r' && b != '\t' {
			return ""
		}
	}
	return " (the file is text: a text proto, written when the name ends in .txt or .textproto? Only the binary form is read)"
}

// tritonGemmKey is read leniently: its field 8 was a ClusterDims message in 2024's copies (now a bool), and such an
// older member is skipped rather than refused.
var tritonGemmKey = (*pb.AutotuneResult_TritonGemmKey)(nil).ProtoReflect().Descriptor().FullName()

func decodeEntry(b []byte) (Entry, error) {
	var pe pb.AutotuneEntry
	if err := xlaproto.Unmarshal(b, &pe, tritonGemmKey); err != nil {
		return Entry{}, err
	}
	if pe.Key == nil || pe.Value == nil {
		return Entry{}, fmt.Errorf("AutotuneEntry without key (field 1) or value (field 2)")
	}
	target, env, cfg := pe.Key.GetTarget(), pe.Key.GetEnvironment(), pe.Value.GetOptimalConfig()
	c, err := backendConfig(cfg.GetBackendConfig())
	return Entry{Device: target.GetDevice(), ExplicitVersion: target.GetExplicitVersion(),
		HLOFingerprint: target.GetHloFingerprint(), CodegenVersion: env.GetCodegenVersion(),
		CodegenOptionsFingerprint: env.GetCodegenOptionsFingerprint(), Backend: Backend(cfg.GetBackend()),
		BackendVersion: pe.Value.GetOptimalBackendVersion(), Config: c}, err
}

// backendConfig turns the chosen BackendConfig into a Config: the oneof member's field number and name, and its
// values for the members that are read. A member that autotune.proto lacks stays an unknown field: it is named by
// its number.
func backendConfig(bc *pb.BackendConfig) (Config, error) {
	var c Config
	if bc == nil {
		return c, nil
	}
	m := bc.ProtoReflect()
	f := m.WhichOneof(m.Descriptor().Oneofs().ByName("config"))
	if f != nil {
		c.Field, c.Kind = int(f.Number()), string(f.Name())
	}
	for u := m.GetUnknown(); len(u) > 0; {
		num, typ, n := protowire.ConsumeField(u)
		if typ != protowire.BytesType { // Every member of the oneof is a message.
			return c, fmt.Errorf("BackendConfig field %d: unexpected wire type %d", num, typ)
		}
		if f == nil { // The last unknown member names the config, unless a known one is set.
			c.Field, c.Kind = int(num), fmt.Sprintf("unknown (field %d)", num)
		}
		u = u[n:]
	}
	switch v := bc.Config.(type) {
	case *pb.BackendConfig_Gemm:
		c.Gemm = &GemmKeyConfig{Algorithm: v.Gemm.GetAlgorithm(), WorkspaceSize: v.Gemm.GetAutotuneWorkspaceSize()}
	case *pb.BackendConfig_Triton:
		t := v.Triton
		c.Triton = &TritonGemmConfig{BlockM: t.GetBlockM(), BlockN: t.GetBlockN(), BlockK: t.GetBlockK(),
			SplitK: t.GetSplitK(), NumStages: t.GetNumStages(), NumWarps: t.GetNumWarps(), NumCTAs: t.GetNumCtas(),
			TMAAllowed: t.GetIsTmaAllowed(), WarpSpecializationAllowed: t.GetIsWarpSpecializationAllowed(),
			WavesPerEU: t.GetWavesPerEu(), GroupSize: t.GetGroupSize()}
	case *pb.BackendConfig_BlockLevel:
		bl := v.BlockLevel
		c.BlockLevel = &BlockLevelConfig{NumWarps: bl.GetNumWarps(), NumCTAs: bl.GetNumCtas(),
			NumStages: bl.GetNumStages(), TMAAllowed: bl.GetIsTmaAllowed(),
			WarpSpecialization: bl.GetIsWarpSpecializationAllowed()}
		if sizes := bl.GetOutputTileSizes(); len(sizes) > 0 { // The retired field: one tile.
			c.BlockLevel.OutputTiles = [][]int64{sizes}
		}
		for _, t := range bl.GetOutputTiles() {
			c.BlockLevel.OutputTiles = append(c.BlockLevel.OutputTiles, t.GetSizes())
		}
	case *pb.BackendConfig_Algorithm:
		a := v.Algorithm
		c.Algorithm = &DNNAlgorithm{AlgoID: a.GetAlgoId(), TuningKnobs: a.GetTuningKnobs(),
			TensorOps: a.GetMathType() == pb.AlgorithmProto_TENSOR_OP_MATH}
		if ws := a.GetWorkspaceSize(); ws != nil {
			c.Algorithm.Workspace = &ws.Value
		}
	case *pb.BackendConfig_NativeEmitter:
		c.NativeEmitter = &NativeEmitterConfig{Type: int32(v.NativeEmitter.GetType()),
			UnrollFactor: v.NativeEmitter.GetUnrollFactor()}
	}
	return c, nil
}
