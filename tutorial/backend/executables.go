package backend

// A persistent cache of compiled XLA executables, so that a process that compiles a program another process
// compiled before (the next notebook cell, the next ladder run) loads it instead.
//
// Why: with the autotune cache warm, compiling MobileNetV2's training step still took 4–10 s on the H200 (XLA's
// HLO passes, LLVM and ptxas for ~900 kernels), and every GoNB cell is a new process. PJRT can serialize a
// compiled executable (PJRT_Executable_Serialize) and load it back (PJRT_Executable_DeserializeAndLoad) — JAX's
// persistent compilation cache is built on that pair — but go-xla v0.4.13 has no Go method for either, and
// GoMLX's xla backend builds its executables inside go-xla where no caller can reach. So the cache sits below
// both, in the plugin's own function table: [InstallExecutableCache] replaces the table's PJRT_Client_Compile
// entry with a function that first looks the program up here (executables_cgo.go). go-xla and GoMLX see an
// ordinary compile that happened to be fast.
//
// The key is a SHA-256 of everything that decides what XLA builds: the program (StableHLO bytecode) and its
// serialized CompileOptionsProto, the plugin file (path, size, modification time), the GPU model, XLA_FLAGS
// without the flags that only say where caches live, and the cuDNN errata file (which changes the engines
// XLA may pick). A file holds one executable behind a header that repeats the key and a checksum of the
// payload, so a renamed, cut-short or foreign file is a miss (and is removed), never a crash; an executable
// that PJRT refuses to load, or that cannot answer go-xla's questions about it (name, outputs, memory
// statistics), is compiled again and replaced.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

// ExecutableCacheEnv chooses the executable cache: unset means the default directory beside the autotune cache,
// "off" disables it, anything else is the (absolute) directory to use.
const ExecutableCacheEnv = "TRAINOPT_EXECUTABLE_CACHE"

// executableFileMagic starts every cache file; the version after it changes whenever the layout does.
const (
	executableFileMagic   = "trainopt-pjrt-executable\n"
	executableFileVersion = 1
	executableFileExt     = ".pjrtexe"
	// headerLen: magic, version (uint32), key (32 bytes), payload length (uint64), payload SHA-256 (32 bytes).
	executableHeaderLen = len(executableFileMagic) + 4 + 32 + 8 + 32
)

// DefaultExecutableCacheBytes bounds the cache directory: after each store the oldest files (by last use) are
// removed until the rest fit. A MobileNetV2 training step serializes to tens of megabytes.
const DefaultExecutableCacheBytes = 4 << 30

// ExecutableCache is a directory of serialized executables keyed by program and compile conditions.
type ExecutableCache struct {
	Dir string
	// MaxBytes bounds the directory (DefaultExecutableCacheBytes when 0).
	MaxBytes int64
	// salt is hashed before every program: the conditions under which an executable is valid.
	salt []byte

	mu    sync.Mutex
	stats ExecutableCacheStats
}

// ExecutableCacheStats counts what the cache did in this process.
type ExecutableCacheStats struct {
	Hits, Misses, Stores, Rejected int
	// LoadTime is the time spent reading and deserializing hits; StoreTime serializing and writing.
	LoadTime, StoreTime time.Duration
	// LastError is the last problem the cache met (a rejected file, a failed write); empty when none.
	LastError string
}

// String is a short summary for logs, e.g. "2 loaded (1.3 s), 1 compiled and stored".
func (s ExecutableCacheStats) String() string {
	parts := []string{fmt.Sprintf("%d loaded (%.1f s)", s.Hits, s.LoadTime.Seconds()),
		fmt.Sprintf("%d compiled", s.Misses)}
	if s.Stores > 0 {
		parts[1] += fmt.Sprintf(" and %d stored (%.1f s)", s.Stores, s.StoreTime.Seconds())
	}
	if s.Rejected > 0 {
		parts = append(parts, fmt.Sprintf("%d rejected (%s)", s.Rejected, s.LastError))
	}
	return strings.Join(parts, ", ")
}

// NewExecutableCache opens (creating) dir for executables valid under the given conditions: salt is any text
// that names them (see [ExecutableCacheSalt]).
func NewExecutableCache(dir, salt string) (*ExecutableCache, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("executable cache %q: not an absolute path", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("executable cache: %w", err)
	}
	return &ExecutableCache{Dir: dir, salt: []byte(salt)}, nil
}

// ExecutableCacheSalt names the conditions an executable was compiled under: the plugin's identity, the device,
// XLA_FLAGS without the cache-location flags (they change where XLA keeps results, not what it compiles; the
// autotune load flag is only present once the autotune file exists, so keeping it would make a cold process's
// entries unreachable to every warm one) and the cuDNN errata file's contents.
func ExecutableCacheSalt(env Env, pluginPath, device string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s %s\ndevice %s\n", pluginPath, env.pluginKey(pluginPath), device)
	var kept []string
	for _, f := range strings.Fields(env.Getenv("XLA_FLAGS")) {
		name, _, _ := strings.Cut(f, "=")
		switch name {
		case DumpAutotuneFlag, LoadAutotuneFlag, KernelCacheFlag:
			continue
		}
		kept = append(kept, f)
	}
	fmt.Fprintf(&b, "xla_flags %s\n", strings.Join(kept, " "))
	if errata := env.Getenv("CUDNN_ERRATA_JSON_FILE"); errata != "" {
		data, err := env.readFile(errata)
		fmt.Fprintf(&b, "cudnn_errata %s %x %v\n", errata, sha256.Sum256(data), err)
	}
	return b.String()
}

