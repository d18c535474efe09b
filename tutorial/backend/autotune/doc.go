// Package autotune reads XLA's GPU autotune cache file: what the first call's minute was spent on.
//
// The parent package, tutorial/backend, decides where that file lives and hands it to XLA
// (--xla_gpu_dump_autotune_results_to / --xla_gpu_load_autotune_results_from, backend/autotune.go); this
// package reads what XLA wrote there, so that the tutorial can show what a cold compile tuned (how many
// instructions, by which backend, what each backend chose) and so that a cache can be edited without losing
// the rest of it. It sits under backend because the two halves of one mechanism belong together, and apart
// from it because backend itself never decodes the file (it only checks that the bytes are whole fields).
// It imports neither backend nor tutorial/profile.
//
// Files:
//
//   - cache.go: the format (what the file is and what its keys hold), the Go types ([Cache], [Entry], [Config]
//     and the per-backend configs, [Backend] with the enum's values), the per-backend summary and
//     [Cache.Markdown], which `trainopt autotune` prints.
//   - decode.go: [ReadCache], [ReadFile] (bounded by [MaxFileBytes]) and [Decode]: the top-level fields walked
//     with protowire, so that a cut copy, a text proto, an XSpace or the legacy xla.AutotuneResults is named as
//     such ([ErrEmpty], [ErrTruncated], [ErrNotCache]) instead of half-read, and each entry read with the
//     generated code of tutorial/internal/xlaproto/autotunepb (its autotune.proto lists the XLA messages and
//     field numbers), with wire-type checks (xlaproto.Unmarshal).
//   - filter.go: [Filter] and [DropCudnnAlgos]: the cache without chosen entries, every other byte kept, so
//     that XLA tunes only those instructions again (`trainopt autotune -drop-cudnn-algos`).
//   - testdata/h200_xla_autotune.pb: a real cache written on an NVIDIA H200, which the tests decode.
package autotune
