package cifar

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// writeAtomic creates path with the content produced by fill: it writes a
// hidden temporary file in the same directory (same filesystem, so rename is
// atomic), syncs it, and renames it into place. On any error the temporary
// file is removed and path is left untouched.
func writeAtomic(path string, fill func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, tempPattern(base, "tmp"))
	if err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return fmt.Errorf("cifar: writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("cifar: writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("cifar: writing %s: %w", path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	return nil
}
