package notebooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/excerpt"
)

// TestNotebookExcerpts: every excerpt block in a notebook's markdown is the source region it names, so the code a
// reader is shown is the code that runs; each rung's notebook (01–07) shows at least one excerpt and builds its
// rung in a visible cell (ladder.Rung or ladder.Baseline, an edit, nbutil.Run). Runs without Jupyter.
// `go test ./notebooks -run TestNotebookExcerpts -update` rewrites the blocks from the source.
func TestNotebookExcerpts(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range notebookNames {
		path := filepath.Join(root, "notebooks", name+".ipynb")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		synced, n, changed, err := excerpt.SyncNotebook(data, root)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if changed {
			if *update || os.Getenv("TRAINOPT_NOTEBOOK_WRITE") == "1" {
				if err := os.WriteFile(path, synced, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %d excerpt blocks rewritten from the source", name, n)
			} else {
				t.Errorf("%s: an excerpt differs from the source it names: run `go test ./notebooks -run TestNotebookExcerpts -update`", name)
			}
		}
		if name < "01" || name >= "08" {
			continue
		}
		if n == 0 {
			t.Errorf("%s: no excerpt of the package code behind its rung", name)
		}
		nb, err := readNotebook(path)
		if err != nil {
			t.Fatal(err)
		}
		visible := false
		for _, c := range nb.Cells {
			s := multiline(c.Source)
			if c.CellType == "code" && strings.Contains(s, "nbutil.Run(cfg)") &&
				(strings.Contains(s, "ladder.Rung(") || strings.Contains(s, "ladder.Baseline()")) {
				visible = true
			}
		}
		if !visible {
			t.Errorf("%s: no cell builds its rung in visible Go (cfg := ladder.Rung(n-1); cfg.X = …; nbutil.Run(cfg))", name)
		}
	}
}
