package cifar

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSparse creates a file of the given size (zeros: label 0, black
// image) without writing 30 MB: valid-looking full-size files for error
// tests that are cheap to create.
func writeSparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func equalSets(t *testing.T, got, want *Set) {
	t.Helper()
	if got.N != want.N {
		t.Fatalf("N = %d, want %d", got.N, want.N)
	}
	if !bytes.Equal(got.Labels, want.Labels) {
		t.Error("labels differ")
	}
	if !bytes.Equal(got.Images, want.Images) {
		t.Error("images differ")
	}
}

// TestFileLayout pins the on-disk format: label byte, then the red plane,
// green plane and blue plane, each row-major, while memory is HWC.
func TestFileLayout(t *testing.T) {
	s := NewSet(2, "layout")
	for i := range 2 {
		s.Labels[i] = uint8(3 + i)
		img := s.Image(i)
		for y := range Height {
			for x := range Width {
				p := (y*Width + x) * Channels
				img[p], img[p+1], img[p+2] = uint8(y), uint8(x), uint8(100+i)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "layout.bin")
	if err := WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 2*RecordSize {
		t.Fatalf("file has %d bytes, want %d", len(raw), 2*RecordSize)
	}
	rec := raw[RecordSize:] // second record
	y, x := 5, 17
	if rec[0] != 4 || rec[1+y*32+x] != 5 || rec[1+1024+y*32+x] != 17 || rec[1+2048+y*32+x] != 101 {
		t.Errorf("record layout wrong: label %d, R %d, G %d, B %d",
			rec[0], rec[1+y*32+x], rec[1+1024+y*32+x], rec[1+2048+y*32+x])
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	equalSets(t, back, s)
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("WriteFile left %d entries, want only the file", len(entries))
	}
}

// TestRoundTripSmall writes a small synthetic set through the same writer
// WriteSynthetic uses and reads it back.
func TestRoundTripSmall(t *testing.T) {
	train, test := Synthetic(37, 11, 5)
	dir := t.TempDir()
	for _, s := range []*Set{train, test} {
		p := filepath.Join(dir, "x.bin")
		if err := WriteFile(p, s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		equalSets(t, back, s)
	}
}

// TestLoadFullSynthetic is the full-size round trip: WriteSynthetic writes
// the six standard files, Load reads them (from the folder and from its
// parent), and the result equals the in-memory generator.
func TestLoadFullSynthetic(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 184 MB")
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, DirName)
	if err := WriteSynthetic(dir, 7); err != nil {
		t.Fatal(err)
	}
	// Load accepts the parent (what extracting the archive gives) and the
	// folder itself; read once, via the parent.
	if d, err := FindDir(dir); err != nil || d != dir {
		t.Errorf("FindDir(%s) = %s, %v", dir, d, err)
	}
	train, test, err := Load(parent)
	if err != nil {
		t.Fatal(err)
	}
	if train.N != NumTrain || test.N != NumTest {
		t.Fatalf("sizes %d/%d", train.N, test.N)
	}
	if !train.Synthetic || !test.Synthetic || !strings.Contains(train.Source, "synthetic") {
		t.Errorf("synthetic data not flagged: %v %q", train.Synthetic, train.Source)
	}
	wantTrain, wantTest := Synthetic(NumTrain, NumTest, 7)
	equalSets(t, train, wantTrain)
	equalSets(t, test, wantTest)
	for c, n := range train.ClassCounts() {
		if n != NumTrain/NumClasses {
			t.Errorf("class %d has %d train images", c, n)
		}
	}
	// Writing again over synthetic data is allowed (same marker).
	if _, err := os.Stat(filepath.Join(dir, SyntheticMarker)); err != nil {
		t.Error(err)
	}
}

func TestWriteSyntheticRefusesRealData(t *testing.T) {
	dir := t.TempDir()
	writeSparse(t, filepath.Join(dir, TrainFiles[0]), FileSize)
	err := WriteSynthetic(dir, 1)
	if !errors.Is(err, ErrSyntheticData) {
		t.Fatalf("got %v, want ErrSyntheticData", err)
	}
	if _, err := os.Stat(filepath.Join(dir, SyntheticMarker)); err == nil {
		t.Error("marker written over real data")
	}
}

func TestLoadMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	_, _, err := Load(dir)
	var me *MissingDataError
	if !errors.As(err, &me) || !errors.Is(err, ErrNoData) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v, want a *MissingDataError wrapping ErrNoData", err)
	}
	msg := err.Error()
	for _, want := range []string{dir, "does not exist", "Download", "synthetic"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	// An existing but empty directory is missing data too.
	_, _, err = Load(t.TempDir())
	if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), DirName) {
		t.Errorf("empty dir: got %v", err)
	}
}

