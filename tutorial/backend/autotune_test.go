package backend

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAutotuneCache(t *testing.T) {
	root := gpuMachine(t)
	env := Env{Root: root, Vars: map[string]string{"HOME": "/home/u"}}

	// Default: a file under ~/.cache/trainopt named after the plugin; nothing to load yet.
	p := MakePlan(env)
	dir := "/home/u/.cache/trainopt/"
	if !strings.HasPrefix(p.AutotuneCache, dir+"xla-autotune-") || !strings.HasSuffix(p.AutotuneCache, ".pb") || p.AutotuneCacheWarm {
		t.Fatalf("AutotuneCache = %q (warm %v)", p.AutotuneCache, p.AutotuneCacheWarm)
	}
	flags, _ := envVar(p, "XLA_FLAGS")
	if !strings.Contains(flags, DumpAutotuneFlag+"="+p.AutotuneCache) || strings.Contains(flags, LoadAutotuneFlag) ||
		!strings.Contains(flags, CUDADataDirFlag+"="+fakeCu13) {
		t.Errorf("XLA_FLAGS = %q", flags)
	}
	c := newChoice(p, nil, nil)
	if !strings.Contains(c.String(), "autotune cache "+p.AutotuneCache+" (empty") {
		t.Errorf("String() = %q", c.String())
	}

	// An empty file (a killed writer) is not loaded: XLA would fail the compilation.
	real := filepath.Join(root, p.AutotuneCache)
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if p2 := MakePlan(env); p2.AutotuneCacheWarm {
		t.Errorf("an empty cache file is loaded")
	}
	// A file cut short (a writer killed mid-write) is not loaded either, and the plan says why.
	whole, err := os.ReadFile("autotune/testdata/h200_xla_autotune.pb") // a real one, from the H200
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if p2 := MakePlan(env); p2.AutotuneCacheWarm || !strings.Contains(strings.Join(p2.Notes, "\n"), "is damaged") ||
		!strings.Contains(newChoice(p2, nil, nil).String(), "(damaged, not loaded") {
		t.Errorf("a truncated cache: warm %v, notes %q", p2.AutotuneCacheWarm, p2.Notes)
	}
	// A whole file is loaded by the next process, and the line says so.
	if err := os.WriteFile(real, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	p = MakePlan(env)
	flags, _ = envVar(p, "XLA_FLAGS")
	if !p.AutotuneCacheWarm || !strings.Contains(flags, LoadAutotuneFlag+"="+p.AutotuneCache) {
		t.Errorf("warm cache not loaded: %q", flags)
	}
	if c := newChoice(p, nil, nil); !strings.Contains(c.String(), "(loaded)") {
		t.Errorf("String() = %q", c.String())
	}

	// Another plugin (here: the same path, another size) gets another file.
	if err := os.WriteFile(filepath.Join(root, fakePlugin), []byte("a newer plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p2 := MakePlan(env); p2.AutotuneCache == p.AutotuneCache {
		t.Errorf("a changed plugin reuses %s", p.AutotuneCache)
	}

	// XDG_CACHE_HOME, an explicit file, "off", a relative path, and flags the user already gave.
	for _, tc := range []struct {
		vars      map[string]string
		wantFile  string // "" means no cache
		wantFlags string // substring of XLA_FLAGS
	}{
		{map[string]string{"XDG_CACHE_HOME": "/xdg"}, "/xdg/trainopt/", DumpAutotuneFlag + "=/xdg/trainopt/"},
		{map[string]string{AutotuneCacheEnv: "/tmp/at.txt"}, "/tmp/at.txt", DumpAutotuneFlag + "=/tmp/at.txt"},
		{map[string]string{AutotuneCacheEnv: "off"}, "", ""},
		{map[string]string{AutotuneCacheEnv: "rel/at.pb"}, "", ""},
		{map[string]string{"XLA_FLAGS": LoadAutotuneFlag + "=/mine.pb"}, "", LoadAutotuneFlag + "=/mine.pb"},
	} {
		vars := map[string]string{"HOME": "/home/u"}
		for k, v := range tc.vars {
			vars[k] = v
		}
		p := MakePlan(Env{Root: root, Vars: vars})
		flags, ok := envVar(p, "XLA_FLAGS")
		if !ok {
			flags = vars["XLA_FLAGS"]
		}
		switch {
		case tc.wantFile == "" && p.AutotuneCache != "":
			t.Errorf("%v: AutotuneCache = %q, want none", tc.vars, p.AutotuneCache)
		case !strings.HasPrefix(p.AutotuneCache, tc.wantFile):
			t.Errorf("%v: AutotuneCache = %q, want %q…", tc.vars, p.AutotuneCache, tc.wantFile)
		case tc.wantFile == "" && strings.Count(flags, "autotune_results") > 1,
			tc.wantFile == "" && tc.wantFlags == "" && strings.Contains(flags, "autotune_results"):
			t.Errorf("%v: XLA_FLAGS = %q", tc.vars, flags)
		case !strings.Contains(flags, tc.wantFlags):
			t.Errorf("%v: XLA_FLAGS = %q, want …%s…", tc.vars, flags, tc.wantFlags)
		}
	}

	// Discover creates the directory XLA writes into (under the Env's root, as every probe).
	p = planWithCache(env)
	if st, err := os.Stat(filepath.Join(root, filepath.Dir(p.AutotuneCache))); err != nil || !st.IsDir() || p.AutotuneCache == "" {
		t.Errorf("cache directory not created: %v (plan %q)", err, p.AutotuneCache)
	}
	// A cache directory that cannot be made (here ~/.cache is a file) drops the cache, not the run.
	blocked := gpuMachine(t)
	if err := os.MkdirAll(filepath.Join(blocked, "home/u"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocked, "home/u/.cache"), []byte("not a dir"), 0o644); err != nil {
		t.Fatal(err)
	}
	p = planWithCache(Env{Root: blocked, Vars: map[string]string{"HOME": "/home/u"}})
	flags, _ = envVar(p, "XLA_FLAGS")
	if p.AutotuneCache != "" || strings.Contains(flags, "autotune_results") || !strings.Contains(p.Reason, "no autotune cache") ||
		!strings.Contains(flags, CUDADataDirFlag) {
		t.Errorf("unwritable cache: AutotuneCache %q, XLA_FLAGS %q, Reason %q", p.AutotuneCache, flags, p.Reason)
	}
}

// TestKernelCache: XLA's kernel cache is off unless asked for; then it goes beside the autotune file; a whole
// file is reported as loaded, a damaged one is moved aside (XLA gets a fresh file), a user's own flag is kept, and
// "off" turns it off with the autotune cache.
func TestKernelCache(t *testing.T) {
	root := gpuMachine(t)
	env := Env{Root: root, Vars: map[string]string{"HOME": "/home/u"}}
	if p := MakePlan(env); p.KernelCache != "" {
		t.Errorf("kernel cache on by default: %q", p.KernelCache)
	}
	env.Vars[KernelCacheEnv] = "on"
	p := MakePlan(env)
	flags, _ := envVar(p, "XLA_FLAGS")
	if p.KernelCache != strings.TrimSuffix(p.AutotuneCache, ".pb")+".kernels" || p.KernelCacheWarm ||
		!strings.Contains(flags, KernelCacheFlag+"="+p.KernelCache) {
		t.Fatalf("KernelCache = %q (warm %v), XLA_FLAGS = %q", p.KernelCache, p.KernelCacheWarm, flags)
	}
	if s := newChoice(p, nil, nil).String(); !strings.Contains(s, "kernel cache empty") {
		t.Errorf("String() = %q", s)
	}
	real := filepath.Join(root, p.KernelCache)
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile("autotune/testdata/h200_xla_autotune.pb") // any whole protobuf message
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if p2 := MakePlan(env); !p2.KernelCacheWarm || !strings.Contains(newChoice(p2, nil, nil).String(), "kernel cache loaded") {
		t.Errorf("a whole kernel cache: warm %v", p2.KernelCacheWarm)
	}
	if err := os.WriteFile(real, whole[:len(whole)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	p2 := MakePlan(env)
	if _, err := os.Stat(real + ".damaged"); err != nil || p2.KernelCacheWarm || p2.KernelCache == "" {
		t.Errorf("a damaged kernel cache: moved aside? %v; warm %v, file %q", err, p2.KernelCacheWarm, p2.KernelCache)
	}
	if _, err := os.Stat(real); !os.IsNotExist(err) {
		t.Errorf("the damaged file is still where XLA would read it: %v", err)
	}
	env.Vars["XLA_FLAGS"] = KernelCacheFlag + "=/tmp/mine"
	if p3 := MakePlan(env); p3.KernelCache != "" {
		t.Errorf("a user's kernel cache flag: plan adds %q", p3.KernelCache)
	}
	delete(env.Vars, "XLA_FLAGS")
	env.Vars[AutotuneCacheEnv] = "off"
	if p4 := MakePlan(env); p4.KernelCache != "" {
		t.Errorf("%s=off keeps a kernel cache %q", AutotuneCacheEnv, p4.KernelCache)
	}
}
