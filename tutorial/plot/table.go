package plot

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Table renders a Markdown (GitHub-flavoured) table. Columns are padded to a
// common width so the table also reads well as plain text, and columns whose
// cells are all numbers (optionally ending in %, × or x) are right-aligned so
// that digits line up. Short rows are padded with empty cells; "|" in a cell
// is escaped and newlines become <br>.
func Table(headers []string, rows [][]string) string {
	cols, cells := normalize(headers, rows)
	if cols == 0 {
		return ""
	}
	for r := range cells {
		for c, s := range cells[r] {
			s = strings.ReplaceAll(s, "|", `\|`)
			s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "<br>")
			cells[r][c] = s
		}
	}
	right := numericColumns(cols, cells[1:])
	width := make([]int, cols)
	for _, row := range cells {
		for c, s := range row {
			width[c] = max(width[c], utf8.RuneCountInString(s), 3)
		}
	}
	var b strings.Builder
	line := func(row []string) {
		b.WriteString("|")
		for c, s := range row {
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(s))
			if right[c] {
				b.WriteString(" " + pad + s + " |")
			} else {
				b.WriteString(" " + s + pad + " |")
			}
		}
		b.WriteString("\n")
	}
	line(cells[0])
	b.WriteString("|")
	for c := range cols {
		if right[c] {
			b.WriteString(" " + strings.Repeat("-", width[c]-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", width[c]) + " |")
		}
	}
	b.WriteString("\n")
	for _, row := range cells[1:] {
		line(row)
	}
	return b.String()
}

// HTMLTable renders a small self-contained HTML table for notebooks. All
// styling is inline — a <style> block in a notebook output would leak into the
// whole page — and every header, cell and the caption is HTML-escaped, so
// labels such as "<bf16>" show as text. An empty caption is omitted.
func HTMLTable(headers []string, rows [][]string, caption string) string {
	cols, cells := normalize(headers, rows)
	if cols == 0 {
		return ""
	}
	right := numericColumns(cols, cells[1:])
	const (
		tableStyle = "border-collapse:collapse;font-family:'Liberation Sans',Arial,Helvetica,sans-serif;font-size:13px;margin:4px 0"
		capStyle   = "caption-side:bottom;text-align:left;font-size:11px;color:#555;padding-top:4px"
		cellStyle  = "padding:3px 10px;border-bottom:1px solid #ddd"
		headStyle  = "padding:4px 10px;border-bottom:2px solid #333;font-weight:bold"
	)
	align := func(c int) string {
		if right[c] {
			return ";text-align:right;font-variant-numeric:tabular-nums"
		}
		return ";text-align:left"
	}
	var b strings.Builder
	b.WriteString(`<table style="` + tableStyle + `">` + "\n")
	if caption != "" {
		b.WriteString(`<caption style="` + capStyle + `">` + html.EscapeString(caption) + "</caption>\n")
	}
	b.WriteString("<thead><tr>")
	for c, h := range cells[0] {
		b.WriteString(`<th style="` + headStyle + align(c) + `">` + html.EscapeString(h) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for r, row := range cells[1:] {
		bg := ""
		if r%2 == 1 {
			bg = ` style="background:#f6f6f6"`
		}
		b.WriteString("<tr" + bg + ">")
		for c, s := range row {
			b.WriteString(`<td style="` + cellStyle + align(c) + `">` + html.EscapeString(s) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	return b.String()
}

// normalize copies headers and rows into one rectangular grid (headers first),
// padding short rows, so that a ragged row never breaks the table layout.
func normalize(headers []string, rows [][]string) (int, [][]string) {
	cols := len(headers)
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return 0, nil
	}
	cells := make([][]string, 0, len(rows)+1)
	for _, r := range append([][]string{headers}, rows...) {
		row := make([]string, cols)
		copy(row, r)
		cells = append(cells, row)
	}
	return cols, cells
}

// numericColumns reports, per column, whether every non-empty body cell is a
// number, allowing a trailing %, × or x (speed-ups, utilisation).
func numericColumns(cols int, body [][]string) []bool {
	right := make([]bool, cols)
	for c := range cols {
		seen := false
		right[c] = true
		for _, row := range body {
			s := strings.TrimSpace(row[c])
			if s == "" {
				continue
			}
			seen = true
			s = strings.TrimRight(s, "%×x")
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				right[c] = false
				break
			}
		}
		right[c] = right[c] && seen
	}
	return right
}

// FormatBytes is a byte count in words: "0 B", "512 B", "3.1 KiB", "12.25 MiB", "1.50 GiB".
func FormatBytes(b int64) string {
	switch {
	case b <= 0:
		return "0 B"
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
