package artifact

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"
)

// RunTimeLayout is the time in a run's file or folder name: UTC, to the second, sortable as text.
const RunTimeLayout = "2006-01-02T150405Z"

// RunName is the one naming rule of what a run writes: "<prefix>-<UTC date and time>-<id><suffix>", e.g.
// "h200-2026-12-03T101502Z-3fa9c1" for a results file or "h200-2026-12-03T101502Z-3fa9c1-step12" for a profile.
// The time orders a folder's runs; the random id keeps two runs started in the same second apart.
//
// A suffix that would make the name longer than [MaxRunName] (a profile's suffix spells its whole formulation, and
// filesystems refuse names over 255 bytes) is cut and ends in 8 hex digits of its SHA-256 instead, so two long
// formulations still name two different runs; the full formulation is in the run's own files.
func RunName(prefix string, at time.Time, id, suffix string) string {
	head := prefix + "-" + at.UTC().Format(RunTimeLayout) + "-" + id
	if len(head)+len(suffix) > MaxRunName {
		sum := sha256.Sum256([]byte(suffix))
		tail := "~" + hex.EncodeToString(sum[:4])
		keep := max(0, MaxRunName-len(head)-len(tail))
		for keep > 0 && !utf8.RuneStart(suffix[keep]) { // never cut a character in two
			keep--
		}
		suffix = suffix[:keep] + tail
	}
	return head + suffix
}

// MaxRunName is the longest name [RunName] returns, in bytes: well under the 255 most filesystems allow, so the
// name also fits beside a ".tmp" or ".json.gz".
const MaxRunName = 160

// NewRunID is a short random id for [RunName].
func NewRunID() (string, error) {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// CreateRun reserves a new name in parent with create, which must fail with fs.ErrExist when the name is taken
// (os.Mkdir, or os.OpenFile with O_EXCL): so no run ever replaces what another run wrote, even one started in the
// same second. It returns the name.
func CreateRun(parent, prefix, suffix string, create func(path string) error) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	for range 10 {
		id, err := NewRunID()
		if err != nil {
			return "", err
		}
		name := RunName(prefix, time.Now(), id, suffix)
		err = create(filepath.Join(parent, name))
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("no free name for %s…%s in %s after 10 tries", prefix, suffix, parent)
}

// CreateRunDir is [CreateRun] for a folder: it returns the new folder's path.
func CreateRunDir(parent, prefix, suffix string) (string, error) {
	name, err := CreateRun(parent, prefix, suffix, func(p string) error { return os.Mkdir(p, 0o755) })
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, name), nil
}
