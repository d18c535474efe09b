// Package notebooks holds the tutorial's GoNB notebooks; this test executes each of them headless with Jupyter's
// nbconvert and checks what they printed and displayed.
//
// nbconvert exits 0 when a Go cell panics or exits non-zero (GoNB reports those as stderr text, and with
// --allow-errors nbconvert keeps going after error outputs), so the test reads the executed notebook itself and
// fails on: error outputs, "panic:" or "exit status N" on stderr, a code cell that did not run, an expected line
// missing (each notebook lists them in its metadata: "trainopt": {"expect": [...], "min_plots": N}), or fewer
// SVG/HTML outputs than the notebook declares.
//
// Environment:
//
//	TRAINOPT_NOTEBOOK_CI=1   jupyter or the gonb kernel missing is a failure, not a skip (CI sets it)
//	TRAINOPT_NOTEBOOK_CI=0   skip the notebooks (e.g. in a plain `go test ./...` that runs them separately)
//	TRAINOPT_NOTEBOOK_WRITE=1 (or -update) write the executed notebooks back into notebooks/ (their committed outputs)
//	TRAINOPT_NOTEBOOK_ONLY=01,08   run only the notebooks whose names start with these prefixes
package notebooks

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "write the executed notebooks back into notebooks/ (same as TRAINOPT_NOTEBOOK_WRITE=1)")

// notebookNames are the notebooks, in the order they run (later ones read the results earlier ones wrote).
var notebookNames = []string{
	"00-setup", "01-baseline", "02-mixed-precision", "03-batch-size", "04-reduce-h2d", "05-parallel-loading",
	"06-overlap-transfer", "07-beyond", "08-summary",
}

// perNotebookTimeout bounds one notebook (each cell also has nbconvert's own timeout).
const (
	perNotebookTimeout = 15 * time.Minute
	cellTimeoutS       = 900
)

// The toolchain GoMLX v0.28.16 needs; the kernel's `go` must use it.
const goToolchain = "go1.27.3"

