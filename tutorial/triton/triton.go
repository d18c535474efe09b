// Package triton puts a hand-written GPU kernel into a GoMLX graph: a Triton kernel, written as Triton IR (the
// MLIR "tt" dialect, as text), called through XLA's own Triton custom call.
//
// Why this route: a kernel XLA does not write itself (issue 15: cuDNN's depthwise kernels run at about half the
// speed the memory allows) needs a custom call, and a custom call usually needs a compiled kernel plus a C handler
// registered with the PJRT plugin. XLA's GPU compiler has one custom call that needs neither: "__gpu$xla.gpu.triton"
// (the one JAX's Pallas emits) carries Triton IR in its backend config, and XLA compiles it with the Triton it
// bundles, launches it with the grid the config names, and passes the operands' and then the result's device
// pointers as the kernel's arguments. No CUDA toolkit, no cgo, no registration — only text.
//
// What GoMLX lacks is the node: neither GoMLX nor go-xla exposes a custom call (go-xla has one, private, for cuDNN
// flash attention). So Call builds a placeholder node of the result's shape and swaps its backend value for the
// custom call's (call_xla.go reaches go-xla's builder by name); XLA then drops the placeholder as dead code. On any
// other backend Call fails with a clear error: callers keep a reference formulation for those.
package triton

import (
	"fmt"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/support/exceptions"
)

// Target is XLA's custom-call target for Triton IR.
const Target = "__gpu$xla.gpu.triton"

// Kernel is one Triton kernel and its launch.
type Kernel struct {
	// Name is the kernel's tt.func symbol in IR.
	Name string
	// IR is a module holding the kernel, in the MLIR text form of the Triton dialect. Its arguments are one
	// pointer per input and then one per output, in order.
	IR string
	// Grid is the number of programs along x, y and z (0 counts as 1).
	Grid [3]int
	// Warps is the number of warps per program (Triton's num_warps; 0 means 4).
	Warps int
	// Stages is Triton's num_stages, how many iterations of a loop's loads its software pipeliner keeps in flight
	// (0 means 1: no pipelining, as fast for the depthwise row loops: assets/gpu-runs/2026-12-06-h100-run54/).
	Stages int
}

// Config renders the custom call's backend config: an MLIR dictionary attribute, the form XLA's TritonCall::Parse
// reads, with the IR as an escaped string (no newlines or quotes survive unescaped, so the whole config is one
// line of printable ASCII that go-xla can quote once more).
func (k Kernel) Config() string {
	grid := k.Grid
	for i := range grid {
		grid[i] = max(grid[i], 1)
	}
	warps := k.Warps
	if warps == 0 {
		warps = 4
	}
	return fmt.Sprintf(`{name = "%s", ir = "%s", num_stages = %d : i32, num_warps = %d : i32, grid_x = %d : i32, `+
		`grid_y = %d : i32, grid_z = %d : i32, debug = false}`, k.Name, escape(k.IR), max(k.Stages, 1), warps, grid[0],
		grid[1], grid[2])
}

// escape writes s as the body of an MLIR string literal using only hex escapes (\22 for a quote, \5C for a
// backslash, \0A for a newline), which every MLIR lexer reads.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x7f {
			fmt.Fprintf(&b, `\%02X`, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Check reports why a graph cannot take Triton kernels, or nil when it can: it needs GoMLX's XLA backend on a
// CUDA device (XLA's CPU compiler has no Triton).
func Check(g *Graph) error {
	backend := g.Backend()
	if !strings.HasPrefix(backend.String(), "xla") {
		return errorf("backend %q cannot run Triton kernels: they need the XLA backend on a CUDA GPU", backend.Name())
	}
	if desc := strings.ToLower(backend.Description()); strings.Contains(desc, "cpu") && !strings.Contains(desc, "cuda") {
		return errorf("backend %q (%s) runs on the CPU: Triton kernels need a CUDA GPU", backend.Name(), backend.Description())
	}
	return nil
}

// Call runs k on inputs and returns its one output, of shape out. It panics (GoMLX's way of failing while a graph
// is built) when the graph cannot take Triton kernels; see Check.
func Call(k Kernel, out shapes.Shape, inputs ...*Node) *Node {
	return CallMulti(k, []shapes.Shape{out}, inputs...)[0]
}

// excerpt: triton-call

// CallMulti runs k on inputs and returns its outputs, of shapes outs (the kernel's pointer arguments: inputs,
// then outputs). The nodes carry no gradient: callers that need one attach it (see mobilenet's depthwise VJP),
// or hand the value to a node that has one with Replace.
func CallMulti(k Kernel, outs []shapes.Shape, inputs ...*Node) []*Node {
	if len(inputs) == 0 {
		exceptions.Panicf("triton.Call(%s): no inputs", k.Name)
	}
	g := inputs[0].Graph()
	if err := Check(g); err != nil {
		panic(err)
	}
	values := make([]compute.Value, len(inputs))
	for i, in := range inputs {
		values[i] = InternalBackendOutputs(in)[0]
	}
	results, err := emit(g.CurrentFunc(), k.Config(), outs, values)
	if err != nil {
		exceptions.Panicf("triton.Call(%s): %v", k.Name, err)
	}
	nodes := make([]*Node, len(outs))
	for i, out := range outs {
		// The placeholder: a fresh broadcast of zero, whose backend value is replaced before anything uses it.
		placeholder := Zeros(g, out)
		InternalBackendOutputs(placeholder)[0] = results[i]
		nodes[i] = StopGradient(placeholder)
	}
	return nodes
}

// excerpt end

// Replace makes node compute value's result: node keeps its place in the graph (its inputs, hence its gradient),
// while its backend value becomes value's, and XLA drops node's own computation as dead code. It is how a kernel
// stands in for a reference formulation of the same function. Call it before anything consumes node.
func Replace(node, value *Node) {
	if !node.Shape().Equal(value.Shape()) {
		exceptions.Panicf("triton.Replace: node %s and value %s differ in shape", node.Shape(), value.Shape())
	}
	InternalBackendOutputs(node)[0] = InternalBackendOutputs(value)[0]
}

func errorf(format string, args ...any) error { return fmt.Errorf("triton: "+format, args...) }
