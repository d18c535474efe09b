package profile

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/xplanepb"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace"
	"google.golang.org/protobuf/encoding/protowire"
)

func TestStartCaptureWithoutPlugin(t *testing.T) {
	if loaded := loadedPluginCandidates(); len(loaded) > 0 {
		t.Skipf("a CUDA PJRT plugin is loaded in this process: %v", loaded)
	}
	t.Setenv("GOMLX_BACKEND", "")
	for _, path := range []string{"", "/nonexistent/xla_cuda_plugin.so", "cuda"} {
		c, err := StartCapture(path, DefaultCaptureOptions())
		if c != nil || !errors.Is(err, ErrNoPlugin) {
			t.Fatalf("StartCapture(%q) = %v, %v; want ErrNoPlugin", path, c, err)
		}
		if !strings.Contains(err.Error(), "no CUDA PJRT plugin loaded: kernel-level profile needs the XLA CUDA backend") {
			t.Errorf("error message: %v", err)
		}
	}
	// CaptureAround does not run the steps without a plugin.
	ran := false
	r, err := CaptureAround("", func() error { ran = true; return nil })
	if r != nil || !errors.Is(err, ErrNoPlugin) || ran {
		t.Errorf("CaptureAround: %v %v, steps ran %v", r, err, ran)
	}
}

func TestCaptureOptionsMarshal(t *testing.T) {
	b := DefaultCaptureOptions().Marshal()
	got := map[protowire.Number]uint64{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.VarintType {
			t.Fatalf("bad tag")
		}
		b = b[n:]
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			t.Fatal("bad varint")
		}
		b = b[n:]
		got[num] = v
	}
	// profiler_options.proto: include_dataset_ops=1, host_tracer_level=2, device_tracer_level=3,
	// python_tracer_level=4, version=5, device_type=6 (GPU=2), enable_hlo_proto=7.
	want := map[protowire.Number]uint64{1: 0, 2: 2, 3: 1, 4: 0, 5: 1, 6: 2, 7: 0}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("field %d = %d, want %d", k, got[k], v)
		}
	}
}

func TestPluginPathFromEnv(t *testing.T) {
	cases := map[string]string{
		"xla:/opt/jax/xla_cuda_plugin.so,preallocate=false": "/opt/jax/xla_cuda_plugin.so",
		"xla:cuda":          "cuda",
		"go":                "",
		"":                  "",
		"stablehlo:/x/y.so": "/x/y.so",
	}
	for env, want := range cases {
		t.Setenv("GOMLX_BACKEND", env)
		if got := PluginPathFromEnv(); got != want {
			t.Errorf("GOMLX_BACKEND=%q: %q, want %q", env, got, want)
		}
	}
}

func TestTrimTrailingZero(t *testing.T) {
	raw := testSpaceBytes()
	if got := trimTrailingZero(append(append([]byte(nil), raw...), 0)); !bytes.Equal(got, raw) {
		t.Error("trailing NUL not removed")
	}
	if got := trimTrailingZero(raw); !bytes.Equal(got, raw) {
		t.Error("valid buffer changed")
	}
	// A message whose last byte is a legitimate 0 (an int64 stat with value 0 at the end of the last plane).
	plane := &xplanepb.XPlane{Name: "/host:CPU", Stats: []*xplanepb.XStat{statInt(1, 0)}}
	b := spaceBytes(&xplanepb.XSpace{Planes: []*xplanepb.XPlane{plane}})
	if b[len(b)-1] != 0 {
		t.Fatal("test message should end in 0")
	}
	if got := trimTrailingZero(b); !bytes.Equal(got, b) {
		t.Error("legitimate trailing 0 removed")
	}
	if s, err := xspace.DecodeXSpace(trimTrailingZero(append(b, 0))); err != nil || len(s.Planes) != 1 {
		t.Errorf("decode after trim: %v", err)
	}
}
