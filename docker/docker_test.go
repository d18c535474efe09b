// Package docker holds the JupyterLab + GoNB image for NVIDIA GPUs. No Docker engine runs where this was written, so
// this test checks what can be checked without one: the pins against go.mod and .ci/notebooks.sh, the PJRT plugin
// path against where pip installs jax-cuda13-pjrt and against tutorial/backend's own search, and the shell the image
// runs with `bash -n`.
package docker

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
)

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// dockerfile is the parsed Dockerfile: ARG defaults, ENV values, RUN commands (continuations joined), and
// the rest.
type dockerfile struct {
	args, env map[string]string
	runs      []string
	from      string
	expose    []string
	cmd       string
}

func parseDockerfile(t *testing.T, text string) dockerfile {
	t.Helper()
	d := dockerfile{args: map[string]string{}, env: map[string]string{}}
	var instrs []string
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		instrs = append(instrs, cur.String())
		cur.Reset()
	}
	reKV := regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)`)
	expand := func(s string) string {
		return os.Expand(s, func(k string) string {
			if v, ok := d.env[k]; ok {
				return v
			}
			return d.args[k]
		})
	}
	for _, in := range instrs {
		op, rest, _ := strings.Cut(in, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(op) {
		case "ARG":
			k, v, _ := strings.Cut(rest, "=")
			d.args[k] = v
		case "ENV":
			for _, m := range reKV.FindAllStringSubmatch(rest, -1) {
				d.env[m[1]] = expand(strings.Trim(m[2], `"`))
			}
		case "FROM":
			d.from = expand(rest)
		case "RUN":
			d.runs = append(d.runs, rest)
		case "EXPOSE":
			d.expose = append(d.expose, strings.Fields(rest)...)
		case "CMD":
			d.cmd = rest
		}
	}
	return d
}

// goMod returns go.mod's `go` version and its requirements.
func goMod(t *testing.T) (goVersion string, reqs map[string]string) {
	reqs = map[string]string{}
	for _, line := range strings.Split(read(t, "../go.mod"), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "go":
			goVersion = f[1]
		case len(f) >= 2 && f[0] == "require" && len(f) >= 3:
			reqs[f[1]] = f[2]
		case len(f) >= 2 && strings.Contains(f[0], ".") && strings.HasPrefix(f[1], "v"):
			reqs[f[0]] = f[1]
		}
	}
	return goVersion, reqs
}

// shellPin reads NAME=value from a shell script.
func shellPin(t *testing.T, script, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `=(\S+)`).FindStringSubmatch(script)
	if m == nil {
		t.Fatalf("no %s= in the script", name)
	}
	return m[1]
}

func TestPinsMatchTheRepository(t *testing.T) {
	d := parseDockerfile(t, read(t, "Dockerfile"))
	goVersion, reqs := goMod(t)
	ci := read(t, "../.ci/notebooks.sh")
	for _, c := range []struct{ what, got, want string }{
		{"GO_VERSION vs go.mod's go line", d.args["GO_VERSION"], goVersion},
		{"GO_VERSION vs .ci/notebooks.sh's toolchain", "go" + d.args["GO_VERSION"], shellPin(t, ci, "GO_TOOLCHAIN")},
		{"GOMLX_VERSION vs go.mod", d.args["GOMLX_VERSION"], reqs["github.com/gomlx/gomlx"]},
		{"GONB_VERSION vs go.mod", d.args["GONB_VERSION"], reqs["github.com/janpfeifer/gonb"]},
		{"GONB_VERSION vs .ci/notebooks.sh", d.args["GONB_VERSION"], shellPin(t, ci, "GONB_VERSION")},
		{"GOIMPORTS_VERSION vs .ci/notebooks.sh", d.args["GOIMPORTS_VERSION"], shellPin(t, ci, "TOOLS_VERSION")},
		{"GOPLS_VERSION vs .ci/notebooks.sh", d.args["GOPLS_VERSION"], shellPin(t, ci, "GOPLS_VERSION")},
	} {
		if c.got == "" || c.got != c.want {
			t.Errorf("%s: Dockerfile has %q, want %q", c.what, c.got, c.want)
		}
	}
	for _, k := range []string{"JAX_VERSION", "JUPYTERLAB_VERSION"} {
		if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(d.args[k]) {
			t.Errorf("%s=%q: want an exact x.y.z pin", k, d.args[k])
		}
	}
	if !regexp.MustCompile(`^nvidia/cuda:13\.\d+\.\d+-`).MatchString(d.from) {
		t.Errorf("FROM %q: want an nvidia/cuda:13.x.y-… image (CUDA 13, as jax-cuda13-pjrt needs)", d.from)
	}
	if d.env["GOTOOLCHAIN"] != "local" {
		t.Errorf("GOTOOLCHAIN=%q in the image: want local (the installed Go is the one go.mod asks for)", d.env["GOTOOLCHAIN"])
	}
}

