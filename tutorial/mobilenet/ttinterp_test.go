package mobilenet

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes/bfloat16"
	"github.com/gomlx/compute/dtypes/float16"
)

// A CPU interpreter for the Triton IR that ttWriter writes (depthwise_ttir.go), so that tests without a GPU can run
// the depthwise kernels against the float64 references. CI has no GPU, and without one the kernels' index
// arithmetic, masks and math are otherwise checked only by the GPU test binary on the device
// (TestDepthwiseTritonMatchesReference); TestDepthwiseIRIsWellFormed checks only their form.
//
// runTT parses the IR once and runs the programs of the grid one after another, each operation on a whole tile.
// It knows exactly the subset of the tt, arith and scf dialects that ttWriter writes, in the text forms it writes
// them, and fails with the kernel's name, the program and the line on anything else. Integers are i32 (wrapping;
// divsi truncates and remsi takes the dividend's sign, like Go's / and %), floating-point values float64 rounded
// to their type after every operation (f32 arithmetic; loads, stores and truncf to bf16 or f16). Every unmasked
// load and store must fall inside its buffer, and no element may be stored twice in one launch (the kernels'
// programs write disjoint tiles).
//
// It does not model parallel execution or memory ordering (programs run in order, so races between them go
// unseen), Triton's layouts, warps and pipelining, fused multiply-adds or the GPU's order of summation, nor
// anything about performance.

// runTT runs every program of k over buffers, one per pointer argument of the kernel in order (the inputs, then the
// outputs, allocated by the caller); elements of every type are held as float64.
func runTT(k triton.Kernel, buffers ...[]float64) (err error) {
	defer func() {
		if e := recover(); e != nil {
			te, ok := e.(ttError)
			if !ok {
				panic(e)
			}
			err = te
		}
	}()
	args, body := parseTT(k)
	if len(args) != len(buffers) {
		return ttError(fmt.Sprintf("kernel %s takes %d pointers, given %d buffers", k.Name, len(args), len(buffers)))
	}
	r := &ttRun{name: k.Name, bufs: buffers, written: make([][]bool, len(buffers))}
	for i, b := range buffers {
		r.written[i] = make([]bool, len(b))
	}
	grid := k.Grid
	for i := range grid {
		grid[i] = max(grid[i], 1)
	}
	for p := range grid[0] * grid[1] * grid[2] {
		r.pid, r.env = [3]int64{int64(p % grid[0]), int64(p / grid[0] % grid[1]), int64(p / (grid[0] * grid[1]))}, map[string]*ttVal{}
		for i, elem := range args {
			r.env[fmt.Sprintf("%%arg%d", i)] = &ttVal{elem: ptrOf(elem), n: []int64{0}, buf: i}
		}
		r.exec(body)
	}
	return nil
}

// mustRunTT is runTT, failing the test on an error.
func mustRunTT(t testing.TB, k triton.Kernel, buffers ...[]float64) {
	t.Helper()
	if err := runTT(k, buffers...); err != nil {
		t.Fatal(err)
	}
}

// checkProduct fails t unless got(i, j) = Σ_r term(i, j, r) over r < inner, within tol relative to 1 + |want|,
// for every i < rows and j < cols: the float64 reference of a kernel's matrix product (or of the sum of its
// per-program partial products), written as the product's definition.
func checkProduct(t testing.TB, name string, rows, cols, inner int, tol float64, got func(i, j int) float64,
	term func(i, j, r int) float64) {
	t.Helper()
	for i := range rows {
		for j := range cols {
			want := 0.0
			for r := range inner {
				want += term(i, j, r)
			}
			if g := got(i, j); math.Abs(g-want) > tol*(1+math.Abs(want)) {
				t.Fatalf("%s[%d, %d] = %g, want %g", name, i, j, g, want)
			}
		}
	}
}

// programSums is got for checkProduct over per-program partial products: part holds programs [rows, cols] blocks,
// one after another, and element (i, j) is the sum of the blocks' (i, j).
func programSums(part []float64, programs, rows, cols int) func(i, j int) float64 {
	return func(i, j int) (sum float64) {
		for pr := range programs {
			sum += part[(pr*rows+i)*cols+j]
		}
		return sum
	}
}

