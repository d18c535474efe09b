package cifar

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The fake archive's .bin members hold fakeRecords records each, so
// downloads are tested end to end in milliseconds.
const fakeRecords = 2

type member struct {
	name     string
	typeflag byte
	body     []byte
	linkname string
}

// validMembers returns the members of a well-formed small archive, and the
// sets each .bin member encodes (by file name).
func validMembers(t *testing.T) ([]member, map[string]*Set) {
	t.Helper()
	tmp := t.TempDir()
	sets := map[string]*Set{}
	ms := []member{{name: DirName + "/", typeflag: tar.TypeDir}}
	for i, name := range dataFiles() {
		s, _ := Synthetic(fakeRecords, 0, uint64(100+i))
		p := filepath.Join(tmp, name)
		if err := WriteFile(p, s); err != nil {
			t.Fatal(err)
		}
		body, _ := os.ReadFile(p)
		ms = append(ms, member{name: DirName + "/" + name, typeflag: tar.TypeReg, body: body})
		sets[name] = s
	}
	ms = append(ms,
		member{name: DirName + "/" + MetaFile, typeflag: tar.TypeReg, body: []byte(strings.Join(ClassNames[:], "\n"))},
		member{name: DirName + "/" + ReadmeFile, typeflag: tar.TypeReg, body: []byte("<meta http-equiv=\"refresh\">")})
	return ms, sets
}

func makeArchive(t *testing.T, ms []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, m := range ms {
		hdr := &tar.Header{Name: m.name, Typeflag: m.typeflag, Mode: 0o644, Size: int64(len(m.body)), Linkname: m.linkname}
		if m.typeflag != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Size > 0 {
			tw.Write(m.body)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}

// describe returns the Archive that verifies data, served from url.
func describe(url string, data []byte) Archive {
	s, m := sha256.Sum256(data), md5.Sum(data)
	return Archive{URL: url, Size: int64(len(data)), SHA256: hex.EncodeToString(s[:]),
		MD5: hex.EncodeToString(m[:]), MemberSize: fakeRecords * RecordSize}
}

// serve starts a server for data and counts its requests.
func serve(t *testing.T, data []byte) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// assertNothingComplete checks that a failed download left no archive, no
// temporary file, and nothing that Check would accept.
func assertNothingComplete(t *testing.T, dest string, memberSize int64) {
	t.Helper()
	entries, _ := os.ReadDir(dest)
	for _, e := range entries {
		if e.Name() != DirName {
			t.Errorf("left behind %s", e.Name())
		}
	}
	if _, err := checkSized(dest, memberSize); err == nil {
		t.Error("destination looks complete after a failure")
	}
}

func TestDownloadAndExtract(t *testing.T) {
	ms, sets := validMembers(t)
	data := makeArchive(t, ms)
	srv, hits := serve(t, data)
	dest := filepath.Join(t.TempDir(), "data")
	var out bytes.Buffer
	d, err := Download(context.Background(), dest, &out, WithArchive(describe(srv.URL+"/c.tgz", data)))
	if err != nil {
		t.Fatal(err)
	}
	if d != filepath.Join(dest, DirName) {
		t.Errorf("returned %s", d)
	}
	for name, want := range sets {
		got, err := ReadFile(filepath.Join(d, name))
		if err != nil {
			t.Fatal(err)
		}
		equalSets(t, got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(d, MetaFile)); !strings.HasPrefix(string(b), "airplane") {
		t.Errorf("meta file: %q", b)
	}
	entries, _ := os.ReadDir(dest)
	if len(entries) != 1 {
		t.Errorf("destination holds %d entries, want only %s/ (archive deleted, no temp files)", len(entries), DirName)
	}
	log := out.String()
	for _, want := range []string{"downloading", "100.0%", "MB/s", "ready"} {
		if !strings.Contains(log, want) {
			t.Errorf("progress output lacks %q:\n%s", want, log)
		}
	}

	// Second call: already present, no request.
	out.Reset()
	if _, err := Download(context.Background(), dest, &out, WithArchive(describe(srv.URL+"/c.tgz", data))); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 1 || !strings.Contains(out.String(), "already present") {
		t.Errorf("second call: %d requests, output %q", hits.Load(), out.String())
	}
}

// TestDownloadUsesExistingArchive: an archive copied by hand (or kept from a
// previous run) is verified and used without the network.
func TestDownloadUsesExistingArchive(t *testing.T) {
	ms, _ := validMembers(t)
	data := makeArchive(t, ms)
	dest := t.TempDir()
	os.WriteFile(filepath.Join(dest, ArchiveName), data, 0o644)
	var out bytes.Buffer
	a := describe("http://127.0.0.1:1/unreachable", data)
	if _, err := Download(context.Background(), dest, &out, WithArchive(a), WithKeepArchive(true)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "already downloaded") {
		t.Errorf("output: %s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dest, ArchiveName)); err != nil {
		t.Error("archive not kept")
	}
}

func TestDownloadChecksumMismatch(t *testing.T) {
	ms, _ := validMembers(t)
	data := makeArchive(t, ms)
	srv, _ := serve(t, data)
	for _, tc := range []struct {
		name  string
		edit  func(*Archive)
		want  error
		inMsg string
	}{
		{"sha256", func(a *Archive) { a.SHA256 = strings.Repeat("0", 64) }, ErrChecksum, "SHA-256"},
		{"md5", func(a *Archive) { a.MD5 = strings.Repeat("0", 32) }, ErrChecksum, "MD5"},
		{"size", func(a *Archive) { a.Size++ }, ErrFileSize, "expected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := describe(srv.URL, data)
			tc.edit(&a)
			dest := t.TempDir()
			_, err := Download(context.Background(), dest, nil, WithArchive(a))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.inMsg) {
				t.Fatalf("got %v, want %v mentioning %q", err, tc.want, tc.inMsg)
			}
			assertNothingComplete(t, dest, a.MemberSize)
		})
	}
}

// hangingServer sends the headers and half the body, then calls after.
func hangingServer(t *testing.T, data []byte, after func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		after(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestDownloadInterrupted(t *testing.T) {
	ms, _ := validMembers(t)
	data := makeArchive(t, ms)
	// The connection drops mid-body.
	srv := hangingServer(t, data, func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	dest := t.TempDir()
	a := describe(srv.URL, data)
	_, err := Download(context.Background(), dest, nil, WithArchive(a))
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("got %v, want an interrupted-download error", err)
	}
	assertNothingComplete(t, dest, a.MemberSize)
}

func TestDownloadCancelAndStall(t *testing.T) {
	ms, _ := validMembers(t)
	data := makeArchive(t, ms)
	started := make(chan struct{}, 4)
	srv := hangingServer(t, data, func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-r.Context().Done()
	})
	a := describe(srv.URL, data)

	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		dest := t.TempDir()
		t0 := time.Now()
		_, err := Download(ctx, dest, nil, WithArchive(a))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("cancel took %s", d)
		}
		assertNothingComplete(t, dest, a.MemberSize)
	})
	t.Run("stall", func(t *testing.T) {
		dest := t.TempDir()
		_, err := Download(context.Background(), dest, nil, WithArchive(a),
			WithTimeouts(0, 0, 200*time.Millisecond))
		if !errors.Is(err, errStalled) || !strings.Contains(err.Error(), "no data received") {
			t.Fatalf("got %v, want a stall error", err)
		}
		assertNothingComplete(t, dest, a.MemberSize)
	})
}

