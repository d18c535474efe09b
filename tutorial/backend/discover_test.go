package backend

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
)

func TestDiscoverGo(t *testing.T) {
	t.Setenv(ConfigEnvVar, "go")
	t.Setenv(NoAutoInstallEnv, "1") // restored after the test, whatever Discover sets
	var out bytes.Buffer
	c, err := Discover(WithOutput(&out))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Backend.Finalize()
	if c.Backend == nil || c.Backend.String() != "go" || c.Kind != KindGo || c.IsGPU {
		t.Fatalf("choice = %+v", c)
	}
	line := c.String()
	if strings.Contains(line, "\n") || !strings.HasPrefix(line, "backend: go (pure Go, CPU, ") ||
		!strings.Contains(line, `GOMLX_BACKEND="go" is set`) {
		t.Errorf("String() = %q", line)
	}
	if out.String() != line+"\n" {
		t.Errorf("printed %q, want the one line %q", out.String(), line)
	}
	if ok, why := c.Supports(dtypes.BFloat16); !ok {
		t.Errorf("go backend bf16: %s", why)
	}
	t.Log(line)
	t.Log(c.Details())
}

func TestDiscoverBadConfig(t *testing.T) {
	t.Setenv(ConfigEnvVar, "nosuch:thing")
	t.Setenv(NoAutoInstallEnv, "1")
	_, err := Discover(WithOutput(nil))
	if err == nil || !strings.Contains(err.Error(), `"nosuch:thing"`) {
		t.Fatalf("err = %v, want it to name the config", err)
	}
	t.Log(err)
}

func TestVersions(t *testing.T) {
	v := Versions()
	if v.Go == "" || v.GoMLX == "" || v.Compute == "" || v.GoXLA == "" {
		t.Errorf("Versions() = %+v", v)
	}
	t.Log(v)
}
