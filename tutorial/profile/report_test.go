package profile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/internal/testutil"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

func testReport(t *testing.T) *Report {
	t.Helper()
	r := &Report{Title: "MobileNetV2 bf16 b128", Conditions: artifact.Now(), Raw: testSpaceBytes(),
		Window: Window{StartNs: t0Ns, EndNs: t0Ns + 200_000}}
	r.Conditions.Batch, r.Conditions.Precision, r.Conditions.Data, r.Conditions.Steps = 128, "bf16", "synthetic", 2
	if err := r.Resummarize(SummaryOptions{}); err != nil {
		t.Fatal(err)
	}
	step := StepBreakdown{DataWait: 3 * time.Millisecond, Transfer: time.Millisecond, Compute: 14 * time.Millisecond, Other: 2 * time.Millisecond, Steps: 1}
	r.Step = &step
	r.Memory = &memory.Report{CapacityBytes: 150e9, Compiled: []memory.CompiledAt{
		{Batch: 128, Stats: memory.Stats{Device: memory.Usage{Arguments: 1e9, Temporary: 3.46e9}}},
		{Batch: 256, Stats: memory.Stats{Device: memory.Usage{Arguments: 1e9, Temporary: 6.9e9}}},
	}}
	if err := r.Memory.Predict(0.1); err != nil {
		t.Fatal(err)
	}
	r.Recommend()
	return r
}

func TestReportFiles(t *testing.T) {
	r := testReport(t)
	if r.Kernels == nil || r.Kernels.Steps != 2 || r.Conditions.GPU != "NVIDIA H200" {
		t.Fatalf("kernels %+v, GPU %q", r.Kernels, r.Conditions.GPU)
	}
	if got := rules(r.Recommendations); !got["input-bound"] || got["gpu-underused"] {
		t.Errorf("recommendations %v", got)
	}
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	if back.Kernels == nil || back.Kernels.KernelCount != 2 || back.Step == nil || back.Step.Compute != 14*time.Millisecond ||
		back.Conditions.Precision != "bf16" || back.Memory.PredictedMaxBatch == 0 || back.Chrome == nil || back.XPlaneFile == "" {
		t.Errorf("report.json round trip: %s", js)
	}
	if raw, err := os.ReadFile(filepath.Join(dir, back.XPlaneFile)); err != nil || !bytes.Equal(raw, r.Raw) {
		t.Errorf("xplane file %s: %v", back.XPlaneFile, err)
	}
	if b, err := testutil.ReadGzip(t, filepath.Join(dir, "trace.json.gz")); err != nil || !json.Valid(b) {
		t.Errorf("trace.json.gz invalid: %v", err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"## Conditions", "| Precision | bf16 |", "### Top 2 kernels", "`loop_add_fusion`", "GPU busy | 75.0%",
		"kernel time per step | 0.10 ms", "**input-bound**", "largest batch with 10% headroom", "trace.json.gz"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	frag := r.HTML()
	if !strings.Contains(string(html), frag) || strings.Count(frag, "<svg") != 2 || strings.Contains(frag, "<script") ||
		!strings.HasPrefix(frag, "<div") || !strings.HasSuffix(frag, "</div>") {
		t.Errorf("HTML fragment: %s", frag)
	}
}

func TestReportWithoutCapture(t *testing.T) {
	r := &Report{Conditions: artifact.Now()}
	if err := r.Resummarize(SummaryOptions{}); err == nil {
		t.Error("Resummarize without a capture")
	}
	r.Recommend()
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "trace.json.gz")); err == nil {
		t.Error("trace written without a capture")
	}
	if !strings.Contains(r.Markdown(), "# GPU profile") {
		t.Error("markdown title")
	}
}
