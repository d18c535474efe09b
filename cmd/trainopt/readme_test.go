package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
)

// TestReadmeResultsAreTheFiles: the README's results tables are generated from the results files they name; this
// fails when someone edits a number by hand or a file changes without `trainopt results -readme README.md`.
func TestReadmeResultsAreTheFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	synced, n, err := ladder.SyncResultBlocks(string(doc), root)
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Fatalf("README.md has %d results blocks, want the whole ladder (steps 1–14) and the PyTorch and JAX comparison", n)
	}
	if synced != string(doc) {
		t.Fatalf("README.md's results blocks differ from the files they name: run `trainopt results -readme README.md`")
	}
	if !strings.Contains(string(doc), "| PyTorch step 11 |") || !strings.Contains(string(doc), "| JAX |") {
		t.Error("README.md's results blocks lack the comparison rows with PyTorch's strongest step (11) and JAX")
	}
}

// TestResultsReadmeErrors: the command's error paths on real bad input.
func TestResultsReadmeErrors(t *testing.T) {
	dir := t.TempDir()
	noBlocks := filepath.Join(dir, "plain.md")
	missing := filepath.Join(dir, "missing.md")
	if err := os.WriteFile(noBlocks, []byte("# nothing generated here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(missing, []byte("<!-- results: nope.json -->\n<!-- end results -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		args []string
		want string
		code int
	}{
		"no blocks":    {[]string{"-readme", noBlocks}, "no results blocks", exitData},
		"missing file": {[]string{"-readme", missing}, "nope.json", exitData},
		"no document":  {[]string{"-readme", filepath.Join(dir, "absent.md")}, "absent.md", exitData},
		"no arguments": {nil, "-readme DOC", exitUsage},
	} {
		err := cmdResults(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) || report(err) != c.code {
			t.Errorf("%s: got %v (exit %d), want an error containing %q and exit %d", name, err, report(err), c.want, c.code)
		}
	}
}

// TestResultsCombine: the results of one call's processes become one new file (with its table), and the command
// refuses to replace a file or to combine files of other conditions.
func TestResultsCombine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, gpu string, r ladder.Result) string {
		f := &ladder.File{Conditions: artifact.Conditions{Date: "2026-12-04", GPU: gpu, ImageSize: 224}, Results: []ladder.Result{r}}
		p := filepath.Join(dir, name)
		if _, err := f.WriteAs(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.json", "NVIDIA H200", ladder.Result{ID: "12@512", Batch: 512, SamplesPerSec: 14000, StepMedianMs: 36})
	b := write("b.json", "NVIDIA H200", ladder.Result{ID: "12", Batch: 128, SamplesPerSec: 10600, StepMedianMs: 12})
	h100 := write("c.json", "NVIDIA H100", ladder.Result{ID: "1", Batch: 32, SamplesPerSec: 900, StepMedianMs: 35})
	out := filepath.Join(dir, "both.json")
	if err := cmdResults([]string{"-combine", out, a, b}); err != nil {
		t.Fatal(err)
	}
	f, err := ladder.Read(out)
	if err != nil || len(f.Results) != 2 || f.Results[1].ID != "12@128" || f.Results[1].Process != "b" {
		t.Fatalf("combined file: %+v, %v", f, err)
	}
	if md, err := os.ReadFile(filepath.Join(dir, "both.md")); err != nil || !strings.Contains(string(md), "| 12@128 |") {
		t.Errorf("combined table: %v\n%s", err, md)
	}
	if err := cmdResults([]string{"-combine", out, a, b}); err == nil || report(err) != exitUsage {
		t.Errorf("combining over an existing file: got %v (exit %d), want exit %d", err, report(err), exitUsage)
	}
	if err := cmdResults([]string{"-combine", filepath.Join(dir, "x.json"), a, h100}); err == nil ||
		!strings.Contains(err.Error(), "other conditions") || report(err) != exitData {
		t.Errorf("other conditions: got %v (exit %d)", err, report(err))
	}
}
