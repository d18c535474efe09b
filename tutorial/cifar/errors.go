package cifar

import (
	"errors"
	"fmt"
	"io/fs"
)

// Sentinel errors. Every error this package returns for bad data wraps one of
// them, so callers (and tests) can branch with errors.Is without parsing
// messages; the messages themselves name the file and the problem for humans.
var (
	// ErrNoData: the data directory does not exist or holds no CIFAR-10
	// files. Returned inside a [*MissingDataError], which says how to get it.
	ErrNoData = errors.New("CIFAR-10 data not found")
	// ErrMissingFile: the directory has some but not all of the six files.
	ErrMissingFile = errors.New("missing file")
	// ErrFileSize: a file (data file, downloaded archive or archive member)
	// does not have the exact expected size.
	ErrFileSize = errors.New("wrong file size")
	// ErrTruncated: a file ends in the middle of a record.
	ErrTruncated = errors.New("truncated record")
	// ErrLabel: a record's label byte is not a class index 0..9.
	ErrLabel = errors.New("label out of range")
	// ErrChecksum: the downloaded archive's SHA-256 or MD5 does not match.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrUnsafeArchive: the archive holds a member that must not be
	// extracted (absolute path, "..", link, unexpected name or size).
	ErrUnsafeArchive = errors.New("unsafe or unexpected archive member")
	// ErrSyntheticData: an operation meant for real data found the synthetic
	// stand-in (or the reverse), and refused to mix them.
	ErrSyntheticData = errors.New("synthetic data in the way")
	// ErrNotFolder: the data path names a file, not a folder.
	ErrNotFolder = errors.New("not a folder")
)

// MissingDataHint is appended to [*MissingDataError] messages to tell the
// user how to obtain the data. Commands that wrap this package should set it
// to their actual command lines.
var MissingDataHint = "download it with cifar.Download (the tutorial's download step), " +
	"or generate the synthetic stand-in with cifar.WriteSynthetic"

// MissingDataError reports that no CIFAR-10 data was found where it was
// expected. It is its own type because it is the one error a first-time user
// will see, and it must say what to do next.
type MissingDataError struct {
	Dir    string // the directory that was given
	Detail string // what exactly is missing
}

// Error says what is missing where, followed by [MissingDataHint].
func (e *MissingDataError) Error() string {
	return fmt.Sprintf("cifar: %s: %s; %s", e.Dir, e.Detail, MissingDataHint)
}

// Unwrap makes errors.Is(err, ErrNoData) and errors.Is(err, fs.ErrNotExist)
// both true.
func (e *MissingDataError) Unwrap() []error { return []error{ErrNoData, fs.ErrNotExist} }

// FormatError reports a problem with one data file, naming the file and, when
// the problem is inside a record, the record's index, so a corrupt file can
// be located without a hex editor.
type FormatError struct {
	Path   string // the file
	Record int    // 0-based record index, or -1 for whole-file problems
	Kind   error  // ErrMissingFile, ErrFileSize, ErrTruncated or ErrLabel
	Detail string // human-readable specifics (sizes, the bad value)
	Err    error  // underlying cause (e.g. from the OS), or nil
}

// Error reads "cifar: FILE: record N: KIND: DETAIL" (the record part only
// when it applies), so logs point straight at the bad bytes.
func (e *FormatError) Error() string {
	msg := fmt.Sprintf("cifar: %s: ", e.Path)
	if e.Record >= 0 {
		msg += fmt.Sprintf("record %d: ", e.Record)
	}
	msg += e.Kind.Error()
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap exposes Kind (and the underlying cause, if any) to errors.Is/As.
func (e *FormatError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// commas formats n with thousands separators; sizes like 30730000 are easier
// to compare by eye as 30,730,000.
func commas(n int64) string {
	s := fmt.Sprint(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
