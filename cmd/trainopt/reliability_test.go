package main

// Issue #16's cases, one test each: results never lost, no input panics, every exit code what the README says.
// The signal, concurrency and panic cases run the CLI as a real process: this test binary re-executed as trainopt
// (TestMain).

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
)

const cliEnv = "TRAINOPT_TEST_AS_CLI"

// TestMain runs main() instead of the tests when re-executed by runCLI.
func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		os.Args = append([]string{"trainopt"}, os.Args[1:]...)
		main()
		os.Exit(exitOK)
	}
	os.Exit(m.Run())
}

// cli is the CLI as a process: env is added to the test's environment (GOMLX_BACKEND=go unless given).
func cli(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), cliEnv+"=1", "GOMLX_BACKEND=go")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// runCLI runs the CLI to the end and returns its exit code and output.
func runCLI(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := cli(t, env, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("trainopt %v: %v", args, err)
		}
	}
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

// Tiny sizes: the smallest the CLI allows that still train on the CPU in a second or two.
var tinyTrain = []string{"-size", "48", "-width", "0.25", "-batch", "8", "-warmup", "0", "-eval", "0",
	"-train-images", "64", "-precision", "f32", "-workers", "1"}

func tiny(args ...string) []string { return append(slices.Clone(tinyTrain), args...) }

func noPanic(t *testing.T, what, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("%s panicked:\n%s", what, stderr)
	}
}

