package backend_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
)

// MakePlan decides from an environment alone, with no side effects. Env.Root stands in for the file system, so a
// machine without a GPU — or one with pip's CUDA plugin — can be described by a few files in a folder.
func ExampleMakePlan() {
	root, err := os.MkdirTemp("", "backend-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	env := backend.Env{Root: root, NumCPU: 2, Vars: map[string]string{"HOME": "/home/u"}}

	p := backend.MakePlan(env) // an empty file system: no GPU
	fmt.Println(p.Config, p.Kind, p.IsGPU)
	fmt.Println(p.Reason)

	// The GPU machine: a device node and pip's jax-cuda13-pjrt plugin with CUDA 13's libdevice beside it.
	site := "/opt/venv/lib/python3.12/site-packages"
	for _, f := range []string{"/dev/nvidia0", site + "/jax_plugins/xla_cuda13/xla_cuda_plugin.so",
		site + "/nvidia/cu13/nvvm/libdevice/libdevice.10.bc"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
	env.Vars[backend.AutotuneCacheEnv] = "off"
	env.Vars[backend.ExecutableCacheEnv] = "off"
	p = backend.MakePlan(env)
	fmt.Println(p.Config, p.Kind, p.IsGPU)
	fmt.Println(p.Reason)
	fmt.Println(p.CUDADataDir)

	env.Vars[backend.ConfigEnvVar] = "go" // GOMLX_BACKEND wins
	p = backend.MakePlan(env)
	fmt.Println(p.Config, p.Reason)
	// Output:
	// go cpu-go false
	// no NVIDIA GPU found (no /dev/nvidia0); set GOMLX_BACKEND to override
	// xla:/opt/venv/lib/python3.12/site-packages/jax_plugins/xla_cuda13/xla_cuda_plugin.so cuda true
	// found pip's jax-cuda13-pjrt plugin; GOMLX_BACKEND not set
	// /opt/venv/lib/python3.12/site-packages/nvidia/cu13
	// go GOMLX_BACKEND="go" is set
}

// Discover applies the plan to this process (environment variables, caches) and creates the backend; the
// returned Choice says in one line which backend runs and why. (Not run as a test: it depends on the machine.)
func ExampleDiscover() {
	choice, err := backend.Discover(backend.WithOutput(nil)) // nil: print nothing; the caller prints the Choice
	if err != nil {
		panic(err)
	}
	defer choice.Backend.Finalize()
	fmt.Println(choice) // e.g. "backend: go (pure Go, 2 cores) — no NVIDIA GPU found (…)"
	fmt.Println(choice.Device, choice.IsGPU)
}
