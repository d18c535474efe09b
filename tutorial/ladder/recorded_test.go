package ladder

import (
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

func TestGroupRecorded(t *testing.T) {
	file := func(date string, ids ...string) RecordedFile {
		f := &File{Conditions: artifact.Conditions{Date: date}}
		for _, id := range ids {
			f.Results = append(f.Results, Result{ID: id, Name: date})
		}
		return RecordedFile{Path: date + ".json", File: f}
	}
	// Newest first, as RecordedResults returns them: the newer run re-measured step 2 and added 10@128/10@256.
	// run2's "10" predates the batch variants: 10@128 and 10@256 shown, it is not shown again.
	files := []RecordedFile{file("run5", "2", "10@128", "10@256"), file("run2", "1", "2", "3", "10")}
	describe := func(groups []RecordedGroup) string {
		var parts []string
		for _, g := range groups {
			var ids []string
			for _, r := range g.File.Results {
				ids = append(ids, r.ID+"<"+r.Name)
			}
			parts = append(parts, g.Path+":"+strings.Join(ids, ","))
		}
		return strings.Join(parts, " ")
	}
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{nil, "run5.json:2<run5,10@128<run5,10@256<run5 run2.json:1<run2,3<run2"},
		{[]string{"1", "2"}, "run5.json:2<run5 run2.json:1<run2"},
		{[]string{"10"}, "run5.json:10@128<run5,10@256<run5"},
		{[]string{"7"}, ""},
	} {
		if got := describe(GroupRecorded(files, c.ids...)); got != c.want {
			t.Errorf("GroupRecorded(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
	if len(files[1].File.Results) != 4 {
		t.Error("GroupRecorded changed the files it was given")
	}
}

func TestProfileStepOrder(t *testing.T) {
	ids := []string{"1", "5", "5b", "6", "10", "10-512"}
	for i := 1; i < len(ids); i++ {
		a, b := RecordedProfile{StepID: ids[i-1]}, RecordedProfile{StepID: ids[i]}
		if !(a.Step().Order() < b.Step().Order()) {
			t.Errorf("step of folder %q ≥ step of folder %q", ids[i-1], ids[i])
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"h200-2026-12-02-run2.json", "h200-2026-12-02-run11b.json", -1},
		{"run11b", "run11", 1}, {"run11", "run11", 0}, {"run9", "run10", -1}, {"step007", "step7", 0},
		{"a", "b", -1}, {"2026-12-03", "2026-12-02", 1}, {"x1y", "x1", 1},
	} {
		if got := naturalCompare(c.a, c.b); got != c.want {
			t.Errorf("naturalCompare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// NewestProfiles keeps the first (newest) profile of each step that the ids name; LastRungProfile picks the
// highest rung profiled, the newest of it.
func TestNewestAndLastRungProfiles(t *testing.T) {
	reps := []RecordedProfile{{Dir: "new-5", StepID: "5"}, {Dir: "new-10", StepID: "10-512"}, {Dir: "old-5", StepID: "5"},
		{Dir: "old-10", StepID: "10-512"}, {Dir: "old-1", StepID: "1"}}
	dirs := func(ps []RecordedProfile) string {
		var d []string
		for _, p := range ps {
			d = append(d, p.Dir)
		}
		return strings.Join(d, " ")
	}
	if got := dirs(NewestProfiles(reps)); got != "new-5 new-10 old-1" {
		t.Errorf("NewestProfiles() = %s", got)
	}
	if got := dirs(NewestProfiles(reps, "5", "1")); got != "new-5 old-1" {
		t.Errorf("NewestProfiles(5, 1) = %s", got)
	}
	if got := LastRungProfile(reps); got == nil || got.Dir != "new-10" {
		t.Errorf("LastRungProfile = %+v, want new-10", got)
	}
	if LastRungProfile(nil) != nil {
		t.Error("LastRungProfile(nil) is not nil")
	}
}
