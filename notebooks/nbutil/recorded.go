package nbutil

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile"
)

// Recorded results live under <root>/assets, written on the GPU machine by `trainopt ladder` (results/*.json),
// `trainopt profile` (profiles/*/report.json) and the GPU run scripts (gpu-runs/<date>-<what>/*.log).

// RecordedFile is a ladder results file found under assets/results.
type RecordedFile struct {
	Path string
	File *ladder.File
}

// RecordedResults reads assets/results/*.json, skipping smoke runs, newest date first. Files that do not parse are
// reported in bad (one line each) rather than failing the notebook.
func RecordedResults(root string) (files []RecordedFile, bad []string) {
	paths, _ := filepath.Glob(filepath.Join(root, "assets", "results", "*.json"))
	for _, p := range paths {
		f, err := ladder.Read(p)
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
	StepID string // from the folder name "<gpu>-<date>-step<ID>"
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

// profileMatches reports whether a profile's step is one that ids name ([ladder.StepID.Matches]; the folder
// name's "10-256" is step 10@256).
func profileMatches(p RecordedProfile, ids []string) bool {
	if len(ids) == 0 {
		return true
	}
	got, err := ladder.ParseStepID(strings.Replace(p.StepID, "-", "@", 1))
	if err != nil {
		return false
	}
	for _, id := range ids {
		if w, err := ladder.ParseStepID(id); err == nil && w.Matches(got) {
			return true
		}
	}
	return false
}

// TrainRun is one `trainopt train` summary file found under assets/gpu-runs (written with -json).
type TrainRun struct {
	Path string
	*ladder.TrainRun
}

// RecordedTrain reads assets/gpu-runs/*/train-*.json, the summaries `trainopt train -json` writes; files that
// do not parse are skipped.
func RecordedTrain(root string) []TrainRun {
	var runs []TrainRun
	paths, _ := filepath.Glob(filepath.Join(root, "assets", "gpu-runs", "*", "train-*.json"))
	for _, p := range paths {
		if r, err := ladder.ReadTrainRun(p); err == nil && r.Result.SamplesPerSec > 0 {
			runs = append(runs, TrainRun{Path: p, TrainRun: r})
		}
	}
	return runs
}

// Recorded shows the H200 (or other GPU) results recorded under assets/results for the given ladder steps (all
// steps when none are given), each from the newest file that measured it: per file a table, throughput, step-time
// split and memory charts, captioned with its GPU, date and conditions. It says plainly when nothing has been
// recorded yet. ([Profile] shows the profiles.)
func Recorded(ids ...string) {
	root, err := Root()
	if err != nil {
		fail(err)
		return
	}
	ShowRecorded(root, ids...)
}

// RecordedGroup is the part of one recorded results file that is shown: its steps that no newer file has.
type RecordedGroup struct {
	Path string
	File *ladder.File // a copy holding only the shown results
}

// GroupRecorded picks, for each wanted step (all steps for no ids), the newest recorded file that measured it, and
// returns the files in that order with the steps each supplies. Results from different files are never merged into
// one table or chart: each keeps its own conditions and caption.
func GroupRecorded(files []RecordedFile, ids ...string) []RecordedGroup {
	shown := map[string]bool{}
	var groups []RecordedGroup
	for _, rf := range files {
		sub := subset(rf.File, ids...)
		sub.Results = slices.DeleteFunc(slices.Clone(sub.Results), func(r ladder.Result) bool { return shown[r.ID] })
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

// ShowRecorded is [Recorded] with the repository root given.
func ShowRecorded(root string, ids ...string) {
	files, bad := RecordedResults(root)
	for _, b := range bad {
		printf("note: skipped a results file: %s\n", b)
	}
	what := "all steps"
	if len(ids) > 0 {
		what = "steps " + strings.Join(ids, ", ")
	}
	groups := GroupRecorded(files, ids...)
	switch {
	case len(files) == 0:
		printf("recorded H200 results: none in %s yet — `trainopt ladder` writes them there on the GPU machine\n",
			filepath.Join(root, "assets", "results"))
	case len(groups) == 0:
		printf("recorded H200 results: none of %s in the %d recorded file(s) yet\n", what, len(files))
	}
	for _, g := range groups {
		c := g.File.Conditions
		var got []string
		for _, r := range g.File.Results {
			got = append(got, r.ID)
		}
		printf("recorded H200 results: %s (steps %s)\n", filepath.Base(g.Path), strings.Join(got, ", "))
		printf("recorded on %s, %s; %s; %d warm-up + %d timed steps; %s; driver %s\n", c.GPU, c.Date, c.Model,
			c.Warmup, c.TimedSteps, dataShort(c), orDash(c.Driver))
		for _, r := range g.File.Results {
			if r.Error != "" {
				printf("recorded step %s: failed: %s\n", r.ID, r.Error)
				continue
			}
			printf("recorded step %s: %.0f samples/s, step %.2f ms (data wait %.2f, host→device %.2f, compute %.2f, "+
				"other %.2f), first call %.1f s\n", r.ID, r.SamplesPerSec, r.StepMedianMs, r.DataWaitMs, r.TransferMs,
				r.ComputeMs, r.OtherMs, r.FirstCallS)
		}
		sub := g.File
		displayHTML(ResultsTable(sub, ""))
		chart("recorded throughput", sub, sub.ThroughputChart)
		chart("recorded step-time split", sub, sub.SplitChart)
		chart("recorded memory", sub, func() ([]byte, error) { return MemoryChart(sub) })
	}
}

// Profile shows the GPU profiles recorded under assets/profiles for the given ladder steps (all for no ids): the
// step-time split, XLA's kernel trace summary (GPU busy, SM efficiency, occupancy, tensor cores), the top kernels,
// memory and the profiler's recommendations. It says plainly when there is none.
func Profile(ids ...string) {
	root, err := Root()
	if err != nil {
		fail(err)
		return
	}
	ShowProfiles(root, ids...)
}

// ShowProfiles is [Profile] with the repository root given.
func ShowProfiles(root string, ids ...string) {
	what := "all steps"
	if len(ids) > 0 {
		what = "steps " + strings.Join(ids, ", ")
	}
	reps, badReps := RecordedProfiles(root)
	for _, b := range badReps {
		printf("note: skipped a profile: %s\n", b)
	}
	n := 0
	for _, p := range reps {
		if !profileMatches(p, ids) {
			continue
		}
		n++
		printf("recorded profile: %s (%s, %s)\n", filepath.Base(p.Dir), orDash(p.Report.Conditions.GPU), p.Report.Conditions.Date)
		for _, rec := range p.Report.Recommendations {
			printf("  profile says: %s — %s\n", rec.Rule, rec.Evidence)
		}
		displayHTML(p.Report.HTML())
	}
	if n == 0 {
		printf("recorded profiles: none for %s in %s yet (`trainopt profile -step N` writes them)\n", what,
			filepath.Join(root, "assets", "profiles"))
	}
}

func dataShort(c artifact.Conditions) string {
	if c.Synthetic {
		return "SYNTHETIC data"
	}
	return "real CIFAR-10"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// RecordedTrainRuns shows the single-configuration training runs recorded under assets/gpu-runs (f32 / f16 / bf16
// at batch 128 with the data resized on the device): a table and a throughput chart.
func RecordedTrainRuns() {
	root, err := Root()
	if err != nil {
		fail(err)
		return
	}
	ShowRecordedTrain(root)
}

// ShowRecordedTrain is [RecordedTrainRuns] with the repository root given.
func ShowRecordedTrain(root string) {
	runs := RecordedTrain(root)
	if len(runs) == 0 {
		printf("recorded training runs: none in %s\n", filepath.Join(root, "assets", "gpu-runs"))
		return
	}
	printf("recorded training runs: %d (trainopt train, from %s)\n", len(runs), filepath.Join(root, "assets", "gpu-runs"))
	var rows [][]string
	var bars []plot.Bar
	caption := ""
	for _, t := range runs {
		r, c := t.Result, t.Conditions
		printf("recorded train: %s on %s, %s: %.0f samples/s, step %.2f ms (p10 %.2f, p90 %.2f, %d steps), first call %.1f s, loss %.3f → %.3f\n",
			t.Config, c.GPU, c.Date, r.SamplesPerSec, r.StepMedianMs, r.StepP10Ms, r.StepP90Ms, c.TimedSteps, r.FirstCallS, r.LossFirst, r.LossLast)
		rows = append(rows, []string{t.Config, fmt.Sprintf("%.0f", r.SamplesPerSec), fmt.Sprintf("%.2f (%.2f–%.2f)", r.StepMedianMs, r.StepP10Ms, r.StepP90Ms),
			fmt.Sprintf("%.2f", r.ComputeMs), fmt.Sprintf("%.1f", r.FirstCallS), fmt.Sprint(r.SkippedSteps),
			fmt.Sprintf("%.3f→%.3f", r.LossFirst, r.LossLast), filepath.Base(t.Path)})
		label, _, _ := strings.Cut(t.Config, ",")
		bar := plot.Bar{Label: label, Value: r.SamplesPerSec}
		if r.StepP10Ms > 0 && r.StepP90Ms > 0 {
			bar.Low, bar.High = float64(r.Batch)*1e3/r.StepP90Ms, float64(r.Batch)*1e3/r.StepP10Ms
		}
		bars = append(bars, bar)
		caption = fmt.Sprintf("%s, %s, driver %s, %s, %d timed steps — trainopt train", c.GPU, c.Date, orDash(c.Driver), dataShort(c), c.TimedSteps)
	}
	displayHTML(plot.HTMLTable([]string{"configuration", "samples/s", "step ms (p10–p90)", "compute ms", "first call s",
		"skipped steps", "loss", "file"}, rows, caption))
	svg, err := plot.Bars("Recorded training runs: one configuration each", "samples/s", caption, bars)
	show("recorded training runs", svg, err)
}
