//go:build ((linux && (amd64 || arm64)) || (darwin && arm64) || (windows && amd64)) && !noxla

package triton

import (
	"reflect"
	"unsafe"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/go-xla/compute/xla"
	. "github.com/gomlx/gomlx/core/graph"
)

// xlaCustomCall is go-xla's own custom-call builder, the one its cuDNN flash-attention ops use. go-xla keeps it
// private (it has no public way to add a custom call to a GoMLX graph), so it is reached by name. A go-xla release
// that renames or changes it fails at link time, not at run time.
//
//go:linkname xlaCustomCall github.com/gomlx/go-xla/compute/xla.(*Function).customCall
func xlaCustomCall(f *xla.Function, target string, backendConfig string, operandLayouts [][]int,
	outputShapes []shapes.Shape, outputLayouts [][]int, operands ...compute.Value) ([]compute.Value, error)

// backendFunction returns the XLA function a GoMLX function builds into. GoMLX keeps it in an unexported field;
// reflect reads it (read only) and an error says so when the field is not where this version expects it.
func backendFunction(fn *Function) (*xla.Function, error) {
	field := reflect.ValueOf(fn).Elem().FieldByName("backendFunc")
	if !field.IsValid() || field.Kind() != reflect.Interface || field.IsNil() {
		return nil, errorf("this GoMLX version has no graph.Function.backendFunc interface field")
	}
	value := field.Elem()
	if value.Type() != reflect.TypeFor[*xla.Function]() {
		return nil, errorf("the graph builds into a %s, not an XLA function: Triton kernels need the XLA backend", value.Type())
	}
	return (*xla.Function)(value.UnsafePointer()), nil
}

// emit adds the custom call with row-major layouts for every operand and result (Triton indexes raw memory, so
// XLA must not pick another layout).
func emit(fn *Function, config string, outs []shapes.Shape, inputs []compute.Value) ([]compute.Value, error) {
	xf, err := backendFunction(fn)
	if err != nil {
		return nil, err
	}
	return xlaCustomCall(xf, Target, config, make([][]int, len(inputs)), outs, make([][]int, len(outs)), inputs...)
}

var _ = unsafe.Pointer(nil) // go:linkname needs package unsafe imported
