package profile

// The report is what a tutorial reader keeps: the conditions of the measurement (a number without its GPU,
// versions, batch, precision and data source is not a result), the step-time split, the GPU-side summary, memory,
// and the recommendations; as JSON (for tables across runs), Markdown (for the text) and an HTML fragment with
// inline SVG charts (for GoNB's gonbui.DisplayHTML, no JavaScript or external files).

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/nvml"
)

// Report is one profiled configuration.
type Report struct {
	Title           string              `json:"title"`
	Conditions      artifact.Conditions `json:"conditions"`
	Step            *StepBreakdown      `json:"step,omitempty"` // Accumulated over Step.Steps steps, or a mean (Steps 1).
	Kernels         *KernelSummary      `json:"kernels,omitempty"`
	GPUSampler      *nvml.Summary       `json:"gpu_sampler,omitempty"`
	Memory          *memory.Report      `json:"memory,omitempty"`
	Recommendations []Recommendation    `json:"recommendations,omitempty"`
	Chrome          *ChromeResult       `json:"chrome_trace,omitempty"`
	XPlaneFile      string              `json:"xplane_file,omitempty"`
	Notes           []string            `json:"notes,omitempty"`

	// Raw is the serialized XSpace of the capture (written as .xplane.pb by WriteFiles).
	Raw []byte `json:"-"`
	// Window is the wall-clock interval of the profiled steps.
	Window Window `json:"-"`
	space  *xspace.XSpace
}

// decodedSpace decodes (once) and returns the captured XSpace.
func (r *Report) decodedSpace() (*xspace.XSpace, error) {
	if r.space == nil {
		if len(r.Raw) == 0 {
			return nil, errors.New("report has no captured profile")
		}
		s, err := xspace.DecodeXSpace(r.Raw)
		if err != nil {
			return nil, err
		}
		r.space = s
	}
	return r.space, nil
}

// Resummarize recomputes Kernels from the captured profile (e.g. with Steps or SMCount set); a zero opts.Window
// means the capture's window.
func (r *Report) Resummarize(opts SummaryOptions) error {
	space, err := r.decodedSpace()
	if err != nil {
		return err
	}
	if opts.Window == (Window{}) {
		opts.Window = r.Window
	}
	if opts.Steps == 0 {
		opts.Steps = r.Conditions.Steps
	}
	k, err := summarize(space, opts)
	if err != nil {
		return err
	}
	r.Kernels = k
	if r.Conditions.GPU == "" {
		r.Conditions.GPU = k.GPU.Name
	}
	return nil
}

// Recommend (re)computes the recommendations from the report's parts.
func (r *Report) Recommend() {
	in := RecommendInput{Kernels: r.Kernels, Memory: r.Memory.Use(r.Conditions.Batch)}
	if r.Step != nil {
		in.Step = *r.Step
	}
	r.Recommendations = Recommend(in)
}

// JSON returns the indented JSON of the report.
func (r *Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// WriteFiles writes report.json, report.md, report.html, trace.json.gz (Perfetto) and the raw XSpace under
// dir/plugins/profile/<run>/<host>.xplane.pb (open with `xprof --logdir dir` or TensorBoard's profile plugin).
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if len(r.Raw) > 0 {
		space, err := r.decodedSpace()
		if err != nil {
			r.Notes = append(r.Notes, "captured profile does not decode: "+err.Error())
		} else {
			res, err := writeChromeTraceFile(filepath.Join(dir, "trace.json.gz"), space, chromeOptions{})
			if err != nil {
				return fmt.Errorf("writing Chrome trace: %w", err)
			}
			r.Chrome = &res
		}
		run := time.Now().Format("2006_01_02_15_04_05")
		host := "gomlx"
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
		p, err := writeXPlane(dir, run, host, r.Raw)
		if err != nil {
			return fmt.Errorf("writing xplane.pb: %w", err)
		}
		if rel, err := filepath.Rel(dir, p); err == nil {
			p = rel
		}
		r.XPlaneFile = p
	}
	js, err := r.JSON()
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"report.json": append(js, '\n'),
		"report.md":   []byte(r.Markdown()),
		"report.html": []byte("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + htmlEsc(r.title()) +
			"</title></head><body>\n" + r.HTML() + "\n</body></html>\n"),
	}
	for name, b := range files {
		if err := artifact.WriteFile(filepath.Join(dir, name), b); err != nil {
			return err
		}
	}
	return nil
}

func (r *Report) title() string {
	if r.Title != "" {
		return r.Title
	}
	return "GPU profile"
}

// conditionRows are the (label, value) pairs shown for the conditions.
func (r *Report) conditionRows() [][2]string {
	c := r.Conditions
	var rows [][2]string
	add := func(k, v string) {
		if v != "" {
			rows = append(rows, [2]string{k, v})
		}
	}
	add("GPU", c.GPU)
	add("Date", c.Time)
	if c.Time == "" {
		add("Date", c.Date)
	}
	add("Versions", c.Versions)
	add("Revision", c.Revision)
	add("Backend", c.Backend)
	if c.Plugin != "" {
		add("PJRT plugin", fmt.Sprintf("%s (C API %s)", c.Plugin, c.PJRTAPI))
	}
	if c.Batch > 0 {
		add("Batch", fmt.Sprint(c.Batch))
	}
	add("Precision", c.Precision)
	add("Data", c.Data)
	if c.Steps > 0 {
		add("Steps profiled", fmt.Sprint(c.Steps))
	}
	return rows
}

// steps returns the number of steps for per-step figures (0 if unknown).
func (r *Report) steps() int {
	if r.Kernels != nil && r.Kernels.Steps > 0 {
		return r.Kernels.Steps
	}
	return r.Conditions.Steps
}

func fmtPct(p float64) string {
	if p < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", p)
}

func fmtDim3(d [3]int) string {
	if d == ([3]int{}) {
		return ""
	}
	return fmt.Sprintf("%d,%d,%d", d[0], d[1], d[2])
}

// shorten cuts long (C++ template) kernel names for tables; the full names are in report.json.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
