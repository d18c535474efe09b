// Package excerpt copies marked regions of the Go source into documents (notebooks, the README), so that the code
// a tutorial shows is the code that runs, and a test can fail when the two drift apart.
//
// In a Go file a region is the lines between two comments:
//
//	// excerpt: gradscaler
//	...
//	// excerpt end
//
// In a document, a block names the file (relative to the repository root) and the region; [Sync] rewrites
// what lies between the markers as a fenced Go block:
//
//	<!-- excerpt: tutorial/train/scaler.go gradscaler -->
//	```go
//	...
//	```
//	<!-- end excerpt -->
//
// The region's indentation is removed (the least-indented line starts at column 0), tabs stay tabs, and blank
// lines at either end are dropped (gofmt puts one between a marker and a function).
package excerpt

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

const (
	startPrefix = "// excerpt:"
	endLine     = "// excerpt end"
	blockEnd    = "<!-- end excerpt -->"
)

// blockStart matches a document's opening marker: file and region name.
var blockStart = regexp.MustCompile(`<!-- excerpt: (\S+) (\S+) -->`)

// Region returns the lines of region name in the Go file at root/file, without the markers and with the common
// indentation removed.
func Region(root, file, name string) (string, error) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return "", fmt.Errorf("excerpt %s %s: %w", file, name, err)
	}
	defer f.Close()
	var lines []string
	in, found := false, false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(t, startPrefix):
			if in {
				return "", fmt.Errorf("excerpt %s %s: line %d opens a region inside another", file, name, n)
			}
			if strings.TrimSpace(strings.TrimPrefix(t, startPrefix)) == name {
				if found {
					return "", fmt.Errorf("excerpt %s %s: region marked twice (line %d)", file, name, n)
				}
				in, found = true, true
			}
		case t == endLine:
			in = false
		case in:
			lines = append(lines, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("excerpt %s %s: %w", file, name, err)
	}
	switch {
	case !found:
		return "", fmt.Errorf("excerpt %s %s: no region %q (mark it with %q … %q)", file, name, name, startPrefix+" "+name, endLine)
	case in:
		return "", fmt.Errorf("excerpt %s %s: region not closed with %q", file, name, endLine)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" { // gofmt wants a blank line around a marker
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return "", fmt.Errorf("excerpt %s %s: region is empty", file, name)
	}
	return dedent(lines), nil
}

// dedent removes the leading whitespace common to every non-blank line.
func dedent(lines []string) string {
	common := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first || !strings.HasPrefix(ind, common) {
			if first {
				common = ind
			} else {
				for !strings.HasPrefix(ind, common) {
					common = common[:len(common)-1]
				}
			}
			first = false
		}
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, common)
		if strings.TrimSpace(lines[i]) == "" {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// Block is the text Sync puts between a document's markers.
func Block(code string) string { return "```go\n" + code + "\n```" }

// Sync rewrites every excerpt block in doc from the source under root and says how many it found. A block that
// names a missing file or region is an error naming it; doc is returned unchanged then.
func Sync(doc, root string) (string, int, error) {
	var b strings.Builder
	n := 0
	rest := doc
	for {
		loc := blockStart.FindStringSubmatchIndex(rest)
		if loc == nil {
			b.WriteString(rest)
			return b.String(), n, nil
		}
		file, name := rest[loc[2]:loc[3]], rest[loc[4]:loc[5]]
		end := strings.Index(rest[loc[1]:], blockEnd)
		if end < 0 {
			return doc, n, fmt.Errorf("excerpt %s %s: no %q after the block", file, name, blockEnd)
		}
		code, err := Region(root, file, name)
		if err != nil {
			return doc, n, err
		}
		b.WriteString(rest[:loc[1]])
		b.WriteString("\n" + Block(code) + "\n")
		rest = rest[loc[1]+end:]
		n++
	}
}
