package backend

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newTestCache(t *testing.T, salt string) *ExecutableCache {
	t.Helper()
	c, err := NewExecutableCache(filepath.Join(t.TempDir(), "exe"), salt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestExecutableFileFormat(t *testing.T) {
	c := newTestCache(t, "s")
	key := c.Key("mlir", []byte("program"), []byte("opts"))
	payload := []byte("serialized executable")
	file := encodeExecutableFile(key, payload)
	if got, err := decodeExecutableFile(file, key); err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("round trip: %q, %v", got, err)
	}
	other := c.Key("mlir", []byte("program2"), []byte("opts"))
	flip := func(i int) []byte { b := bytes.Clone(file); b[i] ^= 1; return b }
	versionAt := len(executableFileMagic)
	for name, tc := range map[string]struct {
		data []byte
		key  [32]byte
		want string
	}{
		"empty":          {nil, key, "not an executable cache file"},
		"foreign file":   {[]byte("\x7fELF not ours at all, long enough to hold a header ........................................"), key, "not an executable cache file"},
		"header cut":     {file[:executableHeaderLen-1], key, "not an executable cache file"},
		"other version":  {flip(versionAt), key, "version"},
		"other program":  {file, other, "another program"},
		"payload cut":    {file[:len(file)-3], key, "cut short"},
		"payload longer": {append(bytes.Clone(file), 'x'), key, "cut short"},
		"payload flip":   {flip(len(file) - 1), key, "checksum"},
	} {
		if _, err := decodeExecutableFile(tc.data, tc.key); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}

func TestExecutableCacheKey(t *testing.T) {
	a, b := newTestCache(t, "salt A"), newTestCache(t, "salt B")
	k := a.Key("mlir", []byte("ab"), []byte("c"))
	if k != a.Key("mlir", []byte("ab"), []byte("c")) {
		t.Fatal("key not deterministic")
	}
	for name, other := range map[string][32]byte{
		"parts split differently": a.Key("mlir", []byte("a"), []byte("bc")),
		"other format":            a.Key("hlo", []byte("ab"), []byte("c")),
		"other options":           a.Key("mlir", []byte("ab"), []byte("d")),
		"other salt":              b.Key("mlir", []byte("ab"), []byte("c")),
	} {
		if other == k {
			t.Errorf("%s: same key", name)
		}
	}
}

func TestExecutableCacheLoadRejects(t *testing.T) {
	c := newTestCache(t, "s")
	k1, k2 := c.Key("f", []byte("one"), nil), c.Key("f", []byte("two"), nil)
	if _, ok := c.Load(k1); ok {
		t.Fatal("hit in an empty cache")
	}
	if err := c.Store(k1, []byte("exe one")); err != nil {
		t.Fatal(err)
	}
	if err := c.Store(k2, []byte("exe two")); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Load(k1); !ok || string(got) != "exe one" {
		t.Fatalf("Load = %q, %v", got, ok)
	}
	if n := c.Entries(); n != 2 {
		t.Fatalf("Entries = %d", n)
	}

	// A file copied over another key's name (a foreign entry) is a miss and is removed.
	data, _ := os.ReadFile(c.path(k2))
	if err := os.WriteFile(c.path(k1), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load(k1); ok {
		t.Fatal("another program's executable loaded")
	}
	if _, err := os.Stat(c.path(k1)); !os.IsNotExist(err) {
		t.Errorf("rejected file still there: %v", err)
	}
	// A file cut short (a writer killed mid-write outside Store's rename) likewise.
	if err := os.WriteFile(c.path(k2), data[:len(data)-2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load(k2); ok {
		t.Fatal("truncated file loaded")
	}
	s := c.Stats()
	if s.Rejected != 2 || !strings.Contains(s.LastError, "cut short") || c.Entries() != 0 {
		t.Errorf("stats %+v, entries %d", s, c.Entries())
	}
	if !strings.Contains(s.String(), "2 rejected") {
		t.Errorf("String() = %q", s)
	}
}

func TestExecutableCacheTrim(t *testing.T) {
	c := newTestCache(t, "s")
	payload := bytes.Repeat([]byte("x"), 1000)
	keys := make([][32]byte, 3)
	old := time.Now().Add(-3 * time.Hour)
	for i := range keys {
		keys[i] = c.Key("f", []byte{byte(i)}, nil)
		if err := c.Store(keys[i], payload); err != nil {
			t.Fatal(err)
		}
		when := old.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(c.path(keys[i]), when, when); err != nil {
			t.Fatal(err)
		}
	}
	// Using entry 0 makes it the newest: entry 1 is now the least recently used.
	if _, ok := c.Load(keys[0]); !ok {
		t.Fatal("entry 0 missing before the trim")
	}
	stale := filepath.Join(c.Dir, ".dead"+executableFileExt+".tmp-1-1")
	fresh := filepath.Join(c.Dir, ".live"+executableFileExt+".tmp-1-2")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chtimes(stale, old, old)
	c.MaxBytes = int64(2*(executableHeaderLen+len(payload)) + 10) // room for two entries
	c.trim()
	for i, want := range []bool{true, false, true} {
		if _, err := os.Stat(c.path(keys[i])); (err == nil) != want {
			t.Errorf("entry %d present = %v, want %v", i, err == nil, want)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("a temporary file of a killed writer was kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a live writer's temporary file was removed")
	}
}

func TestExecutableCacheSalt(t *testing.T) {
	root := fakeRoot(t, "/p/plugin.so=plugin", "/e/errata.json={}")
	env := func(flags string, extra ...string) Env {
		v := map[string]string{"XLA_FLAGS": flags}
		for i := 0; i+1 < len(extra); i += 2 {
			v[extra[i]] = extra[i+1]
		}
		return Env{Root: root, Vars: v}
	}
	base := ExecutableCacheSalt(env("--xla_gpu_autotune_level=4"), "/p/plugin.so", "NVIDIA H200")
	// Where caches live is not what XLA compiles: a cold process (no load flag yet) and a warm one share keys.
	cacheFlags := "--xla_gpu_autotune_level=4 " + DumpAutotuneFlag + "=/c/a.pb " + LoadAutotuneFlag + "=/c/a.pb " +
		KernelCacheFlag + "=/c/a.kernels"
	if got := ExecutableCacheSalt(env(cacheFlags), "/p/plugin.so", "NVIDIA H200"); got != base {
		t.Errorf("cache-location flags changed the salt:\n%s\nvs\n%s", got, base)
	}
	for name, got := range map[string]string{
		"other flag":   ExecutableCacheSalt(env("--xla_gpu_autotune_level=0"), "/p/plugin.so", "NVIDIA H200"),
		"conv fusion":  ExecutableCacheSalt(env("--xla_gpu_autotune_level=4 "+ConvFusionFlag+"=true"), "/p/plugin.so", "NVIDIA H200"),
		"other device": ExecutableCacheSalt(env("--xla_gpu_autotune_level=4"), "/p/plugin.so", "NVIDIA H100"),
		"other plugin": ExecutableCacheSalt(env("--xla_gpu_autotune_level=4"), "/q/plugin.so", "NVIDIA H200"),
		"errata file":  ExecutableCacheSalt(env("--xla_gpu_autotune_level=4", "CUDNN_ERRATA_JSON_FILE", "/e/errata.json"), "/p/plugin.so", "NVIDIA H200"),
	} {
		if got == base {
			t.Errorf("%s: same salt", name)
		}
	}
}

func TestExecutableCachePlan(t *testing.T) {
	root := gpuMachine(t)
	plan := func(vars ...string) Plan {
		v := map[string]string{"HOME": "/home/u", AutotuneCacheEnv: "off"}
		for i := 0; i+1 < len(vars); i += 2 {
			v[vars[i]] = vars[i+1]
		}
		return MakePlan(Env{Root: root, Vars: v})
	}
	p := plan()
	want := "/home/u/.cache/trainopt/executables-" + (Env{Root: root}).pluginKey(fakePlugin)
	if p.ExecutableCache != want {
		t.Errorf("default dir = %q, want %q", p.ExecutableCache, want)
	}
	if p = plan(ExecutableCacheEnv, "/data/exe"); p.ExecutableCache != "/data/exe" {
		t.Errorf("explicit dir = %q", p.ExecutableCache)
	}
	if p = plan(ExecutableCacheEnv, "off"); p.ExecutableCache != "" {
		t.Errorf("off: dir = %q", p.ExecutableCache)
	}
	p = plan(ExecutableCacheEnv, "rel/dir")
	if p.ExecutableCache != "" || !strings.Contains(strings.Join(p.Notes, "\n"), "not an absolute path") {
		t.Errorf("relative dir: %q, notes %q", p.ExecutableCache, p.Notes)
	}
	if p = plan("GOMLX_BACKEND", "go"); p.ExecutableCache != "" {
		t.Errorf("pure Go backend got an executable cache %q", p.ExecutableCache)
	}

	// Fast start "on" picks the Triton kernels and adds no flag; conv-fusion adds the flag once, keeps the user's
	// own setting; a bad value is said and leaves it off.
	for _, on := range []string{"on", "ON", "1", "kernels"} {
		p = plan(FastStartEnv, on)
		if flags, _ := envVar(p, "XLA_FLAGS"); p.FastStart != FastStartKernels || strings.Contains(flags, ConvFusionFlag) {
			t.Errorf("fast start %q: FastStart %q, XLA_FLAGS %q", on, p.FastStart, flags)
		}
	}
	if c := newChoice(plan(FastStartEnv, "on"), nil, nil); !strings.Contains(c.String(), "fast start (depthwise convolutions by Triton kernels") {
		t.Errorf("Choice line does not say fast start's kernels: %s", c)
	}
	p = plan(FastStartEnv, "conv-fusion")
	if flags, _ := envVar(p, "XLA_FLAGS"); p.FastStart != FastStartConvFusion || strings.Count(flags, ConvFusionFlag+"=true") != 1 {
		t.Errorf("fast start conv-fusion: FastStart %q, XLA_FLAGS %q", p.FastStart, flags)
	}
	if c := newChoice(p, nil, nil); !strings.Contains(c.String(), "fast start ("+ConvFusionFlag) {
		t.Errorf("Choice line does not say conv fusion: %s", c)
	}
	p = plan(FastStartEnv, "conv-fusion", "XLA_FLAGS", ConvFusionFlag+"=false")
	if flags, _ := envVar(p, "XLA_FLAGS"); p.FastStart != FastStartOff || strings.Count(flags, ConvFusionFlag) != 1 {
		t.Errorf("user's conv fusion flag: FastStart %q, XLA_FLAGS %q", p.FastStart, flags)
	}
	p = plan(FastStartEnv, "sometimes")
	if p.FastStart != FastStartOff || !strings.Contains(strings.Join(p.Notes, "\n"), "not on, kernels, conv-fusion or off") {
		t.Errorf("bad value: FastStart %q, notes %q", p.FastStart, p.Notes)
	}
	if p = plan(); p.FastStart != FastStartOff {
		t.Error("fast start on by default")
	}
	if p = plan("GOMLX_BACKEND", "go", FastStartEnv, "on"); p.FastStart != FastStartOff {
		t.Errorf("pure Go backend in fast start: %q (the Triton kernels need XLA on a CUDA GPU)", p.FastStart)
	}
}