// fullSizeDir creates the six files (sparse, valid) in a fresh folder.
func fullSizeDir(t *testing.T) string {
	dir := t.TempDir()
	for _, name := range dataFiles() {
		writeSparse(t, filepath.Join(dir, name), FileSize)
	}
	return dir
}

func TestLoadMissingFile(t *testing.T) {
	dir := fullSizeDir(t)
	os.Remove(filepath.Join(dir, TestFile))
	_, _, err := Load(dir)
	var fe *FormatError
	if !errors.Is(err, ErrMissingFile) || !errors.As(err, &fe) || !strings.Contains(err.Error(), TestFile) {
		t.Fatalf("got %v, want ErrMissingFile naming %s", err, TestFile)
	}
}

func TestLoadWrongFileSize(t *testing.T) {
	dir := fullSizeDir(t)
	bad := filepath.Join(dir, TrainFiles[3])
	writeSparse(t, bad, FileSize-100)
	_, _, err := Load(dir)
	var fe *FormatError
	if !errors.Is(err, ErrFileSize) || !errors.As(err, &fe) || fe.Path != bad {
		t.Fatalf("got %v, want ErrFileSize for %s", err, bad)
	}
	for _, want := range []string{"expected 30,730,000 bytes", "found 30,729,900", "mid-record"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// Whole records but the wrong number of them is still the wrong size.
	writeSparse(t, bad, FileSize+RecordSize)
	if _, _, err := Load(dir); !errors.Is(err, ErrFileSize) {
		t.Errorf("extra record: got %v", err)
	}
}

func TestReadTruncatedRecord(t *testing.T) {
	train, _ := Synthetic(2, 0, 1)
	p := filepath.Join(t.TempDir(), "t.bin")
	if err := WriteFile(p, train); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(make([]byte, 100))
	f.Close()
	_, err := ReadFile(p)
	var fe *FormatError
	if !errors.Is(err, ErrTruncated) || !errors.As(err, &fe) || fe.Record != 2 {
		t.Fatalf("got %v, want ErrTruncated at record 2", err)
	}
	if !strings.Contains(err.Error(), "100 of 3073") {
		t.Errorf("message %q lacks the byte count", err)
	}
	// An empty file is a size error, not a zero-image set.
	os.WriteFile(p, nil, 0o644)
	if _, err := ReadFile(p); !errors.Is(err, ErrFileSize) {
		t.Errorf("empty file: got %v", err)
	}
}

func TestReadBadLabel(t *testing.T) {
	train, _ := Synthetic(3, 0, 1)
	p := filepath.Join(t.TempDir(), "l.bin")
	if err := WriteFile(p, train); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(p)
	raw[RecordSize] = 12 // label of record 1
	os.WriteFile(p, raw, 0o644)
	_, err := ReadFile(p)
	var fe *FormatError
	if !errors.Is(err, ErrLabel) || !errors.As(err, &fe) || fe.Record != 1 || !strings.Contains(err.Error(), "12") {
		t.Fatalf("got %v, want ErrLabel at record 1 naming 12", err)
	}

	// Through Load: the error names the file and the record within it.
	dir := fullSizeDir(t)
	bad := filepath.Join(dir, TrainFiles[1])
	f, _ := os.OpenFile(bad, os.O_WRONLY, 0)
	f.WriteAt([]byte{255}, 9999*RecordSize)
	f.Close()
	_, _, err = Load(dir)
	if !errors.As(err, &fe) || !errors.Is(err, ErrLabel) || fe.Path != bad || fe.Record != 9999 {
		t.Fatalf("got %v, want ErrLabel in %s record 9999", err, bad)
	}
}

func TestSetHelpers(t *testing.T) {
	train, _ := Synthetic(20, 0, 2)
	img := train.Image(3)
	if len(img) != ImageSize || cap(img) != ImageSize || &img[0] != &train.Images[3*ImageSize] {
		t.Error("Image must alias the set with clipped capacity")
	}
	sub := train.Slice(5, 15)
	if sub.N != 10 || sub.Label(0) != train.Label(5) || &sub.Image(0)[0] != &train.Image(5)[0] {
		t.Error("Slice wrong")
	}
	if err := sub.Validate(); err != nil {
		t.Error(err)
	}
	sub.Labels[0] = 10
	if err := sub.Validate(); !errors.Is(err, ErrLabel) {
		t.Errorf("Validate: got %v", err)
	}
}