// TestDownloadNoNetwork: a refused connection and a server that never
// answers both fail fast with an error that says what to do.
func TestDownloadNoNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dest := t.TempDir()
	_, err = Download(context.Background(), dest, nil, WithArchive(Archive{URL: "http://" + addr + "/x", Size: 1, SHA256: "00"}))
	if err == nil || !strings.Contains(err.Error(), "no network?") || !strings.Contains(err.Error(), ArchiveName) {
		t.Fatalf("refused: got %v", err)
	}
	t.Log(err)

	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer silent.Close()
	t0 := time.Now()
	_, err = Download(context.Background(), dest, nil, WithArchive(Archive{URL: silent.URL, Size: 1, SHA256: "00"}),
		WithTimeouts(time.Second, 200*time.Millisecond, 0))
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("silent server: got %v, want a timeout", err)
	}
	t.Log(err)
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("response timeout took %s", d)
	}
	assertNothingComplete(t, dest, 0)
}

// TestExtractRejectsUnsafeArchives: archives with correct checksums but
// dangerous or unexpected members are rejected, and nothing is written
// outside the destination.
func TestExtractRejectsUnsafeArchives(t *testing.T) {
	ms, _ := validMembers(t)
	bin := ms[1].body
	cases := map[string]member{
		"traversal":        {name: "../evil.bin", typeflag: tar.TypeReg, body: bin},
		"nested traversal": {name: DirName + "/../../evil.bin", typeflag: tar.TypeReg, body: bin},
		"absolute":         {name: "/tmp/evil.bin", typeflag: tar.TypeReg, body: bin},
		"symlink":          {name: DirName + "/" + TestFile, typeflag: tar.TypeSymlink, linkname: "/etc/passwd"},
		"hardlink":         {name: DirName + "/" + TestFile, typeflag: tar.TypeLink, linkname: DirName + "/" + TrainFiles[0]},
		"unexpected name":  {name: DirName + "/extra.bin", typeflag: tar.TypeReg, body: bin},
		"unexpected dir":   {name: "other/", typeflag: tar.TypeDir},
		"wrong size":       {name: DirName + "/" + TestFile, typeflag: tar.TypeReg, body: bin[:len(bin)-1]},
		"fifo":             {name: DirName + "/" + TestFile, typeflag: tar.TypeFifo},
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			// The bad member comes first, replacing the good one of that name.
			list := []member{bad}
			for _, m := range ms {
				if m.name != bad.name {
					list = append(list, m)
				}
			}
			data := makeArchive(t, list)
			srv, _ := serve(t, data)
			root := t.TempDir()
			dest := filepath.Join(root, "a", "b")
			a := describe(srv.URL, data)
			_, err := Download(context.Background(), dest, nil, WithArchive(a))
			if !errors.Is(err, ErrUnsafeArchive) {
				t.Fatalf("got %v, want ErrUnsafeArchive", err)
			}
			t.Log(err)
			filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !strings.HasPrefix(p, filepath.Join(dest, DirName)) &&
					p != root && p != filepath.Dir(dest) && p != dest && p != filepath.Join(dest, ArchiveName) {
					t.Errorf("unexpected path written: %s", p)
				}
				if err == nil && fi.Mode()&os.ModeSymlink != 0 {
					t.Errorf("symlink created: %s", p)
				}
				return nil
			})
			if _, err := checkSized(dest, a.MemberSize); err == nil {
				t.Error("destination looks complete after a rejected archive")
			}
		})
	}
}

