package plot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/janpfeifer/gonb/gonbui"
)

// Display shows an SVG inline when the program runs inside a GoNB notebook
// cell, and does nothing otherwise, so the same code serves notebooks, tests
// and command-line tools.
func Display(svg []byte) {
	if !gonbui.IsNotebook || len(svg) == 0 {
		return
	}
	gonbui.DisplaySvg(string(stripProlog(svg)))
	gonbui.Sync() // a cell's program may exit right after; make sure GoNB has read the output
}

// DisplayHTML shows HTML (e.g. from HTMLTable) inline when running inside
// GoNB, and does nothing otherwise.
func DisplayHTML(html string) {
	if !gonbui.IsNotebook || html == "" {
		return
	}
	gonbui.DisplayHTML(html)
	gonbui.Sync()
}

// stripProlog drops the XML declaration and comments before <svg: GoNB
// embeds the SVG inside an HTML <div>, where a declaration is not allowed.
func stripProlog(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		return svg[i:]
	}
	return svg
}

// WriteFile writes svg (or any bytes) to path atomically: it writes a
// temporary file in the same directory and renames it over path, so a reader
// (a README preview, a notebook) never sees a half-written picture, and a
// failed write leaves the old file intact. Missing directories are created.
func WriteFile(path string, svg []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("plot: WriteFile: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("plot: WriteFile: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(svg); err != nil {
		f.Close()
		return fmt.Errorf("plot: WriteFile %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("plot: WriteFile %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; assets are meant to be shared.
	if err = os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("plot: WriteFile %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("plot: WriteFile %s: %w", path, err)
	}
	return nil
}
