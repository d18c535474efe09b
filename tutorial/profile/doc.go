// Package profile gives the GoMLX port of "training optimizations: 5× throughput with GPU profiling and memory
// analysis" its eyes. The PyTorch tutorial leans on torch.profiler, the TensorBoard plugin and
// torch.cuda.max_memory_allocated; GoMLX has none of them, but the XLA CUDA PJRT plugin it runs on carries XLA's
// own profiler, and XLA knows every buffer at compile time. This package reaches both and turns them into the
// same numbers the tutorial discusses:
//
//   - pjrt*.go: StartCapture/Stop run XLA's profiler (CUPTI underneath) through the plugin's Profiler extension
//     and return a serialized XSpace; CaptureAround wraps a few training steps.
//   - xspace.go: DecodeXSpace reads it (protowire, no generated code).
//   - gpuevents.go, kernels.go: GPU kernels and copies per stream; GPU busy %, estimated SM efficiency and
//     achieved occupancy (TensorBoard plugin definitions), tensor-core share, kernel table, copy totals.
//   - chrome.go: Chrome-trace JSON for Perfetto, and the raw .xplane.pb for XProf/TensorBoard.
//   - nvml.go: an NVML sampler (utilization, memory, SM clock, power), the nvidia-smi view.
//   - memory.go: XLA's compiled memory per executable, the allocator's peak, and the largest batch that fits.
//   - recommend.go: rules that map the measurements to rungs of the optimization ladder.
//   - report.go, render.go: a Report with its conditions, as JSON, Markdown and an HTML fragment (GoNB).
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
//	rep.Memory = &memory.MemoryReport{CapacityBytes: rep.Kernels.GPU.MemoryBytes, Compiled: ...}
//	rep.Recommend()
//	err = rep.WriteFiles("results/bf16_b128")  // report.{json,md,html}, trace.json.gz, plugins/profile/.../*.xplane.pb
package profile
