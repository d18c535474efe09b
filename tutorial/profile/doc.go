// Package profile gives the GoMLX port of "training optimizations: 5× throughput with GPU profiling and memory
// analysis" its eyes. The PyTorch tutorial leans on torch.profiler, the TensorBoard plugin and
// torch.cuda.max_memory_allocated; GoMLX has none of them, but the XLA CUDA PJRT plugin it runs on carries XLA's
// own profiler, and XLA knows every buffer at compile time. This package reaches both and turns them into the
// same numbers the tutorial discusses. It is the entry point ([CaptureAround], [Report]); the parts that stand
// on their own are subpackages, so that each can be read (and tested) apart:
//
//   - tutorial/profile/internal/xspace: decoding of the serialized XSpace that XLA's profiler returns
//     (protoc-gen-go's code, committed in tutorial/internal/xlaproto/xplanepb) and the GPU-plane reader
//     (kernels and copies per stream, device info). Internal because its types mirror xplane.proto, which
//     nothing outside this package should depend on; xspace/xspacetest is the test XSpace the tests of both
//     packages decode.
//   - tutorial/profile/internal/xlareflect: the reflection steps into go-xla's unexported fields that
//     [DeviceMemory] and memory.Compiled both take.
//   - tutorial/profile/nvml: an NVML sampler (utilization, memory, SM clock, power), the nvidia-smi view.
//   - tutorial/profile/memory: XLA's compiled memory per executable, the memory model fitted to it, the largest
//     batch that fits and the check of that prediction (memory.Report is [Report].Memory).
//   - tutorial/backend/autotune (beside the backend that plans the cache file): XLA's autotune cache.
//
// The files of this package:
//
//   - pjrt.go, pjrt_cgo.go, pjrt_nocgo.go: [StartCapture] and [Capture.Stop] run XLA's profiler (CUPTI
//     underneath) through the plugin's Profiler extension and return a serialized XSpace. pjrt_cgo.go (build tag
//     cgo && linux) is the one cgo binding of the plugin's C API in the tutorial: dlopen, the Profiler extension,
//     PJRT_Device_MemoryStats; pjrt_nocgo.go says why not elsewhere.
//   - capture.go: [CaptureAround] wraps a few training steps in a capture and an NVML sampler and returns the
//     [Report].
//   - devicememory.go: [DeviceMemory], the plugin allocator's statistics (PJRT_Device_MemoryStats); here rather
//     than in memory because it is a call through pjrt_cgo.go.
//   - kernels.go: GPU busy %, estimated SM efficiency and achieved occupancy (TensorBoard plugin definitions),
//     tensor-core share, kernel table, copy totals ([KernelSummary]) over a [Window].
//   - chrome.go: Chrome-trace JSON for Perfetto, and the raw .xplane.pb for XProf/TensorBoard.
//   - recommend.go: [StepBreakdown], and [Recommend]: rules that map the measurements to rungs of the ladder.
//   - report.go, render.go: a [Report] with its conditions, as JSON, Markdown and an HTML fragment (GoNB).
//   - testdata/fakeplugin: a C stand-in for the CUDA plugin, built by the cgo tests; testdata/h200_*.xplane.pb:
//     a real capture from an H200 (gpu_test.go, build tag gpu, writes one).
//
// Typical use in a training program on the GPU machine (GOMLX_BACKEND="xla:/abs/path/xla_cuda_plugin.so"):
//
//	rep, err := profile.CaptureAround("", func() error {
//		for range 5 {
//			if err := trainStep(); err != nil { // Each step waits for its results.
//				return err
//			}
//		}
//		return nil
//	})
//	if err != nil { ... }                    // errors.Is(err, profile.ErrNoPlugin) on CPU backends.
//	rep.Conditions.Batch, rep.Conditions.Precision, rep.Conditions.Data, rep.Conditions.Steps = 128, "bf16", "real", 5
//	_ = rep.Resummarize(profile.SummaryOptions{}) // Per-step figures now that Steps is known.
//	rep.Step = &meanStep                      // profile.StepBreakdown measured by the loop.
//	rep.Memory = &memory.Report{CapacityBytes: rep.Kernels.GPU.MemoryBytes, Compiled: ...}
//	rep.Recommend()
//	err = rep.WriteFiles("results/bf16_b128")  // report.{json,md,html}, trace.json.gz, plugins/profile/.../*.xplane.pb
package profile
