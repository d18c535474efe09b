package profile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/testutil"
)

type chromeTrace struct {
	DisplayTimeUnit string `json:"displayTimeUnit"`
	TraceEvents     []struct {
		Ph   string         `json:"ph"`
		Name string         `json:"name"`
		Pid  int            `json:"pid"`
		Tid  int            `json:"tid"`
		Ts   float64        `json:"ts"`
		Dur  float64        `json:"dur"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
	OtherData map[string]string `json:"otherData"`
}

func TestChromeTrace(t *testing.T) {
	space := mustDecode(t, testSpaceBytes())
	var buf bytes.Buffer
	res, err := writeChromeTrace(&buf, space, chromeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var tr chromeTrace
	if err := json.Unmarshal(buf.Bytes(), &tr); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, buf.String())
	}
	if res.Events != 6 || res.Total != 6 || res.Truncated {
		t.Errorf("result %+v", res)
	}
	procs := map[int]string{}
	threads := map[[2]int]string{}
	var xs int
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "process_name" {
				procs[e.Pid] = e.Args["name"].(string)
			}
			if e.Name == "thread_name" {
				threads[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
			}
		case "X":
			xs++
			switch e.Name {
			case k1Name:
				if procs[e.Pid] != "/device:GPU:0" || threads[[2]int{e.Pid, e.Tid}] != "Stream #7(Kernel,MemcpyH2D)" ||
					e.Ts != 0 || e.Dur != 100 || e.Args["kernel_details"] != k1Det || e.Args["correlation_id"] != 42.0 ||
					e.Args["hlo_op"] != "convolution.1" {
					t.Errorf("k1 event: %+v (process %q)", e, procs[e.Pid])
				}
			case k2Name:
				if e.Ts != 50 || e.Dur != 100 || threads[[2]int{e.Pid, e.Tid}] != "Stream #8(Kernel,MemcpyD2H)" {
					t.Errorf("k2 event: %+v", e)
				}
			case "MemcpyH2D":
				if e.Ts != 150 || e.Dur != 10 || e.Args["memcpy_details"] != h2dDet {
					t.Errorf("H2D event: %+v", e)
				}
			case "XlaModule:jit_train_step":
				if procs[e.Pid] != "/host:CPU" || e.Ts != 0.5 || e.Dur != 180 || e.Args["hlo_module"] != "jit_train_step" {
					t.Errorf("host event: %+v", e)
				}
			}
		}
	}
	if xs != 6 || len(procs) != 2 {
		t.Errorf("%d X events, processes %v", xs, procs)
	}
	if tr.OtherData["truncated"] != "false" || tr.OtherData["base_time_unix_ns"] == "" {
		t.Errorf("otherData %v", tr.OtherData)
	}
}

func TestChromeTraceTruncated(t *testing.T) {
	space := mustDecode(t, testSpaceBytes())
	var buf bytes.Buffer
	res, err := writeChromeTrace(&buf, space, chromeOptions{MaxEvents: 3})
	if err != nil {
		t.Fatal(err)
	}
	var tr chromeTrace
	if err := json.Unmarshal(buf.Bytes(), &tr); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	if !res.Truncated || res.Events != 3 || res.Total != 6 || tr.OtherData["truncated"] != "true" {
		t.Errorf("result %+v, otherData %v", res, tr.OtherData)
	}
	var xs int
	var marked bool
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			xs++
		}
		if e.Name == "process_name" && strings.HasPrefix(e.Args["name"].(string), "TRUNCATED") {
			marked = true
		}
	}
	if xs != 3 || !marked {
		t.Errorf("%d X events, truncation marked %v", xs, marked)
	}
}

func TestChromeTraceFileGzipAndXPlane(t *testing.T) {
	dir := t.TempDir()
	raw := testSpaceBytes()
	space := mustDecode(t, raw)
	path := filepath.Join(dir, "trace.json.gz")
	if _, err := writeChromeTraceFile(path, space, chromeOptions{DeviceOnly: true}); err != nil {
		t.Fatal(err)
	}
	b, err := testutil.ReadGzip(t, path)
	if err != nil || !json.Valid(b) || strings.Contains(string(b), "/host:CPU") {
		t.Errorf("gzip trace: err %v, valid %v, host plane present %v", err, json.Valid(b), strings.Contains(string(b), "/host:CPU"))
	}
	p, err := writeXPlane(dir, "run1", "h200", raw)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "plugins", "profile", "run1", "h200.xplane.pb"); p != want {
		t.Errorf("xplane path %q, want %q", p, want)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, raw) {
		t.Error("xplane.pb content differs")
	}
}
