package mobilenet

import (
	"sync/atomic"

	"github.com/gomlx-tutorials/trainopt/tutorial/triton"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// A block's projection with batch norm and ReLU6 applied where its products load (-model
// project-prologue=bn-relu6; the kernels and why: project_ttir.go).
//
// The depthwise layer's output y goes through batch norm and ReLU6 into a = ReLU6(y·scale + shift), which the
// projection reads twice: out = a·W forward, dW = aᵀ·dout backward. With the option, bnReLU6AfterDepthwise marks a
// as made from y (MarkBNReLU6, as for the depthwise prologue), and where the layer's kernels are Triton's the
// forward kernel's result stands in for the convolution's (triton.Replace), the weight-gradient kernel's for dW
// (through an identity on the kernel parameter, which records nothing else), both reading y. The convolution stays
// in the graph for its other gradient, dx = dout·Wᵀ, which does not need a; what else autodiff builds from the
// convolution — its own dW, which reads a — is never used, XLA drops it, and with it the pass that writes a (ReLU6's
// gradient is taken from batch norm's output, which XLA remakes from y in the backward pass's fusions). Elsewhere
// (the pure-Go backend, other depthwise forms) the convolution runs as before and dW comes from graph operations
// with the same formula, which is how the CPU tests check the identities against central differences.

// projectBackward is one projection's hand-written weight gradient.
type projectBackward struct {
	pro     *bnPrologue // the projection's input a = ReLU6(pro.z·pro.scale + pro.shift)
	kernel  *Node       // the parameter, [1, 1, C, K]
	compute dtypes.DType
	kernels bool // the Triton kernels run (the depthwise layers' do: a CUDA GPU)
	tile    ProjectTile
	dout    *Node // the projection output's gradient, recorded by the reverse pass
	dW      *Node // built once, from dout
}

// excerpt: projection-prologue

// projection is a block's projection, 1×1 convolution with kernel i (to K channels), then batch norm i+1: with the
// prologue where it applies — in training, with project-prologue=bn-relu6, behind a marked ReLU6(batch norm), to
// at most projectMaxK channels.
func (f *forward) projection(a *Node, i int) *Node {
	pro := prologueOf(a)
	if !f.m.ProjectPrologue || !f.pass.Train || pro == nil || !projectFits(f.m.Params[i].Shape[3]) {
		return f.batchNorm(f.pointwise(a, i), i+1)
	}
	back := &projectBackward{pro: pro, kernel: f.pass.Params[i], compute: f.pass.Compute,
		kernels: f.m.Depthwise.Forward.isTriton(), tile: f.m.ProjectTile}
	grad := handWrittenGradient(func() bool { return back.dout != nil }, func() []*Node {
		back.build()
		return []*Node{back.dW}
	})
	w := ConvertDType(IdentityWithCustomGradient(f.pass.Params[i], grad(0)), f.pass.Compute)
	out := f.pointwiseProduct(a, w)
	if back.kernels {
		c, k := w.Shape().Dim(2), w.Shape().Dim(3)
		p := a.Shape().Size() / c
		tl := newProjectTiling(p, c, k, back.tile, true)
		y := Reshape(ConvertDType(pro.z, f.pass.Compute), p, c)
		kern := projectForwardKernel(tl, ttElem(f.pass.Compute), f.m.ProjectSums)
		outs := []shapes.Shape{shapes.Make(f.pass.Compute, p, k)}
		if f.m.ProjectSums { // and the batch norm after it takes its sums from the kernel (storeSums)
			outs = append(outs, shapes.Make(dtypes.Float32, kern.Grid[0], 2, k))
		}
		made := triton.CallMulti(kern, outs, y, pro.scale, pro.shift, Reshape(w, c, k))
		triton.Replace(out, Reshape(made[0], out.Shape().Dimensions...))
		if f.m.ProjectSums {
			sum, sumSq := partialSums(made[1])
			storeSums(out, [2]*Node{sum, sumSq})
		}
	}
	out = carrySums(out, IdentityWithCustomGradient(out, func(_, v *Node) *Node {
		back.dout = v
		return v
	}))
	return f.batchNorm(out, i+1)
}

// excerpt end

// build makes dW = aᵀ·dout: by the weight-gradient kernel, or by graph operations that remake a from y.
func (b *projectBackward) build() {
	if b.dW != nil {
		return
	}
	c, k := b.kernel.Shape().Dim(2), b.kernel.Shape().Dim(3)
	p := b.dout.Shape().Size() / k
	y, dout := Reshape(ConvertDType(b.pro.z, b.compute), p, c), Reshape(ConvertDType(b.dout, b.compute), p, k)
	var dW *Node
	if b.kernels {
		tl := newProjectTiling(p, c, k, b.tile, false)
		part := triton.Call(projectWeightGradKernel(tl, ttElem(b.compute)), shapes.Make(dtypes.Float32, tl.programs, c, k),
			y, b.pro.scale, b.pro.shift, dout)
		dW = ReduceSum(part, 0)
	} else {
		acc := accumulation(b.compute)
		pre := Add(Mul(ConvertDType(y, acc), ExpandAxes(ConvertDType(b.pro.scale, acc), 0)), ExpandAxes(ConvertDType(b.pro.shift, acc), 0))
		a := ConvertDType(ClipScalar(pre, 0, 6), b.compute)
		dW = Dot(a, dout).WithOutputDType(acc).General([]int{0}, nil, []int{0}, nil)
	}
	b.dW = ConvertDType(Reshape(dW, b.kernel.Shape().Dimensions...), b.kernel.DType())
	projectGradsBuilt.Add(1)
}

// projectGradsBuilt counts the projections whose dW the hand-written pass made: tests use it to prove that the path
// was taken.
var projectGradsBuilt atomic.Int64
