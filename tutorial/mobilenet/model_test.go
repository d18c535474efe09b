package mobilenet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestWholeModelGradient checks Gradient through the whole network (convolutions, the depthwise VJP, batch norm in
// training mode, ReLU6, residuals, pooling, classifier, cross-entropy) in float64 at a tiny size against central
// differences of the loss, for a sample of parameters of every kind; in both forms of batch norm's sums (plain and
// the wide view of batchnorm.go, whose gradients come from the broadcast through the same view).
func TestWholeModelGradient(t *testing.T) {
	for _, cfg := range []Config{{},
		// the ladder's last step
		{ReductionRow: 64, MaskedReLU6: true, NormalizeFloat32: true, StemChannels: 8},
		// the stem as a matrix product over patches (stem.go), the 1×1 convolutions as matrix products (forward.go)
		{ReductionRow: 64, MaskedReLU6: true, Stem: StemPatches, PointwiseDot: true},
		// the stem as a 2×2 convolution over the image in 2×2 blocks (stem.go), beside stem-channels, which it
		// takes precedence over
		{Stem: StemSpaceToDepth, StemChannels: 8},
		// the experiments (-model)
		{Depthwise: DepthwiseForm{Forward: ForwardShifted, Input: InputGradShifted, Kernel: KernelGradShiftedProducts}},
		// batch norm's backward pass written by hand around the depthwise layers (depthwise_bn.go), here with its
		// gate and sums from graph operations, as on any backend without Triton
		{ReductionRow: 64, MaskedReLU6: true, Depthwise: DepthwiseForm{Prologue: PrologueBNReLU6Backward}},
		// and the expansions' backward pass fused behind it (expand_grad.go), with dK taken where the dx kernel
		// would make it (dw-kernel-grad=in-dx; here its graph formula)
		{ReductionRow: 64, MaskedReLU6: true, ExpandGrad: ExpandGradFused,
			Depthwise: DepthwiseForm{Prologue: PrologueBNReLU6Backward, Kernel: KernelGradInDx}},
		// and the expansions' products split over dz's three terms instead (expand-grad=distributed), with the batch
		// norms' sums after the widening 1×1 convolutions from their input's Gram matrix (bn-sums=gram)
		{ReductionRow: 64, MaskedReLU6: true, ExpandGrad: ExpandGradDistributed, Sums: SumsGram,
			Depthwise: DepthwiseForm{Prologue: PrologueBNReLU6Backward, Kernel: KernelGradInDx}},
		// and the backward pass of the batch norm after each depthwise layer made where dx is made
		// (depthwise_bn_out.go; here dy from its graph formula)
		{ReductionRow: 64, MaskedReLU6: true,
			Depthwise: DepthwiseForm{Prologue: PrologueBNReLU6Backward, Kernel: KernelGradInDx, Epilogue: EpilogueBNReLU6Backward}},
		// the Gram matrix's sums without the hand-written pass: autodiff differentiates the reductions they stand in for
		{ReductionRow: 64, MaskedReLU6: true, Sums: SumsGram},
		// the projections' weight gradient by hand from the depthwise output (project-prologue=bn-relu6; here its
		// graph formula, as the forward convolution is kept)
		{ReductionRow: 64, MaskedReLU6: true, ProjectPrologue: true},
	} {
		cfg.NumClasses, cfg.Width = 10, 0.25
		t.Run("formulation="+cfg.Formulation(),
			func(t *testing.T) { testWholeModelGradient(t, cfg) })
	}
}

func testWholeModelGradient(t *testing.T, cfg Config) {
	backend := testBackend(t)
	m := New(cfg)
	const batch, size = 8, 32
	rng := rand.New(rand.NewPCG(3, 4))
	init := m.InitialValues(5)
	params := make([][]float64, len(m.Params))
	for i, v := range init {
		params[i] = make([]float64, len(v))
		for j, x := range v {
			params[i][j] = float64(x)
		}
		if m.Params[i].Kind == BNScale || m.Params[i].Kind == BNBias {
			for j := range params[i] { // away from γ=1, β=0 so their gradients are not special
				params[i][j] += 0.1 * rng.NormFloat64()
			}
		}
	}
	x := randSlice(rng, batch*size*size*3)
	labels := []int32{1, 7, 3, 1, 0, 9, 3, 5}

	lossFn := func(inputs []*Node) []*Node {
		np := len(m.Params)
		out := m.Forward(Pass{Params: inputs[:np], Compute: dtypes.Float64, Train: true}, inputs[np])
		loss := CrossEntropy(out.Logits, inputs[np+1])
		outs := []*Node{loss}
		for i, p := range m.Params {
			if p.Trainable() {
				outs = append(outs, Gradient(loss, inputs[i])[0])
			}
		}
		return outs
	}
	exec := MustNewExec(backend, lossFn)
	lossOnly := MustNewExec(backend, func(inputs []*Node) *Node { return lossFn(inputs)[0] })
	args := func() []any {
		args := make([]any, 0, len(params)+2)
		for i, p := range m.Params {
			args = append(args, tensors.FromFlatDataAndDimensions(params[i], p.Shape...))
		}
		return append(args, tensors.FromFlatDataAndDimensions(x, batch, size, size, 3), tensors.FromFlatDataAndDimensions(labels, batch))
	}
	before, stoodIn, projected := dyMadeInDx.Load(), sumsStoodIn.Load(), projectGradsBuilt.Load()
	outs := exec.MustCall(args()...)
	if cfg.ProjectPrologue { // every projection to at most projectMaxK channels took the hand-written dW
		want := 0
		for _, b := range m.blocks {
			proj := b.first + 5 // the depthwise kernel's batch norm, then the projection's kernel
			if b.expand {
				proj += 5
			}
			if projectFits(m.Params[proj].Shape[3]) {
				want++
			}
		}
		if got := projectGradsBuilt.Load() - projected; got != int64(want) {
			t.Errorf("%d projections took the hand-written dW, want %d", got, want)
		}
	}
	if cfg.Sums == SumsGram { // every widening 1×1 convolution's batch norm took its sums from the Gram matrix
		widening := 0
		for _, p := range m.Params {
			if s := p.Shape; len(s) == 4 && s[0] == 1 && s[1] == 1 && s[2] < s[3] {
				widening++
			}
		}
		if got := sumsStoodIn.Load() - stoodIn; got != int64(widening) {
			t.Errorf("%d batch norms took stored sums, want the %d after widening 1×1 convolutions", got, widening)
		}
	}
	// Every depthwise layer whose dx kernel starts the backward pass of the batch norm before it: those after an
	// expansion, and the first where the stem's activation feeds nothing else (no residual).
	want := 0
	for j, b := range m.blocks {
		if b.expand || j == 0 && !b.residual {
			want++
		}
	}
	if made := dyMadeInDx.Load() - before; cfg.Depthwise.Epilogue != EpilogueNone && made != int64(want) {
		t.Errorf("dy made where dx is made in %d depthwise layers, want %d", made, want)
	}
	loss := func() float64 { return tensors.MustCopyFlatData[float64](lossOnly.MustCall(args()...)[0])[0] }

	gi := 1
	checked := 0
	for i, p := range m.Params {
		if !p.Trainable() {
			continue
		}
		grad := tensors.MustCopyFlatData[float64](outs[gi])
		gi++
		// Two random elements of every 6th trainable parameter, and of the first and last.
		if i%8 != 0 && i != 0 && i < len(m.Params)-2 {
			continue
		}
		for range 2 {
			j := rng.IntN(len(params[i]))
			orig := params[i][j]
			const eps = 1e-7
			params[i][j] = orig + eps
			lp := loss()
			params[i][j] = orig - eps
			lm := loss()
			params[i][j] = orig
			num := (lp - lm) / (2 * eps)
			if diff := math.Abs(num - grad[j]); diff > 1e-6+1e-4*math.Abs(num) {
				t.Errorf("%s[%d]: gradient %.8g, numerical %.8g", p.Name, j, grad[j], num)
			}
			checked++
		}
	}
	t.Logf("checked %d gradient elements", checked)
}
