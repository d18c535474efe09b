package cifar

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ArchiveName is the file name the downloaded archive is stored under in the
// destination folder. Placing a copy there by hand (for machines without
// network access) makes [Download] verify and use it instead of fetching.
const ArchiveName = "cifar-10-binary.tar.gz"

// Archive describes the file [Download] fetches and how to verify it.
type Archive struct {
	URL    string
	Size   int64  // exact size in bytes
	SHA256 string // lowercase hex; required
	MD5    string // lowercase hex; optional (the checksum the dataset page publishes)
	// MemberSize is the exact size of each of the six .bin members; 0 means
	// FileSize. Only tests, with small fake archives, set it.
	MemberSize int64
}

// OfficialArchive is the binary version of CIFAR-10 published by its
// authors. Size and MD5 are the published values; SHA-256 is pinned too
// because MD5 alone is no longer collision-resistant.
var OfficialArchive = Archive{
	URL:    "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz",
	Size:   170052171,
	MD5:    "c32a1d4ab5d03f1284b67883e8d87530",
	SHA256: "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd",
}

// Default network timeouts. They make "no network" fail within seconds with
// a clear error instead of hanging, while allowing a slow but live download
// of the 170 MB archive to take as long as it needs.
const (
	DefaultConnectTimeout  = 15 * time.Second // TCP connect and TLS handshake
	DefaultResponseTimeout = 30 * time.Second // request started → response headers (a proxy's CONNECT included)
	DefaultStallTimeout    = 60 * time.Second // no body bytes for this long
	DefaultProgressEvery   = 5 * time.Second  // one progress line per interval
)

// DownloadOption configures [Download].
type DownloadOption func(*downloadConfig)

type downloadConfig struct {
	archive                         Archive
	client                          *http.Client
	connectTimeout, responseTimeout time.Duration
	stallTimeout, progressEvery     time.Duration
	keepArchive                     bool
	now                             func() time.Time
}

// WithArchive replaces [OfficialArchive]: tests point it at a local server
// and a small fake archive; a mirror can be used the same way.
func WithArchive(a Archive) DownloadOption { return func(c *downloadConfig) { c.archive = a } }

// WithHTTPClient sets the HTTP client (e.g. a test server's TLS client). The
// client's own timeouts then apply instead of the connect and response
// timeouts; the stall timeout still applies.
func WithHTTPClient(cl *http.Client) DownloadOption {
	return func(c *downloadConfig) { c.client = cl }
}

// WithTimeouts overrides the connect, response-header and stall timeouts
// (zero keeps a default).
func WithTimeouts(connect, response, stall time.Duration) DownloadOption {
	return func(c *downloadConfig) {
		if connect > 0 {
			c.connectTimeout = connect
		}
		if response > 0 {
			c.responseTimeout = response
		}
		if stall > 0 {
			c.stallTimeout = stall
		}
	}
}

// WithProgressEvery sets the interval between progress lines.
func WithProgressEvery(d time.Duration) DownloadOption {
	return func(c *downloadConfig) { c.progressEvery = d }
}

// WithKeepArchive keeps the verified archive after extraction (by default
// it is deleted, since the six extracted files hold all of its data).
func WithKeepArchive(keep bool) DownloadOption {
	return func(c *downloadConfig) { c.keepArchive = keep }
}

var (
	errStalled  = errors.New("download stalled")
	errNoAnswer = errors.New("timeout waiting for the response")
)

// proxyWords is " through the proxy URL" when the request goes through one (the environment's HTTPS_PROXY /
// HTTP_PROXY for the default client), "" otherwise.
func proxyWords(client *http.Client, req *http.Request) string {
	tr, ok := client.Transport.(*http.Transport)
	if client.Transport == nil {
		tr, ok = http.DefaultTransport.(*http.Transport)
	}
	if !ok || tr.Proxy == nil {
		return ""
	}
	u, err := tr.Proxy(req)
	if err != nil || u == nil {
		return ""
	}
	return " through the proxy " + u.Redacted() + " (HTTPS_PROXY / HTTP_PROXY)"
}

