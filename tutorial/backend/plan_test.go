package backend

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	fakeSite   = "/opt/torch/.venv/lib/python3.12/site-packages"
	fakePlugin = fakeSite + "/jax_plugins/xla_cuda13/xla_cuda_plugin.so"
	fakeCu13   = fakeSite + "/nvidia/cu13"
)

// fakeRoot creates the given logical files (empty, or with content after "=") under a temp dir.
func fakeRoot(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		name, content, _ := strings.Cut(f, "=")
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// gpuMachine mimics the GPU machine: a device node, /proc model, pip's jax-cuda13-pjrt and CUDA 13 wheels.
func gpuMachine(t *testing.T, extra ...string) string {
	return fakeRoot(t, append([]string{
		"/dev/nvidia0",
		"/proc/driver/nvidia/gpus/0000:19:00.0/information=Model: \t\t NVIDIA H200\nIRQ: 42\n",
		fakePlugin,
		fakeCu13 + "/nvvm/libdevice/libdevice.10.bc",
		fakeCu13 + "/bin/ptxas",
	}, extra...)...)
}

func envVar(p Plan, name string) (string, bool) {
	i := slices.IndexFunc(p.SetEnv, func(v EnvVar) bool { return v.Name == name })
	if i < 0 {
		return "", false
	}
	return p.SetEnv[i].Value, true
}

func TestGOMLXBackendWins(t *testing.T) {
	root := gpuMachine(t)
	p := MakePlan(Env{Root: root, Vars: map[string]string{"GOMLX_BACKEND": "go", "HOME": "/home/u"}})
	if p.Config != "go" || !p.FromEnv || p.Kind != KindGo || p.IsGPU {
		t.Fatalf("GOMLX_BACKEND=go: got %+v", p)
	}
	cfg := "xla:" + fakePlugin + ",preallocate=false"
	p = MakePlan(Env{Root: root, Vars: map[string]string{"GOMLX_BACKEND": cfg}}, WithXLAOptions("tf32=false"))
	if p.Config != cfg || p.Kind != KindCUDA || !p.IsGPU || p.PluginPath != fakePlugin {
		t.Fatalf("GOMLX_BACKEND=%s: got %+v", cfg, p)
	}
	if flags, _ := envVar(p, "XLA_FLAGS"); flags != CUDADataDirFlag+"="+fakeCu13 {
		t.Errorf("XLA_FLAGS for a GOMLX_BACKEND cuda plugin = %q", flags)
	}
}

func TestPipPluginFound(t *testing.T) {
	root := gpuMachine(t)
	env := Env{Root: root, NumCPU: 16, Vars: map[string]string{"HOME": "/home/u", "XLA_FLAGS": "--xla_gpu_autotune_level=4",
		AutotuneCacheEnv: "off"}} // the autotune cache has its own test
	p := MakePlan(env, WithXLAOptions("preallocate=false"))
	if want := "xla:" + fakePlugin + ",preallocate=false"; p.Config != want {
		t.Fatalf("Config = %q, want %q (plan %+v)", p.Config, want, p)
	}
	if p.Kind != KindCUDA || !p.IsGPU || p.GPU.Model != "NVIDIA H200" || p.CUDADataDir != fakeCu13 {
		t.Errorf("plan = %+v", p)
	}
	if !strings.Contains(p.Reason, "pip's jax-cuda13-pjrt plugin") || !strings.Contains(p.Reason, "GOMLX_BACKEND not set") {
		t.Errorf("Reason = %q", p.Reason)
	}
	want := map[string]string{
		"GOMLX_NO_AUTO_INSTALL": "1",
		"GOPJRT_CUDA_CHECKS":    "0",
		"XLA_FLAGS":             "--xla_gpu_autotune_level=4 " + CUDADataDirFlag + "=" + fakeCu13,
	}
	for k, v := range want {
		if got, _ := envVar(p, k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}

	// /usr/local/cuda is preferred when it has libdevice.
	root = gpuMachine(t, "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc")
	env.Root = root
	if p := MakePlan(env); p.CUDADataDir != "/usr/local/cuda" {
		t.Errorf("CUDADataDir = %q, want /usr/local/cuda", p.CUDADataDir)
	}

	// A data dir already in XLA_FLAGS is kept and not duplicated.
	env.Vars["XLA_FLAGS"] = "--xla_gpu_cuda_data_dir=/mine --xla_dump_to=/tmp/d"
	p = MakePlan(env)
	if v, ok := envVar(p, "XLA_FLAGS"); ok {
		t.Errorf("XLA_FLAGS rewritten to %q although it had a data dir", v)
	}

	// Choice's one line.
	c := newChoice(MakePlan(Env{Root: gpuMachine(t), Vars: map[string]string{}}), nil, nil)
	line := c.String()
	t.Log(line)
	if !strings.HasPrefix(line, "backend: xla:cuda (plugin "+fakePlugin+") on NVIDIA H200 — found pip's") || strings.Contains(line, "\n") {
		t.Errorf("String() = %q", line)
	}
}

func TestGoXLAInstalledPlugin(t *testing.T) {
	const nv = "/home/u/.local/lib/go-xla/nvidia"
	root := fakeRoot(t, "/dev/nvidia0", nv+"/pjrt_c_api_cuda_plugin.so", nv+"/cu13/nvvm/libdevice/libdevice.10.bc",
		fakePlugin) // go-xla's own install is searched before pip's
	p := MakePlan(Env{Root: root, Vars: map[string]string{"HOME": "/home/u"}})
	if p.Config != "xla:"+nv+"/pjrt_c_api_cuda_plugin.so" || p.CUDADataDir != nv+"/cu13" {
		t.Fatalf("plan = %+v", p)
	}
	if _, ok := envVar(p, "GOPJRT_CUDA_CHECKS"); ok {
		t.Errorf("GOPJRT_CUDA_CHECKS disabled for go-xla's own layout: %+v", p.SetEnv)
	}
}

func TestNoGPU(t *testing.T) {
	root := fakeRoot(t, fakePlugin, "/usr/lib/x86_64-linux-gnu/libcuda.so.1")
	p := MakePlan(Env{Root: root, NumCPU: 2, Vars: map[string]string{"HOME": "/home/u"}})
	if p.Config != "go" || p.Kind != KindGo || p.IsGPU {
		t.Fatalf("plan = %+v", p)
	}
	if !strings.HasPrefix(p.Reason, "no NVIDIA GPU found (no /dev/nvidia0") || !strings.Contains(p.Reason, "set GOMLX_BACKEND to override") {
		t.Errorf("Reason = %q", p.Reason)
	}
	c := newChoice(p, nil, nil)
	line := c.String()
	t.Log(line)
	if !strings.HasPrefix(line, "backend: go (pure Go, CPU, 2 cores) — no NVIDIA GPU found (no /dev/nvidia0") {
		t.Errorf("String() = %q", line)
	}
	if c.Device != "CPU (2 cores)" {
		t.Errorf("Device = %q", c.Device)
	}
}

func TestGPUWithoutPlugin(t *testing.T) {
	root := fakeRoot(t, "/dev/nvidia0")
	env := Env{Root: root, Vars: map[string]string{"HOME": "/home/u"}}
	p := MakePlan(env)
	if p.Config != "go" || !strings.Contains(p.Reason, "no CUDA PJRT plugin") {
		t.Fatalf("plan = %+v", p)
	}
	p = MakePlan(env, WithAutoInstall(0))
	if p.Config != "xla:cuda" || !p.AutoInstall || p.AutoInstallPlugin != "cuda" {
		t.Fatalf("with auto-install: plan = %+v", p)
	}
	if _, ok := envVar(p, NoAutoInstallEnv); ok {
		t.Errorf("%s set although auto-install was opted into", NoAutoInstallEnv)
	}
	env.Vars[NoAutoInstallEnv] = ""
	if p = MakePlan(env, WithAutoInstall(0)); p.AutoInstall {
		t.Errorf("user's %s ignored: %+v", NoAutoInstallEnv, p)
	}
}

func TestMergeXLAFlags(t *testing.T) {
	for _, tc := range []struct{ in, dir, want string }{
		{"", "/usr/local/cuda", "--xla_gpu_cuda_data_dir=/usr/local/cuda"},
		{"  --xla_gpu_autotune_level=0 ", "/c", "--xla_gpu_autotune_level=0 --xla_gpu_cuda_data_dir=/c"},
		{"--xla_gpu_cuda_data_dir=/c", "/c", "--xla_gpu_cuda_data_dir=/c"},
		{"--a --xla_gpu_cuda_data_dir=/other", "/c", "--a --xla_gpu_cuda_data_dir=/other"},
		{"--a", "", "--a"},
	} {
		if got, _ := MergeXLAFlags(tc.in, tc.dir); got != tc.want {
			t.Errorf("MergeXLAFlags(%q, %q) = %q, want %q", tc.in, tc.dir, got, tc.want)
		}
	}
}

func TestPJRTPluginOverride(t *testing.T) {
	const mine = "/srv/plugins/xla_cuda_plugin.so"
	root := gpuMachine(t, mine)
	env := Env{Root: root, Vars: map[string]string{"PJRT_PLUGIN": mine}}
	p := MakePlan(env)
	if p.Config != "xla:"+mine || p.Kind != KindCUDA || !strings.HasPrefix(p.Reason, "PJRT_PLUGIN is set") {
		t.Fatalf("plan = %+v", p)
	}
	env.Vars["PJRT_PLUGIN"] = "/nonexistent/xla_cuda_plugin.so"
	p = MakePlan(env)
	if p.PluginPath != fakePlugin || len(p.Notes) == 0 || !strings.Contains(p.Notes[0], "PJRT_PLUGIN") {
		t.Fatalf("missing PJRT_PLUGIN: plan = %+v", p)
	}
	// The user's word was not followed: the one-line choice says so, not only the notes.
	if c := newChoice(p, nil, nil); len(p.Warnings) != 1 || !strings.Contains(c.String(), "WARNING: PJRT_PLUGIN=") {
		t.Errorf("missing PJRT_PLUGIN not in the choice's line: %s", c)
	}
}
