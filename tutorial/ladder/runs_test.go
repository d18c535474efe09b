package ladder

import (
	"strings"
	"testing"
)

func workersAndK(workers, k int) Params {
	p := DefaultParams()
	p.WorkersMax, p.StepsPerCall = workers, k
	return p
}

func TestResolve(t *testing.T) {
	type session struct {
		Smoke bool
		Steps []Config
	}
	smoke := &session{Smoke: true, Steps: Plan(workersAndK(2, 1), true)}
	gpu := &session{Steps: Plan(workersAndK(16, DefaultParams().StepsPerCall), false)}
	for _, c := range []struct {
		s          *session
		id, want   string
		wantNote   bool
		wantFailed bool
	}{
		{smoke, "1", "1", false, false},
		{smoke, "5b", "5b", false, false},
		{smoke, "10", "10", false, false},
		{smoke, "10@512", "10", true, false},
		{gpu, "9", "9@128", false, false},
		{gpu, "10@512", "10@512", false, false},
		{gpu, "6", "6", false, false},
		{gpu, "13", "13@128", false, false},
		{smoke, "13@512", "13", true, false},
		{gpu, "14", "14@128", false, false},
		{gpu, "15", "", false, true},
		{smoke, "10@x", "", false, true}, // not a step ID: the batch after @ is a number
		{gpu, "13+dw-input-grad=phases", "13@128+dw-input-grad=phases", false, false},
		{smoke, "13@512+dw-input-grad=phases", "13+dw-input-grad=phases", true, false},
	} {
		st, note, err := Resolve(c.s.Steps, c.id, c.s.Smoke)
		if c.wantFailed {
			if err == nil {
				t.Errorf("Resolve(%q): no error", c.id)
			}
			continue
		}
		if err != nil || st.ID.String() != c.want || (note != "") != c.wantNote {
			t.Errorf("Resolve(%q) smoke=%v = %q, note %q, %v; want %q (note: %v)", c.id, c.s.Smoke, st.ID, note, err, c.want, c.wantNote)
		}
	}
}

func TestMergeKeepsLadderOrder(t *testing.T) {
	steps := Plan(workersAndK(2, 1), true)
	f := &File{}
	for i, id := range []string{"6", "1", "10", "5b", "1"} {
		f.Merge(Result{ID: id, SamplesPerSec: float64(i)}, steps)
	}
	var ids []string
	for _, r := range f.Results {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "1,5b,6,10" {
		t.Errorf("order %s, want 1,5b,6,10", got)
	}
	if r := f.Result("1"); r == nil || r.SamplesPerSec != 4 {
		t.Errorf("step 1 not replaced by the later run: %+v", r)
	}
}
