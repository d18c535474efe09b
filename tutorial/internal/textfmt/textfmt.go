// Package textfmt holds the two small formatters that the profile report (tutorial/profile) and the
// autotune-cache summary (tutorial/backend/autotune) write their Markdown with, so that both say a size and
// escape a table cell the same way and neither imports the other.
package textfmt

import (
	"fmt"
	"strings"
)

// Bytes is a byte count in words: "n/a" when negative (unknown), "512 B", "3.1 KiB", "12.5 MiB", "1.50 GiB".
func Bytes(b int64) string {
	switch {
	case b < 0:
		return "n/a"
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// MdEsc escapes s for a Markdown table cell (a "|" would end the cell).
func MdEsc(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
