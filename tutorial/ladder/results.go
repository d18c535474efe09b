package ladder

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
)

// File is a results file: assets/results/<device>-<date>T<time>Z-<id>.json (see resultsName).
type File struct {
	Conditions artifact.Conditions `json:"conditions"`
	Results    []Result            `json:"results"`
	// Reference holds numbers measured in the same device call by another implementation (PyTorch's ladder),
	// keyed by its own step names.
	Reference []Reference `json:"reference,omitempty"`

	// name and dir are where Write or WriteAs last wrote this File: Write keeps writing there.
	name, dir string
}

// Reference is one comparison point (a step of PyTorch's ladder, or JAX at a batch) measured beside ours.
type Reference struct {
	Framework     string  `json:"framework,omitempty"` // PyTorch or JAX ("" in older files: PyTorch)
	Step          string  `json:"step"`
	Name          string  `json:"name"`
	Batch         int     `json:"batch"`
	SamplesPerSec float64 `json:"samples_per_sec"`
	PeakMemGB     float64 `json:"peak_mem_gb,omitempty"`
}

// DeviceName is the device part of a results file's name, made safe for a path: "h200", "smoke-cpu-2-cores".
func DeviceName(c artifact.Conditions) string {
	gpu := artifact.DeviceName(c.GPU)
	if c.Smoke {
		gpu = "smoke-" + gpu
	}
	return artifact.SafeName(gpu)
}

// resultsName is the one naming rule of results files: "<device>-<UTC date and time>-<id>", e.g.
// "h200-2026-12-03T101502Z-3fa9c1". The time orders a folder's files; the random id keeps two runs started in
// the same second apart (and Write creates the file exclusively, so even a clash cannot replace another run's file).
func resultsName(c artifact.Conditions, at time.Time, id string) string {
	return artifact.RunName(DeviceName(c), at, id, "")
}

var reNameTime = regexp.MustCompile(`-(\d{4}-\d{2}-\d{2}T\d{6}Z)-[0-9a-f]+(\.json)?$`)

// NameTime is the time in a results file's name (see resultsName); false for a name without one, such as the
// hand-named files in assets/results ("h200-2026-12-03-run17.json").
func NameTime(path string) (time.Time, bool) {
	m := reNameTime.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(artifact.RunTimeLayout, m[1])
	return t, err == nil
}

// Latest is the newest results file (*.json) in dir: the one with the latest time in its name, or, for files
// without one, the latest modification time. Every run writes a file of its own, so "the results" of a folder
// is always a choice; this is the one to make.
func Latest(dir string) (string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return "", err
	}
	best, bestT := "", time.Time{}
	for _, p := range paths {
		t, ok := NameTime(p)
		if !ok {
			fi, err := os.Stat(p)
			if err != nil {
				continue
			}
			t = fi.ModTime()
		}
		if best == "" || t.After(bestT) || t.Equal(bestT) && p > best {
			best, bestT = p, t
		}
	}
	if best == "" {
		return "", fmt.Errorf("no results files (*.json) in %s", dir)
	}
	return best, nil
}

// Name is the base name (without extension) of the file this File was written to by Write or WriteAs, "" before.
func (f *File) Name() string { return f.name }

// Write writes the run's results to dir as <name>.json and .md, atomically, and returns their paths. The first
// Write creates a new file with a name of its own (resultsName), exclusively: it never replaces a file another run
// wrote, even one started in the same second. Later Writes to the same dir replace that same file, so a long run
// that writes after every step keeps one file, and a run that dies keeps what it measured. A copy of a File
// continues its file; a File whose device changed starts a new one.
func (f *File) Write(dir string) (jsonPath, mdPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	if f.name == "" || f.dir != dir || !strings.HasPrefix(f.name, DeviceName(f.Conditions)+"-") {
		if err := f.create(dir); err != nil {
			return "", "", err
		}
	}
	jsonPath = filepath.Join(dir, f.name+".json")
	mdPath, err = f.WriteAs(jsonPath)
	return jsonPath, mdPath, err
}

// create reserves a new results file name in dir: the .json is created with O_EXCL (empty until WriteAs renames
// the content over it).
func (f *File) create(dir string) error {
	name, err := artifact.CreateRun(dir, DeviceName(f.Conditions), "", func(p string) error {
		fh, err := os.OpenFile(p+".json", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			err = fh.Close()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	f.name, f.dir = name, dir
	return nil
}

// WriteAs writes the results to jsonPath and the table beside it (.md), each atomically (temp file + rename),
// replacing what is there: for a file that is deliberately one place for many runs (the notebooks' results
// file) or a file being re-rendered. It returns the .md's path.
func (f *File) WriteAs(jsonPath string) (mdPath string, err error) {
	mdPath = strings.TrimSuffix(jsonPath, ".json") + ".md"
	if err := artifact.WriteJSON(jsonPath, f); err != nil {
		return "", err
	}
	if err := artifact.WriteFile(mdPath, []byte(f.Markdown())); err != nil {
		return "", err
	}
	f.name, f.dir = strings.TrimSuffix(filepath.Base(jsonPath), ".json"), filepath.Dir(jsonPath)
	return mdPath, nil
}

// ErrNotResults: a file parsed as JSON but is not a ladder results file (no conditions, no results).
var ErrNotResults = errors.New("not a ladder results file")

// Read loads a results file. Files written before the keys were all snake_case ("ID", "Name", "Why") read the
// same: encoding/json matches keys without regard to case. A file without its conditions (device and date) or without a single result, such
// as "{}" or "null", is refused with ErrNotResults.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrNotResults, err)
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrNotResults, err)
	}
	return &f, nil // a Write of it creates a new file: reading never makes a file writable over
}