// ubuntuPython is the python3 of each Ubuntu release a CUDA image is based on.
var ubuntuPython = map[string]string{"ubuntu22.04": "3.10", "ubuntu24.04": "3.12", "ubuntu26.04": "3.14"}

func TestPluginPath(t *testing.T) {
	d := parseDockerfile(t, read(t, "Dockerfile"))
	venv, plugin := d.env["VENV"], d.env["PJRT_PLUGIN"]
	release := d.from[strings.LastIndex(d.from, "-")+1:]
	py, ok := ubuntuPython[release]
	if !ok {
		t.Fatalf("FROM %q: unknown Ubuntu release %q (add its python3 to ubuntuPython)", d.from, release)
	}
	// Where pip puts jax-cuda13-pjrt's plugin in a venv: the package jax_plugins.xla_cuda13.
	want := filepath.Join(venv, "lib", "python"+py, "site-packages", "jax_plugins", "xla_cuda13", "xla_cuda_plugin.so")
	if plugin != want {
		t.Errorf("PJRT_PLUGIN=%q, want %q (pip's jax-cuda13-pjrt in %s with Python %s)", plugin, want, venv, py)
	}
	if d.env["VIRTUAL_ENV"] != venv {
		t.Errorf("VIRTUAL_ENV=%q, want the venv %q (tutorial/backend searches its site-packages)", d.env["VIRTUAL_ENV"], venv)
	}

	// tutorial/backend, on a file system laid out like the image with a GPU, must plan XLA CUDA with that plugin
	// and find the CUDA data dir pip's NVIDIA wheels provide — from PJRT_PLUGIN, and from VIRTUAL_ENV alone.
	root := t.TempDir()
	touch := func(p string) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	touch(plugin)
	touch("/dev/nvidia0")
	cudaDir := filepath.Join(venv, "lib", "python"+py, "site-packages", "nvidia", "cu13")
	touch(filepath.Join(cudaDir, "nvvm/libdevice/libdevice.10.bc"))
	for name, vars := range map[string]map[string]string{
		"PJRT_PLUGIN": {"PJRT_PLUGIN": plugin, "VIRTUAL_ENV": venv, "HOME": "/home/gopher"},
		"VIRTUAL_ENV": {"VIRTUAL_ENV": venv, "HOME": "/home/gopher"},
	} {
		p := backend.MakePlan(backend.Env{Root: root, Vars: vars, NumCPU: 8})
		if p.Kind != backend.KindCUDA || p.PluginPath != plugin {
			t.Errorf("with %s: plan %s (%s) plugin %q, want cuda with %q", name, p.Config, p.Reason, p.PluginPath, plugin)
		}
		if p.CUDADataDir != cudaDir {
			t.Errorf("with %s: CUDA data dir %q, want %q", name, p.CUDADataDir, cudaDir)
		}
	}

	install := read(t, "install.sh")
	if !strings.Contains(install, `[ -f "$PJRT_PLUGIN" ]`) {
		t.Error("install.sh must fail the build when the plugin is not at PJRT_PLUGIN")
	}
}

