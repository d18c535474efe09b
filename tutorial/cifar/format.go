package cifar

import "fmt"

// Geometry and layout of the CIFAR-10 binary version
// (https://www.cs.toronto.edu/~kriz/cifar.html). They are constants, not
// configuration: the reader validates files against them so that a corrupt
// or foreign file fails loudly at load time instead of silently training on
// garbage.
const (
	Height     = 32 // image rows
	Width      = 32 // image columns
	Channels   = 3  // R, G, B
	NumClasses = 10

	// ImageSize is the number of bytes of one image, in memory (HWC) and on
	// disk (CHW) alike.
	ImageSize = Height * Width * Channels // 3072

	// RecordSize is one record on disk: 1 label byte followed by the image as
	// 1024 red, 1024 green and 1024 blue bytes, each plane row-major.
	RecordSize = 1 + ImageSize // 3073

	// RecordsPerFile is the number of records in each of the six files.
	RecordsPerFile = 10000

	// FileSize is the exact size of each of the six .bin files; anything else
	// means a truncated or foreign file.
	FileSize = RecordSize * RecordsPerFile // 30,730,000

	// NumTrain and NumTest are the sizes of the standard splits.
	NumTrain = len(TrainFiles) * RecordsPerFile // 50,000
	NumTest  = RecordsPerFile                   // 10,000
)

// File and directory names of the binary archive. The archive
// cifar-10-binary.tar.gz extracts to DirName/, which holds the files below.
const (
	DirName  = "cifar-10-batches-bin"
	TestFile = "test_batch.bin"
	// MetaFile holds the class names, one per line; informational only.
	MetaFile = "batches.meta.txt"
	// ReadmeFile is shipped in the archive; informational only.
	ReadmeFile = "readme.html"
	// SyntheticMarker is a file written next to synthetic data so that it can
	// never be mistaken for the real dataset (see [WriteSynthetic]).
	SyntheticMarker = "SYNTHETIC"
)

// TrainFiles are the five training files, in the order their records are
// concatenated to form the 50,000-image training split (the same order as
// torchvision's datasets.CIFAR10, so index i means the same image on both
// sides).
var TrainFiles = [...]string{
	"data_batch_1.bin",
	"data_batch_2.bin",
	"data_batch_3.bin",
	"data_batch_4.bin",
	"data_batch_5.bin",
}

// ClassNames maps a label (0..9) to its name, as in batches.meta.txt. Used
// for reports and confusion matrices.
var ClassNames = [NumClasses]string{
	"airplane", "automobile", "bird", "cat", "deer",
	"dog", "frog", "horse", "ship", "truck",
}

// Set is one split (train or test) held compactly in memory: 3 KiB per image,
// so the whole 60,000-image dataset takes ~184 MB. Resizing to 224 happens
// per batch ([Resizer]), never for the whole set, which would need ~9 GB.
type Set struct {
	// Images holds N images back to back, each Height×Width×Channels bytes
	// in HWC order (see [Set.Image]).
	Images []uint8
	// Labels holds N class indices in 0..NumClasses-1.
	Labels []uint8
	// N is the number of images.
	N int
	// Synthetic is true when the data is the generated stand-in rather than
	// real CIFAR-10; training reports must say so.
	Synthetic bool
	// Source says where the data came from (a directory, or "synthetic ...")
	// for logs and reports.
	Source string
}

// NewSet allocates an empty set of n images, ready to be filled.
func NewSet(n int, source string) *Set {
	return &Set{
		Images: make([]uint8, n*ImageSize),
		Labels: make([]uint8, n),
		N:      n,
		Source: source,
	}
}

// Image returns image i as a Height×Width×Channels HWC slice that aliases the
// set's memory (no copy). Its capacity is clipped so an append cannot
// overwrite the next image.
func (s *Set) Image(i int) []uint8 {
	o := i * ImageSize
	return s.Images[o : o+ImageSize : o+ImageSize]
}

// Label returns the class of image i.
func (s *Set) Label(i int) int { return int(s.Labels[i]) }

// Len returns the number of images; it lets a *Set be passed where only the
// size matters.
func (s *Set) Len() int { return s.N }

// Slice returns images [lo, hi) as a Set sharing this set's memory, for quick
// smoke runs on a prefix of the data without copying it.
func (s *Set) Slice(lo, hi int) *Set {
	return &Set{
		Images:    s.Images[lo*ImageSize : hi*ImageSize : hi*ImageSize],
		Labels:    s.Labels[lo:hi:hi],
		N:         hi - lo,
		Synthetic: s.Synthetic,
		Source:    fmt.Sprintf("%s[%d:%d]", s.Source, lo, hi),
	}
}

// ClassCounts returns how many images of each class the set holds, to check
// balance and to report it.
func (s *Set) ClassCounts() [NumClasses]int {
	var c [NumClasses]int
	for _, l := range s.Labels[:s.N] {
		if int(l) < NumClasses {
			c[l]++
		}
	}
	return c
}

// Validate checks the set's internal consistency (buffer lengths, labels in
// range). Sets built by this package are always valid; it exists for sets
// assembled by hand.
func (s *Set) Validate() error {
	if s.N < 0 || len(s.Images) != s.N*ImageSize || len(s.Labels) != s.N {
		return fmt.Errorf("cifar: inconsistent set %q: N=%d, %d image bytes (want %d), %d labels",
			s.Source, s.N, len(s.Images), s.N*ImageSize, len(s.Labels))
	}
	for i, l := range s.Labels {
		if int(l) >= NumClasses {
			return fmt.Errorf("cifar: set %q: image %d has label %d, want 0..%d: %w",
				s.Source, i, l, NumClasses-1, ErrLabel)
		}
	}
	return nil
}

// decodeRecord converts one on-disk record (label + CHW planes) into a label
// and an HWC image. It is the only place that knows the file's channel-major
// layout.
func decodeRecord(rec []uint8, img []uint8) uint8 {
	const plane = Height * Width
	r := rec[1 : 1+plane]
	g := rec[1+plane : 1+2*plane]
	b := rec[1+2*plane : 1+3*plane]
	img = img[:ImageSize]
	for p := range plane {
		img[3*p] = r[p]
		img[3*p+1] = g[p]
		img[3*p+2] = b[p]
	}
	return rec[0]
}

// encodeRecord is the inverse of decodeRecord, used by the writer.
func encodeRecord(rec []uint8, label uint8, img []uint8) {
	const plane = Height * Width
	rec[0] = label
	r := rec[1 : 1+plane]
	g := rec[1+plane : 1+2*plane]
	b := rec[1+2*plane : 1+3*plane]
	img = img[:ImageSize]
	for p := range plane {
		r[p] = img[3*p]
		g[p] = img[3*p+1]
		b[p] = img[3*p+2]
	}
}