// validate checks what every results file written by Write has: the conditions' device and date, and results
// that each name their step.
func (f *File) validate() error {
	switch {
	case f.Conditions.GPU == "" || f.Conditions.Date == "":
		return errors.New("no conditions (device and date)")
	case len(f.Results) == 0:
		return errors.New("no results")
	}
	for i, r := range f.Results {
		if r.ID == "" {
			return fmt.Errorf("result %d names no step", i)
		}
	}
	return nil
}

// Markdown is the results table with its conditions.
func (f *File) Markdown() string {
	var b strings.Builder
	c := f.Conditions
	fmt.Fprintf(&b, "# Ladder results: %s, %s\n\n", c.GPU, c.Date)
	data := c.Data
	if c.Synthetic {
		data = "**SYNTHETIC** — " + data
	}
	fmt.Fprintf(&b, "- %s\n- versions: %s\n- data: %s\n- model: %s at %d px; warm-up %d steps, timed window %d steps\n",
		c.Backend, c.Versions, data, c.Model, c.ImageSize, c.Warmup, c.TimedSteps)
	if c.Driver != "" {
		fmt.Fprintf(&b, "- driver: %s\n", ShortDriver(c.Driver))
	}
	if c.Smoke {
		b.WriteString("- **smoke run on the CPU at tiny sizes: shows that every step trains, not how fast**\n")
	}
	b.WriteString("\n")
	b.WriteString(f.Tables())
	return b.String()
}

