//go:build cgo && linux

package backend

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildFakeCompilePlugin compiles testdata/fakeplugin/fake_compile_plugin.c against pjrtc/pjrt_c_api.h.
func buildFakeCompilePlugin(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the fake PJRT plugin")
	}
	out := filepath.Join(t.TempDir(), "fake_xla_cuda_plugin.so")
	cmd := exec.Command(gcc, "-shared", "-fPIC", "-O1", "-Ipjrtc", "-o", out, "testdata/fakeplugin/fake_compile_plugin.c")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fake plugin: %v\n%s", err, msg)
	}
	return out
}

// The hook in the plugin's table, end to end: a miss compiles and stores, the same program again loads without
// compiling, other options compile, a damaged file is compiled again and replaced, a compile error passes
// through, and uninstalling restores the plugin's own compile.
func TestExecutableCacheThroughPlugin(t *testing.T) {
	plugin := buildFakeCompilePlugin(t)
	if err := InstallExecutableCache(plugin, newTestCache(t, "x")); err == nil ||
		!strings.Contains(err.Error(), "not loaded") {
		t.Fatalf("install before the plugin is loaded: %v", err)
	}
	if err := probeLoad(plugin); err != nil {
		t.Fatal(err)
	}
	cache := newTestCache(t, ExecutableCacheSalt(OSEnv(), plugin, "fake"))
	if err := InstallExecutableCache(plugin, cache); err != nil {
		t.Fatal(err)
	}
	defer uninstallExecutableCache()

	compiles := func() int { return probeCounter("fake_compiles") }
	compile := func(program string, opts string) {
		t.Helper()
		name, err := probeCompile("mlir", program, []byte(opts))
		if err != nil || name != program {
			t.Fatalf("compile %q: name %q, err %v", program, name, err)
		}
	}
	compile("step-128", "o1")
	if compiles() != 1 || cache.Entries() != 1 {
		t.Fatalf("first compile: %d compiles, %d entries", compiles(), cache.Entries())
	}
	compile("step-128", "o1")
	if s := cache.Stats(); compiles() != 1 || s.Hits != 1 || s.Misses != 1 || s.Stores != 1 {
		t.Fatalf("same program: %d compiles, stats %+v", compiles(), s)
	}
	compile("step-128", "o2")
	if compiles() != 2 || cache.Entries() != 2 {
		t.Fatalf("other options: %d compiles, %d entries", compiles(), cache.Entries())
	}

	// A file PJRT refuses (right header and checksum, payload not this plugin's) is compiled again.
	key := cache.Key("mlir", []byte("step-128"), []byte("o1"))
	if err := cache.Store(key, []byte("garbage from another plugin")); err != nil {
		t.Fatal(err)
	}
	compile("step-128", "o1")
	if s := cache.Stats(); compiles() != 3 || s.Rejected != 1 || !strings.Contains(s.LastError, "not a serialized executable") {
		t.Fatalf("refused payload: %d compiles, stats %+v", compiles(), s)
	}
	if data, ok := cache.Load(key); !ok || !strings.HasPrefix(string(data), "FAKE-EXE:") {
		t.Fatalf("the refused entry was not replaced: %q %v", data, ok)
	}
	// A damaged file is a miss too.
	if err := os.WriteFile(cache.path(key), []byte("trainopt-pjrt-executable\nshort"), 0o644); err != nil {
		t.Fatal(err)
	}
	compile("step-128", "o1")
	if compiles() != 4 {
		t.Fatalf("damaged file: %d compiles", compiles())
	}

	// The plugin's own errors come through unchanged, and nothing is stored for them.
	if _, err := probeCompile("mlir", "fail-me", nil); err == nil || !strings.Contains(err.Error(), "bad program") {
		t.Fatalf("compile error: %v", err)
	}
	if cache.Entries() != 2 {
		t.Errorf("entries after a failed compile: %d", cache.Entries())
	}

	// Installing again is allowed (replaces the cache); uninstalling restores the plugin's compile.
	if err := InstallExecutableCache(plugin, cache); err != nil {
		t.Fatal(err)
	}
	uninstallExecutableCache()
	compile("step-128", "o1")
	if compiles() != 5 {
		t.Fatalf("after uninstall: %d compiles, want 5", compiles())
	}
}
