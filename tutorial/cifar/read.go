package cifar

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// readChunkRecords is how many records are read per system call: large
// enough to amortize syscalls, small enough (≈786 KB) to stay in cache.
const readChunkRecords = 256

// ReadFile reads one CIFAR-10 binary file of any whole number of records.
// It is the low-level reader: it accepts the small files tests write with
// [WriteFile]; [Load] additionally insists on the standard 10,000 records per
// file. Errors are [*FormatError]s naming the file (and the record, for a
// truncated record or a label > 9).
func ReadFile(path string) (*Set, error) {
	size, err := statFile(path)
	if err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, &FormatError{Path: path, Record: -1, Kind: ErrFileSize,
			Detail: fmt.Sprintf("file is empty, expected whole records of %d bytes", RecordSize)}
	}
	if size%RecordSize != 0 {
		return nil, truncatedError(path, size)
	}
	n := int(size / RecordSize)
	s := NewSet(n, path)
	if err := readRecords(path, s, 0, n); err != nil {
		return nil, err
	}
	return s, nil
}

// Load reads the standard train (50,000) and test (10,000) splits. dir may be
// the folder holding the .bin files or its parent holding
// cifar-10-batches-bin/ (what extracting the archive produces), so both
// "data" and "data/cifar-10-batches-bin" work.
//
// Each file must be exactly [FileSize] bytes: a wrong size is reported before
// anything is read, so a half-copied dataset fails in milliseconds with the
// file's name. If the folder holds the [SyntheticMarker], the sets are marked
// Synthetic and their Source says so.
func Load(dir string) (train, test *Set, err error) {
	cleanStale(dir, nil) // what an interrupted download (dir) or extraction (dir/cifar-10-batches-bin) left behind
	cleanStale(filepath.Join(dir, DirName), nil)
	d, err := Check(dir)
	if err != nil {
		return nil, nil, err
	}
	source := "CIFAR-10 binary at " + d
	synthetic, desc := readMarker(d)
	if synthetic {
		source = "synthetic CIFAR-10 stand-in at " + d
		if desc != "" {
			source += " (" + desc + ")"
		}
	}
	train = NewSet(NumTrain, source+" [train]")
	for i, name := range TrainFiles {
		if err := readRecords(filepath.Join(d, name), train, i*RecordsPerFile, RecordsPerFile); err != nil {
			return nil, nil, err
		}
	}
	test = NewSet(NumTest, source+" [test]")
	if err := readRecords(filepath.Join(d, TestFile), test, 0, RecordsPerFile); err != nil {
		return nil, nil, err
	}
	train.Synthetic, test.Synthetic = synthetic, synthetic
	return train, test, nil
}

// Check verifies, without reading the contents, that dir (or
// dir/cifar-10-batches-bin) holds all six files at their exact size, and
// returns the folder that does. It is cheap enough to run before deciding
// whether a download is needed.
func Check(dir string) (string, error) { return checkSized(dir, FileSize) }

// checkSized is Check with the per-file size as a parameter, so downloads of
// small test archives can be verified with the same code.
func checkSized(dir string, fileSize int64) (string, error) {
	d, err := FindDir(dir)
	if err != nil {
		return "", err
	}
	for _, name := range dataFiles() {
		p := filepath.Join(d, name)
		size, err := statFile(p)
		if err != nil {
			return "", err
		}
		if size != fileSize {
			return "", sizeError(p, size, fileSize)
		}
	}
	return d, nil
}

