package cifar

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxInfoMemberSize bounds the informational members (batches.meta.txt is
// 61 bytes, readme.html 88): anything bigger is not the real archive.
const maxInfoMemberSize = 1 << 20

// extractArchive extracts the CIFAR-10 members of the verified archive into
// destDir/cifar-10-batches-bin. Even though the official archive's checksum
// is verified first, extraction trusts nothing: only the known member names
// are written, only as regular files of the expected sizes, each through a
// temporary file renamed into place, so a bad archive cannot write outside
// the folder or leave a short .bin file behind.
func extractArchive(ctx context.Context, archivePath, destDir string, memberSize int64) error {
	f, err := os.Open(archivePath)
	if err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("cifar: %s: not a gzip file: %w", archivePath, err)
	}
	defer zr.Close()

	// Expected members and their sizes (-1: informational, size-bounded).
	expected := map[string]int64{
		DirName + "/" + MetaFile:   -1,
		DirName + "/" + ReadmeFile: -1,
	}
	for _, name := range dataFiles() {
		expected[DirName+"/"+name] = memberSize
	}
	seen := map[string]bool{}
	outDir := filepath.Join(destDir, DirName)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("cifar: %w", err)
	}

	tr := tar.NewReader(zr)
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cifar: extracting %s: %w", archivePath, err)
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, tar.ErrInsecurePath) { // only with GODEBUG=tarinsecurepath=0
			return fmt.Errorf("cifar: archive %s: member %q: %w: %w", archivePath, hdr.Name, err, ErrUnsafeArchive)
		}
		if err != nil {
			return fmt.Errorf("cifar: reading archive %s: %w", archivePath, err)
		}
		name, err := memberName(hdr)
		if err != nil {
			return fmt.Errorf("cifar: archive %s: %w", archivePath, err)
		}
		if hdr.Typeflag == tar.TypeDir {
			continue // the only directory allowed is DirName, created above
		}
		want, ok := expected[name]
		if !ok {
			return fmt.Errorf("cifar: archive %s: member %q is not part of CIFAR-10: %w",
				archivePath, hdr.Name, ErrUnsafeArchive)
		}
		if seen[name] {
			return fmt.Errorf("cifar: archive %s: member %q appears twice: %w", archivePath, hdr.Name, ErrUnsafeArchive)
		}
		if (want >= 0 && hdr.Size != want) || (want < 0 && hdr.Size > maxInfoMemberSize) {
			return fmt.Errorf("cifar: archive %s: member %q is %s bytes, expected %s: %w: %w",
				archivePath, hdr.Name, commas(hdr.Size), expectedSizeText(want), ErrUnsafeArchive, ErrFileSize)
		}
		dst := filepath.Join(outDir, path.Base(name))
		err = writeAtomic(dst, func(w io.Writer) error {
			n, err := io.Copy(w, tr)
			if err == nil && n != hdr.Size {
				err = fmt.Errorf("member %q: got %s bytes, header says %s: %w", hdr.Name, commas(n), commas(hdr.Size), ErrFileSize)
			}
			return err
		})
		if err != nil {
			return err
		}
		seen[name] = true
	}
	for _, name := range dataFiles() {
		if !seen[DirName+"/"+name] {
			return fmt.Errorf("cifar: archive %s has no member %s/%s: %w", archivePath, DirName, name, ErrMissingFile)
		}
	}
	return nil
}

// memberName validates a tar header's path and type and returns the
// cleaned name. Absolute paths, ".." components and links are rejected
// outright (before any name matching), so the error says what is wrong.
func memberName(hdr *tar.Header) (string, error) {
	raw := hdr.Name
	if raw == "" {
		return "", fmt.Errorf("member with an empty name: %w", ErrUnsafeArchive)
	}
	if strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, `\`) || filepath.IsAbs(raw) || filepath.VolumeName(raw) != "" {
		return "", fmt.Errorf("member %q has an absolute path: %w", raw, ErrUnsafeArchive)
	}
	for _, part := range strings.FieldsFunc(raw, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", fmt.Errorf("member %q contains \"..\" (path traversal): %w", raw, ErrUnsafeArchive)
		}
	}
	name := path.Clean(raw)
	switch hdr.Typeflag {
	case tar.TypeReg, '\x00': // '\x00' is the pre-POSIX regular file type
	case tar.TypeDir:
		if name != DirName {
			return "", fmt.Errorf("unexpected directory %q: %w", raw, ErrUnsafeArchive)
		}
	case tar.TypeSymlink:
		return "", fmt.Errorf("member %q is a symbolic link (to %q): %w", raw, hdr.Linkname, ErrUnsafeArchive)
	case tar.TypeLink:
		return "", fmt.Errorf("member %q is a hard link (to %q): %w", raw, hdr.Linkname, ErrUnsafeArchive)
	default:
		return "", fmt.Errorf("member %q has unsupported type %q: %w", raw, hdr.Typeflag, ErrUnsafeArchive)
	}
	return name, nil
}

func expectedSizeText(want int64) string {
	if want < 0 {
		return fmt.Sprintf("at most %s", commas(maxInfoMemberSize))
	}
	return commas(want)
}
