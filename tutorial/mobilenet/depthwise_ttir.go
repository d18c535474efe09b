package mobilenet

import (
	"fmt"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/support/exceptions"
)

// ttWriter writes one Triton IR function (the MLIR "tt" dialect, as text): each method appends one operation and
// returns the SSA name of its result. The depthwise kernels (depthwise_triton.go) are written with it, so that
// every shape is a constant the Triton compiler can fold, as Triton's own Python front end would make it.
type ttWriter struct {
	b    strings.Builder
	next int
}

func (w *ttWriter) op(format string, args ...any) string {
	name := fmt.Sprintf("%%%d", w.next)
	w.next++
	fmt.Fprintf(&w.b, "    %s = %s\n", name, fmt.Sprintf(format, args...))
	return name
}

func (w *ttWriter) line(format string, args ...any) { fmt.Fprintf(&w.b, "    "+format+"\n", args...) }

// Types.
func vec(n int, elem string) string    { return fmt.Sprintf("tensor<%dx%s>", n, elem) }
func mat(r, c int, elem string) string { return fmt.Sprintf("tensor<%dx%dx%s>", r, c, elem) }
func ptrOf(elem string) string         { return fmt.Sprintf("!tt.ptr<%s>", elem) }
func (w *ttWriter) i32(v int) string   { return w.op("arith.constant %d : i32", v) }
func (w *ttWriter) fill(v int, t string) string {
	return w.op("arith.constant dense<%d> : %s", v, t)
}
func (w *ttWriter) zeros(t string) string { return w.op("arith.constant dense<0.000000e+00> : %s", t) }

// Arithmetic on i32 tensors (or scalars) of type t; b may be an int, made a constant of t. A scalar plus 0 or times 1
// returns a unchanged (Triton folds it too; this keeps the IR short to read).
func (w *ttWriter) bin(name, a string, b any, t string) string {
	rhs, ok := b.(string)
	if n, isInt := b.(int); isInt && t == "i32" && (name == "addi" && n == 0 || name == "muli" && n == 1) {
		return a
	}
	if !ok {
		if t == "i32" {
			rhs = w.i32(b.(int))
		} else {
			rhs = w.fill(b.(int), t)
		}
	}
	return w.op("arith.%s %s, %s : %s", name, a, rhs, t)
}

// mulAdd is acc + a·b on float tensors of type t, or a·b alone where acc is "" (a sum's first product).
func (w *ttWriter) mulAdd(acc, a, b, t string) string {
	prod := w.op("arith.mulf %s, %s : %s", a, b, t)
	if acc == "" {
		return prod
	}
	return w.op("arith.addf %s, %s : %s", acc, prod, t)
}

func (w *ttWriter) cmp(pred, a string, b int, t string) string {
	return w.op("arith.cmpi %s, %s, %s : %s", pred, a, w.fill(b, t), t)
}

// scmp compares an i32 scalar with a constant; and is the conjunction of i1 scalars; splat lifts a scalar to a
// tensor of type t.
func (w *ttWriter) scmp(pred, a string, b int) string {
	return w.op("arith.cmpi %s, %s, %s : i32", pred, a, w.i32(b))
}
func (w *ttWriter) and(a, b string) string { return w.op("arith.andi %s, %s : i1", a, b) }
func (w *ttWriter) splat(v, elem, t string) string {
	return w.op("tt.splat %s : %s -> %s", v, elem, t)
}

// loop writes scf.for over [0, n) carrying init (of types types): body writes one iteration, given the
// induction variable and the carried values, and returns the values carried on; loop returns the final values.
// The carried values get names of their own (%cN_i), so loops can nest.
func (w *ttWriter) loop(n int, init, types []string, body func(iv string, carried []string) []string) []string {
	lb, ub, one := w.i32(0), w.i32(n), w.i32(1)
	id := w.next
	w.next++
	iv := fmt.Sprintf("%%iv%d", id)
	carried, inits := make([]string, len(init)), make([]string, len(init))
	for i := range init {
		carried[i] = fmt.Sprintf("%%c%d_%d", id, i)
		inits[i] = carried[i] + " = " + init[i]
	}
	w.line("%%%d:%d = scf.for %s = %s to %s step %s iter_args(%s) -> (%s) : i32 {", id, len(init), iv, lb, ub, one,
		join(inits), join(types))
	next := body(iv, carried)
	w.line("scf.yield %s : %s", join(next), join(types))
	w.b.WriteString("    }\n")
	out := make([]string, len(init))
	for i := range out {
		out[i] = fmt.Sprintf("%%%d#%d", id, i)
	}
	return out
}

