package memory

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// fakeDevice is an allocator with a hard limit and a "true" memory curve that the linear model only
// approximates, as XLA's buffer assignment does.
type fakeDevice struct {
	limit int64
	bytes func(batch int) int64
	tried []int
}

func (d *fakeDevice) try(batch int) error {
	d.tried = append(d.tried, batch)
	if need := d.bytes(batch); need > d.limit {
		return fmt.Errorf("RESOURCE_EXHAUSTED: Out of memory while trying to allocate %d bytes.\nmore detail", need)
	}
	return nil
}

func TestCheckMaxBatchBrackets(t *testing.T) {
	curve := func(b int) int64 { return 200e6 + 28e6*int64(b) } // exactly linear: boundary = (10e9-200e6)/28e6 = 350
	d := &fakeDevice{limit: 10e9, bytes: curve}
	pts := []Point{{64, curve(64)}, {128, curve(128)}}
	c, err := CheckMaxBatch(pts, d.limit, 0, d.try, func() int64 { return 1 })
	if err != nil {
		t.Fatal(err)
	}
	if c.Predicted != 350 {
		t.Fatalf("predicted %d, want 350", c.Predicted)
	}
	// 0.95 → 333 fits, 1.05 → 368 does not: two trials, bracket [333, 367].
	if len(c.Trials) != 2 || c.LargestFit != 333 || c.SmallestFail != 368 || !c.Within(10) || c.Within(4) {
		t.Errorf("check = %+v", c)
	}
	if got, want := c.ErrorBoundPct, 100*17.0/350; math.Abs(got-want) > 1e-9 {
		t.Errorf("error bound %.3f%%, want %.3f%%", got, want)
	}
	if !strings.Contains(c.Trials[1].Error, "Out of memory") || strings.Contains(c.Trials[1].Error, "more detail") {
		t.Errorf("trial error = %q", c.Trials[1].Error)
	}
	md := c.Markdown()
	for _, want := range []string{"predicted max batch 350", "| 368 |", "out of memory", "within 4.9%"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestCheckMaxBatchWidens(t *testing.T) {
	lin := func(b int) int64 { return 200e6 + 28e6*int64(b) }
	// The real program needs 8% less than the model says: 1.05× fits, 1.10× does not.
	d := &fakeDevice{limit: 10e9, bytes: func(b int) int64 { return lin(b) * 92 / 100 }}
	c, err := CheckMaxBatch([]Point{{64, lin(64)}, {128, lin(128)}}, d.limit, 0, d.try, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(d.tried) != "[333 368 385]" || c.LargestFit != 368 || c.SmallestFail != 385 || !c.Within(10) {
		t.Errorf("tried %v, check %+v", d.tried, c)
	}
	// 20% less: nothing fails up to 1.10×: not bracketed, not within 10%.
	d = &fakeDevice{limit: 10e9, bytes: func(b int) int64 { return lin(b) * 80 / 100 }}
	c, err = CheckMaxBatch([]Point{{64, lin(64)}, {128, lin(128)}}, d.limit, 0, d.try, nil)
	if err != nil || c.Within(10) || c.SmallestFail != 0 || !strings.Contains(c.Markdown(), "did not bracket") {
		t.Errorf("err %v, check %+v", err, c)
	}
	// 10% more: 0.95× fails, 0.90× fits.
	d = &fakeDevice{limit: 10e9, bytes: func(b int) int64 { return lin(b) * 108 / 100 }}
	c, err = CheckMaxBatch([]Point{{64, lin(64)}, {128, lin(128)}}, d.limit, 0, d.try, nil)
	if err != nil || fmt.Sprint(d.tried) != "[333 315 368]" || c.LargestFit != 315 || c.SmallestFail != 333 {
		t.Errorf("err %v, tried %v, check %+v", err, d.tried, c)
	}
}

func TestCheckMaxBatchErrors(t *testing.T) {
	pts := []Point{{64, 2e9}, {128, 4e9}}
	other := errors.New("INVALID_ARGUMENT: bad shape")
	if _, err := CheckMaxBatch(pts, 40e9, 0, func(int) error { return other }, nil); !errors.Is(err, other) {
		t.Errorf("a non-memory failure must stop the check: %v", err)
	}
	if _, err := CheckMaxBatch(pts[:1], 40e9, 0, nil, nil); err == nil {
		t.Error("one point cannot fit a model")
	}
	if _, err := CheckMaxBatch([]Point{{64, 5e9}, {128, 6e9}}, 1e9, 0, nil, nil); err == nil || !strings.Contains(err.Error(), "no batch fits") {
		t.Errorf("limit below the fixed cost: %v", err)
	}
	for _, e := range []error{fmt.Errorf("x: %w", ErrOutOfMemory), errors.New("Resource exhausted: foo"),
		errors.New("CUDA_ERROR_OUT_OF_MEMORY: out of memory")} {
		if !IsOutOfMemory(e) {
			t.Errorf("IsOutOfMemory(%v) = false", e)
		}
	}
	if IsOutOfMemory(other) || IsOutOfMemory(nil) {
		t.Error("IsOutOfMemory on a non-memory error")
	}
}

func TestCheckMaxBatchPredictOnly(t *testing.T) {
	lin := func(b int) int64 { return 200e6 + 28e6*int64(b) }
	c, err := CheckMaxBatch([]Point{{64, lin(64)}, {128, lin(128)}}, 10e9, 0, nil, nil)
	if err != nil || c.Predicted != 350 || len(c.Trials) != 0 || c.Within(10) {
		t.Fatalf("err %v, check %+v", err, c)
	}
	if md := c.Markdown(); !strings.Contains(md, "Not checked by running") || strings.Contains(md, "did not bracket") {
		t.Errorf("Markdown of a prediction only:\n%s", md)
	}
}
