package triton

import (
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/gobackend"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

func TestConfigIsOneEscapedLine(t *testing.T) {
	k := Kernel{Name: "add", IR: "module {\n  tt.func public @add(%a: !tt.ptr<f32>) {\n    tt.return \"x\\y\"\n  }\n}\n", Grid: [3]int{7}}
	got := k.Config()
	want := `{name = "add", ir = "module {\0A  tt.func public @add(%a: !tt.ptr<f32>) {\0A    tt.return \22x\5Cy\22\0A  }\0A}\0A", ` +
		`num_stages = 1 : i32, num_warps = 4 : i32, grid_x = 7 : i32, grid_y = 1 : i32, grid_z = 1 : i32, debug = false}`
	if got != want {
		t.Fatalf("Config():\n got %s\nwant %s", got, want)
	}
	for _, c := range []byte(got) {
		if c < 0x20 || c >= 0x7f {
			t.Fatalf("Config() holds byte %#x: go-xla would quote it in a form MLIR may not read", c)
		}
	}
	k.Stages, k.Warps = 3, 8
	if got := k.Config(); !strings.Contains(got, "num_stages = 3 : i32, num_warps = 8 : i32,") {
		t.Errorf("Config() with Stages 3 and Warps 8: %s", got)
	}
}

func TestCallRefusesTheGoBackend(t *testing.T) {
	backend, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	g := NewGraph(backend, "refuse")
	x := Parameter(g, "x", shapes.Make(dtypes.Float32, 4))
	if err := Check(g); err == nil || !strings.Contains(err.Error(), "XLA backend") {
		t.Fatalf("Check on the Go backend: %v, want an error naming the XLA backend", err)
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(error).Error(), "XLA backend") {
			t.Fatalf("Call on the Go backend: recovered %v, want an error naming the XLA backend", r)
		}
	}()
	Call(Kernel{Name: "k", IR: "module {}"}, x.Shape(), x)
}
