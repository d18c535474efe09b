// Package backend picks the best GoMLX backend for training on this machine and says why in one line.
//
// The CLI (trainopt train|ladder|profile) and the GoNB notebooks call [Discover] once and print the
// returned [Choice]: a tutorial's timings mean nothing unless the reader knows whether they came from
// the pure-Go backend or from XLA on a GPU, and a silent multi-gigabyte download (or a hang on a machine
// without network) is the worst first experience.
//
// The decision, in order:
//
//  1. GOMLX_BACKEND set: it wins, used exactly as given ("go", "xla:cuda",
//     "xla:/abs/xla_cuda_plugin.so,preallocate=false"). CUDA environment fixes below still apply.
//  2. An NVIDIA GPU plausibly present (/dev/nvidia0, /proc/driver/nvidia/...) and a CUDA PJRT plugin found:
//     $PJRT_PLUGIN, go-xla's install directories (or $PJRT_PLUGIN_LIBRARY_PATH), then pip's
//     site-packages/jax_plugins/xla_cuda*/xla_cuda_plugin.so. The config is "xla:/abs/plugin.so".
//  3. Otherwise the pure-Go backend "go".
//
// Auto-install of PJRT plugins (go-xla downloads from pypi.org) is off unless the caller opts in with
// [WithAutoInstall]; when on, a line announces the download and a timeout bounds it.
//
// [MakePlan] is the side-effect-free part (environment variables and a file-system root in, [Plan] out),
// so the decision logic is unit-tested with fake plugin files in a temporary directory. [Discover] applies
// the plan to the process environment and creates the backend.
//
// autotune.go plans XLA's autotune cache file (where it lives, when it is loaded); the subpackage
// tutorial/backend/autotune reads and filters what XLA wrote there.
package backend
