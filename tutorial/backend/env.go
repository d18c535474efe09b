package backend

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Env is everything [MakePlan] looks at: environment variables and a file system.
//
// It exists so the decision can be tested without a GPU: every absolute path MakePlan probes is looked up
// under Root, while the paths it reports (plugin path, CUDA data dir, config string) stay the logical ones,
// as they would read on the real machine.
type Env struct {
	// Vars holds the environment variables; nil means none is set.
	Vars map[string]string
	// Root is prepended to every path probed; "" means the real file system.
	Root string
	// NumCPU is reported as the core count of the CPU backends (0: unknown).
	NumCPU int
}

// OSEnv returns the process's real environment, file system and CPU count: what [Discover] plans with.
func OSEnv() Env {
	vars := make(map[string]string)
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	if _, ok := vars["HOME"]; !ok {
		if home, err := os.UserHomeDir(); err == nil {
			vars["HOME"] = home
		}
	}
	return Env{Vars: vars, NumCPU: runtime.NumCPU()}
}

// Lookup returns the variable's value and whether it is set, like os.LookupEnv.
func (e Env) Lookup(name string) (string, bool) {
	v, ok := e.Vars[name]
	return v, ok
}

// Getenv returns the variable's value, "" if unset, like os.Getenv.
func (e Env) Getenv(name string) string { return e.Vars[name] }

// real maps a logical absolute path to the one to probe.
func (e Env) real(p string) string {
	if e.Root == "" {
		return p
	}
	return filepath.Join(e.Root, p)
}

// logical is the inverse of real.
func (e Env) logical(p string) string {
	if e.Root == "" {
		return p
	}
	rel, err := filepath.Rel(e.Root, p)
	if err != nil {
		return p
	}
	return "/" + filepath.ToSlash(rel)
}

// exists reports whether anything (file, dir, device) is at p.
func (e Env) exists(p string) bool {
	_, err := os.Stat(e.real(p))
	return err == nil
}

func (e Env) isFile(p string) bool {
	fi, err := os.Stat(e.real(p))
	return err == nil && fi.Mode().IsRegular()
}

func (e Env) isDir(p string) bool {
	fi, err := os.Stat(e.real(p))
	return err == nil && fi.IsDir()
}

func (e Env) readFile(p string) ([]byte, error) { return os.ReadFile(e.real(p)) }

// glob expands an absolute logical pattern; results are logical paths, sorted.
func (e Env) glob(pattern string) []string {
	full := pattern
	if e.Root != "" {
		full = filepath.Join(globEscape(e.Root), pattern)
	}
	matches, _ := filepath.Glob(full)
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		out = append(out, e.logical(m))
	}
	sort.Strings(out)
	return out
}

// globEscape quotes the glob metacharacters of a literal path prefix.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// home is $HOME, or "" when unknown (then ~ locations are skipped).
func (e Env) home() string { return e.Getenv("HOME") }
