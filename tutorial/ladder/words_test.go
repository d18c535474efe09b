package ladder

import (
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

// A recorded max-batch check says its fitted model and prediction in one line, and shows its trials in a table
// captioned with the verdict and the backend (on one line).
func TestRecordedMaxBatchWords(t *testing.T) {
	r := RecordedMaxBatch{Dir: "assets/profiles/h200-2026-12-02-memory-step10", MaxBatchRecord: memory.MaxBatchRecord{
		Backend: "backend: xla:cuda\n  on NVIDIA H200", Step: "10",
		Check: memory.MaxBatchCheck{Points: []memory.Point{{Batch: 256}, {Batch: 512}},
			Model:      memory.Model{FixedBytes: 203e6, PerSampleBytes: 27.01e6},
			LimitBytes: 22_520_000_000, Predicted: 826,
			Trials:     []memory.BatchTrial{{Batch: 785, Fits: true}, {Batch: 867, Error: "Out of memory"}},
			LargestFit: 785, SmallestFail: 867, ErrorBoundPct: 4.96}}}
	want := "recorded max-batch check: h200-2026-12-02-memory-step10 — step 10, memory = 203 MB + 27.01 MB × batch " +
		"(fitted at 256 and 512), allocator limit 22.52 GB → predicted max batch 826\n"
	if got := r.Words(); got != want {
		t.Errorf("Words =\n%q\nwant\n%q", got, want)
	}
	html := r.HTMLTable()
	for _, want := range []string{"out of memory", "within 5.0%", "backend: xla:cuda on NVIDIA H200"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTMLTable lacks %q:\n%s", want, html)
		}
	}
}

// A recorded profile's words name its folder, GPU and date and what its rules found; what is left adds their
// advice, or says that no rule fires.
func TestRecordedProfileWords(t *testing.T) {
	p := RecordedProfile{Dir: "assets/profiles/h200-2026-12-02-step14", StepID: "14", Report: &profile.Report{
		Conditions:      artifact.Conditions{GPU: "NVIDIA H200", Date: "2026-12-02"},
		Recommendations: []profile.Recommendation{{Rule: "input-bound", Evidence: "waiting 55%", Advice: "more workers"}}}}
	if got, want := p.Words(), "recorded profile: h200-2026-12-02-step14 (NVIDIA H200, 2026-12-02)\n"+
		"  profile says: input-bound — waiting 55%\n"; got != want {
		t.Errorf("Words =\n%q\nwant\n%q", got, want)
	}
	if got, want := p.LeftWords(), "what is left: profile of step 14 (NVIDIA H200, 2026-12-02)\n"+
		"  profile says: input-bound — waiting 55%\n  advice: more workers\n"; got != want {
		t.Errorf("LeftWords =\n%q\nwant\n%q", got, want)
	}
	p.Report.Recommendations, p.Report.Conditions.GPU = nil, ""
	if got := p.LeftWords(); !strings.Contains(got, "(—, 2026-12-02)") || !strings.Contains(got, "no rule fires") {
		t.Errorf("LeftWords without rules or GPU = %q", got)
	}
}

// A smoke run says in one line that it runs and trains and is no speed measurement; its compile times come to
// the slowest first call.
func TestSmokeWords(t *testing.T) {
	r := Result{ID: "4", LossFirst: 2.345, LossLast: 1.62}
	want := "CPU smoke run (pure-Go backend, tiny sizes, synthetic data; not a speed measurement): step 4 runs and " +
		"trains, loss 2.35 → 1.62"
	if got := r.SmokeLine(true); got != want {
		t.Errorf("SmokeLine(synthetic) =\n%q\nwant\n%q", got, want)
	}
	if got := r.SmokeLine(false); strings.Contains(got, "synthetic") {
		t.Errorf("SmokeLine(real data) = %q", got)
	}
	f := &File{Results: []Result{{FirstCallS: 0.5}, {FirstCallS: 1.1}, {FirstCallS: 0.7}}}
	if got := f.SlowestFirstCall(); got != 1.1 {
		t.Errorf("SlowestFirstCall = %v, want 1.1", got)
	}
}

// 00-setup's data table has a row per class and says loudly when the set is the synthetic stand-in.
func TestDataTable(t *testing.T) {
	set, _ := cifar.Synthetic(100, 10, 1)
	html := DataTable(set)
	for _, want := range []string{">airplane<", ">truck<", "SYNTHETIC CIFAR-10-shaped data (100 images"} {
		if !strings.Contains(html, want) {
			t.Errorf("DataTable lacks %q:\n%s", want, html)
		}
	}
}
