package autotune

// Decoding of the binary xla.autotuner.AutotuneCache (see autotune_cache.go for the format and the summary).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/pbwire"
	"google.golang.org/protobuf/encoding/protowire"
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
	var c Cache
	if len(data) == 0 {
		return c, ErrEmpty
	}
	otherFields := map[protowire.Number]int{} // Top-level fields that are not AutotuneCache's, by number.
	var legacyVersion uint64                  // xla.AutotuneResults.version, when field 1 is an integer.
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
				return c, fmt.Errorf("%w: %s runs past the end of the %d-byte file", ErrTruncated, where,
					len(data))
			}
			return c, fmt.Errorf("%w: %s: %v%s", ErrNotCache, where, err, textHint(data))
		}
		var field []byte
		if typ == protowire.BytesType {
			field, _ = protowire.ConsumeBytes(b[n:])
		}
		switch {
		case num == 3 && typ == protowire.BytesType:
			e, err := decodeAutotuneEntry(field)
			if err != nil {
				return c, fmt.Errorf("%w: entry %d (byte %d): %v", ErrNotCache, len(c.Entries), off, err)
			}
			c.Entries = append(c.Entries, e)
		case (num == 1 || num == 2) && typ == protowire.BytesType:
			if !utf8.Valid(field) {
				return c, fmt.Errorf("%w: top-level field %d at byte %d is not a UTF-8 string (another protobuf, "+
					"such as a profiler XSpace?)", ErrNotCache, num, off)
			}
			if num == 1 {
				c.DeviceScope = string(field)
			} else {
				c.ExplicitVersionScope = string(field)
			}
		case num == 1 && typ == protowire.VarintType:
			legacyVersion, _ = protowire.ConsumeVarint(b[n:])
			otherFields[num]++
		default:
			otherFields[num]++
		}
		off += n + m
	}
	if otherFields[1] > 0 && otherFields[4] > 0 && len(c.Entries) == 0 {
		return c, fmt.Errorf("%w: this is the legacy xla.AutotuneResults (version %d, %d results in field 4), "+
			"written by XLA's older autotuner; this reader takes the newer xla.autotuner.AutotuneCache",
			ErrNotCache, legacyVersion, otherFields[4])
	}
	for _, num := range []protowire.Number{1, 2, 3} {
		if otherFields[num] > 0 {
			return c, fmt.Errorf("%w: top-level field %d has the wrong wire type (AutotuneCache's is a string or "+
				"message)%s", ErrNotCache, num, fieldList(otherFields))
		}
	}
	if len(c.Entries) == 0 && len(otherFields) == 0 { // Only scope strings: a valid cache that holds nothing.
		return c, fmt.Errorf("%w: the cache for device %q, version %q has no entries", ErrEmpty,
			c.DeviceScope, c.ExplicitVersionScope)
	}
	if len(c.Entries) == 0 {
		return c, fmt.Errorf("%w: no entries (field 3) in %d bytes%s%s", ErrNotCache, len(data),
			fieldList(otherFields), textHint(data))
	}
	c.summarize()
	return c, nil
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

// checkedString returns a proto3 string field, which must be UTF-8 (protobuf parsers reject it otherwise).
func checkedString(what string, b []byte) (string, error) {
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not a UTF-8 string", what)
	}
	return string(b), nil
}

func decodeAutotuneEntry(b []byte) (Entry, error) {
	var e Entry
	var haveKey, haveValue bool
	err := pbwire.Each(b, func(num protowire.Number, _ protowire.Type, _ uint64, data []byte) error {
		var err error
		switch num {
		case 1:
			haveKey = true
			err = decodeAutotuneKey(data, &e)
		case 2:
			haveValue = true
			err = decodeAutotuneValue(data, &e)
		}
		return err
	}, pbwire.Types{1: protowire.BytesType, 2: protowire.BytesType})
	if err != nil {
		return e, err
	}
	if !haveKey || !haveValue {
		return e, fmt.Errorf("AutotuneEntry without key (field 1) or value (field 2)")
	}
	return e, nil
}

