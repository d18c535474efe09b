package autotune

// Filter returns the binary cache data without the entries for which drop returns true, and how many
// it dropped. Every other byte is copied as it was, so what XLA reads back is what it wrote (re-encoding the
// decoded messages would keep every field too, but could reorder map entries and the fields that this package's
// copy of the .proto lacks).
//
// Why: a cache entry pins XLA's choice for an instruction; a process that loads it never tunes that instruction again.
// To let XLA choose again under new constraints — cuDNN engines excluded by a CUDNN_ERRATA_JSON_FILE, as when the
// project asked whether the runtime-compiled depthwise engines could be avoided (README, "Compile time") — the entries
// that chose the excluded engines have to go, and only those: the rest of the cache stays warm.
func Filter(data []byte, drop func(Entry) bool) ([]byte, int, error) {
	c, spans, err := decode(data) // checks every field; spans[i] is where entry i's field lies
	if err != nil {
		return nil, 0, err
	}
	out := make([]byte, 0, len(data))
	dropped, kept := 0, 0 // kept: data[:kept] is copied or dropped already
	for i, e := range c.Entries {
		if drop(e) {
			out = append(out, data[kept:spans[i][0]]...)
			dropped, kept = dropped+1, spans[i][1]
		}
	}
	return append(out, data[kept:]...), dropped, nil
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