type ttError string

func (e ttError) Error() string { return string(e) }

// ttType is a type as the IR writes it: shape nil for a scalar; elem i32, i1, f32, bf16, f16 or !tt.ptr<…>.
type ttType struct {
	shape []int
	elem  string
}

func parseTTType(s string) ttType {
	m := ttTensorRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ttType{elem: strings.TrimSpace(s)}
	}
	var shape []int
	for _, d := range strings.Split(strings.TrimSuffix(m[1], "x"), "x") {
		n, _ := strconv.Atoi(d)
		shape = append(shape, n)
	}
	return ttType{shape, m[2]}
}

// ttOp is one operation, parsed.
type ttOp struct {
	line          int
	text, res, op string
	nres          int
	args          []string       // operands (scf.for: lower bound, upper bound, step, then the initial values)
	lit           string         // cmpi/cmpf predicate, constant literal, program axis
	attr          map[string]int // axis, start, end
	from, typ     ttType         // the operands' type, and the result's (after "->" or "to", else the last type)
	from2         ttType         // tt.dot: the second operand's type (from is the first's)
	iv            string         // scf.for: induction variable, carried values and body (ending with scf.yield)
	iters         []string
	body          []*ttOp
}

const ttOps = " arith.constant tt.get_program_id tt.make_range tt.splat tt.expand_dims tt.broadcast tt.addptr tt.load " +
	"tt.store arith.addi arith.subi arith.muli arith.divsi arith.remsi arith.andi arith.cmpi arith.addf arith.mulf " +
	"arith.maxnumf arith.minnumf arith.cmpf arith.select arith.extf arith.truncf tt.dot scf.yield tt.return "

var (
	ttTensorRE = regexp.MustCompile(`^tensor<((?:\d+x)+)(.+)>$`)
	ttAssignRE = regexp.MustCompile(`^(%\w+)(?::(\d+))? = (.*)$`)
	ttNameRE   = regexp.MustCompile(`%[\w#]+`)
	ttAttrRE   = regexp.MustCompile(`(\w+) = (-?\d+) : i32`)
	ttArgRE    = regexp.MustCompile(`(%arg\d+): !tt\.ptr<(\w+)> \{tt\.divisibility = 16 : i32\}`)
	ttForRE    = regexp.MustCompile(`^scf\.for (%\w+) = (%\w+) to (%\w+) step (%\w+) iter_args\((.*)\) -> \((.*)\) : i32 \{$`)
	ttReduceRE = regexp.MustCompile(`^"tt\.reduce"\((%[\w#]+)\) <\{axis = (\d+) : i32\}> \(\{$`)
	// the reduction's body: block arguments, their sum, its return, the closing line with the types
	ttReduceBody = []*regexp.Regexp{regexp.MustCompile(`^\^bb0\((%\w+): f32, (%\w+): f32\):$`),
		regexp.MustCompile(`^(%\w+) = arith\.addf (%\w+), (%\w+) : f32$`), regexp.MustCompile(`^tt\.reduce\.return (%\w+) : f32$`),
		regexp.MustCompile(`^\}\) : \((tensor<.*>)\) -> (tensor<.*>)$`)}
)

type ttParser struct {
	name  string
	lines []string
	i     int // the next line
}

func (p *ttParser) fail(line int, format string, args ...any) {
	text := "end of IR"
	if line < len(p.lines) {
		text = strings.TrimSpace(p.lines[line])
	}
	panic(ttError(fmt.Sprintf("kernel %s, line %d %q: %s", p.name, line+1, text, fmt.Sprintf(format, args...))))
}

// next returns the next line, trimmed, and its index.
func (p *ttParser) next() (string, int) {
	if p.i >= len(p.lines) {
		p.fail(p.i, "unexpected end")
	}
	p.i++
	return strings.TrimSpace(p.lines[p.i-1]), p.i - 1
}

func (p *ttParser) expect(s string) {
	if text, i := p.next(); text != s {
		p.fail(i, "want %q", s)
	}
}