// FindDir resolves dir to the folder that holds the .bin files: dir itself
// if it holds any of them, else dir/cifar-10-batches-bin if that exists.
// When neither does it returns a [*MissingDataError] explaining how to get
// the data.
func FindDir(dir string) (string, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", &MissingDataError{Dir: dir, Detail: "directory does not exist"}
		}
		return "", fmt.Errorf("cifar: %w", err)
	}
	if !fi.IsDir() { // a file given by mistake: an error of its own, never "no data" (which may fall back to synthetic)
		return "", fmt.Errorf("cifar: %s is a file, not a folder: give the folder that holds %s/ or the six .bin files: %w",
			dir, DirName, ErrNotFolder)
	}
	if hasAnyDataFile(dir) {
		return dir, nil
	}
	sub := filepath.Join(dir, DirName)
	if fi, err := os.Stat(sub); err == nil && fi.IsDir() {
		if hasAnyDataFile(sub) {
			return sub, nil
		}
		return "", &MissingDataError{Dir: dir, Detail: fmt.Sprintf(
			"%s/ holds none of the CIFAR-10 files (%s, %s)", DirName, TrainFiles[0], TestFile)}
	}
	return "", &MissingDataError{Dir: dir, Detail: fmt.Sprintf(
		"holds neither the CIFAR-10 files (%s, ..., %s) nor a %s/ folder", TrainFiles[0], TestFile, DirName)}
}

// dataFiles lists the six .bin files: five train files then the test file.
func dataFiles() []string {
	return append(TrainFiles[:len(TrainFiles):len(TrainFiles)], TestFile)
}

func hasAnyDataFile(dir string) bool {
	for _, name := range dataFiles() {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// readMarker reports whether dir holds the synthetic marker, and the first
// line of its content (which records how it was generated).
func readMarker(dir string) (bool, string) {
	b, err := os.ReadFile(filepath.Join(dir, SyntheticMarker))
	if err != nil {
		return false, ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return true, strings.TrimSpace(line)
}

// statFile returns the size of a regular file, or a FormatError saying it
// is missing or is not a regular file.
func statFile(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, &FormatError{Path: path, Record: -1, Kind: ErrMissingFile,
				Detail: "file does not exist", Err: err}
		}
		return 0, fmt.Errorf("cifar: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return 0, &FormatError{Path: path, Record: -1, Kind: ErrFileSize,
			Detail: "not a regular file"}
	}
	return fi.Size(), nil
}

func sizeError(path string, got, want int64) error {
	detail := fmt.Sprintf("expected %s bytes (%s records of %d), found %s",
		commas(want), commas(want/RecordSize), RecordSize, commas(got))
	if got%RecordSize != 0 {
		detail += fmt.Sprintf("; the file ends mid-record (record %d has only %d of %d bytes)",
			got/RecordSize, got%RecordSize, RecordSize)
	}
	return &FormatError{Path: path, Record: -1, Kind: ErrFileSize, Detail: detail}
}

func truncatedError(path string, size int64) error {
	return &FormatError{Path: path, Record: int(size / RecordSize), Kind: ErrTruncated,
		Detail: fmt.Sprintf("file is %s bytes, so its last record has only %d of %d bytes",
			commas(size), size%RecordSize, RecordSize)}
}

// readRecords reads exactly n records from path into s starting at image
// index at. The file must hold exactly n records.
func readRecords(path string, s *Set, at, n int) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &FormatError{Path: path, Record: -1, Kind: ErrMissingFile,
				Detail: "file does not exist", Err: err}
		}
		return fmt.Errorf("cifar: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	if want := int64(n) * RecordSize; fi.Size() != want {
		return sizeError(path, fi.Size(), want)
	}
	buf := make([]uint8, readChunkRecords*RecordSize)
	for done := 0; done < n; {
		k := min(readChunkRecords, n-done)
		got, err := io.ReadFull(f, buf[:k*RecordSize])
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				// The file shrank after Stat (being rewritten?).
				return &FormatError{Path: path, Record: done + got/RecordSize, Kind: ErrTruncated,
					Detail: fmt.Sprintf("file ended after %s bytes while reading",
						commas(int64(done)*RecordSize+int64(got)))}
			}
			return fmt.Errorf("cifar: reading %s: %w", path, err)
		}
		for j := range k {
			rec := buf[j*RecordSize : (j+1)*RecordSize]
			idx := at + done + j
			label := decodeRecord(rec, s.Images[idx*ImageSize:])
			if label >= NumClasses {
				return &FormatError{Path: path, Record: done + j, Kind: ErrLabel,
					Detail: fmt.Sprintf("label byte is %d, want 0..%d (byte offset %s)",
						label, NumClasses-1, commas(int64(done+j)*RecordSize))}
			}
			s.Labels[idx] = label
		}
		done += k
	}
	return nil
}
