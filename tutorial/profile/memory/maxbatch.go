package memory

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

// Checking the max-batch prediction against the real boundary.
//
// PredictMaxBatch answers "what is the largest batch that fits?" from compiled statistics at two or three small
// batch sizes, before anything large is run. CheckMaxBatch then runs the step just below and just above the
// prediction (±5%, then ±10% if needed) and reports where the allocator really said no, so the prediction's
// error is measured, not assumed. On an H200 the real boundary of MobileNetV2 at 224 px is a batch of several
// thousand, whose compilation (autotuning every new convolution shape) alone would take minutes; capping the
// allocator with the PJRT client option memory_fraction (e.g. GOMLX_BACKEND="xla:…,memory_fraction=0.12")
// moves the boundary to a few hundred while keeping the mechanism — XLA's BFC allocator refusing a buffer —
// the same.

// BatchTrial is one run at a batch size near the predicted boundary.
type BatchTrial struct {
	Batch int  `json:"batch"`
	Fits  bool `json:"fits"`
	// PeakBytes is the allocator's peak in use after the run (a process high-water mark), when known.
	PeakBytes int64 `json:"peak_bytes,omitempty"`
	// PredictedBytes is the memory model's prediction at this batch.
	PredictedBytes int64  `json:"predicted_bytes"`
	Error          string `json:"error,omitempty"` // the out-of-memory message when it did not fit
}

// MaxBatchRecord is the memory check's file (memory.json, written by `trainopt memory`, read by the notebooks):
// the check with the conditions it was made under.
type MaxBatchRecord struct {
	Conditions artifact.Conditions `json:"conditions"`
	Backend    string              `json:"backend"` // the one-line backend choice (also in Conditions since they exist)
	Step       string              `json:"step"`    // the ladder step, at any batch
	Check      MaxBatchCheck       `json:"check"`
}

// MaxBatchCheck is a prediction and its check.
type MaxBatchCheck struct {
	Points     []Point      `json:"points"`
	Model      Model        `json:"model"`
	LimitBytes int64        `json:"limit_bytes"` // the allocator's limit (PJRT bytes_limit)
	Headroom   float64      `json:"headroom"`
	Predicted  int          `json:"predicted"`
	Trials     []BatchTrial `json:"trials"`
	// The real boundary lies in [LargestFit, SmallestFail): LargestFit ran, SmallestFail ran out of memory.
	// 0 means no such trial.
	LargestFit   int `json:"largest_fit"`
	SmallestFail int `json:"smallest_fail"`
	// ErrorBoundPct bounds |real max batch − predicted| ÷ predicted, in percent, from the bracket; +Inf when
	// the bracket is open on one side.
	ErrorBoundPct float64 `json:"error_bound_pct"`
}

// Within reports whether the prediction is within pct percent of the real boundary.
func (c MaxBatchCheck) Within(pct float64) bool { return c.ErrorBoundPct <= pct }

// ErrOutOfMemory marks a trial that failed because the device allocator ran out of memory.
var ErrOutOfMemory = errors.New("out of device memory")

// IsOutOfMemory recognises an allocation failure in an error from XLA/PJRT (RESOURCE_EXHAUSTED, "Out of memory
// while trying to allocate …") or one wrapping ErrOutOfMemory.
func IsOutOfMemory(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrOutOfMemory) {
		return true
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "resource_exhausted") || strings.Contains(s, "resource exhausted") ||
		strings.Contains(s, "out of memory")
}

// CheckMaxBatch fits the memory model to points, predicts the largest batch under limitBytes×(1−headroom),
// and calls try at batches around it: 0.95× and 1.05× the prediction, then 0.90× or 1.10× when the first two
// do not bracket the boundary. try reports whether the batch ran (nil), ran out of memory (an error
// IsOutOfMemory recognises), or failed otherwise (any other error: the check stops with it). A nil try predicts
// only: no trials, and the verdict says the prediction was not checked. peak, if non-nil, gives the allocator's
// peak after a trial.
func CheckMaxBatch(points []Point, limitBytes int64, headroom float64, try func(batch int) error,
	peak func() int64) (MaxBatchCheck, error) {
	c := MaxBatchCheck{Points: points, LimitBytes: limitBytes, Headroom: headroom, ErrorBoundPct: math.Inf(1)}
	m, err := Fit(points)
	if err != nil {
		return c, err
	}
	c.Model = m
	if c.Predicted = m.MaxBatch(limitBytes, headroom); c.Predicted < 2 {
		return c, fmt.Errorf("the memory model (%.0f MB + %.1f MB/sample) predicts no batch fits in %.2f GB",
			m.FixedBytes/1e6, m.PerSampleBytes/1e6, float64(limitBytes)/1e9)
	}
	if try == nil {
		return c, nil
	}
	run := func(f float64) (bool, error) {
		b := max(1, int(math.Round(f*float64(c.Predicted))))
		for _, t := range c.Trials {
			if t.Batch == b {
				return t.Fits, nil
			}
		}
		t := BatchTrial{Batch: b, PredictedBytes: int64(m.Bytes(b))}
		err := try(b)
		switch {
		case err == nil:
			t.Fits = true
		case IsOutOfMemory(err):
			t.Error = firstLine(err.Error())
		default:
			return false, fmt.Errorf("batch %d: %w", b, err)
		}
		if peak != nil {
			t.PeakBytes = peak()
		}
		c.Trials = append(c.Trials, t)
		return t.Fits, nil
	}
	lo, err := run(0.95)
	if err != nil {
		return c, err
	}
	if !lo {
		if _, err := run(0.90); err != nil {
			return c, err
		}
	}
	if hi, err := run(1.05); err != nil {
		return c, err
	} else if hi {
		if _, err := run(1.10); err != nil {
			return c, err
		}
	}
	c.bracket()
	return c, nil
}