// parseTT parses k's IR: the pointer arguments' element types and the function's body.
func parseTT(k triton.Kernel) (args []string, body []*ttOp) {
	p := &ttParser{name: k.Name, lines: strings.Split(strings.TrimSuffix(k.IR, "\n"), "\n")}
	p.expect("module {")
	head, i := p.next()
	if !strings.HasPrefix(head, "tt.func public @"+k.Name+"(") || !strings.HasSuffix(head, ") attributes {noinline = false} {") {
		p.fail(i, "want the header of tt.func @%s", k.Name)
	}
	for j, m := range ttArgRE.FindAllStringSubmatch(head, -1) {
		if m[1] != fmt.Sprintf("%%arg%d", j) {
			p.fail(i, "argument %d is %s", j, m[1])
		}
		args = append(args, m[2])
	}
	body = p.block("tt.return")
	p.expect("}")
	p.expect("}")
	if p.i != len(p.lines) {
		p.fail(p.i, "text after the module")
	}
	return args, body
}

// block parses operations up to and including end (tt.return, or a loop's scf.yield).
func (p *ttParser) block(end string) []*ttOp {
	var ops []*ttOp
	for {
		op := p.parse()
		if ops = append(ops, op); op.op == "scf.yield" || op.op == "tt.return" {
			if op.op != end {
				p.fail(op.line-1, "%s outside its region", op.op)
			}
			return ops
		}
	}
}

// parse parses the next operation, with the lines of its region.
func (p *ttParser) parse() *ttOp {
	text, i := p.next()
	op, rest := &ttOp{line: i + 1, text: text}, text
	if m := ttAssignRE.FindStringSubmatch(text); m != nil {
		op.res, op.nres, rest = m[1], 1, m[3]
		if m[2] != "" {
			op.nres, _ = strconv.Atoi(m[2])
		}
	}
	if m := ttReduceRE.FindStringSubmatch(rest); m != nil {
		op.op, op.args, op.attr = "tt.reduce", []string{m[1]}, map[string]int{}
		op.attr["axis"], _ = strconv.Atoi(m[2])
		var got [4][]string
		for j, re := range ttReduceBody {
			line, at := p.next()
			if got[j] = re.FindStringSubmatch(line); got[j] == nil {
				p.fail(at, "not the addf reduction body that ttWriter writes")
			}
		}
		if got[1][2] != got[0][1] || got[1][3] != got[0][2] || got[2][1] != got[1][1] {
			p.fail(i, "the reduction's body does not return the sum of its arguments")
		}
		op.from, op.typ = parseTTType(got[3][1]), parseTTType(got[3][2])
		return op
	}
	if m := ttForRE.FindStringSubmatch(rest); m != nil {
		op.op, op.iv, op.args = "scf.for", m[1], slices.Clone(m[2:5])
		for _, it := range strings.Split(m[5], ", ") {
			name, init, _ := strings.Cut(it, " = ")
			op.iters, op.args = append(op.iters, name), append(op.args, init)
		}
		op.body = p.block("scf.yield")
		if n := len(op.body[len(op.body)-1].args); len(op.iters) != op.nres || n != op.nres || len(strings.Split(m[6], ", ")) != n {
			p.fail(i, "%d results, %d carried values, %d yielded", op.nres, len(op.iters), n)
		}
		p.expect("}")
		return op
	}
	if op.op, rest, _ = strings.Cut(rest, " "); !strings.Contains(ttOps, " "+op.op+" ") {
		p.fail(i, "unknown operation %q", op.op)
	}
	if before, inner, ok := strings.Cut(rest, "{"); ok { // attributes
		inner, after, _ := strings.Cut(inner, "}")
		op.attr = map[string]int{}
		for _, a := range ttAttrRE.FindAllStringSubmatch(inner, -1) {
			op.attr[a[1]], _ = strconv.Atoi(a[2])
		}
		rest = before + after
	}
	operands, types, _ := strings.Cut(rest, " : ")
	op.args, op.lit = ttNameRE.FindAllString(operands, -1), strings.TrimSpace(operands)
	if op.op == "arith.cmpi" || op.op == "arith.cmpf" {
		op.lit, _, _ = strings.Cut(op.lit, ",")
	}
	all := strings.Split(types, ", ")
	from, to := all[0], all[len(all)-1]
	for _, sep := range []string{" -> ", " to "} {
		if a, b, ok := strings.Cut(types, sep); ok {
			from, to = a, b
		}
	}
	if a, b, ok := strings.Cut(from, " * "); ok && op.op == "tt.dot" {
		op.from, op.from2 = parseTTType(a), parseTTType(b)
	} else {
		op.from = parseTTType(from)
	}
	op.typ = parseTTType(to)
	if (op.res == "") != strings.Contains(" tt.store scf.yield tt.return ", " "+op.op+" ") || op.nres > 1 {
		p.fail(i, "%d results named %q for %s", op.nres, op.res, op.op)
	}
	return op
}

