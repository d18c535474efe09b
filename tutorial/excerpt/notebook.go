package excerpt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// SyncNotebook applies [Sync] to every markdown cell of a Jupyter notebook (.ipynb JSON) and returns the notebook
// re-encoded as nbformat writes it (keys sorted, one-space indent, no HTML escaping), the number of blocks and
// whether any cell changed. A notebook whose blocks are current comes back byte for byte.
func SyncNotebook(data []byte, root string) ([]byte, int, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers come back as written
	var nb map[string]any
	if err := dec.Decode(&nb); err != nil {
		return nil, 0, false, fmt.Errorf("not a notebook: %w", err)
	}
	cells, ok := nb["cells"].([]any)
	if !ok {
		return nil, 0, false, fmt.Errorf("not a notebook: no cells")
	}
	total, changed := 0, false
	for i, c := range cells {
		cell, ok := c.(map[string]any)
		if !ok || cell["cell_type"] != "markdown" {
			continue
		}
		src := joinSource(cell["source"])
		out, n, err := Sync(src, root)
		if err != nil {
			return nil, total, false, fmt.Errorf("cell %d: %w", i, err)
		}
		total += n
		if out != src {
			cell["source"] = splitSource(out)
			changed = true
		}
	}
	if !changed {
		return data, total, false, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return nil, total, false, err
	}
	return b.Bytes(), total, true, nil
}

// joinSource reads a cell's source: a string or a list of lines.
func joinSource(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, p := range s {
			if t, ok := p.(string); ok {
				b.WriteString(t)
			}
		}
		return b.String()
	}
	return ""
}

// splitSource writes a cell's source as nbformat does: lines, each but the last ending in "\n".
func splitSource(s string) []any {
	var out []any
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
