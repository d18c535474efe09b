package ladder

import (
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

// TestCombine: results of several processes in one file keep their own peaks; a lone batch-128 rung gets its
// batch; files of other conditions and a step measured twice are refused.
func TestCombine(t *testing.T) {
	c := artifact.Conditions{Date: "2026-12-04", GPU: "NVIDIA H200", ImageSize: 224, Synthetic: true}
	mainJob := &File{Conditions: c, Results: []Result{
		{ID: "1", Batch: 32, DevicePeakBytes: 2e9},
		{ID: "12@512", Batch: 512, DevicePeakBytes: 15e9}}}
	alone := &File{Conditions: c, Results: []Result{{ID: "12", Batch: 128, DevicePeakBytes: 4e9}}}
	f, err := Combine([]string{"a", "b"}, []*File{mainJob, alone})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Results) != 3 || f.Results[2].ID != "12@128" || f.Results[2].Process != "b" || f.Results[0].Process != "a" {
		t.Fatalf("combined %+v", f.Results)
	}
	// 12@128's 4 GB is below 12@512's 15 GB, but it was another process: its peak is its own.
	if !f.ownPeak(2) || !f.ownPeak(1) {
		t.Errorf("ownPeak: 12@512 %v, 12@128 %v; want both own", f.ownPeak(1), f.ownPeak(2))
	}
	same := &File{Conditions: c, Results: []Result{{ID: "1"}, {ID: "3", DevicePeakBytes: 1e9}}}
	same.Results[0].DevicePeakBytes = 2e9
	if same.ownPeak(1) {
		t.Error("a lower peak after a higher one of the same process is not its own")
	}
	other := c
	other.GPU = "NVIDIA H100"
	if _, err := Combine([]string{"a", "c"}, []*File{mainJob, {Conditions: other}}); err == nil ||
		!strings.Contains(err.Error(), "other conditions") {
		t.Errorf("other conditions: %v", err)
	}
	if _, err := Combine([]string{"a", "a2"}, []*File{mainJob, mainJob}); err == nil || !strings.Contains(err.Error(), "step 1 is in a and in a2") {
		t.Errorf("a step twice: %v", err)
	}
}
