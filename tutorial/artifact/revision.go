package artifact

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Revision is the VCS revision of the code that runs, with "-modified" when its work tree had changes, or
// "unknown" when nothing says which.
//
// The Go toolchain stamps it into a binary it builds in a git work tree (vcs.revision and vcs.modified in
// runtime/debug's build info), and Revision reads that first. But CI and the tutorial's machines set
// GOFLAGS=-buildvcs=false, and the binaries of `go test` and `go run` are never stamped; every JSON artifact they
// wrote said "unknown". So where the build info has no revision, Revision asks git at run time — `git rev-parse
// HEAD`, and `git status --porcelain` for "-modified", as the toolchain itself does — in this module's root: the
// nearest folder above the executable's with this module's go.mod (a binary built in the checkout), else the
// nearest above the working directory (`go test` runs in the package's folder, `go run` where it is called). git
// gets [gitTimeout]; where it is not installed, times out or finds no repository there, the revision is
// "unknown". It is worked out once per process.
func Revision() string { return revision() }

var revision = sync.OnceValue(func() string {
	if rev, ok := buildRevision(); ok {
		return rev
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	return revisionFrom(dirs...)
})

// buildRevision is the revision stamped into the binary, if it was.
func buildRevision() (string, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	rev, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "", false
	}
	if modified {
		rev += "-modified"
	}
	return rev, true
}

// gitTimeout bounds the two git commands together: a revision is a caption, not worth holding a run up for.
const gitTimeout = 5 * time.Second

// thisPackage is this package's import path (…/trainopt/tutorial/artifact): a go.mod is this module's where its
// module path is a prefix of it, so that the go.mod of a project the program merely runs in is not taken for it.
var thisPackage = reflect.TypeFor[Conditions]().PkgPath()

// revisionFrom is the git revision of this module's root above the first of dirs that has one (see
// [Revision]), or "unknown".
func revisionFrom(dirs ...string) string {
	for _, d := range dirs {
		if root := ModuleRoot(d); root != "" {
			if rev, ok := gitRevision(root); ok {
				return rev
			}
			return "unknown" // the first root found is the code's; another one's revision would be a wrong caption
		}
	}
	return "unknown"
}

// ModuleRoot is the nearest folder at or above dir whose go.mod declares this package's module, or "": the
// repository's root, for the revision here and for the notebooks, which look for it from their own folder.
func ModuleRoot(dir string) string {
	for d := filepath.Clean(dir); ; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			if m := modulePath(data); m != "" && (thisPackage == m || strings.HasPrefix(thisPackage, m+"/")) {
				return d
			}
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// modulePath is the path in a go.mod's module line, or "".
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`")
		}
	}
	return ""
}

// gitRevision asks git for the revision checked out at root and whether the work tree differs from it; ok is
// false where git is missing, fails or runs out of time. A `git status` that fails after rev-parse answered
// counts as modified: the revision is then not known to be the code that ran.
func gitRevision(root string) (rev string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = root
		// A status for a caption must not take the index lock that a git command running beside it needs.
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		cmd.WaitDelay = time.Second
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	rev, err := git("rev-parse", "HEAD")
	if err != nil || !isHex(rev) {
		return "", false
	}
	if status, err := git("status", "--porcelain"); err != nil || status != "" {
		rev += "-modified"
	}
	return rev, true
}

// isHex reports whether s looks like a commit id (SHA-1 or SHA-256, lower-case hex).
func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