// Case 1: two ladders started at once into one folder keep two results files, each with its own step; a third
// run into the folder adds a file (before, <gpu>-<date> was replaced). Also: without a GPU, -warmup and -timed are
// honoured, and said.
func TestConcurrentLaddersKeepEveryResult(t *testing.T) {
	out, data := t.TempDir(), t.TempDir()
	args := []string{"ladder", "-steps", "1", "-warmup", "0", "-timed", "2", "-data", data, "-out", out}
	type run struct {
		code           int
		stdout, stderr string
	}
	runs := make([]run, 2)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &runs[i]
			r.code, r.stdout, r.stderr = runCLI(t, nil, args...)
		}()
	}
	wg.Wait()
	reResults := regexp.MustCompile(`results: (\S+\.json),`) // printed even when the step failed
	var paths []string
	for i, r := range runs {
		// A 2-step smoke window may not show the loss falling: exit 1 ("1 of 1 ladder steps failed") is that
		// assertion, not a lost result.
		if r.code != exitOK && r.code != exitRun {
			t.Fatalf("ladder %d: exit %d\n%s", i, r.code, r.stderr)
		}
		m := reResults.FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("ladder %d printed no results path:\n%s\n%s", i, r.stdout, r.stderr)
		}
		paths = append(paths, m[1])
		if !strings.Contains(r.stderr, "warm-up 0 and 2 timed steps per ladder step") {
			t.Errorf("ladder %d does not say it honours -warmup/-timed without a GPU:\n%s", i, r.stderr)
		}
	}
	if paths[0] == paths[1] {
		t.Fatalf("both ladders wrote %s", paths[0])
	}
	for _, p := range paths {
		f, err := ladder.Read(p)
		if err != nil || len(f.Results) != 1 || f.Results[0].ID != "1" {
			t.Errorf("%s: %+v, %v", p, f, err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 2 {
		t.Errorf("want 2 results files in %s, got %v", out, files)
	}
	if latest, err := ladder.Latest(out); err != nil || !slices.Contains(paths, latest) {
		t.Errorf("Latest(%s) = %s, %v", out, latest, err)
	}
}

// Case 1, profiles: two profiles of the same step into one folder keep two folders (before, <gpu>-<date>-step<ID>
// was replaced), both named by the one rule and both found by the recorded-profile reader.
func TestProfilesKeepEveryRun(t *testing.T) {
	out, data := t.TempDir(), t.TempDir()
	args := []string{"profile", "-step", "1", "-warmup", "0", "-timed", "2", "-capture", "1", "-data", data, "-out", out}
	for i := range 2 {
		if code, stdout, stderr := runCLI(t, nil, args...); code != exitOK {
			t.Fatalf("profile %d: exit %d\n%s\n%s", i, code, stdout, stderr)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "smoke-*-step1"))
	re := regexp.MustCompile(`^smoke-cpu-\d+-cores-\d{4}-\d\d-\d\dT\d{6}Z-[0-9a-f]{6}-step1$`)
	if len(dirs) != 2 || !re.MatchString(filepath.Base(dirs[0])) || !re.MatchString(filepath.Base(dirs[1])) {
		t.Fatalf("want two profile folders named <device>-<time>-<id>-step1 in %s, got %v", out, dirs)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "report.json")); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}

// Case 2: flag values that panicked (mobilenet's config, makechan) are usage errors.
func TestFlagValuesDoNotPanic(t *testing.T) {
	data := t.TempDir()
	for _, args := range [][]string{
		{"train", "-width", "0"}, {"train", "-width", "-1"}, {"train", "-workers", "-1"},
	} {
		code, _, stderr := runCLI(t, nil, append(args, "-data", data)...)
		noPanic(t, strings.Join(args, " "), stderr)
		if code != exitUsage || !strings.Contains(stderr, "-"+strings.TrimPrefix(args[1], "-")) {
			t.Errorf("trainopt %v: exit %d, want %d and the flag named:\n%s", args, code, exitUsage, stderr)
		}
	}
}

// Case 3: nonsense values are refused before any work, each naming its flag.
func TestNonsenseValuesRefused(t *testing.T) {
	data := t.TempDir()
	for _, c := range []struct {
		cmd  func([]string) error
		args []string
		flag string
	}{
		{cmdTrain, []string{"-steps", "-5"}, "-steps"},
		{cmdTrain, []string{"-steps", "0"}, "-steps"},
		{cmdTrain, []string{"-warmup", "-3"}, "-warmup"},
		{cmdTrain, []string{"-width", "NaN"}, "width"},
		{cmdTrain, []string{"-width", "1e-9"}, "width"},
		{cmdTrain, []string{"-eval", "-1"}, "-eval"},
		{cmdTrain, []string{"-train-images", "-1"}, "-train-images"},
		{cmdTrain, []string{"-lr", "NaN"}, "-lr"},
		{cmdTrain, []string{"-epochs", "-1"}, "-epochs"},
		{cmdLadder, []string{"-model", "reduction-row=-5"}, "reduction-row"},
		{cmdLadder, []string{"-timed", "0"}, "-timed"},
		{cmdLadder, []string{"-k", "0"}, "-k"},
		{cmdProfile, []string{"-capture", "0"}, "-capture"},
		{cmdData, []string{"-download", "-timeout", "0s"}, "-timeout"},
	} {
		args := c.args
		if c.flag != "-timeout" { // data has -dir, not -data
			args = append(args, "-data", data)
		}
		err := c.cmd(args)
		if code := report(err); code != exitUsage || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%v: exit %d (%v), want %d naming %s", c.args, code, err, exitUsage, c.flag)
		}
	}
}