// Key is the cache key of one compilation.
func (c *ExecutableCache) Key(format string, program, compileOptions []byte) [32]byte {
	h := sha256.New()
	for _, part := range [][]byte{c.salt, []byte(format), program, compileOptions} {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:]) // length-prefixed, so no two different part lists hash alike
		h.Write(part)
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func (c *ExecutableCache) path(key [32]byte) string {
	return filepath.Join(c.Dir, fmt.Sprintf("%x%s", key, executableFileExt))
}

// Load returns the serialized executable stored under key, or ok=false. A file that is not a whole, matching
// entry is removed (and counted as rejected).
func (c *ExecutableCache) Load(key [32]byte) (payload []byte, ok bool) {
	p := c.path(key)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err == nil {
		payload, err = decodeExecutableFile(data, key)
	}
	if err != nil {
		c.Reject(key, fmt.Errorf("%s: %w", filepath.Base(p), err))
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // last use, for eviction
	return payload, true
}

// Reject removes the entry under key (a file that did not decode, or that PJRT refused) and records why.
func (c *ExecutableCache) Reject(key [32]byte, why error) {
	_ = os.Remove(c.path(key))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Rejected++
	c.stats.LastError = why.Error()
}

// Store writes payload under key atomically (a temporary file renamed into place, so a reader never sees half a
// file and two writers of one key leave one whole file), then trims the directory to MaxBytes.
func (c *ExecutableCache) Store(key [32]byte, payload []byte) error {
	if err := artifact.WriteFile(c.path(key), encodeExecutableFile(key, payload)); err != nil {
		err = fmt.Errorf("executable cache: storing %x: %w", key[:4], err)
		c.mu.Lock()
		c.stats.LastError = err.Error()
		c.mu.Unlock()
		return err
	}
	c.trim()
	return nil
}

// trim removes the least recently used entries (and temporary files older than an hour: a writer that was
// killed) until the directory fits MaxBytes.
func (c *ExecutableCache) trim() {
	limit := c.MaxBytes
	if limit <= 0 {
		limit = DefaultExecutableCacheBytes
	}
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !strings.Contains(e.Name(), executableFileExt) {
			continue
		}
		p := filepath.Join(c.Dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") { // artifact.Write's temporary file: ".<key>.pjrtexe.tmp-<pid>-<n>"
			if time.Since(info.ModTime()) > time.Hour {
				_ = os.Remove(p)
			}
			continue
		}
		files = append(files, file{p, info.Size(), info.ModTime()})
		total += info.Size()
	}
	slices.SortFunc(files, func(a, b file) int { return a.used.Compare(b.used) })
	for _, f := range files {
		if total <= limit {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}

// Stats returns what the cache did so far in this process.
func (c *ExecutableCache) Stats() ExecutableCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *ExecutableCache) count(f func(*ExecutableCacheStats)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.stats)
}

// Entries is how many executables the directory holds.
func (c *ExecutableCache) Entries() int {
	m, _ := filepath.Glob(filepath.Join(c.Dir, "*"+executableFileExt))
	n := 0
	for _, p := range m {
		if !strings.HasPrefix(filepath.Base(p), ".") {
			n++
		}
	}
	return n
}

func encodeExecutableFile(key [32]byte, payload []byte) []byte {
	var b bytes.Buffer
	b.Grow(executableHeaderLen + len(payload))
	b.WriteString(executableFileMagic)
	_ = binary.Write(&b, binary.LittleEndian, uint32(executableFileVersion))
	b.Write(key[:])
	_ = binary.Write(&b, binary.LittleEndian, uint64(len(payload)))
	sum := sha256.Sum256(payload)
	b.Write(sum[:])
	b.Write(payload)
	return b.Bytes()
}

// decodeExecutableFile checks the header against key and the payload against its checksum.
func decodeExecutableFile(data []byte, key [32]byte) ([]byte, error) {
	if len(data) < executableHeaderLen || string(data[:len(executableFileMagic)]) != executableFileMagic {
		return nil, errors.New("not an executable cache file")
	}
	h := data[len(executableFileMagic):]
	if v := binary.LittleEndian.Uint32(h); v != executableFileVersion {
		return nil, fmt.Errorf("cache file version %d, want %d", v, executableFileVersion)
	}
	if !bytes.Equal(h[4:36], key[:]) {
		return nil, errors.New("the file holds another program's executable")
	}
	n := binary.LittleEndian.Uint64(h[36:44])
	payload := data[executableHeaderLen:]
	if uint64(len(payload)) != n {
		return nil, fmt.Errorf("payload is %d bytes, the header says %d (cut short?)", len(payload), n)
	}
	if sum := sha256.Sum256(payload); !bytes.Equal(sum[:], h[44:76]) {
		return nil, errors.New("payload checksum mismatch")
	}
	return payload, nil
}
