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