func decodeAutotuneKey(b []byte, e *Entry) error {
	return pbwire.Each(b, func(num protowire.Number, _ protowire.Type, _ uint64, data []byte) error {
		switch num {
		case 1: // AutotuneTargetKey
			return pbwire.Each(data, func(num protowire.Number, _ protowire.Type, _ uint64, s []byte) error {
				var err error
				switch num {
				case 1:
					e.Device, err = checkedString("AutotuneTargetKey.device", s)
				case 2:
					e.ExplicitVersion, err = checkedString("AutotuneTargetKey.explicit_version", s)
				case 3:
					e.HLOFingerprint, err = checkedString("AutotuneTargetKey.hlo_fingerprint", s)
				}
				return err
			}, pbwire.Types{1: protowire.BytesType, 2: protowire.BytesType, 3: protowire.BytesType})
		case 2: // AutotuneEnvironmentKey
			return pbwire.Each(data, func(num protowire.Number, _ protowire.Type, _ uint64, s []byte) error {
				var err error
				switch num {
				case 1:
					e.CodegenVersion, err = checkedString("AutotuneEnvironmentKey.codegen_version", s)
				case 2:
					e.CodegenOptionsFingerprint, err = checkedString("AutotuneEnvironmentKey.codegen_options_fingerprint", s)
				}
				return err
			}, pbwire.Types{1: protowire.BytesType, 2: protowire.BytesType})
		}
		return nil
	}, pbwire.Types{1: protowire.BytesType, 2: protowire.BytesType})
}

func decodeAutotuneValue(b []byte, e *Entry) error {
	return pbwire.Each(b, func(num protowire.Number, _ protowire.Type, _ uint64, data []byte) error {
		switch num {
		case 1: // Config
			return pbwire.Each(data, func(num protowire.Number, _ protowire.Type, v uint64, cfg []byte) error {
				switch num {
				case 1:
					e.Backend = Backend(int32(v))
				case 2:
					return decodeBackendConfig(cfg, &e.Config)
				}
				return nil
			}, pbwire.Types{1: protowire.VarintType, 2: protowire.BytesType})
		case 2:
			var err error
			e.BackendVersion, err = checkedString("AutotuneValue.optimal_backend_version", data)
			return err
		}
		return nil
	}, pbwire.Types{1: protowire.BytesType, 2: protowire.BytesType})
}

func decodeBackendConfig(b []byte, c *Config) error {
	return pbwire.Each(b, func(num protowire.Number, typ protowire.Type, _ uint64, data []byte) error {
		if typ != protowire.BytesType { // Every member of the oneof is a message.
			return pbwire.WireTypeError(fmt.Sprintf("BackendConfig field %d", num), typ)
		}
		*c = Config{Field: int(num), Kind: backendConfigKinds[int(num)]} // Last member wins, as in protobuf.
		if c.Kind == "" {
			c.Kind = fmt.Sprintf("unknown (field %d)", num)
		}
		var err error
		switch num {
		case 1:
			c.Gemm, err = decodeGemmKey(data)
		case 2:
			c.Triton, err = decodeTritonGemmKey(data)
		case 3:
			c.BlockLevel, err = decodeBlockLevel(data)
		case 4:
			c.Algorithm, err = decodeDNNAlgorithm(data)
		case 6:
			c.NativeEmitter, err = decodeNativeEmitter(data)
		}
		if err != nil {
			return fmt.Errorf("BackendConfig.%s: %w", c.Kind, err)
		}
		return nil
	})
}

func decodeGemmKey(b []byte) (*GemmKeyConfig, error) {
	g := &GemmKeyConfig{}
	return g, pbwire.Each(b, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
		switch num {
		case 1:
			g.Algorithm = int64(v)
		case 2:
			g.WorkspaceSize = int64(v)
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 2: protowire.VarintType})
}

func decodeTritonGemmKey(b []byte) (*TritonGemmConfig, error) {
	t := &TritonGemmConfig{}
	return t, pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		if typ != protowire.VarintType {
			return nil // Field 8 was a ClusterDims message in 2024's TritonGemmKey; skip such older members.
		}
		switch num {
		case 1:
			t.BlockM = int64(v)
		case 2:
			t.BlockN = int64(v)
		case 3:
			t.BlockK = int64(v)
		case 4:
			t.SplitK = int64(v)
		case 5:
			t.NumStages = int64(v)
		case 6:
			t.NumWarps = int64(v)
		case 7:
			t.NumCTAs = int64(v)
		case 8:
			t.TMAAllowed = v != 0
		case 9:
			t.WarpSpecializationAllowed = v != 0
		case 10:
			t.WavesPerEU = int64(v)
		case 11:
			t.GroupSize = int64(v)
		}
		return nil
	})
}