// readmeExitCodes reads the README's exit-code table.
func readmeExitCodes(t *testing.T) map[int]string {
	doc, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "Exit codes (`cmd/trainopt/reliability_test.go` asserts this table):")
	if !ok {
		t.Fatal("README.md has no exit-code table")
	}
	// The table is the first run of "|" lines after the marker: the results tables further down are not it.
	rest = strings.TrimLeft(rest, "\n")
	table, _, _ := strings.Cut(rest, "\n\n")
	codes := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| (.+) \|$`).FindAllStringSubmatch(table, -1) {
		n, _ := strconv.Atoi(m[1])
		codes[n] = m[2]
	}
	return codes
}

// Case 4: every exit code of the README's table, each from real cases (the ones the issue found wrong among
// them), and no other code.
func TestExitCodesAreTheReadmes(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	notResults := filepath.Join(out, "empty.json")
	if err := os.WriteFile(notResults, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[int][][]string{
		exitOK:  {{"-h"}, {"train", "-h"}, {"ladder", "-h"}, {"train", "-data", data, "-steps", "2"}},
		exitRun: {{"memory", "-data", data, "-timed", "1", "-out", out}}, // no compiled memory statistics on the pure-Go backend
		exitUsage: {{"train", "-batch", "0"}, {"train", "-data", data, "-train-images", "64", "-batch", "1000000"},
			{"train", "-size", "0"}, {"train", "-k", "0"}, {"ladder", "-k", "0"}, {"train", "-nope"}, {"frobnicate"}},
		exitData:        {{"train", "-real", "-data", data}, {"results", notResults}},
		exitInterrupted: nil, // TestInterruptSaysWhatWasKept
	}
	readme := readmeExitCodes(t)
	for code := range cases {
		if _, ok := readme[code]; !ok {
			t.Errorf("exit code %d is not in the README's table", code)
		}
	}
	for code, meaning := range readme {
		if _, ok := cases[code]; !ok {
			t.Errorf("the README's exit code %d (%s) is asserted by no test", code, meaning)
		}
	}
	for want, list := range cases {
		for _, args := range list {
			if want == exitOK && len(args) > 1 && args[1] == "-data" {
				args = append([]string{"train"}, tiny(args[1:]...)...)
			}
			code, _, stderr := runCLI(t, nil, args...)
			if code != want {
				t.Errorf("trainopt %v: exit %d, want %d (%s)\n%s", args, code, want, readme[want], stderr)
			}
			if strings.HasSuffix(args[len(args)-1], "-h") && strings.Contains(stderr, "help requested") {
				t.Errorf("trainopt %v: says %q", args, "help requested")
			}
		}
	}
}

// Case 5: an -out that cannot be written fails at once, before the backend, the data or a step.
func TestOutCheckedBeforeAnyWork(t *testing.T) {
	data := t.TempDir()
	outs := []string{"/proc/trainopt-test"}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, ro)
	}
	for _, out := range outs {
		for _, cmd := range []string{"ladder", "profile", "memory"} {
			start := time.Now()
			code, _, stderr := runCLI(t, nil, cmd, "-data", data, "-out", out)
			if code != exitUsage || !strings.Contains(stderr, "-out "+out) {
				t.Errorf("%s -out %s: exit %d, want %d naming -out:\n%s", cmd, out, code, exitUsage, stderr)
			}
			if strings.Contains(stderr, "backend:") || strings.Contains(stderr, "step 1") {
				t.Errorf("%s -out %s: work started before the check:\n%s", cmd, out, stderr)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%s -out %s took %s", cmd, out, d)
			}
		}
	}
}

// Case 6: `trainopt results` on JSON that is not a results file: exit 3, nothing written.
func TestResultsRefusesWhatIsNotResults(t *testing.T) {
	dir := t.TempDir()
	for _, body := range []string{"{}", "null"} {
		p := filepath.Join(dir, "x.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		err := cmdResults([]string{p})
		if code := report(err); code != exitData || !strings.Contains(err.Error(), "not a ladder results file") {
			t.Errorf("results on %q: exit %d (%v), want %d", body, code, err, exitData)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("results on %q wrote files: %v", body, entries)
		}
	}
}

// startCLI starts the CLI and returns when its stderr has a line matching ready.
func startCLI(t *testing.T, ready string, args ...string) (cmd *exec.Cmd, stderr *syncBuffer, done chan struct{}) {
	t.Helper()
	cmd = cli(t, nil, args...)
	stderr = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &syncBuffer{}, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	re := regexp.MustCompile(ready)
	deadline := time.After(60 * time.Second)
	for !re.MatchString(stderr.String()) {
		select {
		case <-done:
			t.Fatalf("trainopt %v ended before %q:\n%s", args, ready, stderr)
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("trainopt %v: no %q within a minute:\n%s", args, ready, stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return cmd, stderr, done
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func interruptAndWait(t *testing.T, cmd *exec.Cmd, done chan struct{}) int {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no exit within 30 s of SIGINT")
	}
	return cmd.ProcessState.ExitCode()
}

// Case 7: Ctrl-C during train and during ladder exits 130 and says what was kept and what was not.
func TestInterruptSaysWhatWasKept(t *testing.T) {
	t.Run("train", func(t *testing.T) {
		cmd, stderr, done := startCLI(t, `step train: first call`, append([]string{"train"}, tiny("-data", t.TempDir(), "-steps", "100000")...)...)
		if code := interruptAndWait(t, cmd, done); code != exitInterrupted {
			t.Fatalf("exit %d, want %d:\n%s", code, exitInterrupted, stderr)
		}
		if want := "trainopt: interrupted (interrupt); kept: nothing (train writes no files); not written: the summary"; !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	})
	t.Run("ladder", func(t *testing.T) {
		out := t.TempDir()
		cmd, stderr, done := startCLI(t, `step 2: .* compiling`, "ladder", "-steps", "1,2", "-warmup", "0", "-timed", "6",
			"-data", t.TempDir(), "-out", out)
		// Step 1's file is written before step 2 starts; step 2 (f16 on the CPU) takes seconds: the signal lands in it.
		if code := interruptAndWait(t, cmd, done); code != exitInterrupted {
			t.Fatalf("exit %d, want %d:\n%s", code, exitInterrupted, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.json"))
		if len(files) != 1 {
			t.Fatalf("want the one results file in %s, got %v", out, files)
		}
		f, err := ladder.Read(files[0])
		if err != nil || len(f.Results) != 1 || f.Results[0].ID != "1" {
			t.Fatalf("kept file %s: %+v, %v", files[0], f, err)
		}
		for _, want := range []string{"trainopt: interrupted (interrupt); kept: " + files[0],
			"with the results of step 1 (1 of 2)", "not written: step 2 and the charts (trainopt results " + files[0]} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if svg, _ := filepath.Glob(filepath.Join(out, "*.svg")); len(svg) != 0 {
			t.Errorf("charts written after an interrupt: %v", svg)
		}
	})
}

// Case 8: temporary files a killed download or extraction left behind are removed by a later run of the data code
// (here: train loading its data).
func TestStaleTemporaryFilesCleaned(t *testing.T) {
	data := t.TempDir()
	sub := filepath.Join(data, cifar.DirName)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	part := filepath.Join(data, fmt.Sprintf(".%s.part-%d-42", cifar.ArchiveName, dead.Process.Pid))
	old := filepath.Join(sub, ".data_batch_5.bin.tmp-43")
	for _, p := range []string{part, old} {
		if err := os.WriteFile(p, make([]byte, 1000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hourAgo := time.Now().Add(-2 * cifar.StaleAfter)
	if err := os.Chtimes(old, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	// -batch 1000000 fails after the data is loaded: the cleaning happened, and nothing trains.
	if code := report(cmdTrain(tiny("-data", data, "-batch", "1000000"))); code != exitUsage {
		t.Fatalf("exit %d", code)
	}
	for _, p := range []string{part, old} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
}

// fakeSyntheticDir is a folder Load accepts (six files of the exact size, sparse) that carries the SYNTHETIC
// marker.
func fakeSyntheticDir(t *testing.T) string {
	dir := t.TempDir()
	for _, name := range append(slices.Clone(cifar.TrainFiles[:]), cifar.TestFile) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(cifar.FileSize); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, cifar.SyntheticMarker), []byte("synthetic, for a test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Case 9: unclear or ignored input is said.
func TestUnclearInputIsSaid(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("GOMLX_BACKEND", "go")
	t.Run("missing data names the commands", func(t *testing.T) {
		err := cmdTrain([]string{"-real", "-data", empty})
		if report(err) != exitData || !strings.Contains(err.Error(), "trainopt data -download") ||
			!strings.Contains(err.Error(), "trainopt data -synthetic") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("-real on the synthetic stand-in", func(t *testing.T) {
		err := cmdTrain(tiny("-real", "-data", fakeSyntheticDir(t)))
		if report(err) != exitData || !strings.Contains(err.Error(), "synthetic stand-in") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("-data is a file", func(t *testing.T) {
		file := filepath.Join(empty, "notes.txt")
		if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := cmdTrain(tiny("-data", file))
		if report(err) != exitData || !strings.Contains(err.Error(), "is a file, not a folder") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("PJRT_PLUGIN that is not there", func(t *testing.T) {
		cmd := cli(t, nil, append([]string{"train"}, tiny("-data", empty, "-batch", "1000000")...)...)
		cmd.Env = append(slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "GOMLX_BACKEND=") }),
			"PJRT_PLUGIN=/nonexistent.so")
		var e bytes.Buffer
		cmd.Stderr = &e
		cmd.Run()
		if !strings.Contains(e.String(), `WARNING: PJRT_PLUGIN="/nonexistent.so" ignored`) {
			t.Errorf("no warning about PJRT_PLUGIN:\n%s", e.String())
		}
	})
	t.Run("autotune reads TRAINOPT_AUTOTUNE_CACHE", func(t *testing.T) {
		abs, err := filepath.Abs("../../tutorial/backend/autotune/testdata/h200_xla_autotune.pb")
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("TRAINOPT_AUTOTUNE_CACHE", abs)
		if err := cmdAutotune(nil); err != nil {
			t.Errorf("got %v", err)
		}
	})
	t.Run("autotune of an endless file is bounded", func(t *testing.T) {
		err := cmdAutotune([]string{"/dev/zero"})
		if report(err) != exitData || !strings.Contains(err.Error(), "larger than 256 MiB") {
			t.Errorf("got %v", err)
		}
	})
	for _, c := range []struct {
		name string
		cmd  func([]string) error
		args []string
		want string
	}{
		{"memory -limit-gb -1", cmdMemory, []string{"-limit-gb", "-1"}, "-limit-gb must be"},
		{"profile -step 1,2", cmdProfile, []string{"-step", "1,2"}, "give one ladder step"},
		{"ladder -steps \"\"", cmdLadder, []string{"-steps", ""}, "no ladder steps given"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.cmd(append(c.args, "-data", empty))
			if report(err) != exitUsage || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v", err)
			}
		})
	}
	t.Run("a proxy that never answers", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { // accept and say nothing
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() { <-ctx.Done(); c.Close() }()
			}
		}()
		proxy := "http://" + ln.Addr().String()
		start := time.Now()
		code, _, stderr := runCLI(t, []string{"HTTPS_PROXY=" + proxy, "https_proxy=" + proxy, "NO_PROXY=", "no_proxy="},
			"data", "-download", "-dir", t.TempDir(), "-timeout", "1s")
		if code != exitData {
			t.Errorf("exit %d, want %d:\n%s", code, exitData, stderr)
		}
		for _, want := range []string{"www.cs.toronto.edu", "through the proxy " + proxy, "within 1s"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("the error lacks %q:\n%s", want, stderr)
			}
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("took %s", d)
		}
	})
}

// ladder -profile: one process measures and profiles every step it runs, each report in a folder of its own
// carrying that step's ID; a -capture below 1 is a usage error before any work.
func TestLadderProfilesEveryStep(t *testing.T) {
	out, prof, data := t.TempDir(), t.TempDir(), t.TempDir()
	code, stdout, stderr := runCLI(t, nil, "ladder", "-steps", "1,2", "-capture", "1", // smoke sizes: enough steps that the loss falls
		"-data", data, "-out", out, "-profile", prof)
	if code != exitOK {
		t.Fatalf("ladder -profile: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, id := range []string{"1", "2"} {
		dirs, _ := filepath.Glob(filepath.Join(prof, "smoke-*-step"+id))
		if len(dirs) != 1 {
			t.Fatalf("step %s: want one profile folder in %s, got %v", id, prof, dirs)
		}
		b, err := os.ReadFile(filepath.Join(dirs[0], "report.json"))
		if err != nil || !strings.Contains(string(b), "Profile of ladder step "+id+":") {
			t.Errorf("step %s: report.json (%v) does not name its step:\n%.300s", id, err, b)
		}
	}
	code, _, stderr = runCLI(t, nil, "ladder", "-steps", "1", "-data", data, "-out", out, "-profile", prof, "-capture", "0")
	if code != exitUsage || !strings.Contains(stderr, "-capture") {
		t.Errorf("ladder -capture 0: exit %d, want %d naming -capture:\n%s", code, exitUsage, stderr)
	}
}
