package ladder

import (
	"fmt"
	"path/filepath"
	"regexp"
)

// A document such as the README can carry a results file's tables as a generated block, so the numbers it shows
// are the file's and cannot drift from it:
//
//	<!-- results: assets/results/h200-2026-12-03-run14.json -->
//	(generated: a caption line with the conditions, then File.Tables)
//	<!-- end results -->
//
// SyncResultBlocks regenerates every block; `trainopt results -readme README.md` writes the result back, and a
// test fails while the committed README differs from what its files generate.

var resultBlock = regexp.MustCompile(`(?s)<!-- results: (\S+) -->\n(.*?)<!-- end results -->`)

// SyncResultBlocks returns doc with every results block regenerated from the file it names (a path relative to
// root), and how many blocks it found. A block whose file cannot be read is an error that names it.
func SyncResultBlocks(doc, root string) (string, int, error) {
	var firstErr error
	n := 0
	out := resultBlock.ReplaceAllStringFunc(doc, func(block string) string {
		path := resultBlock.FindStringSubmatch(block)[1]
		n++
		f, err := Read(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("results block for %s: %w", path, err)
			}
			return block
		}
		return fmt.Sprintf("<!-- results: %s -->\n%s<!-- end results -->", path, f.ReadmeBlock(path))
	})
	return out, n, firstErr
}

// ReadmeBlock is what a results block holds: one caption line (where the numbers come from and under which
// conditions) and the tables.
func (f *File) ReadmeBlock(path string) string {
	c := f.Conditions
	return fmt.Sprintf("*`%s`: %s; warm-up %d + %d timed steps per step.*\n\n%s", path, c.Caption(), c.Warmup,
		c.TimedSteps, f.Tables())
}
