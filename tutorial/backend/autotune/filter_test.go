package autotune

import (
	"bytes"
	"errors"
	"testing"
)

// The H200 cache in testdata: dropping the cuDNN entries of some algos removes exactly those entries, keeps every
// other entry as it was, and keeping everything gives the file back byte for byte.
func TestFilterAutotuneCache(t *testing.T) {
	data := h200Cache(t)
	all, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	same, n, err := Filter(data, func(Entry) bool { return false })
	if err != nil || n != 0 || !bytes.Equal(same, data) {
		t.Fatalf("keeping everything: %d dropped, err %v, identical %v", n, err, bytes.Equal(same, data))
	}
	var algo int64 = -1
	want := 0
	for _, e := range all.Entries {
		if e.Backend == BackendCUDNN && e.Config.Algorithm != nil {
			if algo < 0 {
				algo = e.Config.Algorithm.AlgoID
			}
			if e.Config.Algorithm.AlgoID == algo {
				want++
			}
		}
	}
	if want == 0 {
		t.Fatal("the testdata cache has no cuDNN convolution entries")
	}
	out, n, err := Filter(data, DropCudnnAlgos(algo))
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Errorf("dropped %d entries, want the %d that chose algo %d", n, want, algo)
	}
	got, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != len(all.Entries)-want {
		t.Errorf("%d entries left, want %d", len(got.Entries), len(all.Entries)-want)
	}
	i := 0
	for _, e := range all.Entries {
		if DropCudnnAlgos(algo)(e) {
			continue
		}
		if got.Entries[i].HLOFingerprint != e.HLOFingerprint || got.Entries[i].Config.String() != e.Config.String() {
			t.Fatalf("entry %d changed: %+v, want %+v", i, got.Entries[i], e)
		}
		i++
	}
	if _, _, err := Filter([]byte("not a cache"), DropCudnnAlgos(algo)); !errors.Is(err, ErrNotCache) {
		t.Errorf("bad input: err %v, want ErrNotCache", err)
	}
}
