package artifact

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRevisionFromGit: the run-time fallback of Revision (for binaries built with -buildvcs=false, and those of
// go test and go run) finds the module's root above a folder, and reads the commit there, "-modified" once the
// work tree changes; without a repository, or without this module's go.mod, it is "unknown".
func TestRevisionFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	// The test's git commands and the fallback's must see only the temporary folders: no repository of a hook
	// that runs the tests, and none above the temporary folder.
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	tmp := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", tmp)
	gomod := "module " + strings.TrimSuffix(thisPackage, "/tutorial/artifact") + "\n\ngo 1.27\n"

	repo := filepath.Join(tmp, "repo")
	sub := filepath.Join(repo, "tutorial", "artifact")
	mustWrite(t, filepath.Join(repo, "go.mod"), gomod)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@local",
			"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "go.mod")
	git("commit", "-q", "-m", "first")
	head := git("rev-parse", "HEAD")
	if got := revisionFrom(sub); got != head {
		t.Errorf("clean work tree: revision %q, want %q", got, head)
	}
	mustWrite(t, filepath.Join(sub, "new.go"), "package artifact\n")
	if got := revisionFrom(sub); got != head+"-modified" {
		t.Errorf("changed work tree: revision %q, want %q", got, head+"-modified")
	}

	noGit := filepath.Join(tmp, "nogit")
	mustWrite(t, filepath.Join(noGit, "go.mod"), gomod)
	if got := revisionFrom(noGit); got != "unknown" {
		t.Errorf("module without a repository: revision %q, want unknown", got)
	}
	// A folder inside the repository but under another module's go.mod, and one under no go.mod at all, are not
	// this module's root: the search goes on up (to repo) or finds nothing.
	other := filepath.Join(repo, "other")
	mustWrite(t, filepath.Join(other, "go.mod"), "module example.com/other\n")
	if got := revisionFrom(other); got != head+"-modified" {
		t.Errorf("under another module's go.mod: revision %q, want the repository's %q", got, head+"-modified")
	}
	if got := revisionFrom(filepath.Join(tmp, "nothing"), noGit); got != "unknown" {
		t.Errorf("no go.mod above the first folder, the second's not a repository: revision %q, want unknown", got)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRevisionHere: this test binary carries no vcs stamp (go test never writes one), so Revision is the
// fallback's answer in the checkout the test runs in — a commit wherever the tests run inside a git work tree.
func TestRevisionHere(t *testing.T) {
	rev := Revision()
	if _, stamped := buildRevision(); stamped {
		t.Skipf("the binary is stamped: %s", rev)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if want := revisionFrom(wd); rev != want {
		t.Errorf("Revision() = %q, the fallback from the working directory %q", rev, want)
	}
	t.Logf("revision %s", rev)
}
