package ladder

// Reading what the GPU machine recorded under <root>/assets, for the notebooks (which show it beside their own
// runs) and for anything else that compares runs.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

// Recorded results live under <root>/assets, written on the GPU machine by `trainopt ladder` (results/*.json),
// `trainopt profile` (profiles/*/report.json) and the GPU run scripts (gpu-runs/<date>-<what>/*.log).

// RecordedFile is a ladder results file found under assets/results.
type RecordedFile struct {
	Path string
	File *File
}

// CanonicalResults is the results file of the canonical H200 measurement (every rung 1–14, one device call,
// a profile of each rung beside it in assets/profiles): RecordedResults lists it first, so the notebooks and
// the README show its figures, and newer files only for steps it lacks.
const CanonicalResults = "h200-2026-12-04-run26.json"

// ReadCanonical reads the canonical results file under root (the repository; "." from its root, where the CLI
// runs): the step times a run's estimate and a GPU check of the notebooks' cells are measured against.
func ReadCanonical(root string) (*File, error) {
	return Read(filepath.Join(root, "assets", "results", CanonicalResults))
}

// RecordedResults reads assets/results/*.json, skipping smoke runs, the canonical file first, then newest date first. Files that do not parse are
// reported in bad (one line each) rather than failing the notebook.
func RecordedResults(root string) (files []RecordedFile, bad []string) {
	paths, _ := filepath.Glob(filepath.Join(root, "assets", "results", "*.json"))
	for _, p := range paths {
		f, err := Read(p)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if f.Conditions.Smoke || len(f.Results) == 0 {
			continue
		}
		files = append(files, RecordedFile{Path: p, File: f})
	}
	slices.SortStableFunc(files, func(a, b RecordedFile) int {
		if ca, cb := filepath.Base(a.Path) == CanonicalResults, filepath.Base(b.Path) == CanonicalResults; ca != cb {
			return map[bool]int{true: -1, false: 1}[ca]
		}
		return naturalCompare(b.File.Conditions.Date+b.Path, a.File.Conditions.Date+a.Path)
	})
	return files, bad
}