// blockRange is program axis's block of indices: pid·size + [0, size).
func (w *ttWriter) blockRange(axis string, size int) string {
	pid := w.op("tt.get_program_id %s : i32", axis)
	base := w.op("tt.splat %s : i32 -> %s", w.bin("muli", pid, size, "i32"), vec(size, "i32"))
	return w.op("arith.addi %s, %s : %s", base, w.op("tt.make_range {end = %d : i32, start = 0 : i32} : %s", size, vec(size, "i32")), vec(size, "i32"))
}

// rows/cols lift a vector to a [r, c] tile along axis 1 or 0 (expand_dims, then broadcast).
func (w *ttWriter) rows(v string, r, c int, elem string) string {
	e := w.op("tt.expand_dims %s {axis = 1 : i32} : %s -> %s", v, vec(r, elem), mat(r, 1, elem))
	return w.op("tt.broadcast %s : %s -> %s", e, mat(r, 1, elem), mat(r, c, elem))
}
func (w *ttWriter) cols(v string, r, c int, elem string) string {
	e := w.op("tt.expand_dims %s {axis = 0 : i32} : %s -> %s", v, vec(c, elem), mat(1, c, elem))
	return w.op("tt.broadcast %s : %s -> %s", e, mat(1, c, elem), mat(r, c, elem))
}

// ptrs is base + offsets for a tile of offsets of type t (tensor of i32).
func (w *ttWriter) ptrs(base, elem, offsets, shape string) string {
	pt := fmt.Sprintf("tensor<%sx%s>", shape, ptrOf(elem))
	s := w.op("tt.splat %s : %s -> %s", base, ptrOf(elem), pt)
	return w.op("tt.addptr %s, %s : %s, tensor<%sxi32>", s, offsets, pt, shape)
}

// module wraps the function body in a module with the given pointer arguments.
func (w *ttWriter) module(name string, args []string) string {
	var sig []string
	for i, elem := range args {
		sig = append(sig, fmt.Sprintf("%%arg%d: %s {tt.divisibility = 16 : i32}", i, ptrOf(elem)))
	}
	return fmt.Sprintf("module {\n  tt.func public @%s(%s) attributes {noinline = false} {\n%s    tt.return\n  }\n}\n",
		name, strings.Join(sig, ", "), w.b.String())
}

// ttElem is the Triton element type of dtype.
func ttElem(dtype dtypes.DType) string {
	switch dtype {
	case dtypes.BFloat16:
		return "bf16"
	case dtypes.Float16:
		return "f16"
	case dtypes.Float32:
		return "f32"
	}
	exceptions.Panicf("depthwise Triton kernels take bfloat16, float16 or float32, not %s", dtype)
	return ""
}

// toF32 converts a tile of elem to f32 (a no-op for f32).
func (w *ttWriter) toF32(v, elem string, shape string) string {
	if elem == "f32" {
		return v
	}
	return w.op("arith.extf %s : tensor<%sx%s> to tensor<%sxf32>", v, shape, elem, shape)
}
func (w *ttWriter) fromF32(v, elem string, shape string) string {
	if elem == "f32" {
		return v
	}
	return w.op("arith.truncf %s : tensor<%sxf32> to tensor<%sx%s>", v, shape, shape, elem)
}

// sumRows reduces a [r, c] f32 tile over its rows to [c] (tt.reduce with an addf body).
func (w *ttWriter) sumRows(v string, r, c int) string {
	name := fmt.Sprintf("%%%d", w.next)
	w.next++
	w.line(`%s = "tt.reduce"(%s) <{axis = 0 : i32}> ({`, name, v)
	w.line("^bb0(%%l%d: f32, %%r%d: f32):", w.next, w.next)
	w.line("  %%s%d = arith.addf %%l%d, %%r%d : f32", w.next, w.next, w.next)
	w.line("  tt.reduce.return %%s%d : f32", w.next)
	w.line("}) : (%s) -> %s", mat(r, c, "f32"), vec(c, "f32"))
	w.next++
	return name
}

// sumTiles reduces each [r, c] f32 tile over its rows (sumRows).
func (w *ttWriter) sumTiles(tiles []string, r, c int) []string {
	out := make([]string, len(tiles))
	for i, t := range tiles {
		out[i] = w.sumRows(t, r, c)
	}
	return out
}