// Download makes sure destDir/cifar-10-batches-bin holds the CIFAR-10 binary
// files and returns that folder.
//
//   - If the six files are already there at their exact sizes, it does
//     nothing and says so.
//   - If destDir/cifar-10-binary.tar.gz exists and verifies, it is used
//     (copy it there by hand on machines without network access).
//   - Otherwise it fetches the archive into a temporary file in destDir,
//     printing progress to progress (nil for silence), verifies its size,
//     SHA-256 and MD5, and only then renames it into place: an interrupted
//     or corrupt download never leaves a file that looks complete, and the
//     temporary file is removed on any failure.
//   - It extracts only the expected members (the six .bin files,
//     batches.meta.txt, readme.html), rejecting absolute paths, "..",
//     links and unexpected names or sizes, each through a temporary file
//     renamed into place.
//
// ctx cancels the download; connect/response/stall timeouts (see
// [WithTimeouts]) turn a missing network into a prompt error.
func Download(ctx context.Context, destDir string, progress io.Writer, opts ...DownloadOption) (string, error) {
	cfg := downloadConfig{
		archive:         OfficialArchive,
		connectTimeout:  DefaultConnectTimeout,
		responseTimeout: DefaultResponseTimeout,
		stallTimeout:    DefaultStallTimeout,
		progressEvery:   DefaultProgressEvery,
		now:             time.Now,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if progress == nil {
		progress = io.Discard
	}
	a := cfg.archive
	memberSize := a.MemberSize
	if memberSize == 0 {
		memberSize = FileSize
	}
	target := filepath.Join(destDir, DirName)

	if d, err := checkSized(destDir, memberSize); err == nil {
		if synth, _ := readMarker(d); synth {
			return "", fmt.Errorf("cifar: %s holds the synthetic stand-in, not CIFAR-10; "+
				"remove it or download into another folder: %w", d, ErrSyntheticData)
		}
		fmt.Fprintf(progress, "cifar: CIFAR-10 already present in %s (all 6 files, sizes verified); nothing to download\n", d)
		return d, nil
	}
	for _, dir := range []string{destDir, target} {
		if synth, _ := readMarker(dir); synth {
			return "", fmt.Errorf("cifar: %s holds synthetic data; refusing to mix it with CIFAR-10, "+
				"remove it or download into another folder: %w", dir, ErrSyntheticData)
		}
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("cifar: download: %w", err)
	}
	if err := os.MkdirAll(destDir, 0o755); err != nil {
		return "", fmt.Errorf("cifar: %w", err)
	}
	cleanStale(destDir, progress)
	cleanStale(target, progress)

	archivePath := filepath.Join(destDir, ArchiveName)
	if _, statErr := os.Stat(archivePath); statErr == nil {
		if err := verifyArchiveFile(archivePath, a); err == nil {
			fmt.Fprintf(progress, "cifar: using already downloaded archive %s (size and checksums verified)\n", archivePath)
		} else {
			fmt.Fprintf(progress, "cifar: ignoring existing %s: %v\n", archivePath, err)
			if err := fetch(ctx, &cfg, archivePath, progress); err != nil {
				return "", err
			}
		}
	} else if err := fetch(ctx, &cfg, archivePath, progress); err != nil {
		return "", err
	}

	fmt.Fprintf(progress, "cifar: extracting %s into %s\n", archivePath, target)
	if err := extractArchive(ctx, archivePath, destDir, memberSize); err != nil {
		return "", err
	}
	d, err := checkSized(destDir, memberSize)
	if err != nil {
		return "", fmt.Errorf("cifar: after extracting %s: %w", archivePath, err)
	}
	if !cfg.keepArchive {
		if err := os.Remove(archivePath); err != nil {
			return "", fmt.Errorf("cifar: %w", err)
		}
	}
	fmt.Fprintf(progress, "cifar: CIFAR-10 ready in %s\n", d)
	return d, nil
}

// fetch downloads cfg.archive into archivePath via a verified temporary
// file.
func fetch(ctx context.Context, cfg *downloadConfig, archivePath string, progress io.Writer) (err error) {
	a := cfg.archive
	client := cfg.client
	if client == nil {
		tr := &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: cfg.connectTimeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   cfg.connectTimeout,
			ResponseHeaderTimeout: cfg.responseTimeout,
			ForceAttemptHTTP2:     true,
		}
		defer tr.CloseIdleConnections()
		client = &http.Client{Transport: tr}
	}
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	fail := func(what string, err error) error {
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
		if parent.Err() != nil { // the caller cancelled: no advice needed
			return fmt.Errorf("cifar: %s %s: %w", what, a.URL, err)
		}
		return fmt.Errorf("cifar: %s %s: %w (no network? copy %s into %s by hand and run again, "+
			"or use the synthetic stand-in)", what, a.URL, err, ArchiveName, filepath.Dir(archivePath))
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL, nil)
	if err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	fmt.Fprintf(progress, "cifar: downloading %s (%s) to %s\n", a.URL, megabytes(a.Size), archivePath)
	// The answer watchdog bounds everything up to the response headers, a proxy's CONNECT included (net/http
	// gives that one a minute of its own and then says only "context deadline exceeded"), and says who did not
	// answer.
	answer := time.AfterFunc(cfg.responseTimeout, func() {
		cancel(fmt.Errorf("no answer from %s%s within %s: %w", req.URL.Host, proxyWords(client, req),
			cfg.responseTimeout, errNoAnswer))
	})
	resp, err := client.Do(req)
	answer.Stop()
	if err != nil {
		return fail("downloading", err)
	}
	defer resp.Body.Close()

	// The stall watchdog cancels the request if no bytes arrive for
	// stallTimeout; every body read that returns data pushes it back.
	watchdog := time.AfterFunc(cfg.stallTimeout, func() {
		cancel(fmt.Errorf("%w: no data received for %s", errStalled, cfg.stallTimeout))
	})
	defer watchdog.Stop()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("cifar: downloading %s: server answered %s", a.URL, resp.Status)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != a.Size {
		return fmt.Errorf("cifar: downloading %s: server announces %s bytes, expected %s: %w",
			a.URL, commas(resp.ContentLength), commas(a.Size), ErrFileSize)
	}

	tmp, err := os.CreateTemp(filepath.Dir(archivePath), tempPattern(ArchiveName, "part"))
	if err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	body := &stallReader{r: resp.Body, onData: func() { watchdog.Reset(cfg.stallTimeout) }}

	sha, md := sha256.New(), md5.New()
	pw := newProgressWriter(progress, a.Size, cfg.progressEvery, cfg.now)
	n, err := io.Copy(io.MultiWriter(tmp, sha, md, pw), io.LimitReader(body, a.Size+1))
	if err != nil {
		return fail(fmt.Sprintf("download interrupted after %s of %s bytes of", commas(n), commas(a.Size)), err)
	}
	pw.finish()
	if err = checkDigests(n, sha, md, a); err != nil {
		return fmt.Errorf("cifar: downloaded %s: %w", a.URL, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	if err = os.Rename(tmp.Name(), archivePath); err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	return nil
}

// stallReader calls onData after every read that returned bytes.
type stallReader struct {
	r      io.Reader
	onData func()
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.onData()
	}
	return n, err
}

// verifyArchiveFile checks an archive already on disk.
func verifyArchiveFile(path string, a Archive) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sha, md := sha256.New(), md5.New()
	n, err := io.Copy(io.MultiWriter(sha, md), io.LimitReader(f, a.Size+1))
	if err != nil {
		return err
	}
	return checkDigests(n, sha, md, a)
}

