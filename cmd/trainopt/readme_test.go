package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
