package artifact

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Conditions travel with every result so that a number, a table or a plot never loses its caption: where it was
// measured (GPU, driver, backend), with what (versions, the code's revision), on what data, and — where one file is
// one measured configuration or one ladder run — the sizes and steps that decide what the numbers mean.
type Conditions struct {
	Date      string `json:"date"`           // UTC, YYYY-MM-DD
	Time      string `json:"time,omitempty"` // UTC, RFC 3339
	GPU       string `json:"gpu"`            // e.g. "NVIDIA H200", or "CPU (2 cores)"
	Driver    string `json:"driver,omitempty"`
	Backend   string `json:"backend"` // the one-line backend choice
	Plugin    string `json:"plugin,omitempty"`
	PJRTAPI   string `json:"pjrt_api,omitempty"` // the plugin's PJRT C API version, "0.115"
	Versions  string `json:"versions"`           // Go, GoMLX, compute, go-xla
	Revision  string `json:"revision"`           // the code's VCS revision ([Revision])
	Data      string `json:"data"`               // "synthetic …" or "CIFAR-10 …"
	Synthetic bool   `json:"synthetic"`
	HostCores int    `json:"host_cores,omitempty"`

	// The measurement, where the file has one.
	ImageSize  int    `json:"image_size,omitempty"`
	Model      string `json:"model,omitempty"`
	Batch      int    `json:"batch,omitempty"`
	Precision  string `json:"precision,omitempty"` // "f32", "bf16", ...
	Warmup     int    `json:"warmup_steps,omitempty"`
	TimedSteps int    `json:"timed_steps,omitempty"`
	Steps      int    `json:"steps,omitempty"` // training steps inside a profiled window
	Smoke      bool   `json:"smoke,omitempty"` // tiny sizes on the CPU: shows the steps run, not their speed
}

// Now is the conditions every artifact shares, filled from the running program: the date and time, the versions
// linked in, the code's revision and the host's cores. The caller adds the GPU, backend, data and measurement.
func Now() Conditions {
	t := time.Now().UTC()
	return Conditions{Date: t.Format("2006-01-02"), Time: t.Format(time.RFC3339), Versions: ReadVersions().String(),
		Revision: Revision(), HostCores: runtime.NumCPU()}
}

// DataKind is "SYNTHETIC data" or "real CIFAR-10": what a caption must never leave out.
func (c Conditions) DataKind() string {
	if c.Synthetic {
		return "SYNTHETIC data"
	}
	return "real CIFAR-10"
}

// Caption is the one-line summary of the conditions for plots and tables.
func (c Conditions) Caption() string {
	s := fmt.Sprintf("%s, %s, %s, %dpx, %s, %s", c.GPU, c.Date, c.DataKind(), c.ImageSize, c.Model, c.Versions)
	if c.Smoke {
		s += " — smoke sizes on the CPU: not a speed measurement"
	}
	return s
}

// UnmarshalJSON reads the current form and the profile reports' older one, where "date" was RFC 3339,
// "versions" a map of module paths beside "go_version", and "plugin" an object with the PJRT API version.
func (c *Conditions) UnmarshalJSON(data []byte) error {
	type plain Conditions
	var v struct {
		plain
		Versions  json.RawMessage `json:"versions"`
		Plugin    json.RawMessage `json:"plugin"`
		GoVersion string          `json:"go_version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*c = Conditions(v.plain)
	if len(c.Date) > len("2006-01-02") && c.Time == "" {
		c.Time, c.Date = c.Date, c.Date[:len("2006-01-02")]
	}
	if err := c.readVersions(v.Versions, v.GoVersion); err != nil {
		return err
	}
	return c.readPlugin(v.Plugin)
}

func (c *Conditions) readVersions(raw json.RawMessage, goVersion string) error {
	if len(raw) == 0 || raw[0] != '{' {
		return unmarshalOptional(raw, &c.Versions)
	}
	var mods map[string]string
	if err := json.Unmarshal(raw, &mods); err != nil {
		return err
	}
	parts := []string{goVersion}
	var paths []string
	for p := range mods {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		parts = append(parts, p[strings.LastIndex(p, "/")+1:]+" "+mods[p]) // "gomlx v0.28.16"
	}
	c.Versions = strings.Join(parts, ", ")
	return nil
}

func (c *Conditions) readPlugin(raw json.RawMessage) error {
	if len(raw) == 0 || raw[0] != '{' {
		return unmarshalOptional(raw, &c.Plugin)
	}
	var p struct {
		Path  string `json:"path"`
		Major int    `json:"pjrt_api_major"`
		Minor int    `json:"pjrt_api_minor"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	c.Plugin, c.PJRTAPI = p.Path, fmt.Sprintf("%d.%d", p.Major, p.Minor)
	return nil
}

func unmarshalOptional(raw json.RawMessage, s *string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, s)
}
