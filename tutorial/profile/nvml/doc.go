// Package nvml samples the GPU through NVML while training runs: utilization, memory used, SM clock and power,
// what nvidia-smi would say. It is the coarse, always-available view (no plugin, no CUPTI) that the PyTorch
// tutorial starts from, and the cross-check of tutorial/profile's kernel-level numbers; it is a package of its
// own because it needs neither the plugin nor XLA, and `trainopt profile` runs it around the whole timed
// window while a capture covers only a few steps.
//
// Files:
//
//   - sampler.go: [StartSampler], the [Sampler] loop and its [Summary] (means, peaks, a bounded series of
//     [Sample]s); the reader behind it is an interface so the loop is tested with a fake GPU.
//   - sampler_cgo.go (cgo && linux): the reader on github.com/NVIDIA/go-nvml, which dlopens
//     libnvidia-ml.so.1; without the driver StartSampler says "NVML not available: …".
//   - sampler_nocgo.go: the same error where cgo is off.
package nvml
