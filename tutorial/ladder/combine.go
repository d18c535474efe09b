package ladder

import (
	"fmt"
	"strconv"
)

// A device call that wants each configuration's own allocator peak runs it in a process of its own, and each
// process writes a results file of its own; the comparison with PyTorch and the README want them in one table.
// Combine makes that one file without losing which process measured what.

// Combine returns one results file holding the results of files, in order, under the first file's conditions.
// Every file must be [Comparable] with the first. Each result keeps the process that measured it: where a file's
// result has none (files written before Result.Process), the file's name stands for it. A rung of 9 and up that
// ran alone at batch 128 is named without its batch ("12"); in a combined file it gets it ("12@128"), so it is
// not taken for every batch.
func Combine(names []string, files []*File) (*File, error) {
	if len(files) == 0 || len(names) != len(files) {
		return nil, fmt.Errorf("combine: want one name per results file, got %d names for %d files", len(names), len(files))
	}
	out := &File{Conditions: files[0].Conditions}
	seen := map[string]string{}
	for i, f := range files {
		if !Comparable(out.Conditions, f.Conditions) {
			return nil, fmt.Errorf("combine: %s was measured under other conditions (%s) than %s (%s)", names[i],
				f.Conditions.Caption(), names[0], out.Conditions.Caption())
		}
		out.Reference = append(out.Reference, f.Reference...)
		for _, r := range f.Results {
			if r.Process == "" {
				r.Process = names[i]
			}
			if id, err := ParseStepID(r.ID); err == nil && id.Batch == 0 && r.Batch > 0 {
				if n, _ := strconv.Atoi(id.Rung); n >= firstBatchRung {
					id.Batch = r.Batch
					r.ID = id.String()
				}
			}
			if other, dup := seen[r.ID]; dup {
				return nil, fmt.Errorf("combine: step %s is in %s and in %s", r.ID, other, names[i])
			}
			seen[r.ID] = names[i]
			out.Results = append(out.Results, r)
		}
	}
	return out, nil
}
