package autotune

import "google.golang.org/protobuf/encoding/protowire"

// Filter returns the binary cache data without the entries for which drop returns true, and how many
// it dropped. Every other field is copied byte for byte, so what XLA reads back is what it wrote.
//
// Why: a cache entry pins XLA's choice for an instruction; a process that loads it never tunes that instruction
// again. To let XLA choose again under new constraints — cuDNN engines excluded by a CUDNN_ERRATA_JSON_FILE, as
// in assets/gpu-runs/2026-12-03-h200-run18 and -run19, which asked whether the runtime-compiled depthwise
// engines could be avoided — the entries that chose the excluded engines have to go, and only those: the rest of
// the cache stays warm.
func Filter(data []byte, drop func(Entry) bool) ([]byte, int, error) {
	c, err := Decode(data) // checks every field; its entries are the field-3 values, in order
	if err != nil {
		return nil, 0, err
	}
	out := make([]byte, 0, len(data))
	dropped, entry := 0, 0
	for off := 0; off < len(data); {
		b := data[off:]
		num, typ, n := protowire.ConsumeTag(b)
		size := n + protowire.ConsumeFieldValue(num, typ, b[n:])
		off += size
		if num == 3 && typ == protowire.BytesType {
			entry++
			if drop(c.Entries[entry-1]) {
				dropped++
				continue
			}
		}
		out = append(out, b[:size]...)
	}
	return out, dropped, nil
}

// DropCudnnAlgos is a Filter predicate: the cuDNN convolution entries that chose one of algos.
func DropCudnnAlgos(algos ...int64) func(Entry) bool {
	return func(e Entry) bool {
		if e.Backend != BackendCUDNN || e.Config.Algorithm == nil {
			return false
		}
		for _, a := range algos {
			if e.Config.Algorithm.AlgoID == a {
				return true
			}
		}
		return false
	}
}