type notebook struct {
	Cells    []cell `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
		Trainopt *struct {
			Expect    []string `json:"expect"`
			MinPlots  int      `json:"min_plots"`  // SVG charts (image/svg+xml, or HTML holding an <svg>)
			MinTables int      `json:"min_tables"` // HTML tables without a chart
		} `json:"trainopt"`
	} `json:"metadata"`
}

type cell struct {
	CellType       string          `json:"cell_type"`
	Source         json.RawMessage `json:"source"`
	ExecutionCount *int            `json:"execution_count"`
	Outputs        []output        `json:"outputs"`
}

type output struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"`
	Text       json.RawMessage            `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	Ename      string                     `json:"ename"`
	Evalue     string                     `json:"evalue"`
	Traceback  []string                   `json:"traceback"`
}

// multiline reads a notebook string field: a string or a list of strings.
func multiline(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []string
	if json.Unmarshal(raw, &parts) == nil {
		return strings.Join(parts, "")
	}
	return string(raw)
}

func readNotebook(path string) (*notebook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("%s: not a notebook: %w", path, err)
	}
	return &nb, nil
}

var (
	reExitStatus = regexp.MustCompile(`(?m)^.*exit status \d+.*$`)
	rePanic      = regexp.MustCompile(`(?m)^.*panic:.*$`)
)

// problems lists what is wrong with an executed notebook (nil when it passed).
func problems(nb *notebook) []string {
	var probs []string
	var stdout strings.Builder
	plots, tables := 0, 0
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		src := strings.TrimSpace(multiline(c.Source))
		if src == "" {
			continue
		}
		first, _, _ := strings.Cut(src, "\n")
		where := fmt.Sprintf("cell %d (%s)", i, first)
		if c.ExecutionCount == nil {
			probs = append(probs, where+": did not run")
		}
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "error":
				probs = append(probs, fmt.Sprintf("%s: error output %s: %s\n%s", where, o.Ename, o.Evalue, tail(strings.Join(o.Traceback, "\n"), 1500)))
			case "stream":
				text := multiline(o.Text)
				if o.Name == "stdout" {
					stdout.WriteString(text)
					if !strings.HasSuffix(text, "\n") {
						stdout.WriteString("\n")
					}
					continue
				}
				if m := rePanic.FindString(text); m != "" {
					probs = append(probs, fmt.Sprintf("%s: panic on stderr: %s\n%s", where, m, tail(text, 1500)))
				} else if m := reExitStatus.FindString(text); m != "" {
					probs = append(probs, fmt.Sprintf("%s: %q on stderr:\n%s", where, m, tail(text, 1500)))
				}
			case "display_data", "execute_result":
				html := multiline(o.Data["text/html"])
				if _, ok := o.Data["image/svg+xml"]; ok || strings.Contains(html, "<svg") {
					plots++
				} else if strings.Contains(html, "<table") {
					tables++
				}
			}
		}
	}
	meta := nb.Metadata.Trainopt
	if meta == nil || len(meta.Expect) == 0 {
		return append(probs, `metadata has no "trainopt": {"expect": [...]} list of lines the notebook must print`)
	}
	lines := strings.Split(stdout.String(), "\n")
	for _, want := range meta.Expect {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), want) }) {
			probs = append(probs, fmt.Sprintf("no stdout line starts with %q", want))
		}
	}
	if plots < meta.MinPlots {
		probs = append(probs, fmt.Sprintf("%d SVG plot outputs, want at least %d", plots, meta.MinPlots))
	}
	if tables < meta.MinTables {
		probs = append(probs, fmt.Sprintf("%d HTML table outputs, want at least %d", tables, meta.MinTables))
	}
	if plots+tables == 0 {
		probs = append(probs, "no SVG plot or HTML table output at all")
	}
	return probs
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestNotebookChecks checks the checker on hand-made executed notebooks (no Jupyter needed).
func TestNotebookChecks(t *testing.T) {
	mk := func(outputs string, meta string) *notebook {
		js := `{"cells":[{"cell_type":"code","source":["%%\n","x()"],"execution_count":1,"outputs":[` + outputs + `]}],
			"metadata":{"kernelspec":{"name":"gonb"}` + meta + `}}`
		var nb notebook
		if err := json.Unmarshal([]byte(js), &nb); err != nil {
			t.Fatal(err)
		}
		return &nb
	}
	const good = `{"output_type":"stream","name":"stdout","text":["backend: go\n","result: step 1: 4 samples/s\n"]},
		{"output_type":"display_data","data":{"text/html":"<div><svg></svg></div>"}}`
	const meta = `,"trainopt":{"expect":["backend:","result: step 1"],"min_plots":1}`
	if p := problems(mk(good, meta)); len(p) > 0 {
		t.Errorf("good notebook: %v", p)
	}
	for name, c := range map[string]struct{ outputs, meta, want string }{
		"panic":       {good + `,{"output_type":"stream","name":"stderr","text":"panic: boom\n\ngoroutine 1\nexit status 2\n"}`, meta, "panic"},
		"exit status": {good + `,{"output_type":"stream","name":"stderr","text":"ERROR: x\nexit status 1\n"}`, meta, "exit status 1"},
		"error":       {good + `,{"output_type":"error","ename":"ERROR","evalue":"exit status 2","traceback":[]}`, meta, "error output"},
		"missing":     {good, `,"trainopt":{"expect":["backend:","summary:"]}`, `"summary:"`},
		"no plot":     {`{"output_type":"stream","name":"stdout","text":"backend: go\nresult: step 1\n"}`, meta, "plot"},
		"table only":  {`{"output_type":"stream","name":"stdout","text":"backend: go\nresult: step 1\n"},{"output_type":"display_data","data":{"text/html":"<table></table>"}}`, meta, "0 SVG plot outputs, want at least 1"},
		"no meta":     {good, ``, "metadata"},
	} {
		p := strings.Join(problems(mk(c.outputs, c.meta)), "\n")
		if !strings.Contains(p, c.want) {
			t.Errorf("%s: problems %q do not mention %q", name, p, c.want)
		}
	}
	var nb notebook
	if err := json.Unmarshal([]byte(`{"cells":[{"cell_type":"code","source":"x()","execution_count":null,"outputs":[]}]}`), &nb); err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(problems(&nb), "\n"); !strings.Contains(p, "did not run") {
		t.Errorf("unexecuted cell not reported: %q", p)
	}
}

// TestNotebooksDeclareChecks checks the committed notebooks: all present, the gonb kernel, the first code cell
// imports the repository's module, and each declares what it must print and show.
func TestNotebooksDeclareChecks(t *testing.T) {
	for _, name := range notebookNames {
		nb, err := readNotebook(name + ".ipynb")
		if err != nil {
			t.Error(err)
			continue
		}
		if nb.Metadata.Kernelspec.Name != "gonb" {
			t.Errorf("%s: kernel %q, want gonb", name, nb.Metadata.Kernelspec.Name)
		}
		if m := nb.Metadata.Trainopt; m == nil || len(m.Expect) == 0 || m.MinPlots+m.MinTables < 1 {
			t.Errorf("%s: metadata.trainopt must list expected lines and min_plots or min_tables ≥ 1", name)
		}
		for _, c := range nb.Cells {
			if c.CellType == "code" {
				if src := multiline(c.Source); !strings.Contains(src, "go mod edit -require=github.com/gomlx-tutorials/trainopt@v0.0.0") {
					t.Errorf("%s: the first code cell must make the notebook import the repository's module, got %q", name, src)
				}
				break
			}
		}
	}
	extra, _ := filepath.Glob("[0-9][0-9]-*.ipynb")
	for _, p := range extra {
		if !slices.Contains(notebookNames, strings.TrimSuffix(p, ".ipynb")) {
			t.Errorf("%s is not in notebookNames: the notebook test would not run it", p)
		}
	}
}

// TestNotebooks executes every notebook headless.
func TestNotebooks(t *testing.T) {
	ci := os.Getenv("TRAINOPT_NOTEBOOK_CI")
	if ci == "0" {
		t.Skip("TRAINOPT_NOTEBOOK_CI=0: notebooks not executed")
	}
	if testing.Short() && ci != "1" {
		t.Skip("-short: notebooks not executed")
	}
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...) + " — run .ci/notebooks.sh (as root) to install Jupyter, GoNB and the kernel"
		if ci == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; set TRAINOPT_NOTEBOOK_CI=1 to make this a failure")
	}
	env := kernelEnv(t)
	jupyter, err := lookPath("jupyter", env)
	if err != nil {
		missing("jupyter not found")
	}
	var specs struct {
		Kernelspecs map[string]json.RawMessage `json:"kernelspecs"`
	}
	cmd := exec.Command(jupyter, "kernelspec", "list", "--json")
	cmd.Env = env
	if out, err := cmd.Output(); err != nil || json.Unmarshal(out, &specs) != nil {
		missing("`jupyter kernelspec list --json` failed (%v): is jupyter-client installed?", err)
	}
	if _, ok := specs.Kernelspecs["gonb"]; !ok {
		missing("the gonb Jupyter kernel is not installed")
	}
	if _, err := exec.Command(jupyter, "nbconvert", "--version").Output(); err != nil {
		missing("jupyter nbconvert not found (%v)", err)
	}

	write := *update || os.Getenv("TRAINOPT_NOTEBOOK_WRITE") == "1"
	only := os.Getenv("TRAINOPT_NOTEBOOK_ONLY")
	outDir := t.TempDir()
	runs := filepath.Join(t.TempDir(), "runs")
	if write {
		// The committed outputs mention the default runs folder, not a temporary one; a full run starts it empty
		// (a partial one keeps what the other notebooks measured: 08-summary reads it).
		runs, _ = filepath.Abs("runs")
		if only == "" {
			if err := os.RemoveAll(runs); err != nil {
				t.Fatal(err)
			}
		}
	}
	env = append(env, "TRAINOPT_NB_RUNS="+runs)

	start := time.Now()
	var timings []string
	for _, name := range notebookNames {
		if only != "" && !slices.ContainsFunc(strings.Split(only, ","), func(p string) bool { return strings.HasPrefix(name, strings.TrimSpace(p)) }) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t0 := time.Now()
			executed := execute(t, jupyter, env, name+".ipynb", outDir)
			timings = append(timings, fmt.Sprintf("%s %.0fs", name, time.Since(t0).Seconds()))
			if executed == "" {
				return
			}
			nb, err := readNotebook(executed)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems(nb) {
				t.Error(p)
			}
			if write {
				if t.Failed() {
					t.Logf("not writing %s back: it failed", name)
					return
				}
				data, err := os.ReadFile(executed)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name+".ipynb", data, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote the executed %s.ipynb back", name)
			}
		})
	}
	t.Logf("notebooks executed in %.1f min: %s", time.Since(start).Minutes(), strings.Join(timings, ", "))
}

// execute runs one notebook through nbconvert and returns the executed copy's path ("" after a reported failure).
func execute(t *testing.T, jupyter string, env []string, path, outDir string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), perNotebookTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, jupyter, "nbconvert", "--to", "notebook", "--execute", "--allow-errors",
		"--ExecutePreprocessor.kernel_name=gonb", fmt.Sprintf("--ExecutePreprocessor.timeout=%d", cellTimeoutS),
		"--output-dir", outDir, path)
	cmd.Env = env
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	logPath := filepath.Join(outDir, strings.TrimSuffix(path, ".ipynb")+".nbconvert.log")
	_ = os.WriteFile(logPath, log.Bytes(), 0o644)
	if ctx.Err() != nil {
		t.Errorf("%s: nbconvert did not finish within %s; its log:\n%s", path, perNotebookTimeout, tail(kernelNoise(log.String()), 4000))
		return ""
	}
	if err != nil {
		t.Errorf("%s: nbconvert failed: %v; its log:\n%s", path, err, tail(kernelNoise(log.String()), 4000))
		return ""
	}
	executed := filepath.Join(outDir, path)
	if _, err := os.Stat(executed); err != nil {
		t.Errorf("%s: nbconvert wrote no executed notebook: %v", path, err)
		return ""
	}
	return executed
}

var reKlog = regexp.MustCompile(`^[IW]\d{4} \d\d:\d\d:\d\d`)

// kernelNoise drops GoNB's info and warning log lines (klog "I1202 12:00:00 …") from nbconvert's log.
func kernelNoise(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !reKlog.MatchString(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// kernelEnv is the environment nbconvert (and so the kernel, and the cells' `go`) runs with: the Go toolchain
// GoMLX needs, GOPATH/bin (gonb, goimports, gopls) on the PATH, and no CIFAR-10 download in tests.
func kernelEnv(t *testing.T) []string {
	env := os.Environ()
	set := func(name, value string) {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
		env = append(env, name+"="+value)
	}
	if tc := os.Getenv("GOTOOLCHAIN"); tc == "" || tc == "local" || tc == "auto" {
		set("GOTOOLCHAIN", goToolchain)
	}
	if os.Getenv("TRAINOPT_NO_DOWNLOAD") == "" {
		set("TRAINOPT_NO_DOWNLOAD", "1")
	}
	path := os.Getenv("PATH")
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		if gp := strings.TrimSpace(string(out)); gp != "" {
			path = filepath.Join(strings.Split(gp, string(os.PathListSeparator))[0], "bin") + string(os.PathListSeparator) + path
		}
	}
	if goBin, err := exec.LookPath("go"); err == nil {
		path += string(os.PathListSeparator) + filepath.Dir(goBin)
	}
	set("PATH", path)
	return env
}

// lookPath finds a program on the PATH of env.
func lookPath(name string, env []string) (string, error) {
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(p) {
				f := filepath.Join(dir, name)
				if st, err := os.Stat(f); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
					return f, nil
				}
			}
		}
	}
	return "", exec.ErrNotFound
}
