package profile

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace"
)

// TestRealH200Capture is the hook for a real capture: put an XSpace captured on the H200 (CaptureAround's
// Report.Raw, or the .xplane.pb written by WriteFiles) at testdata/h200_<anything>.xplane.pb and it is decoded and
// sanity-checked here. Without such a file the test skips.
func TestRealH200Capture(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "h200_*.xplane.pb"))
	if len(files) == 0 {
		t.Skip("no testdata/h200_*.xplane.pb: capture one on the H200 (profile.CaptureAround, Report.WriteFiles) and commit it")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			space, err := xspace.DecodeXSpace(trimTrailingZero(raw))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			devs := xspace.GPUDevices(space)
			if len(devs) == 0 {
				t.Fatalf("no %s plane among %d planes", xspace.GPUPlanePrefix, len(space.Planes))
			}
			d := devs[0]
			var kernels, withDetails, withOcc int
			for i := range d.Events {
				if e := &d.Events[i]; e.Kind == xspace.KindKernel {
					kernels++
					if e.Blocks() > 0 && e.ThreadsPerBlock() > 0 {
						withDetails++
					}
					if e.TheoreticalOccPct >= 0 {
						withOcc++
					}
				}
			}
			if kernels == 0 || withDetails == 0 {
				t.Fatalf("%d kernels, %d with parsed kernel_details", kernels, withDetails)
			}
			s, err := summarizeDevice(d, SummaryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.BusyPct <= 0 || s.BusyPct > 100 || s.SMEfficiencyPct > 100 || s.AchievedOccupancyPct > 100 || s.BusyUs > s.WindowUs {
				t.Errorf("out of range: %s", s)
			}
			if s.GPU.SMCount == 0 {
				t.Logf("no core_count plane stat: pass SummaryOptions.SMCount (H200: 132)")
			}
			t.Logf("GPU %q, %d SMs, cc %s; %d kernels (%d with kernel_details, %d with occupancy), %d skipped stream events",
				s.GPU.Name, s.GPU.SMCount, s.GPU.ComputeCapability, kernels, withDetails, withOcc, d.Skipped)
			t.Logf("%s", s)
			t.Logf("copies: H2D %+v D2H %+v D2D %+v memset %+v", s.H2D, s.D2H, s.D2D, s.Memset)
			for _, c := range s.Categories {
				t.Logf("  %-12s %9.1f µs %5.1f%%", c.Category, c.TimeUs, c.Pct)
			}
			for _, k := range s.Top(12) {
				t.Logf("  %9.1f µs ×%-5d %-10s grid %v block %v occ %.0f/%.0f TC %v hlo %q  %s", k.TotalUs, k.Count, k.Category,
					k.Grid, k.Block, k.TheoreticalOccPct, k.AchievedOccPct, k.TensorCore, k.HloOp, shorten(k.Name, 90))
			}
			for _, n := range s.Notes {
				t.Logf("note: %s", n)
			}
			pr, pw := io.Pipe()
			go func() {
				_, err := writeChromeTrace(pw, space, chromeOptions{})
				_ = pw.CloseWithError(err)
			}()
			var v struct {
				TraceEvents []json.RawMessage `json:"traceEvents"`
			}
			if err := json.NewDecoder(pr).Decode(&v); err != nil || len(v.TraceEvents) == 0 {
				t.Errorf("Chrome trace: %v, %d events", err, len(v.TraceEvents))
			}
		})
	}
}
