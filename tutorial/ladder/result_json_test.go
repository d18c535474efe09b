package ladder

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestResultJSONNonFiniteLosses: a diverged step's losses (NaN, +Inf) are written as null — encoding/json refuses
// them otherwise, and with them the whole results file (run70) — and read back as NaN, the other fields intact.
func TestResultJSONNonFiniteLosses(t *testing.T) {
	r := Result{ID: "12", SamplesPerSec: 14149, LossFirst: 2.16, LossLast: math.NaN(),
		Losses: []float64{2.16, math.NaN(), math.Inf(1), 1.5}, Error: "diverged"}
	if _, err := json.Marshal(struct{ X float64 }{math.NaN()}); err == nil {
		t.Fatal("encoding/json now writes NaN: the custom marshaller may be unneeded")
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	for _, want := range []string{`"loss_last":null`, `"losses":[2.16,null,null,1.5]`, `"loss_first":2.16`, `"samples_per_sec":14149`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s: %s", want, data)
		}
	}
	var back Result
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if back.LossFirst != 2.16 || !math.IsNaN(back.LossLast) || back.SamplesPerSec != 14149 || back.Error != "diverged" || back.ID != "12" {
		t.Errorf("read back %+v", back)
	}
	if len(back.Losses) != 4 || back.Losses[0] != 2.16 || !math.IsNaN(back.Losses[1]) || !math.IsNaN(back.Losses[2]) || back.Losses[3] != 1.5 {
		t.Errorf("losses read back as %v", back.Losses)
	}
}

// TestResultJSONRoundTripsRecordedFiles: every committed results file reads, writes and reads again to the same
// results (the custom marshaller drops or renames nothing), and a file holding a diverged step writes and reads.
func TestResultJSONRoundTripsRecordedFiles(t *testing.T) {
	paths, _ := filepath.Glob("../../assets/results/*.json")
	if len(paths) == 0 {
		t.Fatal("no results files found")
	}
	for _, p := range paths {
		f, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Results {
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("%s %s: %v", p, r.ID, err)
			}
			var back Result
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("%s %s: %v", p, r.ID, err)
			}
			if !reflect.DeepEqual(back, r) {
				t.Errorf("%s step %s: %+v read back as %+v", p, r.ID, r, back)
			}
		}
	}
	f, err := Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	bad := f.Results[0]
	bad.LossLast, bad.Losses, bad.Error = math.NaN(), []float64{2.3, math.NaN()}, "step 12: loss NaN at read 2 of 2"
	f.Results = append(f.Results, bad)
	out := filepath.Join(t.TempDir(), "diverged.json")
	if _, err := f.WriteAs(out); err != nil {
		t.Fatalf("a file with a diverged step: %v", err)
	}
	g, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if last := g.Results[len(g.Results)-1]; !math.IsNaN(last.LossLast) || last.Error != bad.Error {
		t.Errorf("diverged step read back as %+v", last)
	}
}

// TestFiniteLosses: a NaN or infinite loss anywhere fails with the read it happened at; finite losses pass, and
// Trained says the same.
func TestFiniteLosses(t *testing.T) {
	ok := Result{ID: "12", Losses: []float64{2.3, 1.1}, LossFirst: 2.3, LossLast: 1.1}
	if err := ok.finiteLosses(); err != nil || ok.Trained() != nil {
		t.Errorf("finite losses: %v, %v", err, ok.Trained())
	}
	for _, bad := range []float64{math.NaN(), math.Inf(-1)} {
		r := Result{ID: "12", Losses: []float64{2.3, 1.9, bad, 1.1}, LossFirst: 2.3, LossLast: 1.1}
		err := r.finiteLosses()
		if err == nil || !strings.Contains(err.Error(), "at read 3 of 4") {
			t.Errorf("loss %v: %v", bad, err)
		}
		if r.Trained() == nil {
			t.Errorf("loss %v: Trained passed", bad)
		}
	}
}
