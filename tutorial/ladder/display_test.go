package ladder

import (
	"strings"
	"testing"
)

// The compile chart stacks compile and first execution where the results split them, and shows a first call
// that was not split (results written before compile_s existed) as a part of its own rather than as compile time.
func TestCompileChartSplit(t *testing.T) {
	split := Result{ID: "12@128", SamplesPerSec: 1, FirstCallS: 20.8, CompileS: 6.6}
	old := Result{ID: "10@128", SamplesPerSec: 1, FirstCallS: 17.5}
	reusedRun := Result{ID: "5", SamplesPerSec: 1, FirstCallS: 0.1, ReusedExecutable: true}
	for _, tc := range []struct {
		results []Result
		unsplit bool
	}{{[]Result{split, reusedRun}, false}, {[]Result{old, split}, true}} {
		svg, err := (&File{Results: tc.results}).CompileChart()
		if err != nil {
			t.Fatal(err)
		}
		s := string(svg)
		if !strings.Contains(s, "first execution") || strings.Contains(s, "not split") != tc.unsplit {
			t.Errorf("results %v: legend wrong (want \"not split\" %v)", tc.results, tc.unsplit)
		}
	}
}

// TestWords: the notebooks' summary lines say how a first call split and what the step-time split recommends.
func TestWords(t *testing.T) {
	f := &File{Results: []Result{
		{ID: "12@128", SamplesPerSec: 1, FirstCallS: 20.8, CompileS: 6.6},
		{ID: "5", SamplesPerSec: 1, FirstCallS: 0.1, ReusedExecutable: true},
		{ID: "9", Error: "boom"},
	}}
	got := f.FirstCalls("first calls:", "%.1f")
	want := "first calls:\n  step 12@128: first call 20.8 s (compile 6.6 s + first execution 14.2 s)\n" +
		"  step 5: first call 0.1 s (executable reused from an earlier step)\n"
	if got != want {
		t.Errorf("FirstCalls =\n%q\nwant\n%q", got, want)
	}
	r := Result{ID: "1", DataWaitMs: 30, ComputeMs: 10}
	if w := r.SplitWords(false); !strings.Contains(w, "data wait 75%, host→device 0%, compute 25%") {
		t.Errorf("SplitWords = %q", w)
	}
}
