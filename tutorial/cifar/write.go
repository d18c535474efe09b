package cifar

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

// WriteFile writes s in the CIFAR-10 binary format (label byte + CHW planes
// per record), atomically: the data goes to a temporary file in the same
// folder that is renamed over path only once complete, so a crash never
// leaves a file that looks like data but is short. [WriteSynthetic] writes
// its files through it, so the synthetic data exercises the real reader.
func WriteFile(path string, s *Set) error {
	if err := s.Validate(); err != nil {
		return err
	}
	return writeAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, readChunkRecords*RecordSize)
		rec := make([]uint8, RecordSize)
		for i := range s.N {
			encodeRecord(rec, s.Labels[i], s.Image(i))
			if _, err := bw.Write(rec); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

// writeAtomic creates path with the content produced by fill, atomically (artifact.Write): on any error path is
// left untouched.
func writeAtomic(path string, fill func(w io.Writer) error) error {
	if err := artifact.Write(path, fill); err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	return nil
}