// ttVal is a scalar (shape nil) or a tensor.
type ttVal struct {
	shape []int
	elem  string    // i32, i1, f32, bf16, f16, or !tt.ptr<…>
	n     []int64   // i32 and i1 values, and pointers' element offsets
	f     []float64 // floating-point values
	buf   int       // pointers: the argument they point into
}

func isFloat(elem string) bool { return elem == "f32" || elem == "bf16" || elem == "f16" }

func ttSize(shape []int) int {
	size := 1
	for _, d := range shape {
		size *= d
	}
	return size
}

func newTTVal(shape []int, elem string) *ttVal {
	if isFloat(elem) {
		return &ttVal{shape: shape, elem: elem, f: make([]float64, ttSize(shape))}
	}
	return &ttVal{shape: shape, elem: elem, n: make([]int64, ttSize(shape))}
}

// ttRound rounds v to elem (bf16, f16, else f32).
func ttRound(elem string, v float64) float64 {
	switch elem {
	case "bf16":
		return float64(bfloat16.FromFloat32(float32(v)).Float32())
	case "f16":
		return float64(float16.FromFloat32(float32(v)).Float32())
	}
	return float64(float32(v))
}

// maxNum is arith.maxnumf: the other operand where one is NaN.
func maxNum(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	} else if math.IsNaN(b) {
		return a
	}
	return math.Max(a, b)
}

var (
	ttInt = map[string]func(a, b int64) int64{"arith.addi": func(a, b int64) int64 { return a + b },
		"arith.subi": func(a, b int64) int64 { return a - b }, "arith.muli": func(a, b int64) int64 { return a * b },
		"arith.divsi": func(a, b int64) int64 { return a / b }, "arith.remsi": func(a, b int64) int64 { return a % b },
		"arith.andi": func(a, b int64) int64 { return a & b }}
	ttFloat = map[string]func(a, b float64) float64{"arith.addf": func(a, b float64) float64 { return a + b },
		"arith.mulf": func(a, b float64) float64 { return a * b }, "arith.maxnumf": maxNum,
		"arith.minnumf": func(a, b float64) float64 { return -maxNum(-a, -b) }}
	// cmpi's signed predicates and cmpf's ordered ones (false with a NaN), on i32 values made float64 (exact)
	ttCmp = map[string]func(a, b float64) bool{"slt": func(a, b float64) bool { return a < b },
		"sle": func(a, b float64) bool { return a <= b }, "sgt": func(a, b float64) bool { return a > b },
		"sge": func(a, b float64) bool { return a >= b }, "eq": func(a, b float64) bool { return a == b },
		"ne": func(a, b float64) bool { return a != b }, "olt": func(a, b float64) bool { return a < b },
		"ole": func(a, b float64) bool { return a <= b }, "ogt": func(a, b float64) bool { return a > b },
		"oge": func(a, b float64) bool { return a >= b }, "oeq": func(a, b float64) bool { return a == b }}
)

// ttRun is one launch: its buffers, which elements have been stored, and the current program's values.
type ttRun struct {
	name    string
	bufs    [][]float64
	written [][]bool
	pid     [3]int64
	env     map[string]*ttVal
	op      *ttOp
}

func (r *ttRun) fail(format string, args ...any) {
	panic(ttError(fmt.Sprintf("kernel %s, program %v, line %d %q: %s", r.name, r.pid, r.op.line, r.op.text, fmt.Sprintf(format, args...))))
}

