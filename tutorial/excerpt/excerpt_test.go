package excerpt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const source = `package p

func f() int {
	// excerpt: body
	x := 1
	if x > 0 {
		x++
	}

	return x
	// excerpt end
}

// excerpt: open

func g() {}
`

func writeSource(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestRegion(t *testing.T) {
	root := writeSource(t, map[string]string{
		"p/f.go":      source,
		"p/twice.go":  "// excerpt: a\nx\n// excerpt end\n// excerpt: a\ny\n// excerpt end\n",
		"p/nested.go": "// excerpt: a\n// excerpt: b\n// excerpt end\n",
		"p/empty.go":  "// excerpt: a\n// excerpt end\n",
	})
	got, err := Region(root, "p/f.go", "body")
	want := "x := 1\nif x > 0 {\n\tx++\n}\n\nreturn x"
	if err != nil || got != want {
		t.Fatalf("Region = %q, %v; want %q", got, err, want)
	}
	for name, c := range map[string]struct{ file, region, want string }{
		"missing file":   {"p/none.go", "body", "no such file"},
		"missing region": {"p/f.go", "other", `no region "other"`},
		"not closed":     {"p/f.go", "open", "not closed"},
		"marked twice":   {"p/twice.go", "a", "marked twice"},
		"nested":         {"p/nested.go", "a", "inside another"},
		"empty":          {"p/empty.go", "a", "empty"},
	} {
		if _, err := Region(root, c.file, c.region); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

func TestSync(t *testing.T) {
	root := writeSource(t, map[string]string{"p/f.go": source})
	doc := "Intro.\n<!-- excerpt: p/f.go body -->\n```go\nstale\n```\n<!-- end excerpt -->\nOutro.\n"
	out, n, err := Sync(doc, root)
	if err != nil || n != 1 {
		t.Fatalf("Sync: %d blocks, %v", n, err)
	}
	want := "Intro.\n<!-- excerpt: p/f.go body -->\n```go\nx := 1\nif x > 0 {\n\tx++\n}\n\nreturn x\n```\n<!-- end excerpt -->\nOutro.\n"
	if out != want {
		t.Fatalf("Sync =\n%s\nwant\n%s", out, want)
	}
	if again, _, _ := Sync(out, root); again != out {
		t.Error("Sync of a current document changed it")
	}
	for name, c := range map[string]struct{ doc, want string }{
		"no end":         {"<!-- excerpt: p/f.go body -->\n```go\n```\n", "no \"<!-- end excerpt -->\""},
		"missing region": {"<!-- excerpt: p/f.go gone -->\n<!-- end excerpt -->", `no region "gone"`},
	} {
		got, _, err := Sync(c.doc, root)
		if err == nil || !strings.Contains(err.Error(), c.want) || got != c.doc {
			t.Errorf("%s: err = %v, want %q and the document unchanged", name, err, c.want)
		}
	}
}

func TestSyncNotebook(t *testing.T) {
	root := writeSource(t, map[string]string{"p/f.go": source})
	stale := map[string]any{
		"cells": []any{
			map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": []any{
				"The step's body:\n", "<!-- excerpt: p/f.go body -->\n", "old\n", "<!-- end excerpt -->"}},
			map[string]any{"cell_type": "code", "metadata": map[string]any{}, "source": []any{"<!-- excerpt: p/f.go gone -->"},
				"outputs": []any{}, "execution_count": nil},
		},
		"metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5,
	}
	data, _ := json.MarshalIndent(stale, "", " ")
	out, n, changed, err := SyncNotebook(data, root)
	if err != nil || n != 1 || !changed {
		t.Fatalf("SyncNotebook: %d blocks, changed %v, %v (code cells are not synced)", n, changed, err)
	}
	var nb struct {
		Cells []struct {
			Source []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(out, &nb); err != nil {
		t.Fatal(err)
	}
	src := strings.Join(nb.Cells[0].Source, "")
	if !strings.Contains(src, "```go\nx := 1\n") || strings.Contains(src, "old") {
		t.Errorf("synced cell:\n%s", src)
	}
	for _, line := range nb.Cells[0].Source[:len(nb.Cells[0].Source)-1] {
		if !strings.HasSuffix(line, "\n") {
			t.Errorf("source line %q does not end in a newline", line)
		}
	}
	again, _, changed, err := SyncNotebook(out, root)
	if err != nil || changed || string(again) != string(out) {
		t.Errorf("a current notebook changed (changed %v, %v)", changed, err)
	}
	if _, _, _, err := SyncNotebook([]byte("{not json"), root); err == nil || !strings.Contains(err.Error(), "not a notebook") {
		t.Errorf("bad JSON: %v", err)
	}
}