// checkDigests compares the size and checksums of n bytes hashed into sha
// and md with the expected ones.
func checkDigests(n int64, sha, md hash.Hash, a Archive) error {
	if n != a.Size {
		return fmt.Errorf("got %s bytes, expected %s: %w", commas(n), commas(a.Size), ErrFileSize)
	}
	if got := hex.EncodeToString(sha.Sum(nil)); got != a.SHA256 {
		return fmt.Errorf("SHA-256 is %s, expected %s: %w", got, a.SHA256, ErrChecksum)
	}
	if a.MD5 != "" {
		if got := hex.EncodeToString(md.Sum(nil)); got != a.MD5 {
			return fmt.Errorf("MD5 is %s, expected %s: %w", got, a.MD5, ErrChecksum)
		}
	}
	return nil
}

// Fetch is Download for a notebook or a first run: CIFAR-10 in dir if it is there, else the official archive
// (bounded to 20 minutes, with timeouts that name a silent server), and what happened in words — never an error,
// since the caller falls back to the synthetic set.
func Fetch(dir string, progress io.Writer) string {
	if d, err := Check(dir); err == nil {
		return "CIFAR-10 found at " + d
	}
	fmt.Fprintf(progress, "data: CIFAR-10 not in %s — trying the official archive (170 MB, verified)…\n", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	d, err := Download(ctx, dir, progress, WithTimeouts(10*time.Second, 20*time.Second, 30*time.Second))
	if err != nil {
		return "download failed (" + strings.Join(strings.Fields(err.Error()), " ") + ")"
	}
	return "downloaded CIFAR-10 to " + d
}