// arg is operand i, checked to have shape (nil: any) and elem ("": any).
func (r *ttRun) arg(i int, shape []int, elem string) *ttVal {
	if i >= len(r.op.args) {
		r.fail("missing operand %d", i)
	}
	v, ok := r.env[r.op.args[i]]
	if !ok {
		r.fail("%s is not defined", r.op.args[i])
	}
	if shape != nil && !slices.Equal(v.shape, shape) || elem != "" && elem != v.elem {
		r.fail("operand %s is %v×%s, want %v×%s", r.op.args[i], v.shape, v.elem, shape, elem)
	}
	return v
}

// exec runs ops, returning the values of a closing scf.yield.
func (r *ttRun) exec(ops []*ttOp) []*ttVal {
	for _, op := range ops {
		r.op = op
		var out *ttVal
		switch name, t := op.op, op.typ; {
		case name == "arith.constant":
			out = newTTVal(t.shape, t.elem)
			lit, dense := strings.CutPrefix(op.lit, "dense<")
			lit = strings.TrimSuffix(lit, ">")
			v, err := strconv.ParseFloat(lit, 64)
			if hex, ok := strings.CutPrefix(lit, "0x"); ok && len(hex) == 8 && t.elem == "f32" { // f32 bits
				bits, e := strconv.ParseUint(hex, 16, 32)
				v, err = float64(math.Float32frombits(uint32(bits))), e
			} else if t.elem == "i32" {
				_, err = strconv.ParseInt(lit, 10, 32)
			}
			if err != nil || dense != (t.shape != nil) || !isFloat(t.elem) && t.elem != "i32" {
				r.fail("constant %q of %s", lit, t.elem)
			}
			for i := range out.n {
				out.n[i] = int64(v)
			}
			for i := range out.f {
				out.f[i] = ttRound(t.elem, v)
			}
		case name == "tt.get_program_id":
			if len(op.lit) != 1 || !strings.Contains("xyz", op.lit) {
				r.fail("no program axis %q", op.lit)
			}
			out = &ttVal{elem: "i32", n: []int64{r.pid[strings.Index("xyz", op.lit)]}}
		case name == "tt.make_range":
			if out = newTTVal(t.shape, "i32"); len(t.shape) != 1 || t.shape[0] != op.attr["end"]-op.attr["start"] {
				r.fail("range [%d, %d) of type %v", op.attr["start"], op.attr["end"], t.shape)
			}
			for i := range out.n {
				out.n[i] = int64(op.attr["start"] + i)
			}
		case name == "tt.splat":
			v := r.arg(0, []int{}, op.from.elem)
			out = &ttVal{shape: t.shape, elem: v.elem, buf: v.buf}
			if v.f != nil {
				out.f = slices.Repeat(v.f, ttSize(t.shape))
			} else {
				out.n = slices.Repeat(v.n, ttSize(t.shape))
			}
		case name == "tt.expand_dims":
			v := r.arg(0, op.from.shape, op.from.elem)
			out = &ttVal{shape: slices.Insert(slices.Clone(v.shape), op.attr["axis"], 1), elem: v.elem, n: v.n, f: v.f, buf: v.buf}
		case name == "tt.broadcast":
			out = r.broadcast(r.arg(0, op.from.shape, op.from.elem), t.shape)
		case name == "tt.addptr":
			p := r.arg(0, op.from.shape, op.from.elem)
			off := r.arg(1, p.shape, "i32")
			out = &ttVal{shape: p.shape, elem: p.elem, buf: p.buf, n: make([]int64, len(p.n))}
			for i := range out.n {
				out.n[i] = p.n[i] + off.n[i]
			}
		case name == "tt.load", name == "tt.store": // operands: pointers, mask, other; or pointers, value, mask
			p := r.arg(0, op.from.shape, op.from.elem)
			elem, val, mask := strings.TrimSuffix(strings.TrimPrefix(p.elem, "!tt.ptr<"), ">"), 2, 1
			if name == "tt.store" {
				val, mask = 1, 2
			}
			v, m := r.arg(val, p.shape, elem), r.arg(mask, p.shape, "i1")
			if name == "tt.load" {
				out = &ttVal{shape: p.shape, elem: elem, f: slices.Clone(v.f)}
			}
			buf, written := r.bufs[p.buf], r.written[p.buf]
			for i, off := range p.n {
				if m.n[i] == 0 {
					continue
				} else if off < 0 || off >= int64(len(buf)) {
					r.fail("%s at element offset %d of %%arg%d, outside its %d elements (tile element %d)", name, off, p.buf, len(buf), i)
				} else if out != nil {
					out.f[i] = ttRound(elem, buf[off])
				} else if written[off] {
					r.fail("stores element %d of %%arg%d a second time", off, p.buf)
				} else {
					buf[off], written[off] = ttRound(elem, v.f[i]), true
				}
			}
		case ttInt[name] != nil:
			a, b := r.arg(0, t.shape, t.elem), r.arg(1, t.shape, t.elem)
			if out = newTTVal(a.shape, a.elem); t.elem != "i32" && t.elem != "i1" {
				r.fail("integer operation on %s", t.elem)
			}
			for i := range out.n {
				if b.n[i] == 0 && (name == "arith.divsi" || name == "arith.remsi") {
					r.fail("division by zero")
				}
				out.n[i] = int64(int32(ttInt[name](a.n[i], b.n[i])))
			}
		case name == "arith.cmpi" || name == "arith.cmpf":
			elem, cmp := map[string]string{"arith.cmpi": "i32", "arith.cmpf": "f32"}[name], ttCmp[op.lit]
			a, b := r.arg(0, t.shape, elem), r.arg(1, t.shape, elem)
			if out = newTTVal(a.shape, "i1"); cmp == nil || (elem == "f32") != strings.HasPrefix(op.lit, "o") {
				r.fail("unknown predicate %q", op.lit)
			}
			for i := range out.n {
				if elem == "i32" && cmp(float64(a.n[i]), float64(b.n[i])) || elem == "f32" && cmp(a.f[i], b.f[i]) {
					out.n[i] = 1
				}
			}
		case ttFloat[name] != nil:
			a, b := r.arg(0, t.shape, t.elem), r.arg(1, t.shape, t.elem)
			if out = newTTVal(a.shape, a.elem); !isFloat(t.elem) {
				r.fail("floating-point operation on %s", t.elem)
			}
			for i := range out.f {
				out.f[i] = ttRound(t.elem, ttFloat[name](a.f[i], b.f[i]))
			}
		case name == "arith.select": // the condition is a scalar or a tile
			c, a, b := r.arg(0, nil, "i1"), r.arg(1, t.shape, t.elem), r.arg(2, t.shape, t.elem)
			if c.shape != nil && !slices.Equal(c.shape, t.shape) {
				r.fail("condition of shape %v for values of %v", c.shape, t.shape)
			}
			out = &ttVal{shape: a.shape, elem: a.elem, n: slices.Clone(a.n), f: slices.Clone(a.f)}
			for i := range max(len(a.n), len(a.f)) {
				if c.n[min(i, len(c.n)-1)] == 0 && out.f != nil {
					out.f[i] = b.f[i]
				} else if c.n[min(i, len(c.n)-1)] == 0 {
					out.n[i] = b.n[i]
				}
			}
		case name == "arith.extf" || name == "arith.truncf":
			v := r.arg(0, op.from.shape, op.from.elem)
			if out = newTTVal(t.shape, t.elem); !isFloat(v.elem) || !isFloat(t.elem) {
				r.fail("converts %s to %s", v.elem, t.elem)
			}
			for i := range out.f {
				out.f[i] = ttRound(t.elem, v.f[i])
			}
		case name == "tt.dot": // a [m, k] · b [k, n] + c [m, n], the products exact and the sum in f32 (Triton's
			// accumulator), with inputPrecision = ieee for f32 operands: anything else would be tf32 on the GPU
			a, b, c := r.arg(0, op.from.shape, op.from.elem), r.arg(1, op.from2.shape, op.from2.elem), r.arg(2, t.shape, "f32")
			ieee := strings.Contains(op.text, "inputPrecision = ieee")
			if len(a.shape) != 2 || len(b.shape) != 2 || a.shape[1] != b.shape[0] || !slices.Equal(t.shape, []int{a.shape[0], b.shape[1]}) ||
				a.elem != b.elem || !isFloat(a.elem) || (a.elem == "f32") != ieee || min(a.shape[0], a.shape[1], b.shape[1]) < 16 {
				r.fail("dot of %v×%s and %v×%s into %v×%s", a.shape, a.elem, b.shape, b.elem, t.shape, t.elem)
			}
			m, k, n := a.shape[0], a.shape[1], b.shape[1]
			out = newTTVal(t.shape, "f32")
			for i := range m {
				for j := range n {
					sum := c.f[i*n+j]
					for l := range k {
						sum = ttRound("f32", sum+a.f[i*k+l]*b.f[l*n+j])
					}
					out.f[i*n+j] = sum
				}
			}
		case name == "tt.reduce":
			out = r.sum(r.arg(0, op.from.shape, "f32"), op.attr["axis"])
		case name == "scf.for":
			lb, ub, step := r.arg(0, []int{}, "i32").n[0], r.arg(1, []int{}, "i32").n[0], r.arg(2, []int{}, "i32").n[0]
			if step <= 0 {
				r.fail("step %d", step)
			}
			carried := make([]*ttVal, len(op.iters))
			for i := range carried {
				carried[i] = r.arg(3+i, nil, "")
			}
			for iv := lb; iv < ub; iv += step {
				r.env[op.iv] = &ttVal{elem: "i32", n: []int64{iv}}
				for i, name := range op.iters {
					r.env[name] = carried[i]
				}
				next := r.exec(op.body)
				for i, v := range next {
					if !slices.Equal(v.shape, carried[i].shape) || v.elem != carried[i].elem {
						r.op = op
						r.fail("carries %v×%s on as %v×%s", carried[i].shape, carried[i].elem, v.shape, v.elem)
					}
				}
				carried = next
			}
			for i, v := range carried {
				r.env[fmt.Sprintf("%s#%d", op.res, i)] = v
			}
		case name == "scf.yield":
			vals := make([]*ttVal, len(op.args))
			for i := range vals {
				vals[i] = r.arg(i, nil, "")
			}
			return vals
		}
		if r.op = op; out != nil {
			if !slices.Equal(out.shape, op.typ.shape) {
				r.fail("result of shape %v, the IR says %v", out.shape, op.typ.shape)
			}
			r.env[op.res] = out
		}
	}
	return nil
}

