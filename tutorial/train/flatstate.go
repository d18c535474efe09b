package train

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

// Why a flat state: inside the K-step While loop every parameter's SGD update is a kernel of its own, a hundred
// tiny kernels a step. XLA merges such kernels with its horizontal loop fusion, but that pass runs on the entry
// computation only ("Run on the entry computation is actually enough", XLA's horizontal_loop_fusion.cc), never in
// a While body. So, as an experiment (-model state=flat), the loop carries the parameters (masters and running
// statistics) as one float32 vector and the momenta as another: the body slices its tensors out of them and
// concatenates the new values, which XLA fuses into a few kernels — PyTorch's fused SGD. Outside the loop the
// state keeps its per-tensor layout, so nothing else sees the packing. It lost: the weights sliced out of one
// vector must be transposed into the convolutions' layouts every step, which costs what the merged updates save
// (README, "Formulations that lost").

// flatLayout packs state[0:np] (the parameters) and state[np:np+nt] (the momenta) into one vector each; the
// rest of the state passes as it is.
type flatLayout struct {
	groups [2][]shapes.Shape
}

// flatLayout is the trainer's: every parameter (float32 masters and running statistics, in Model.Params order),
// then the momentum of every trainable one — the state's order and dtypes as NewTrainer makes them.
func (t *Trainer) flatLayout() flatLayout {
	var l flatLayout
	for _, p := range t.Model.Params {
		l.groups[0] = append(l.groups[0], shapes.Make(dtypes.Float32, p.Shape...))
	}
	for _, i := range t.trainable {
		l.groups[1] = append(l.groups[1], shapes.Make(dtypes.Float32, t.Model.Params[i].Shape...))
	}
	return l
}

// size is how many state tensors the layout packs.
func (l flatLayout) size() int { return len(l.groups[0]) + len(l.groups[1]) }

// excerpt: flat-state

// pack is [parameters as one vector, momenta as one vector, the rest of the state...].
func (l flatLayout) pack(state []*Node) []*Node {
	out := make([]*Node, 0, 2+len(state)-l.size())
	off := 0
	for _, g := range l.groups {
		flat := make([]*Node, len(g))
		for i, s := range g {
			flat[i] = Reshape(state[off+i], s.Size())
		}
		out = append(out, Concatenate(flat, 0))
		off += len(g)
	}
	return append(out, state[off:]...)
}

// excerpt end

// unpack is pack's inverse: each tensor a slice of its vector, reshaped.
func (l flatLayout) unpack(packed []*Node) []*Node {
	out := make([]*Node, 0, l.size()+len(packed)-2)
	for gi, g := range l.groups {
		start := 0
		for _, s := range g {
			out = append(out, Reshape(Slice(packed[gi], AxisRange(start, start+s.Size())), s.Dimensions...))
			start += s.Size()
		}
	}
	return append(out, packed[2:]...)
}