// Tables is the results table, its memory note and, when PyTorch was measured beside, the comparison table:
// Markdown without the title and conditions (the README embeds it under a caption of its own, see readme.go).
func (f *File) Tables() string {
	var b strings.Builder
	b.WriteString("| step | configuration | batch | samples/s | × step 1 | step ms (p10–p90) | data wait | transfer | compute | other | first call s | memory GB | loss first→last |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	var base float64
	for i, r := range f.Results {
		if r.Error != "" {
			fmt.Fprintf(&b, "| %s | %s | %d | failed: %s | | | | | | | | | |\n", r.ID, r.Name, r.Batch, r.Error)
			continue
		}
		if base == 0 && r.ID == "1" {
			base = r.SamplesPerSec
		}
		ratio := ""
		if base > 0 {
			ratio = fmt.Sprintf("%.2f×", r.SamplesPerSec/base)
		}
		first := fmt.Sprintf("%.1f", r.FirstCallS)
		switch {
		case r.ReusedExecutable:
			first += " (reused)"
		case r.CompileS > 0:
			first += fmt.Sprintf(" (%.1f + %.1f)", r.CompileS, r.FirstExecutionS())
		}
		name := r.Name
		if r.FastStart {
			name += " *(fast start: depthwise by Triton kernels)*"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.0f | %s | %.1f (%.1f–%.1f) | %.1f | %.1f | %.1f | %.1f | %s | %s | %.3f→%.3f |\n",
			r.ID, name, r.Batch, r.SamplesPerSec, ratio, r.StepMedianMs, r.StepP10Ms, r.StepP90Ms,
			r.DataWaitMs, r.TransferMs, r.ComputeMs, r.OtherMs, first, f.memoryWords(i), r.LossFirst, r.LossLast)
	}
	b.WriteString("\nMemory GB: XLA's compiled plan of the step (arguments + outputs − donated + temporaries), then, " +
		"where measured, the allocator's peak in use — in parentheses when an earlier step of the same process " +
		"set it, so it is not this step's.\n")
	if slices.ContainsFunc(f.Results, func(r Result) bool { return r.CompileS > 0 }) {
		b.WriteString("First call s: compile + first execution where both were timed; on the GPU the first execution " +
			"builds cuDNN's execution plans (seconds for the depthwise convolutions), which fast-start mode avoids " +
			"(TRAINOPT_FAST_START=on: the depthwise convolutions by Triton kernels).\n")
	}
	if len(f.Reference) > 0 {
		b.WriteString("\nPyTorch and JAX, same machine, same device call, beside Go's step of the same number for the " +
			"original tutorial's steps 1–6, else the fastest Go step at the same batch:\n\n" +
			"| framework, step | configuration | batch | samples/s | peak GB | Go samples/s | Go ÷ it | Go peak GB |\n" +
			"|---|---|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range f.Reference {
			goBest, goCells := f.counterpart(r), "| | |"
			if goBest != nil {
				goCells = fmt.Sprintf("%.0f (step %s) | %.2f× | %s", goBest.SamplesPerSec, goBest.ID,
					goBest.SamplesPerSec/r.SamplesPerSec, f.PeakWords(goBest))
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %.0f | %.2f | %s |\n", r.Label(), r.Name, r.Batch, r.SamplesPerSec, r.PeakMemGB, goCells)
		}
	}
	return b.String()
}

// NewConditions records where and how a ladder run happens: the backend choice, the data, the model and image
// size of the run's configurations (cfg is any of them: they share both), and the measurement settings. The CLI
// and the notebooks both call it, so their results files read the same.
func NewConditions(choice *backend.Choice, set *cifar.Set, cfg Config, opt Options, smoke bool) artifact.Conditions {
	c := artifact.Now()
	c.GPU, c.Backend, c.Plugin, c.Driver = choice.Device, choice.String(), choice.PluginPath, DriverVersion()
	c.Data, c.Synthetic, c.ImageSize = set.Source, set.Synthetic, cfg.ImageSize
	c.Model = fmt.Sprintf("MobileNetV2 width %.2f, %d params", cfg.Model.Width, mobilenet.New(cfg.Model).NumTrainable())
	c.Warmup, c.TimedSteps, c.Smoke = opt.Warmup, opt.Steps, smoke
	return c
}

// DriverVersion is the NVIDIA driver's version ("580.159.04"), or "" without one.
func DriverVersion() string {
	data, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return ShortDriver(line)
}

var reDriverVersion = regexp.MustCompile(`\b\d{3,}\.\d+(\.\d+)*\b`)

// ShortDriver is the version number in a driver line ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64
// 580.159.04 Release Build (…)" → "580.159.04"), which older results files stored whole; s itself if it has none.
func ShortDriver(s string) string {
	if v := reDriverVersion.FindString(s); v != "" {
		return v
	}
	return strings.TrimSpace(s)
}

// memoryWords is "3.66" (compiled total), "3.66 / 3.80" (compiled / device peak) or "3.66 / (14.40)" (a peak an
// earlier step of the process set), in GB (1e9 bytes).
func (f *File) memoryWords(i int) string {
	r := f.Results[i]
	s := ""
	if plan := r.planGB(); plan != "" {
		s = plan
	}
	if peak := r.PeakGB(); peak != "" {
		if s == "" {
			s = "–"
		}
		if !f.ownPeak(i) {
			peak = "(" + peak + ")"
		}
		s += " / " + peak
	}
	return s
}

// ownPeak reports whether result i's allocator peak is its own configuration's. DevicePeakBytes is its process's
// high-water mark so far: a result whose peak is no higher than an earlier result's of the same process reports
// the earlier configuration's peak (a process that ran batch 512 first had 256 and 128 report 512's peak:
// assets/results/h200-2026-12-03-run14.json).
func (f *File) ownPeak(i int) bool {
	for _, earlier := range f.Results[:i] {
		if earlier.Process == f.Results[i].Process && earlier.DevicePeakBytes >= f.Results[i].DevicePeakBytes {
			return false
		}
	}
	return f.Results[i].DevicePeakBytes > 0
}

// PeakWords is r's device memory for a comparison: the allocator's peak in GB when it is r's own (see ownPeak),
// else XLA's compiled plan marked "(plan)", "" when neither was recorded. r must point into f.Results.
func (f *File) PeakWords(r *Result) string {
	for i := range f.Results {
		if &f.Results[i] != r {
			continue
		}
		if f.ownPeak(i) {
			return r.PeakGB()
		}
		if plan := r.planGB(); plan != "" {
			return plan + " (plan)"
		}
	}
	return ""
}

// planGB is XLA's compiled plan of the step (Memory["total"]) in GB with two decimals, "" when not recorded.
func (r Result) planGB() string {
	if r.Memory["total"] <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", float64(r.Memory["total"])/1e9)
}

// PeakGB is DevicePeakBytes in GB (1e9 bytes) with two decimals, "" when it was not measured.
func (r Result) PeakGB() string {
	if r.DevicePeakBytes <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", float64(r.DevicePeakBytes)/1e9)
}

// counterpart is the Go result r is compared with: for the original tutorial's steps 1–6 of PyTorch the Go step
// of the same number (the same change), else the fastest Go step at r's batch.
func (f *File) counterpart(r Reference) *Result {
	if _, seed := TutorialRTX4000[r.Step]; seed && r.framework() == PyTorch {
		if g := f.Result(r.Step); g != nil && g.Error == "" {
			return g
		}
	}
	return f.FastestAt(r.Batch)
}

// FastestAt is the Go result with the most samples/s at a batch size (nil if none ran at it).
func (f *File) FastestAt(batch int) *Result {
	var best *Result
	for i := range f.Results {
		r := &f.Results[i]
		if r.Error == "" && r.Batch == batch && (best == nil || r.SamplesPerSec > best.SamplesPerSec) {
			best = r
		}
	}
	return best
}
