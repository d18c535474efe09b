package ladder

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

// A file of runs that grows one step at a time (the notebooks' runs file: every cell measures one step and adds
// it to what earlier cells measured).

// Resolve maps a step ID as a reader writes it to one of cfgs: where the ladder has batch variants a bare "9" to
// "14" is the batch-128 variant; at smoke sizes (one variant, batch 16) any "@batch" is that variant, said in the
// returned note. A "+formulation" suffix is applied on top ([Config.WithFormulation]).
func Resolve(cfgs []Config, id string, smoke bool) (Config, string, error) {
	want, err := ParseStepID(id)
	if err != nil {
		return Config{}, "", err
	}
	formulation := want.Formulation
	want.Formulation = ""
	note := ""
	if smoke && want.Batch > 0 {
		note = fmt.Sprintf("smoke sizes run every batch variant at batch 16: %s runs as %s", id, want.Rung)
		want.Batch = 0
	}
	variant := want
	variant.Batch = DefaultParams().Batches[0]
	if !smoke && want.Batch == 0 && slices.ContainsFunc(cfgs, func(c Config) bool { return c.ID == variant }) {
		want = variant
	}
	for _, c := range cfgs {
		if c.ID == want {
			c, err := c.WithFormulation(formulation)
			return c, note, err
		}
	}
	var ids []string
	for _, c := range cfgs {
		ids = append(ids, c.ID.String())
	}
	return Config{}, "", fmt.Errorf("unknown ladder step %q (this session's steps: %s)", id, strings.Join(ids, ", "))
}

// Comparable reports whether results measured under a and b belong in one table: the same device, model, sizes,
// data kind, versions and measurement.
func Comparable(a, b artifact.Conditions) bool {
	return a.GPU == b.GPU && a.ImageSize == b.ImageSize && a.Model == b.Model && a.Smoke == b.Smoke &&
		a.Synthetic == b.Synthetic && a.Versions == b.Versions && a.Warmup == b.Warmup && a.TimedSteps == b.TimedSteps
}

// ReadOrStart reads the results file at path to add runs measured under c to it, or starts an empty one under
// c: when there is none, when it does not read (note says why) or when it was measured under conditions that
// are not [Comparable] (note says which).
func ReadOrStart(path string, c artifact.Conditions) (f *File, note string) {
	f, err := Read(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		f = &File{}
	case err != nil:
		note = fmt.Sprintf("%v — starting a new results file", err)
		f = &File{}
	case !Comparable(f.Conditions, c):
		note = fmt.Sprintf("%s was measured under other conditions (%s) — starting it again", path, f.Conditions.Caption())
		f = &File{}
	}
	f.Conditions = c
	return f, note
}

// Merge puts r in f, replacing an earlier result of the same step, and keeps the results in the order of cfgs
// (steps not in it last).
func (f *File) Merge(r Result, cfgs []Config) {
	f.Results = slices.DeleteFunc(f.Results, func(x Result) bool { return x.ID == r.ID })
	f.Results = append(f.Results, r)
	order := map[string]int{}
	for i, c := range cfgs {
		order[c.ID.String()] = i
	}
	rank := func(id string) int {
		if i, ok := order[id]; ok {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(f.Results, func(a, b Result) int { return rank(a.ID) - rank(b.ID) })
}

// Result is the result of step id in f, nil if it has none.
func (f *File) Result(id string) *Result {
	for i := range f.Results {
		if f.Results[i].ID == id {
			return &f.Results[i]
		}
	}
	return nil
}