func TestShellSyntax(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	check := func(name, script string) {
		cmd := exec.Command(bash, "-n")
		cmd.Stdin = strings.NewReader(script)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: bash -n: %v\n%s", name, err, out)
		}
	}
	for _, f := range []string{"install.sh", "run.sh", "../.ci/notebooks.sh"} {
		check(f, read(t, f))
	}
	d := parseDockerfile(t, read(t, "Dockerfile"))
	if len(d.runs) == 0 {
		t.Fatal("no RUN lines found in the Dockerfile")
	}
	for i, r := range d.runs {
		check("Dockerfile RUN #"+string(rune('1'+i)), r)
	}
	if !strings.Contains(strings.Join(d.runs, "\n"), "install.sh") {
		t.Error("the Dockerfile does not run install.sh")
	}
}

func TestInstallScript(t *testing.T) {
	s := read(t, "install.sh")
	d := parseDockerfile(t, read(t, "Dockerfile"))
	// Every version the script needs comes from the Dockerfile's RUN line.
	for _, v := range []string{"GO_VERSION", "GONB_VERSION", "GOIMPORTS_VERSION", "GOPLS_VERSION", "JAX_VERSION", "JUPYTERLAB_VERSION", "NB_USER"} {
		if !strings.Contains(s, `"${`+v+`:?}"`) {
			t.Errorf("install.sh does not require %s", v)
		}
		if !strings.Contains(strings.Join(d.runs, "\n"), v+"=${"+v+"}") {
			t.Errorf("the Dockerfile's RUN does not pass %s to install.sh", v)
		}
	}
	for _, want := range []string{"jax[cuda13]==$JAX_VERSION", "jupyterlab==$JUPYTERLAB_VERSION", "gonb --install",
		`"GOTOOLCHAIN": "local"`, "github.com/janpfeifer/gonb", "golang.org/x/tools/cmd/goimports", "golang.org/x/tools/gopls"} {
		if !strings.Contains(s, want) {
			t.Errorf("install.sh lacks %q", want)
		}
	}
	if !strings.HasPrefix(s, "#!/usr/bin/env bash\n") || !strings.Contains(s, "set -euo pipefail") {
		t.Error("install.sh must be bash with set -euo pipefail")
	}
}

func TestRunScriptAndCompose(t *testing.T) {
	d := parseDockerfile(t, read(t, "Dockerfile"))
	if len(d.expose) != 1 || d.expose[0] != "8888" || !strings.Contains(d.cmd, "--port=8888") {
		t.Fatalf("Dockerfile: EXPOSE %v, CMD %s: want JupyterLab on 8888", d.expose, d.cmd)
	}
	if !strings.Contains(d.cmd, "/home/"+d.args["NB_USER"]+"/trainopt/notebooks") {
		t.Errorf("CMD %s does not open the repository's notebooks for user %s", d.cmd, d.args["NB_USER"])
	}
	run := read(t, "run.sh")
	for _, want := range []string{"--gpus all", `--shm-size="$SHM_SIZE"`, `-p "127.0.0.1:$PORT:8888"`, "-f docker/Dockerfile",
		"NB_HOME=/home/" + d.args["NB_USER"], `"$CACHE_VOLUME:$NB_HOME/.cache/trainopt"`} {
		if !strings.Contains(run, want) {
			t.Errorf("run.sh lacks %q", want)
		}
	}
	compose := read(t, "compose.yaml")
	for _, want := range []string{"dockerfile: docker/Dockerfile", `"127.0.0.1:8888:8888"`, "shm_size:", "driver: nvidia",
		"capabilities: [gpu]", "/home/" + d.args["NB_USER"] + "/trainopt/notebooks",
		"xla-cache:/home/" + d.args["NB_USER"] + "/.cache/trainopt"} {
		if !strings.Contains(compose, want) {
			t.Errorf("compose.yaml lacks %q", want)
		}
	}
	if st, err := os.Stat("run.sh"); err != nil || st.Mode()&0o111 == 0 {
		t.Error("run.sh is not executable")
	}
}