// broadcast expands v's dimensions of size 1 to shape's (rank 2, as ttWriter's rows and cols).
func (r *ttRun) broadcast(v *ttVal, shape []int) *ttVal {
	out := newTTVal(shape, v.elem)
	out.buf = v.buf
	if len(v.shape) != 2 || len(shape) != 2 || v.shape[0] != 1 && v.shape[0] != shape[0] ||
		v.shape[1] != 1 && v.shape[1] != shape[1] {
		r.fail("broadcast of %v to %v", v.shape, shape)
	}
	for i := range max(len(out.n), len(out.f)) {
		src := min(i/shape[1], v.shape[0]-1)*v.shape[1] + min(i%shape[1], v.shape[1]-1)
		if out.f != nil {
			out.f[i] = v.f[src]
		} else {
			out.n[i] = v.n[src]
		}
	}
	return out
}

// sum is tt.reduce with the addf body over axis: the sum in f32, in order.
func (r *ttRun) sum(v *ttVal, axis int) *ttVal {
	if axis >= len(v.shape) {
		r.fail("axis %d of a rank %d tensor", axis, len(v.shape))
	}
	out := newTTVal(slices.Delete(slices.Clone(v.shape), axis, axis+1), "f32")
	n, inner := v.shape[axis], ttSize(v.shape[axis+1:])
	for o := range len(out.f) / inner {
		for i := range inner {
			s := v.f[o*n*inner+i]
			for k := 1; k < n; k++ {
				s = ttRound("f32", s+v.f[(o*n+k)*inner+i])
			}
			out.f[o*inner+i] = s
		}
	}
	return out
}
