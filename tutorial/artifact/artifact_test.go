package artifact

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{"CPU (2 cores)": "cpu-2-cores", "13@512+dw-input-grad=phases": "13-512-dw-input-grad-phases",
		"smoke-CPU (2 cores)-2026-12-03": "smoke-cpu-2-cores-2026-12-03", "run_1.5": "run_1.5"} {
		if got := SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := DeviceName("NVIDIA H200"); got != "h200" {
		t.Errorf("DeviceName = %q", got)
	}
}

func TestWriteIsAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.json")
	if err := WriteJSON(path, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, func(io.Writer) error { return os.ErrInvalid }); err == nil {
		t.Error("a failed fill: no error")
	}
	var back map[string]int
	if err := ReadJSON(path, &back); err != nil || back["a"] != 1 {
		t.Errorf("after a failed write the old file should stay: %v %v", back, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
}

// TestConditionsReadOldProfiles: profile reports written before the one Conditions type keep reading.
func TestConditionsReadOldProfiles(t *testing.T) {
	old := `{"gpu": "NVIDIA H200", "date": "2026-12-02T12:13:25Z", "go_version": "go1.27.3", "versions":
		{"github.com/gomlx/gomlx": "v0.28.16", "github.com/gomlx/go-xla": "v0.4.13"}, "backend": "xla:/x.so",
		"plugin": {"path": "/x.so", "pjrt_api_major": 0, "pjrt_api_minor": 115}, "batch": 32, "precision": "f32",
		"data": "synthetic", "steps": 10}`
	var c Conditions
	if err := json.Unmarshal([]byte(old), &c); err != nil {
		t.Fatal(err)
	}
	want := Conditions{GPU: "NVIDIA H200", Date: "2026-12-02", Time: "2026-12-02T12:13:25Z", Backend: "xla:/x.so",
		Versions: "go1.27.3, go-xla v0.4.13, gomlx v0.28.16", Plugin: "/x.so", PJRTAPI: "0.115", Batch: 32,
		Precision: "f32", Data: "synthetic", Steps: 10}
	if c != want {
		t.Errorf("read\n%+v\nwant\n%+v", c, want)
	}
	now := Now()
	data, _ := json.Marshal(now)
	var back Conditions
	if err := json.Unmarshal(data, &back); err != nil || back != now || now.Revision == "" {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "chart.svg")
	for _, content := range []string{"first", "second"} { // also overwrites
		if err := WriteFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("file holds %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 || entries[0].Name() != "chart.svg" {
		t.Errorf("directory holds %v, want only chart.svg", entries)
	}
	if err := WriteFile(filepath.Join(path, "under-a-file.svg"), []byte("x")); err == nil {
		t.Error("WriteFile under a regular file: no error")
	}
}

// TestCreateRunDir: two runs started in the same second get two folders, named by the one rule, and a taken
// name is never reused.
func TestCreateRunDir(t *testing.T) {
	parent := t.TempDir()
	a, err := CreateRunDir(parent, "h200", "-step12")
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateRunDir(parent, "h200", "-step12")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^h200-\d{4}-\d\d-\d\dT\d{6}Z-[0-9a-f]{6}-step12$`)
	if a == b || !re.MatchString(filepath.Base(a)) || !re.MatchString(filepath.Base(b)) {
		t.Errorf("run folders %s and %s", a, b)
	}
	taken := 0
	name, err := CreateRun(parent, "x", ".json", func(p string) error {
		if taken < 3 {
			taken++
			return fs.ErrExist
		}
		return nil
	})
	if err != nil || taken != 3 || !strings.HasSuffix(name, ".json") {
		t.Errorf("CreateRun after 3 taken names: %q, %v (taken %d)", name, err, taken)
	}
	if _, err := CreateRun(parent, "x", "", func(string) error { return fs.ErrExist }); err == nil {
		t.Error("CreateRun with every name taken: no error")
	}
}

// TestCreateRunDirLongFormulation: run63's profile of a formulation with eleven options failed with "file name too
// long" (its folder name was 262 bytes). The same suffix now makes a folder, and two long suffixes that differ only
// past the cut still name two different runs.
func TestCreateRunDirLongFormulation(t *testing.T) {
	parent := t.TempDir()
	long := "-step12-128-reduction-row-256-stem-space-to-depth-dw-forward-triton-stats-dw-input-grad-triton-" +
		"dw-kernel-grad-triton-dw-prologue-bn-relu6-backward-dw-tiling-rows-dw-row-carry-sums-dw-row-unroll-2-"
	a, err := CreateRunDir(parent, "h100-80gb-hbm3", long+"dw-kernel-grad-in-dx")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 7, 12, 40, 42, 0, time.UTC)
	x := RunName("h100-80gb-hbm3", at, "5f04d8", long+"dw-kernel-grad-in-dx")
	y := RunName("h100-80gb-hbm3", at, "5f04d8", long+"dw-row-tiles-per-layer")
	if len(filepath.Base(a)) > MaxRunName || len(x) > MaxRunName || x == y {
		t.Errorf("long names: %d bytes (%s), %q vs %q", len(filepath.Base(a)), a, x, y)
	}
	if !strings.HasPrefix(x, "h100-80gb-hbm3-2026-12-07T124042Z-5f04d8-step12-128-reduction-row-256") {
		t.Errorf("a cut name keeps the rule's head and the suffix's start: %q", x)
	}
	if short := RunName("h200", at, "3fa9c1", "-step12"); short != "h200-2026-12-07T124042Z-3fa9c1-step12" {
		t.Errorf("a short name changed: %q", short)
	}
	if cut := RunName("p", at, "id", strings.Repeat("é", 100)); !utf8.ValidString(cut) {
		t.Errorf("cut inside a character: %q", cut)
	}
}
