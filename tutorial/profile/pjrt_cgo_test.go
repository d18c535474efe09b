//go:build cgo && linux

package profile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The dlopen(RTLD_NOLOAD) path on a library that is loaded but is not a PJRT plugin: libc.
func TestStartCaptureLoadedLibraryWithoutPJRT(t *testing.T) {
	_, err := StartCapture("libc.so.6", DefaultCaptureOptions())
	if !errors.Is(err, ErrNoPlugin) || !strings.Contains(err.Error(), "GetPjrtApi") {
		t.Errorf("StartCapture(libc): %v", err)
	}
}

func TestDeviceMemoryStatsNeedsXLABackend(t *testing.T) {
	if _, err := DeviceMemory(nil, 0); err == nil {
		t.Error("nil backend accepted")
	}
	type fakePlugin struct{ api *int }
	type fakeBackend struct {
		plugin *fakePlugin
		client *struct{ addressableDevices []*struct{ cDevice *int } }
	}
	if _, err := DeviceMemory(&fakeBackend{plugin: &fakePlugin{}}, 0); err == nil || !strings.Contains(err.Error(), "not initialized") {
		t.Errorf("finalized backend: %v", err)
	}
}

// buildFakePlugin compiles testdata/fakeplugin/fake_pjrt_plugin.c into a shared library returning space.
func buildFakePlugin(t *testing.T, name string, space []byte, defines ...string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the fake PJRT plugin")
	}
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("static const unsigned char kSpace[] = {")
	for i, c := range space {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%d", c)
	}
	b.WriteString("};\n")
	spaceFile := filepath.Join(dir, "space.h")
	if err := os.WriteFile(spaceFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "fakeplugin", "fake_pjrt_plugin.c"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	args := append([]string{"-shared", "-fPIC", "-O1", "-o", out, fmt.Sprintf("-DSPACE_FILE=%q", spaceFile), src}, defines...)
	if msg, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("building fake plugin: %v\n%s", err, msg)
	}
	return out
}

// StartCapture/Stop against a fake plugin: extension chain walk, ProfileOptions bytes, collect_data's own buffer
// with its trailing NUL, and summarize of what comes back.
func TestCaptureFakePlugin(t *testing.T) {
	raw := testSpaceBytes()
	path := buildFakePlugin(t, "fake_xla_cuda_plugin.so", raw)
	if _, err := StartCapture(path, DefaultCaptureOptions()); !errors.Is(err, ErrNoPlugin) {
		t.Fatalf("before loading: %v", err)
	}
	if err := loadLibrary(path); err != nil {
		t.Fatal(err)
	}
	c, err := StartCapture(path, DefaultCaptureOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := StartCapture(path, DefaultCaptureOptions()); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second capture: %v", err)
	}
	info := c.Plugin()
	if info.Path != path || info.APIMajor != 0 || info.APIMinor != 115 || info.ProfilerAPISize != 104 {
		t.Errorf("plugin info %+v", info)
	}
	got, err := c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stop(); err == nil {
		t.Error("second Stop succeeded")
	}
	opts := DefaultCaptureOptions().Marshal()
	if want := append(append(append([]byte(nil), raw...), 0x22, byte(len(opts))), opts...); !bytes.Equal(got, want) {
		t.Fatalf("collected %d bytes, want %d (trailing NUL removed, options echoed)", len(got), len(want))
	}
	space := mustDecode(t, got)
	if hn := space.Hostnames; len(hn) != 2 || hn[1] != string(opts) {
		t.Errorf("hostnames %q", hn)
	}
	if w := c.Window(); w.EndNs <= w.StartNs {
		t.Errorf("window %+v", w)
	}

	// CaptureAround runs the steps and summarizes (window from the wall clock will not match the canned
	// timestamps: it falls back to the events' span, with a note).
	ran := 0
	rep, err := CaptureAround(path, func() error { ran++; return nil })
	if err != nil || ran != 1 || rep.Kernels == nil || rep.Kernels.KernelCount != 2 || rep.Kernels.WindowSource != "events" {
		t.Fatalf("CaptureAround: %v, ran %d, report %+v", err, ran, rep)
	}
	// A failing step still stops the capture.
	_, err = CaptureAround(path, func() error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("panicking steps: %v", err)
	}
	if c, err := StartCapture(path, DefaultCaptureOptions()); err != nil {
		t.Errorf("capture not released after a failed step: %v", err)
	} else {
		_, _ = c.Stop()
	}
}

func TestCaptureFakePluginStartError(t *testing.T) {
	path := buildFakePlugin(t, "fake_failing_cuda_plugin.so", testSpaceBytes(), "-DFAIL_START")
	if err := loadLibrary(path); err != nil {
		t.Fatal(err)
	}
	_, err := StartCapture(path, DefaultCaptureOptions())
	if err == nil || !strings.Contains(err.Error(), "start profiler") || !strings.Contains(err.Error(), "CUPTI could not be initialized (code 9)") {
		t.Errorf("start error: %v", err)
	}
	// The failed start released the session.
	ok := buildFakePlugin(t, "fake_ok_cuda_plugin.so", testSpaceBytes())
	if err := loadLibrary(ok); err != nil {
		t.Fatal(err)
	}
	c, err := StartCapture(ok, DefaultCaptureOptions())
	if err != nil {
		t.Fatalf("after a failed start: %v", err)
	}
	if _, err := c.Stop(); err != nil {
		t.Error(err)
	}
}
