package ladder

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
)

// The frameworks a Reference can come from.
const (
	PyTorch = "PyTorch" // anchors/torch_ladder.py
	JAX     = "JAX"     // anchors/jax_mobilenet.py
)

// TutorialRTX4000 is the original tutorial's table (samples/s on a Quadro RTX 4000), steps 1–6.
var TutorialRTX4000 = map[string]float64{"1": 273.5, "2": 395.1, "3": 551.5, "4": 631.6, "5": 877.8, "6": 1381.6}

// ReadReferences reads the JSON lines of torch_ladder.py (a header line, then one line per step, with "step")
// and of jax_mobilenet.py (one line per batch, with "jax"), from one or more files, in order.
func ReadReferences(paths ...string) ([]Reference, error) {
	var refs []Reference
	for _, path := range paths {
		n := len(refs)
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var r struct {
				Step    *int    `json:"step"`
				JAX     string  `json:"jax"`
				Name    string  `json:"name"`
				Batch   int     `json:"batch"`
				K       int     `json:"k"`
				Samples float64 `json:"samples_per_s"`
				Peak    float64 `json:"peak_alloc_gb"`
				PeakJAX float64 `json:"peak_gb"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Samples <= 0 {
				continue // header, table or progress lines
			}
			switch {
			case r.Step != nil:
				refs = append(refs, Reference{Framework: PyTorch, Step: strconv.Itoa(*r.Step), Name: r.Name,
					Batch: r.Batch, SamplesPerSec: r.Samples, PeakMemGB: r.Peak})
			case r.JAX != "":
				refs = append(refs, Reference{Framework: JAX, Step: "jax", Batch: r.Batch, SamplesPerSec: r.Samples,
					PeakMemGB: r.PeakJAX, Name: fmt.Sprintf("JAX %s/Flax, bf16, data on the device, %d steps per call", r.JAX, r.K)})
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(refs) == n {
			return nil, fmt.Errorf("%s: no PyTorch ladder or JAX results found", path)
		}
	}
	return refs, nil
}

// framework is r's framework; files written before JAX was measured carry PyTorch's numbers only.
func (r Reference) framework() string {
	if r.Framework == "" {
		return PyTorch
	}
	return r.Framework
}

// Label is "PyTorch step 11" or "JAX".
func (r Reference) Label() string {
	if r.framework() == PyTorch {
		return "PyTorch step " + r.Step
	}
	return r.framework()
}

// Strongest is the fastest reference of framework at batch (nil if none): PyTorch's strongest configuration at
// a batch is whichever of its steps ran fastest there (step 11, with CUDA graphs, where it was measured).
func (f *File) Strongest(framework string, batch int) *Reference {
	var best *Reference
	for i := range f.Reference {
		r := &f.Reference[i]
		if r.framework() == framework && r.Batch == batch && (best == nil || r.SamplesPerSec > best.SamplesPerSec) {
			best = r
		}
	}
	return best
}

// CompareRow is one batch size of the comparison: the fastest Go step, PyTorch's strongest step and JAX, all
// from one file (one device call).
type CompareRow struct {
	Batch      int
	Go         *Result
	Torch, JAX *Reference
}

// Compare is, for each batch size another framework was measured at, the strongest of each beside the fastest
// Go step at that batch, sorted by batch.
func (f *File) Compare() []CompareRow {
	var rows []CompareRow
	var batches []int
	for _, r := range f.Reference {
		if !slices.Contains(batches, r.Batch) {
			batches = append(batches, r.Batch)
		}
	}
	slices.Sort(batches)
	for _, b := range batches {
		row := CompareRow{Batch: b, Go: f.FastestAt(b), Torch: f.Strongest(PyTorch, b), JAX: f.Strongest(JAX, b)}
		if row.Go != nil {
			rows = append(rows, row)
		}
	}
	return rows
}

// CompareTable is the comparison as an HTML table: samples/s, Go ÷ each, and the peaks.
func CompareTable(rows []CompareRow, caption string) string {
	ratio := func(r *Reference, g *Result) (sps, x, peak string) {
		if r == nil {
			return "—", "—", "—"
		}
		return fmt.Sprintf("%.0f (%s)", r.SamplesPerSec, r.Label()), fmt.Sprintf("%.2f×", g.SamplesPerSec/r.SamplesPerSec),
			fmt.Sprintf("%.2f", r.PeakMemGB)
	}
	var cells [][]string
	for _, r := range rows {
		ts, tx, tp := ratio(r.Torch, r.Go)
		js, jx, _ := ratio(r.JAX, r.Go)
		cells = append(cells, []string{fmt.Sprint(r.Batch), fmt.Sprintf("%.0f (step %s)", r.Go.SamplesPerSec, r.Go.ID),
			ts, tx, js, jx, fmt.Sprintf("%.2f", float64(r.Go.DevicePeakBytes)/1e9), tp})
	}
	return plot.HTMLTable([]string{"batch", "Go samples/s", "PyTorch's strongest", "Go ÷ PyTorch", "JAX/Flax",
		"Go ÷ JAX", "Go peak GB", "PyTorch peak GB"}, cells, caption)
}

// SeedRow is one step of the original tutorial's ladder (1–6) in Go and PyTorch, measured in one device call,
// beside the original's published figure.
type SeedRow struct {
	Step                   string
	Go                     *Result
	Torch                  *Reference
	Original               float64
	GoX, TorchX, OriginalX float64 // × step 1 of the same column
}

// ComparedFile is the recorded file whose comparison ([File.Compare]) sets Go's fastest step beside PyTorch's
// strongest step at the most batch sizes — the comparison a summary shows; of files that tie, the first (files as
// RecordedResults orders them, canonical first, then newest). A call that ran PyTorch's step 11 at three batches
// beats one that ran it at two, and both beat one that ran only its earlier steps.
func ComparedFile(files []RecordedFile) *RecordedFile {
	var best *RecordedFile
	var bestStrongest, bestAny int
	for i := range files {
		strongest, withTorch := 0, 0 // batches with PyTorch's step 11, batches with any PyTorch step
		for _, row := range files[i].File.Compare() {
			if row.Torch != nil {
				withTorch++
				if row.Torch.Step == StrongestTorchStep {
					strongest++
				}
			}
		}
		if withTorch > 0 && (strongest > bestStrongest || strongest == bestStrongest && withTorch > bestAny) {
			best, bestStrongest, bestAny = &files[i], strongest, withTorch
		}
	}
	return best
}

// JAXTable is the file's comparison with JAX alone (PyTorch's columns empty): shown beside the [ComparedFile]'s
// table, whose PyTorch figures come from another call, so that no page shows two Go ÷ PyTorch ratios for one batch.
func (rf RecordedFile) JAXTable() string {
	rows := rf.File.Compare()
	for i := range rows {
		rows[i].Torch = nil
	}
	c := rf.File.Conditions
	return CompareTable(rows, fmt.Sprintf("Go's fastest step and JAX/Flax on the same XLA, one %s, one device call (%s, %s)",
		c.GPU, filepath.Base(rf.Path), c.Date))
}

// StrongestTorchStep is PyTorch's strongest configuration in anchors/torch_ladder.py: step 10 (torch.compile,
// channels_last, bf16, data on the GPU) with CUDA graphs and fused SGD.
const StrongestTorchStep = "11"

// JAXFile is the first recorded file (as RecordedResults orders them) whose comparison has JAX beside Go: shown
// beside [ComparedFile] when that one has no JAX lines, each table from its own device call.
func JAXFile(files []RecordedFile) *RecordedFile {
	return firstFile(files, func(f *File) bool {
		return slices.ContainsFunc(f.Compare(), func(r CompareRow) bool { return r.JAX != nil })
	})
}

// firstFile is the first of files for which has is true (files as RecordedResults orders them: canonical first,
// then newest first), nil for none.
func firstFile(files []RecordedFile, has func(*File) bool) *RecordedFile {
	for i := range files {
		if has(files[i].File) {
			return &files[i]
		}
	}
	return nil
}

// ComparisonTable is the file's [File.Compare] as an HTML table ([CompareTable]), captioned with the device call
// it comes from.
func (rf RecordedFile) ComparisonTable() string {
	c := rf.File.Conditions
	return CompareTable(rf.File.Compare(), fmt.Sprintf("Go's fastest step, PyTorch's strongest (step 11: CUDA graphs + "+
		"fused SGD) and JAX/Flax, one %s, one device call (%s, %s)", c.GPU, filepath.Base(rf.Path), c.Date))
}

// Seed is the original tutorial's six steps in both frameworks from f (Go rungs 1–6, PyTorch steps 1–6).
func (f *File) Seed() []SeedRow {
	var rows []SeedRow
	var go1, pt1 float64
	for _, id := range []string{"1", "2", "3", "4", "5", "6"} {
		row := SeedRow{Step: id, Original: TutorialRTX4000[id], OriginalX: TutorialRTX4000[id] / TutorialRTX4000["1"]}
		if r := f.Result(id); r != nil && r.Error == "" {
			row.Go = r
		}
		for i := range f.Reference {
			if r := &f.Reference[i]; r.framework() == PyTorch && r.Step == id {
				row.Torch = r
			}
		}
		if row.Go != nil {
			if id == "1" {
				go1 = row.Go.SamplesPerSec
			}
			if go1 > 0 {
				row.GoX = row.Go.SamplesPerSec / go1
			}
		}
		if row.Torch != nil {
			if id == "1" {
				pt1 = row.Torch.SamplesPerSec
			}
			if pt1 > 0 {
				row.TorchX = row.Torch.SamplesPerSec / pt1
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// SeedTable is Seed as an HTML table.
func SeedTable(rows []SeedRow, caption string) string {
	var cells [][]string
	for _, r := range rows {
		g, p := []string{"—", "—"}, []string{"—", "—"}
		if r.Go != nil {
			g = []string{fmt.Sprintf("%.0f", r.Go.SamplesPerSec), fmt.Sprintf("%.2f×", r.GoX)}
		}
		if r.Torch != nil {
			p = []string{fmt.Sprintf("%.0f", r.Torch.SamplesPerSec), fmt.Sprintf("%.2f×", r.TorchX)}
		}
		cells = append(cells, []string{r.Step, g[0], g[1], p[0], p[1], fmt.Sprintf("%.1f", r.Original),
			fmt.Sprintf("%.2f×", r.OriginalX)})
	}
	return plot.HTMLTable([]string{"step", "Go samples/s", "Go × step 1", "PyTorch samples/s", "PyTorch × step 1",
		"original (RTX 4000)", "original × step 1"}, cells, caption)
}

// SeedFile is the newest recorded file (files as RecordedResults orders them, canonical first) that holds all six
// of the original tutorial's steps in both Go and PyTorch: the seed ladder compared within one device call.
func SeedFile(files []RecordedFile) *RecordedFile {
	return firstFile(files, func(f *File) bool {
		return !slices.ContainsFunc(f.Seed(), func(row SeedRow) bool { return row.Go == nil || row.Torch == nil })
	})
}

// SeedLadderTable is the file's [File.Seed] beside the original tutorial's published figures ([SeedTable]),
// captioned with the device call it comes from.
func (rf RecordedFile) SeedLadderTable() string {
	c := rf.File.Conditions
	return SeedTable(rf.File.Seed(), fmt.Sprintf("Go and PyTorch on one %s in one device call (%s, %s); "+
		"original: the PyTorch tutorial's published table", c.GPU, filepath.Base(rf.Path), c.Date))
}

// Headline is what a summary says of a recorded file above its [File.StoryTable]: which measurement it is (the
// canonical one, or the newest where that is missing), how many configurations in what conditions, and step 1
// against the fastest step.
func (rf RecordedFile) Headline() string {
	f, what := rf.File, "the canonical H200 measurement"
	if filepath.Base(rf.Path) != CanonicalResults {
		what = "the newest H200 measurement (the canonical " + CanonicalResults + " is missing)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s — %d configurations in one device call (%s)\n", what, filepath.Base(rf.Path),
		len(f.Results), f.Conditions.Caption())
	if best, base := f.BestAndBase(); best != nil && base != nil {
		fmt.Fprintf(&b, "step 1 %.0f samples/s → step %s %.0f samples/s (%.1f×)\n", base.SamplesPerSec, best.ID,
			best.SamplesPerSec, best.SamplesPerSec/base.SamplesPerSec)
	}
	return b.String()
}

// StoryTable is the ladder in one HTML table for a summary: each step's samples/s, × step 1, × the rung before it
// (the previous rung at the same batch, else the rung just below: 3 follows 2, 9@256 follows 8), the median step
// and its largest part, and what its profile says it did (verdicts, keyed by rung: "9" for every 9@batch).
func (f *File) StoryTable(verdicts map[string]string, highlight string) string {
	var base float64
	if _, b := f.BestAndBase(); b != nil {
		base = b.SamplesPerSec
	}
	rung := func(id string) float64 { // the rung's place, whatever its batch
		s, _ := ParseStepID(id)
		return StepID{Rung: s.Rung}.Order()
	}
	previous := func(i int) float64 { // the rung before f.Results[i]
		r := f.Results[i]
		same, below := 0.0, 0.0
		for _, p := range f.Results[:i] {
			if p.Error != "" || rung(p.ID) >= rung(r.ID) {
				continue
			}
			if p.Batch == r.Batch {
				same = p.SamplesPerSec
			}
			below = p.SamplesPerSec
		}
		return cmp.Or(same, below)
	}
	var rows [][]string
	for i, r := range f.Results {
		id := r.ID
		if id == highlight && highlight != "" {
			id = "▶ " + id
		}
		if r.Error != "" {
			rows = append(rows, []string{id, r.Name, fmt.Sprint(r.Batch), "failed: " + r.Error})
			continue
		}
		before := previous(i)
		x := func(v float64) string {
			if v <= 0 {
				return ""
			}
			return fmt.Sprintf("%.2f×", r.SamplesPerSec/v)
		}
		parts := []struct {
			name string
			ms   float64
		}{{"data wait", r.DataWaitMs}, {"host→device", r.TransferMs}, {"compute", r.ComputeMs}, {"other", r.OtherMs}}
		top := slices.MaxFunc(parts, func(a, b struct {
			name string
			ms   float64
		}) int {
			return cmp.Compare(a.ms, b.ms)
		})
		step, _ := ParseStepID(r.ID)
		rows = append(rows, []string{id, r.Name, fmt.Sprint(r.Batch), fmt.Sprintf("%.0f", r.SamplesPerSec), x(base), x(before),
			fmt.Sprintf("%.1f ms, %s %.0f%%", r.StepMedianMs, top.name, 100*top.ms/max(r.StepMedianMs, 1e-9)), verdicts[step.Rung]})
	}
	return plot.HTMLTable([]string{"step", "configuration", "batch", "samples/s", "× step 1", "× previous",
		"median step, largest part", "what its profile says it did"}, rows, f.Conditions.Caption())
}