// naturalCompare orders strings with their digit runs compared as numbers, so that "…-run11b.json" comes after
// "…-run2.json" (plain string order put run11b, the newer call, before run2).
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da != "" && db != "" {
			na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// RecordedProfile is a profile report found under assets/profiles.
type RecordedProfile struct {
	Dir    string
	StepID string // from the folder name "<gpu>-<date>T<time>Z-<id>-step<ID>"
	Report *profile.Report
}

var reProfileDir = regexp.MustCompile(`-step([0-9a-z@-]+)$`)

// RecordedProfiles reads assets/profiles/*/report.json (not smoke ones), newest first.
func RecordedProfiles(root string) (reps []RecordedProfile, bad []string) {
	bad = readRecordedProfiles(root, "report.json", func(dir string, data []byte) error {
		var r profile.Report
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		id := ""
		if m := reProfileDir.FindStringSubmatch(filepath.Base(dir)); m != nil {
			id = m[1]
		}
		reps = append(reps, RecordedProfile{Dir: dir, StepID: id, Report: &r})
		return nil
	})
	slices.SortStableFunc(reps, func(a, b RecordedProfile) int {
		return naturalCompare(b.Report.Conditions.Date+b.Dir, a.Report.Conditions.Date+a.Dir)
	})
	return reps, bad
}

// readRecordedProfiles calls each with the folder and contents of every assets/profiles/*/<name> that is not from a
// smoke run (folders "smoke-…"); files that cannot be read or that each refuses are reported in bad, one line each,
// rather than failing the notebook.
func readRecordedProfiles(root, name string, each func(dir string, data []byte) error) (bad []string) {
	paths, _ := filepath.Glob(filepath.Join(root, "assets", "profiles", "*", name))
	for _, p := range paths {
		dir := filepath.Dir(p)
		if strings.HasPrefix(filepath.Base(dir), "smoke-") {
			continue
		}
		data, err := os.ReadFile(p)
		if err == nil {
			err = each(dir, data)
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", p, err))
		}
	}
	return bad
}

// Step is the profiled step, from the folder name ("…-step10-512" is 10@512; the zero StepID if it is not one).
func (p RecordedProfile) Step() StepID {
	id, _ := ParseStepID(strings.Replace(p.StepID, "-", "@", 1))
	return id
}

// Matches reports whether the profile's step is one that ids name ([StepID.Matches]); every profile matches no ids.
func (p RecordedProfile) Matches(ids ...string) bool {
	if len(ids) == 0 {
		return true
	}
	for _, id := range ids {
		if w, err := ParseStepID(id); err == nil && w.Matches(p.Step()) {
			return true
		}
	}
	return false
}

// RecordedTrainRun is one `trainopt train` summary file found under assets/gpu-runs (written with -json).
type RecordedTrainRun struct {
	Path string
	*TrainRun
}

// RecordedTrain reads assets/gpu-runs/*/train-*.json, the summaries `trainopt train -json` writes; files that
// do not parse are skipped.
func RecordedTrain(root string) []RecordedTrainRun {
	var runs []RecordedTrainRun
	paths, _ := filepath.Glob(filepath.Join(root, "assets", "gpu-runs", "*", "train-*.json"))
	for _, p := range paths {
		if r, err := ReadTrainRun(p); err == nil && r.Result.SamplesPerSec > 0 {
			runs = append(runs, RecordedTrainRun{Path: p, TrainRun: r})
		}
	}
	return runs
}

// RecordedGroup is the part of one recorded results file that is shown: its steps that no newer file has.
type RecordedGroup struct {
	Path string
	File *File // a copy holding only the shown results
}

// GroupRecorded picks, for each wanted step (all steps for no ids), the newest recorded file that measured it, and
// returns the files in that order with the steps each supplies. Results from different files are never merged into
// one table or chart: each keeps its own conditions and caption.
func GroupRecorded(files []RecordedFile, ids ...string) []RecordedGroup {
	shown := map[string]bool{}
	var groups []RecordedGroup
	for _, rf := range files {
		sub := rf.File.Subset(ids...)
		sub.Results = slices.DeleteFunc(slices.Clone(sub.Results), func(r Result) bool {
			return shown[r.ID] || shownAtSomeBatch(shown, r.ID)
		})
		if len(sub.Results) == 0 {
			continue
		}
		for _, r := range sub.Results {
			shown[r.ID] = true
		}
		groups = append(groups, RecordedGroup{Path: rf.Path, File: sub})
	}
	return groups
}

// shownAtSomeBatch reports whether a step recorded without a batch ("9", from files older than the batch
// variants) is already shown at a batch ("9@128"): the older figure is the same rung measured before, not
// another step.
func shownAtSomeBatch(shown map[string]bool, id string) bool {
	if strings.Contains(id, "@") {
		return false
	}
	for s := range shown {
		if strings.HasPrefix(s, id+"@") {
			return true
		}
	}
	return false
}

// RecordedMaxBatch is one `trainopt memory` result found under assets/profiles/<gpu>-<date>T<time>Z-<id>-memory-step<ID>/.
type RecordedMaxBatch struct {
	Dir string
	memory.MaxBatchRecord
}

// RecordedMaxBatches reads assets/profiles/*/memory.json (not smoke ones), newest folder name first.
func RecordedMaxBatches(root string) (recs []RecordedMaxBatch, bad []string) {
	bad = readRecordedProfiles(root, "memory.json", func(dir string, data []byte) error {
		r := RecordedMaxBatch{Dir: dir}
		if err := json.Unmarshal(data, &r.MaxBatchRecord); err != nil {
			return err
		}
		recs = append(recs, r)
		return nil
	})
	slices.SortStableFunc(recs, func(a, b RecordedMaxBatch) int { return strings.Compare(b.Dir, a.Dir) })
	return recs, bad
}

// Subset is a copy of f with only the results that one of ids names ([StepID.Matches]: "13" keeps
// 13@512 and 13+dw-input-grad=phases); all of them for no ids.
func (f *File) Subset(ids ...string) *File {
	g := *f
	if len(ids) == 0 {
		return &g
	}
	var want []StepID
	for _, id := range ids {
		if w, err := ParseStepID(id); err == nil {
			want = append(want, w)
		}
	}
	g.Results = nil
	for _, r := range f.Results {
		if got, err := ParseStepID(r.ID); err == nil && len(want) > 0 && MatchesAny(want, got) {
			g.Results = append(g.Results, r)
		}
	}
	return &g
}

// NewestProfile is the newest recorded profile of step id (reps as RecordedProfiles orders them, newest first);
// a step without a batch ("9") means its batch-128 variant.
func NewestProfile(reps []RecordedProfile, id string) *RecordedProfile {
	want, err := ParseStepID(id)
	if err != nil {
		return nil
	}
	for _, try := range []string{want.String(), want.String() + "@128"} {
		for i := range reps {
			if reps[i].Step().String() == try {
				return &reps[i]
			}
		}
	}
	return nil
}

// NewestProfiles is the newest recorded profile of each step that ids name ([RecordedProfile.Matches]; every step
// for no ids), newest first (reps as RecordedProfiles orders them): a step profiled again is shown once.
func NewestProfiles(reps []RecordedProfile, ids ...string) []RecordedProfile {
	var newest []RecordedProfile
	seen := map[string]bool{}
	for _, p := range reps {
		if p.Matches(ids...) && !seen[p.StepID] {
			seen[p.StepID] = true
			newest = append(newest, p)
		}
	}
	return newest
}

// LastRungProfile is the profile of the most optimised step that was profiled — the highest in the ladder's
// order ([StepID.Order]), the newest of it where reps hold several — or nil for no profiles.
func LastRungProfile(reps []RecordedProfile) *RecordedProfile {
	var last *RecordedProfile
	for i := range reps {
		if last == nil || reps[i].Step().Order() > last.Step().Order() {
			last = &reps[i]
		}
	}
	return last
}
