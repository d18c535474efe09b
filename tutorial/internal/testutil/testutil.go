// Package testutil holds what more than one package's tests do alike, so that it is written once: for now,
// reading back a gzip file (the cifar reference images, the profile's Chrome traces). Only tests import it.
package testutil

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// ReadGzip is the decompressed content of the gzip file at path. A file that cannot be opened, or does not start
// as a gzip stream, fails t at once; the read's own error (a stream cut short, a bad checksum) is returned for
// the caller to judge with what else it checks.
func ReadGzip(t testing.TB, path string) ([]byte, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return io.ReadAll(zr)
}
