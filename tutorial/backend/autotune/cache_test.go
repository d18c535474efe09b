package autotune

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	pb "github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/autotunepb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// testdata/h200_xla_autotune.pb is the file --xla_gpu_dump_autotune_results_to wrote on an NVIDIA H200
// (jax-cuda13-pjrt plugin of jax 0.11.2) while compiling MobileNetV2 bf16 training steps at batch 128 and 256
// (assets/gpu-runs/2026-12-02-h200-run6/go/xla-autotune.pb).
const h200AutotuneFile = "testdata/h200_xla_autotune.pb"

// h200Cache reads h200AutotuneFile.
func h200Cache(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(h200AutotuneFile)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestAutotuneCacheH200(t *testing.T) {
	c, err := ReadCache(h200AutotuneFile)
	if err != nil {
		t.Fatal(err)
	}
	if c.NumEntries != 785 || len(c.Entries) != 785 {
		t.Fatalf("entries: %d (%d decoded), want 785", c.NumEntries, len(c.Entries))
	}
	if len(c.Devices) != 1 || c.Devices[0] != "ed0e56ab8b2a0ecb" {
		t.Errorf("devices: %q, want the one H200 fingerprint", c.Devices)
	}
	if len(c.CodegenVersions) != 1 || c.CodegenVersions[0] != "fe9062d0fff82a66" {
		t.Errorf("codegen versions: %q", c.CodegenVersions)
	}
	if c.DeviceScope != "" || c.ExplicitVersionScope != "" {
		t.Errorf("scope: %q %q, want none (this writer leaves them unset)", c.DeviceScope, c.ExplicitVersionScope)
	}

	want := []struct {
		backend Backend
		name    string
		entries int
		version string
		kind    string
	}{
		{BackendNativeEmitter, "NATIVE_EMITTER", 506, "v1", "native_emitter"},
		{BackendCUDNN, "CUDNN", 234, "9.19.0", "algorithm"},
		{BackendBlockLevelEmitter, "BLOCK_LEVEL_EMITTER", 30, "a77e7c793abc0d0c923a9afb275058e2fe57a198", "block_level"},
		{BackendTriton, "TRITON", 15, "a77e7c793abc0d0c923a9afb275058e2fe57a198", "triton"},
	}
	if len(c.Backends) != len(want) {
		t.Fatalf("backends: %d, want %d", len(c.Backends), len(want))
	}
	for i, w := range want {
		b := c.Backends[i]
		if b.Backend != w.backend || b.Name != w.name || b.Entries != w.entries {
			t.Errorf("backend %d: %v %q %d, want %v %q %d", i, b.Backend, b.Name, b.Entries, w.backend, w.name, w.entries)
		}
		if len(b.Versions) != 1 || b.Versions[0] != w.version {
			t.Errorf("%s versions: %q, want %q", w.name, b.Versions, w.version)
		}
		if got := c.Backend(w.backend).Entries; got != w.entries {
			t.Errorf("Backend(%s).Entries = %d", w.name, got)
		}
	}

	// Every entry: a distinct 32-hex HLO fingerprint, and the BackendConfig member of its backend.
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	kinds := map[Backend]string{}
	for _, w := range want {
		kinds[w.backend] = w.kind
	}
	for i, e := range c.Entries {
		if !hex32.MatchString(e.HLOFingerprint) || seen[e.HLOFingerprint] {
			t.Fatalf("entry %d: HLO fingerprint %q not a new 32-hex string", i, e.HLOFingerprint)
		}
		seen[e.HLOFingerprint] = true
		if e.Config.Kind != kinds[e.Backend] {
			t.Fatalf("entry %d: %v with config %q", i, e.Backend, e.Config.Kind)
		}
	}

	// What each backend chose.
	cudnn := c.Backend(BackendCUDNN)
	wantAlgos := []Count{{"58", 83}, {"62", 53}, {"5", 42}, {"16", 29}, {"39", 13}}
	for i, w := range wantAlgos {
		if cudnn.AlgoIDs[i] != w {
			t.Errorf("cuDNN algo histogram[%d] = %v, want %v", i, cudnn.AlgoIDs[i], w)
		}
	}
	if len(cudnn.AlgoIDs) != 12 {
		t.Errorf("cuDNN: %d distinct algo ids, want 12", len(cudnn.AlgoIDs))
	}
	if got := c.Backend(BackendTriton).Configs[0]; got != (Count{"tile 64×64×32 (m×n×k), 1 stage, 2 warps, 1 CTA", 6}) {
		t.Errorf("top Triton config: %v", got)
	}
	if got := c.Backend(BackendNativeEmitter).Configs; len(got) != 1 || got[0].Count != 506 {
		t.Errorf("native emitter configs: %v, want one default config ×506", got)
	}
	if got := c.Backend(BackendBlockLevelEmitter).Configs[0]; got != (Count{"output tile [8], 2 warps, 1 CTA, 1 stage", 5}) {
		t.Errorf("top block-level config: %v", got)
	}
	if got := c.Entries[0].Config.String(); got != "default emitter (type and unroll factor unset)" {
		t.Errorf("entry 0 config: %q", got)
	}

	md := c.Markdown()
	for _, s := range []string{
		"785 autotuned instructions for 1 device type:",
		"| backend | entries | what it tunes |",
		"| NATIVE_EMITTER | 506 |", "| CUDNN | 234 |", "| BLOCK_LEVEL_EMITTER | 30 |", "| TRITON | 15 |",
		"Each entry is one autotuned instruction",
		"- CUDNN algo_id: 58 ×83; 62 ×53; 5 ×42; 16 ×29; 39 ×13; … (12 distinct)",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
}

func TestAutotuneCacheErrors(t *testing.T) {
	file := h200Cache(t)
	xspace, err := os.ReadFile("../../profile/testdata/h200_gpu_test.xplane.pb") // A real XSpace from the same GPU (profile's test data).
	if err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// xla.AutotuneResults of XLA's legacy autotuner (xla/autotune_results.proto: version=1, results=4
	// { device=1, hlo=2, result=3 }).
	legacy := marshal(&pb.AutotuneResults{Version: 3, Results: []*pb.AutotuneResults_Entry{
		{Device: "CUDA: 9.0, Cores: 132", Hlo: "{...}", Result: &pb.AutotuneResult{}}}})

	cases := []struct {
		name string
		data []byte
		want error
		text string
	}{
		{"empty", nil, ErrEmpty, "empty"},
		{"scope only", marshal(&pb.AutotuneCache{DeviceScope: "ed0e56ab8b2a0ecb"}), ErrEmpty, `device "ed0e56ab8b2a0ecb"`},
		{"cut in the last entry", file[:len(file)-1], ErrTruncated, "after 784 entries"},
		{"cut in the middle", file[:len(file)/2], ErrTruncated, "runs past the end of the 39101-byte file"},
		{"cut in the first entry", file[:5], ErrTruncated, "byte 0 (after 0 entries)"},
		{"xspace", xspace, ErrNotCache, "not a UTF-8 string"},
		{"random bytes", random, ErrNotCache, "autotune cache"},
		{"text proto", []byte("entries { key { target { device: \"x\" } } }\n"), ErrNotCache, "the file is text"},
		{"legacy AutotuneResults", legacy, ErrNotCache, "legacy xla.AutotuneResults (version 3, 1 results"},
		{"entry without value", marshal(&pb.AutotuneCache{Entries: []*pb.AutotuneEntry{
			{Key: &pb.AutotuneKey{Target: &pb.AutotuneTargetKey{HloFingerprint: "00"}}}}}),
			ErrNotCache, "without key (field 1) or value (field 2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("err = %q, want it to mention %q", err, tc.text)
			}
			t.Log(err)
		})
	}

	// The same through ReadCache, on files: an empty file is what a killed writer leaves.
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pb")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCache(empty); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file: %v", err)
	}
	if _, err := ReadCache(filepath.Join(dir, "missing.pb")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestAutotuneCacheCutBetweenEntries documents a limit of the format: protobuf has no end marker, so a file cut
// exactly between two entries is a valid, shorter cache (XLA would load it and tune the rest again).
func TestAutotuneCacheCutBetweenEntries(t *testing.T) {
	file := h200Cache(t)
	off := 0
	for range 100 { // Skip 100 top-level fields (entries).
		_, typ, n := protowire.ConsumeTag(file[off:])
		m := protowire.ConsumeFieldValue(3, typ, file[off+n:])
		if n < 0 || m < 0 {
			t.Fatal("cannot walk the file")
		}
		off += n + m
	}
	c, err := Decode(file[:off])
	if err != nil || c.NumEntries != 100 {
		t.Fatalf("first 100 entries: %d, %v", c.NumEntries, err)
	}
}

// marshal serializes a test input (which always serializes: its strings are UTF-8).
func marshal(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// TestAutotuneCacheReencoded reads the H200 cache both ways: as XLA wrote it, and re-encoded from the generated
// types (proto.Unmarshal, then Marshal), which must decode to the same Cache. The bytes differ (protobuf-go writes
// the tuning_knobs map sorted by key, XLA in its hash order), which is why Filter copies the kept bytes instead.
func TestAutotuneCacheReencoded(t *testing.T) {
	file := h200Cache(t)
	want, err := Decode(file)
	if err != nil {
		t.Fatal(err)
	}
	var generated pb.AutotuneCache
	if err := proto.Unmarshal(file, &generated); err != nil || len(generated.Entries) != want.NumEntries {
		t.Fatalf("proto.Unmarshal: %v, %d entries", err, len(generated.Entries))
	}
	again, err := Decode(marshal(&generated))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, want) {
		t.Error("the re-encoded cache decodes differently")
	}
}