func TestDownloadRefusesSyntheticFolder(t *testing.T) {
	dest := t.TempDir()
	target := filepath.Join(dest, DirName)
	os.MkdirAll(target, 0o755)
	os.WriteFile(filepath.Join(target, SyntheticMarker), []byte("x"), 0o644)
	_, err := Download(context.Background(), dest, nil, WithArchive(Archive{URL: "http://127.0.0.1:1/", Size: 1, SHA256: "0"}))
	if !errors.Is(err, ErrSyntheticData) {
		t.Fatalf("got %v", err)
	}
}

// TestProgressIsThrottled: one line per interval, not one per write.
func TestProgressIsThrottled(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	total := int64(100e6)
	p := newProgressWriter(&out, total, 5*time.Second, clock)
	chunk := make([]byte, 1e6)
	for range 100 { // 100 writes over 50 s
		now = now.Add(500 * time.Millisecond)
		p.Write(chunk)
	}
	p.finish()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 10 || len(lines) > 12 {
		t.Errorf("%d progress lines for 50 s at one per 5 s:\n%s", len(lines), out.String())
	}
	if !strings.Contains(lines[0], "10.0 MB / 100.0 MB") || !strings.Contains(lines[0], "( 10.0%)") ||
		!strings.Contains(lines[0], "2.0 MB/s") || !strings.Contains(lines[0], "45s left") {
		t.Errorf("first line: %q", lines[0])
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "100.0%") || !strings.Contains(last, "done in 50s") {
		t.Errorf("last line: %q", last)
	}
}

// TestCleanStaleTemporaryFiles: the hidden temporary files a killed download or extraction leaves behind are removed
// by the next run of the data code — those of a dead process and those untouched for StaleAfter — while a live
// process's stay.
func TestCleanStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, DirName)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no `true` to make a dead process id:", err)
	}
	deadPID := dead.Process.Pid
	write := func(path string, age time.Duration) string {
		if err := os.WriteFile(path, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := time.Now().Add(-age)
		if err := os.Chtimes(path, mt, mt); err != nil {
			t.Fatal(err)
		}
		return path
	}
	gone := []string{
		write(filepath.Join(dir, fmt.Sprintf(".%s.part-%d-123", ArchiveName, deadPID)), 0),
		write(filepath.Join(sub, fmt.Sprintf(".%s.tmp-%d-456", TrainFiles[4], deadPID)), 0),
		write(filepath.Join(sub, "."+TrainFiles[4]+".tmp-789"), 2*StaleAfter), // old name, old file
	}
	kept := []string{
		write(filepath.Join(dir, fmt.Sprintf(".%s.part-%d-123", ArchiveName, os.Getpid())), 0), // this process: live
		write(filepath.Join(sub, "."+TrainFiles[3]+".tmp-999"), time.Minute),                   // recent
		write(filepath.Join(dir, "notes.tmp-1"), 2*StaleAfter),                                 // not ours
	}
	if _, _, err := Load(dir); err == nil {
		t.Fatal("Load of a folder without data: want an error")
	}
	for _, p := range gone {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