func decodeBlockLevel(b []byte) (*BlockLevelConfig, error) {
	c := &BlockLevelConfig{}
	return c, pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1: // Retired output_tile_sizes: one tile.
			sizes, err := packedInt64s(typ, v, data)
			if err != nil {
				return err
			}
			if len(c.OutputTiles) == 0 {
				c.OutputTiles = append(c.OutputTiles, nil)
			}
			c.OutputTiles[0] = append(c.OutputTiles[0], sizes...)
		case 2:
			c.NumWarps = int64(v)
		case 3: // Tile { repeated int64 sizes = 1; }
			var tile []int64
			err := pbwire.Each(data, func(num protowire.Number, typ protowire.Type, v uint64, d []byte) error {
				if num == 1 {
					sizes, err := packedInt64s(typ, v, d)
					tile = append(tile, sizes...)
					return err
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("output_tiles: %w", err)
			}
			c.OutputTiles = append(c.OutputTiles, tile)
		case 4:
			c.NumCTAs = int64(v)
		case 5:
			c.NumStages = int64(v)
		case 6:
			c.TMAAllowed = v != 0
		case 7:
			c.WarpSpecialization = v != 0
		}
		return nil
	}, pbwire.Types{2: protowire.VarintType, 3: protowire.BytesType, 4: protowire.VarintType, 5: protowire.VarintType,
		6: protowire.VarintType, 7: protowire.VarintType})
}

// packedInt64s reads a repeated int64, packed (bytes) or not (one varint).
func packedInt64s(typ protowire.Type, v uint64, data []byte) ([]int64, error) {
	if typ == protowire.VarintType {
		return []int64{int64(v)}, nil
	}
	if typ != protowire.BytesType {
		return nil, pbwire.WireTypeError("repeated int64", typ)
	}
	var out []int64
	for len(data) > 0 {
		x, n := protowire.ConsumeVarint(data)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		out = append(out, int64(x))
		data = data[n:]
	}
	return out, nil
}

func decodeDNNAlgorithm(b []byte) (*DNNAlgorithm, error) {
	a := &DNNAlgorithm{}
	return a, pbwire.Each(b, func(num protowire.Number, _ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			a.AlgoID = int64(v)
		case 2:
			a.TensorOps = v == 1
		case 4: // map<int64, int64> entry { key=1, value=2 }
			var k, val int64
			err := pbwire.Each(data, func(num protowire.Number, _ protowire.Type, x uint64, _ []byte) error {
				if num == 1 {
					k = int64(x)
				} else if num == 2 {
					val = int64(x)
				}
				return nil
			}, pbwire.Types{1: protowire.VarintType, 2: protowire.VarintType})
			if err != nil {
				return fmt.Errorf("tuning_knobs: %w", err)
			}
			if a.TuningKnobs == nil {
				a.TuningKnobs = map[int64]int64{}
			}
			a.TuningKnobs[k] = val
		case 6: // google.protobuf.UInt64Value { value=1 }
			var ws uint64
			err := pbwire.Each(data, func(num protowire.Number, _ protowire.Type, x uint64, _ []byte) error {
				if num == 1 {
					ws = x
				}
				return nil
			}, pbwire.Types{1: protowire.VarintType})
			if err != nil {
				return fmt.Errorf("workspace_size: %w", err)
			}
			a.Workspace = &ws
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 2: protowire.VarintType, 4: protowire.BytesType, 6: protowire.BytesType})
}

func decodeNativeEmitter(b []byte) (*NativeEmitterConfig, error) {
	c := &NativeEmitterConfig{}
	return c, pbwire.Each(b, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
		switch num {
		case 1:
			c.Type = int32(v)
		case 2:
			c.UnrollFactor = int32(v)
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 2: protowire.VarintType})
}
