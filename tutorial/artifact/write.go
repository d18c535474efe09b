package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// WriteFile writes data to path atomically (see [Write]).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteJSON writes v as indented JSON (and a final newline) to path atomically.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(data, '\n'))
}

// Write creates path with what fill writes, atomically: into a hidden temporary file in the same folder (same
// filesystem, so the rename is atomic), synced, then renamed over path. A reader — a README preview, a notebook,
// the CIFAR-10 reader — never sees half a file, and on any error the temporary file is removed and path is left
// as it was. Missing folders are created; the file is 0644 (assets are meant to be shared).
func Write(path string, fill func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// The process id in the name lets a later run tell a dead writer's leftover from a live one's (cifar's
	// cleanStale reads it).
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil { // CreateTemp makes it 0600
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReadJSON reads path into v, saying which file did not parse.
func ReadJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

var unsafeRun = regexp.MustCompile(`[^a-z0-9._]+`)

// SafeName turns a device, date or step name into a file name: lower case, every run of characters other than
// letters, digits, '.' and '_' one '-', none at either end — "CPU (2 cores)" is "cpu-2-cores", step
// "13@512+dw-input-grad=phases" is "13-512-dw-input-grad-phases".
func SafeName(s string) string {
	return strings.Trim(unsafeRun.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// DeviceName is a GPU's name as file names carry it: without the vendor ("NVIDIA H200" is "h200").
func DeviceName(gpu string) string { return SafeName(strings.TrimPrefix(gpu, "NVIDIA ")) }
