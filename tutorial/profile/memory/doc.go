// Package memory is the memory half of the tutorial's profile: what XLA planned for a compiled program, a model
// of how that grows with the batch, the largest batch that fits, and a check of that prediction against the
// real boundary. It is apart from tutorial/profile because none of it needs a capture: `trainopt memory` and
// the notebooks use it on its own, and tutorial/profile only carries a [Report] in its profile report.
//
// Files:
//
//   - memory.go: why XLA's numbers beat nvidia-smi's; [Compiled] reads xla::CompiledMemoryStats ([Stats],
//     [Usage]) from a GoMLX executable by reflection; [DeviceStats] is the allocator's view, which
//     tutorial/profile.DeviceMemory fills (a cgo call into the plugin lives there); [Point], [Model], [Fit]
//     and [PredictMaxBatch]: fixed + per-sample × batch, and the largest batch under a headroom.
//   - maxbatch.go: [CheckMaxBatch] runs just below and above the prediction and says where the allocator
//     really refused ([MaxBatchCheck], [BatchTrial]); [MaxBatchRecord] is memory.json, written by
//     `trainopt memory` and read by the notebooks; [IsOutOfMemory] recognises the allocator's refusal.
//   - report.go: [Report] (what is known about memory, as the profile report's "memory" section),
//     [CompiledAt], and [Use], the memory use the recommendations judge.
package memory