// storeProgramRows stores a program's [bc] f32 vectors over the channel block c (mask cm, of a layer of C
// channels) as rows of an array [programs, len(vecs), C] (pointer argument arg): vecs[i] at (pid·len(vecs) + i)·C
// + c — the stats kernels' per-program sums and dK's per-program partial sums, which XLA adds up.
func (w *ttWriter) storeProgramRows(arg, pid, c, cm string, C, bc int, vecs []string) {
	for i, v := range vecs {
		base := w.bin("muli", w.bin("addi", w.bin("muli", pid, len(vecs), "i32"), i, "i32"), C, "i32")
		off := w.op("arith.addi %s, %s : %s", w.splat(base, "i32", vec(bc, "i32")), c, vec(bc, "i32"))
		w.line("tt.store %s, %s, %s : tensor<%dx%s>", w.ptrs(arg, "f32", off, fmt.Sprint(bc)), v, cm, bc, ptrOf("f32"))
	}
}

// affineTiles loads a layer's batch-norm scale and shift (f32 pointers, [C]) for the channel block c (mask cm) and
// lifts each to a [r, c] tile.
func (w *ttWriter) affineTiles(c, cm, scaleArg, shiftArg string, r, n int) (scale, shift string) {
	t := w.channelTiles(c, cm, r, n, scaleArg, shiftArg)
	return t[0], t[1]
}

// channelTiles loads per-channel f32 vectors ([C] each) for the channel block c (mask cm; 0 past the last channel)
// and lifts each to a [r, n] tile.
func (w *ttWriter) channelTiles(c, cm string, r, n int, args ...string) []string {
	other := w.zeros(vec(n, "f32"))
	out := make([]string, len(args))
	for i, arg := range args {
		v := w.op("tt.load %s, %s, %s : %s", w.ptrs(arg, "f32", c, fmt.Sprint(n)), cm, other, vec(n, ptrOf("f32")))
		out[i] = w.cols(v, r, n, "f32")
	}
	return out
}

// bnReLU6 is the prologue of a kernel whose input is ReLU6(z·scale + shift): z is a loaded f32 tile whose masked
// elements (padding, or past the edge) were loaded as padZ's value, which the transform takes to 0 — padding pads
// the activation, not z. It runs once per tap, nine times per element, so it is kept to three operations: the
// product and sum (one FMA) and the two bounds; maxnumf/minnumf return the other operand for a NaN, which is what
// 0·∞ in a channel past the last gives. The activation is not rounded to the element type first, as the reference
// formulation's stored activation is: one rounding fewer.
func (w *ttWriter) bnReLU6(z, scale, shift, shape string) string {
	t := fmt.Sprintf("tensor<%sxf32>", shape)
	y := w.op("arith.addf %s, %s : %s", w.op("arith.mulf %s, %s : %s", z, scale, t), shift, t)
	y = w.op("arith.maxnumf %s, %s : %s", y, w.zeros(t), t)
	return w.op("arith.minnumf %s, %s : %s", y, w.op("arith.constant dense<6.000000e+00> : %s", t), t)
}

// padZ is the tile that masked loads of z return under a prologue: −∞ where scale > 0 and +∞ elsewhere (elem
// type), so that z·scale + shift is −∞ (or NaN for scale 0) and the prologue gives 0.
func (w *ttWriter) padZ(scale, elem, shape string) string {
	t := fmt.Sprintf("tensor<%sxf32>", shape)
	pos := w.op("arith.cmpf ogt, %s, %s : %s", scale, w.zeros(t), t)
	inf := w.op("arith.select %s, %s, %s : tensor<%sxi1>, %s", pos,
		w.op("arith.constant dense<0xFF800000> : %s", t), w.op("arith.constant dense<0x7F800000> : %s", t), shape, t)
	return w.fromF32(inf, elem, shape)
}

// reluGate is ReLU6's gradient applied to a tile of dx: dx where 0 < z·scale + shift < 6, else 0 (z, scale and
// shift f32 tiles; the comparison is ordered, so a NaN closes the gate).
func (w *ttWriter) reluGate(dx, z, scale, shift, shape string) string {
	t := fmt.Sprintf("tensor<%sxf32>", shape)
	pre := w.op("arith.addf %s, %s : %s", w.op("arith.mulf %s, %s : %s", z, scale, t), shift, t)
	zero := w.zeros(t)
	above := w.op("arith.cmpf ogt, %s, %s : %s", pre, zero, t)
	below := w.op("arith.cmpf olt, %s, %s : %s", pre, w.op("arith.constant dense<6.000000e+00> : %s", t), t)
	inside := w.op("arith.andi %s, %s : tensor<%sxi1>", above, below, shape)
	return w.op("arith.select %s, %s, %s : tensor<%sxi1>, %s", inside, dx, zero, shape, t)
}