// bracket sets LargestFit, SmallestFail and the error bound from the trials.
func (c *MaxBatchCheck) bracket() {
	c.LargestFit, c.SmallestFail = 0, 0
	for _, t := range c.Trials {
		if t.Fits && t.Batch > c.LargestFit {
			c.LargestFit = t.Batch
		}
		if !t.Fits && (c.SmallestFail == 0 || t.Batch < c.SmallestFail) {
			c.SmallestFail = t.Batch
		}
	}
	c.ErrorBoundPct = math.Inf(1)
	if c.LargestFit > 0 && c.SmallestFail > c.LargestFit {
		p := float64(c.Predicted)
		lo, hi := float64(c.LargestFit), float64(c.SmallestFail-1) // the real max batch is in [lo, hi]
		c.ErrorBoundPct = 100 * max(math.Abs(lo-p), math.Abs(hi-p)) / p
	}
}

// TrialHeaders and TrialRows are the trials as a table (Markdown here, HTML in the notebooks).
var TrialHeaders = []string{"batch", "× predicted", "predicted GB", "ran?", "allocator peak GB"}

// TrialRows returns one row per trial, in TrialHeaders' order.
func (c MaxBatchCheck) TrialRows() [][]string {
	var rows [][]string
	for _, t := range c.Trials {
		ran := "yes"
		if !t.Fits {
			ran = "out of memory"
		}
		peak := ""
		if t.PeakBytes > 0 {
			peak = fmt.Sprintf("%.2f", float64(t.PeakBytes)/1e9)
		}
		rows = append(rows, []string{fmt.Sprint(t.Batch), fmt.Sprintf("%.2f", float64(t.Batch)/float64(c.Predicted)),
			fmt.Sprintf("%.2f", float64(t.PredictedBytes)/1e9), ran, peak})
	}
	return rows
}

// Verdict is one sentence: where the real boundary lies and how far the prediction is from it.
func (c MaxBatchCheck) Verdict() string {
	if len(c.Trials) == 0 {
		return "Not checked by running: a prediction from compiled statistics only."
	}
	if math.IsInf(c.ErrorBoundPct, 1) {
		return "The trials did not bracket the boundary: the prediction is off by more than 10%."
	}
	return fmt.Sprintf("Real max batch in [%d, %d]: the prediction is within %.1f%% of it.",
		c.LargestFit, c.SmallestFail-1, c.ErrorBoundPct)
}

// Markdown is the check as a short report.
func (c MaxBatchCheck) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Memory model from compiled statistics: %.0f MB + %.2f MB × batch (points: %s)\n\n",
		c.Model.FixedBytes/1e6, c.Model.PerSampleBytes/1e6, pointWords(c.Points))
	fmt.Fprintf(&b, "Allocator limit %.2f GB, headroom %.0f%% → **predicted max batch %d**\n\n",
		float64(c.LimitBytes)/1e9, 100*c.Headroom, c.Predicted)
	b.WriteString("| " + strings.Join(TrialHeaders, " | ") + " |\n|---:|---:|---:|---|---:|\n")
	for _, row := range c.TrialRows() {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n" + c.Verdict() + "\n")
	return b.String()
}

func pointWords(points []Point) string {
	var s []string
	for _, p := range points {
		s = append(s, fmt.Sprintf("%.2f GB at %d", float64(p.Bytes)/1e9, p.Batch))
	}
	return strings.Join(s, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 300 {
		line = line[:300] + "…"
	}
	return line
}
