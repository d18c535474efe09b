package train

import (
	"errors"
	"fmt"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
)

// Config is one compiled training configuration: everything that changes the XLA program.
type Config struct {
	Precision    Precision
	Batch        int
	ImageSize    int   // 224 in the tutorial
	Input        Input // how batches reach the step
	StepsPerCall int   // K > 1 runs K steps per Execute in a While loop (InputDeviceData only)
	LR           float64
	Momentum     float64
	Scaler       LossScaler
	Seed         uint64
	// FlatState carries the parameters and the momenta through the K-step loop as one vector each, so that the
	// SGD update is one fused kernel instead of one per tensor (flatstate.go says why). Only with K > 1.
	FlatState bool
}

// DefaultConfig is the tutorial's baseline: float32, batch 32, 224×224, SGD(lr 0.001, momentum 0.9).
func DefaultConfig() Config {
	return Config{Precision: F32, Batch: 32, ImageSize: 224, Input: InputFloat32, StepsPerCall: 1,
		LR: 0.001, Momentum: 0.9, Scaler: DefaultScaler(), Seed: 1}
}

// Validate returns a clear error for a configuration that cannot be built.
func (c Config) Validate() error {
	var errs []error
	if c.Batch < 1 {
		errs = append(errs, fmt.Errorf("batch must be ≥ 1, got %d", c.Batch))
	}
	if c.ImageSize < 32 {
		errs = append(errs, fmt.Errorf("image size must be ≥ 32, got %d", c.ImageSize))
	}
	if c.StepsPerCall < 1 {
		errs = append(errs, fmt.Errorf("steps per call must be ≥ 1, got %d", c.StepsPerCall))
	}
	if c.FlatState && c.StepsPerCall < 2 {
		errs = append(errs, fmt.Errorf("a flat state packs the While loop's state: it needs more than 1 step per call, got %d", c.StepsPerCall))
	}
	if c.StepsPerCall > 1 && c.Input != InputDeviceData {
		errs = append(errs, fmt.Errorf("%d steps per call need the device-resident dataset (the host cannot feed a While loop)", c.StepsPerCall))
	}
	if _, err := ParsePrecision(string(c.Precision)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Trainer owns the training state on the device and the compiled step.
//
// State layout (one flat list of device tensors, donated to each Execute so XLA updates them in place):
// every model parameter (float32 masters and batch-norm running statistics, in Model.Params order), one momentum
// buffer per trainable parameter, the loss scale (float32), the scaler's growth tracker (int32), the number of
// skipped steps (int32) and the RNG state (dropout, shuffling).
type Trainer struct {
	Backend compute.Backend
	Model   *mobilenet.Model
	Config  Config

	state     []*tensors.Tensor
	trainable []int // indices into Model.Params
	step      *Exec
	eval      *Exec
	perm      *Exec
	data      *deviceData

	argShapes []shapes.Shape // of the step's arguments, recorded at the first call
	// compileTime is how long the first call spent compiling (XLA's passes, autotuning, code generation) before
	// it executed: the rest of a first call is the first execution (module loading, cuDNN plan building).
	compileTime time.Duration
}

// CompileTime is how long the first step spent compiling before it ran, 0 before the first step. A first call
// minus this is the first execution, which on XLA's GPU backend still builds things (cuDNN execution plans,
// CUDA graphs) that no cache carries from one process to the next.
func (t *Trainer) CompileTime() time.Duration { return t.compileTime }

type deviceData struct {
	images, labels, perm *tensors.Tensor
	n, offset            int
}

// Indices of the scalars after the parameters and momenta.
func (t *Trainer) idxScale() int   { return len(t.Model.Params) + len(t.trainable) }
func (t *Trainer) idxTracker() int { return t.idxScale() + 1 }
func (t *Trainer) idxSkipped() int { return t.idxScale() + 2 }
func (t *Trainer) idxRNG() int     { return t.idxScale() + 3 }

// buildOnlyWhile lets tests build (not run) the K-steps program on the pure-Go backend.
var buildOnlyWhile = false

// NewTrainer initialises the model (torchvision's initialisation, from cfg.Seed) on the backend's device and
// prepares the executables; nothing is compiled until the first step.
func NewTrainer(backend compute.Backend, model *mobilenet.Model, cfg Config) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Precision.CheckBackend(backend); err != nil {
		return nil, err
	}
	if cfg.StepsPerCall > 1 && !IsXLA(backend) && !buildOnlyWhile {
		return nil, fmt.Errorf("%d steps per call need the XLA backend: the pure-Go backend (%s) fails to run a While "+
			"loop whose body holds a gradient (compute v0.1.14: \"send on closed channel\"); use 1 step per call there",
			cfg.StepsPerCall, backend.Description())
	}
	t := &Trainer{Backend: backend, Model: model, Config: cfg}
	values := model.InitialValues(cfg.Seed)
	for i, p := range model.Params {
		t.state = append(t.state, tensors.FromFlatDataAndDimensions(values[i], p.Shape...))
		if p.Trainable() {
			t.trainable = append(t.trainable, i)
		}
	}
	for _, i := range t.trainable {
		t.state = append(t.state, tensors.FromShape(shapes.Make(dtypes.Float32, model.Params[i].Shape...)))
	}
	rng, err := RNGStateFromSeed(int64(cfg.Seed))
	if err != nil {
		return nil, err
	}
	t.state = append(t.state,
		tensors.FromScalar(float32(cfg.Scaler.InitScale)), tensors.FromScalar(int32(0)), tensors.FromScalar(int32(0)), rng)
	for _, s := range t.state {
		if err := s.MaterializeOnDevice(backend, false, 0); err != nil {
			return nil, fmt.Errorf("moving the initial state to %s: %w", backend, err)
		}
	}
	t.step, err = NewExec(backend, t.stepGraph)
	if err != nil {
		return nil, err
	}
	t.step = t.step.WithName(fmt.Sprintf("train-step-%s-b%d-%dpx", cfg.Precision, cfg.Batch, cfg.ImageSize))
	t.eval, err = NewExec(backend, t.evalGraph)
	if err != nil {
		return nil, err
	}
	t.eval = t.eval.WithName("eval")
	return t, nil
}

// Params returns the current parameter tensors (on the device), in Model.Params order.
func (t *Trainer) Params() []*tensors.Tensor { return t.state[:len(t.Model.Params)] }

// stepGraph builds one Execute: the state, then the batch inputs (which depend on Config.Input), in; the new
// state and the mean loss of the call's steps out.
func (t *Trainer) stepGraph(inputs []*Node) []*Node {
	ns := len(t.state)
	state, batch := inputs[:ns], inputs[ns:]
	if t.Config.Input != InputDeviceData {
		x := t.prepareInput(batch[0])
		newState, loss := t.oneStep(state, x, batch[1])
		return append(newState, loss)
	}
	g := batch[0].Graph()
	// sample gathers step k's batch: perm[offset+k·B : offset+(k+1)·B] (a gather: the pure-Go backend has no
	// DynamicSlice), then those images and labels.
	// excerpt: device-sample
	sample := func(images, labels, perm, offset, k *Node) (x, y *Node) {
		start := Add(offset, MulScalar(k, t.Config.Batch))
		positions := Add(Iota(k.Graph(), shapes.Make(dtypes.Int32, t.Config.Batch), 0), start)
		idx := ExpandAxes(Gather(perm, ExpandAxes(positions, -1)), -1)
		return t.prepareInput(Gather(images, idx)), Gather(labels, idx)
	}
	// excerpt end
	if t.Config.StepsPerCall == 1 {
		x, y := sample(batch[0], batch[1], batch[2], batch[3], Const(g, int32(0)))
		newState, loss := t.oneStep(state, x, y)
		return append(newState, loss)
	}
	// K steps in one Execute. XLA's closures cannot use values of the enclosing function, so everything the body
	// reads travels in the loop state: (k, loss sum, images, labels, perm, offset, state...).
	// Constants outside the closures are made with Const, not Scalar: GoMLX caches scalar constants per graph,
	// not per function, and a cached constant from one scope used in another breaks the While.
	// With Config.FlatState the loop carries the state packed, and oneStep unpacks it (flatstate.go).
	if t.Config.FlatState {
		state = t.flatLayout().pack(state)
	}
	// excerpt: while-loop
	init := append([]*Node{Const(g, int32(0)), Const(g, float32(0))}, batch[:4]...)
	init = append(init, state...)
	shapesOf := make([]shapes.Shape, len(init))
	for i, n := range init {
		shapesOf[i] = n.Shape()
	}
	params := func(g *Graph) []*Node {
		ps := make([]*Node, len(shapesOf))
		for i, s := range shapesOf {
			ps[i] = Parameter(g, fmt.Sprintf("loop_%d", i), s)
		}
		return ps
	}
	cond := NewClosure(g, func(g *Graph) []*Node {
		ps := params(g)
		return []*Node{LessThan(ps[0], Const(g, int32(t.Config.StepsPerCall)))}
	})
	body := NewClosure(g, func(g *Graph) []*Node {
		ps := params(g)
		k, lossSum, data, st := ps[0], ps[1], ps[2:6], ps[6:]
		x, y := sample(data[0], data[1], data[2], data[3], k)
		newState, loss := t.oneStep(st, x, y)
		out := append([]*Node{Add(k, OnesLike(k)), Add(lossSum, loss)}, data...)
		return append(out, newState...)
	})
	results := While(cond, body, init...)
	// excerpt end
	meanLoss := Div(results[1], Const(g, float32(t.Config.StepsPerCall)))
	newState := results[6:]
	if t.Config.FlatState {
		newState = t.flatLayout().unpack(newState)
	}
	return append(newState, meanLoss)
}

// prepareInput turns a batch as it arrives into normalised float32 [B,S,S,3].
func (t *Trainer) prepareInput(x *Node) *Node {
	switch t.Config.Input {
	case InputFloat32:
		return x
	case InputUint8:
		return normalizeOnDevice(x)
	default: // 32×32 uint8: normalise (4× fewer elements) then resize — both are linear, so the order is free.
		return resizeOnDevice(normalizeOnDevice(x), t.Config.ImageSize)
	}
}

// oneStep is one training step on the state as the step's program carries it: per tensor, or packed inside the
// K-step loop with Config.FlatState (flatstate.go).
func (t *Trainer) oneStep(state []*Node, x, labels *Node) ([]*Node, *Node) {
	if !t.Config.FlatState {
		return t.stepTensors(state, x, labels)
	}
	l := t.flatLayout()
	newState, loss := t.stepTensors(l.unpack(state), x, labels)
	return l.pack(newState), loss
}

// stepTensors is forward + backward + SGD update (+ loss scaling), returning the new state and the (unscaled) loss.
func (t *Trainer) stepTensors(state []*Node, x, labels *Node) ([]*Node, *Node) {
	cfg := t.Config
	np := len(t.Model.Params)
	params := state[:np]
	momenta := state[np : np+len(t.trainable)]
	scale, tracker, skipped, rng := state[t.idxScale()], state[t.idxTracker()], state[t.idxSkipped()], state[t.idxRNG()]

	// excerpt: train-step
	out := t.Model.Forward(mobilenet.Pass{Params: params, Compute: cfg.Precision.DType(), Train: true, RNG: rng}, x)
	loss := mobilenet.CrossEntropy(out.Logits, labels)
	objective := loss
	if cfg.Precision.Scaled() {
		objective = Mul(loss, scale)
	}
	wrt := make([]*Node, len(t.trainable))
	for j, i := range t.trainable {
		wrt[j] = params[i]
	}
	grads := Gradient(objective, wrt...)
	var finite *Node
	if cfg.Precision.Scaled() {
		inv := Inverse(scale)
		for j := range grads {
			grads[j] = Mul(grads[j], inv)
		}
		finite = allFinite(grads)
	}

	newState := make([]*Node, len(state))
	copy(newState, out.Updated) // batch-norm running statistics (updated even on a skipped step, as in PyTorch)
	for j, i := range t.trainable {
		// PyTorch's SGD: v ← μ·v + g; p ← p − lr·v.
		v := Add(MulScalar(momenta[j], cfg.Momentum), grads[j])
		p := Sub(params[i], MulScalar(v, cfg.LR))
		if finite != nil {
			v = Where(finite, v, momenta[j])
			p = Where(finite, p, params[i])
		}
		newState[i], newState[np+j] = p, v
	}
	newState[t.idxScale()], newState[t.idxTracker()], newState[t.idxSkipped()] = scale, tracker, skipped
	if finite != nil {
		newState[t.idxScale()], newState[t.idxTracker()] = cfg.Scaler.updateGraph(scale, tracker, finite)
		newState[t.idxSkipped()] = Add(skipped, ConvertDType(LogicalNot(finite), dtypes.Int32))
	}
	newState[t.idxRNG()] = out.RNG
	// excerpt end
	return newState, loss
}

// allFinite is true when no gradient holds an inf or NaN.
func allFinite(grads []*Node) *Node {
	var all *Node
	for _, g := range grads {
		f := LogicalAll(IsFinite(g))
		if all == nil {
			all = f
		} else {
			all = LogicalAnd(all, f)
		}
	}
	return all
}

// evalGraph: parameters, a [B,32,32,3] uint8 batch and its labels in; the number of correct predictions out.
// Evaluation resizes on the device whatever the training input: it measures the model, not the pipeline.
func (t *Trainer) evalGraph(inputs []*Node) *Node {
	np := len(t.Model.Params)
	params, images, labels := inputs[:np], inputs[np], inputs[np+1]
	x := resizeOnDevice(normalizeOnDevice(images), t.Config.ImageSize)
	out := t.Model.Forward(mobilenet.Pass{Params: params, Compute: t.Config.Precision.DType()}, x)
	pred := ArgMax(out.Logits, -1, labels.DType())
	return ReduceAllSum(ConvertDType(Equal(pred, labels), dtypes.Int32))
}

// Close frees what the trainer holds on the device now — training state, the device-resident dataset and the
// compiled programs — instead of whenever Go's garbage collector runs the finalizers. A memory search that
// builds one trainer after another (trainopt memory) needs that: otherwise the previous batch size's buffers
// still count against the allocator's limit. The trainer is unusable afterwards.
func (t *Trainer) Close() {
	for _, s := range t.state {
		if s != nil {
			_ = s.FinalizeAll()
		}
	}
	t.state = nil
	if t.data != nil {
		for _, x := range []*tensors.Tensor{t.data.images, t.data.labels, t.data.perm} {
			if x != nil {
				_ = x.FinalizeAll()
			}
		}
		t.data = nil
	}
	for _, e := range []*Exec{t.step, t.eval, t.perm} {
		if e != nil {
			e.Finalize()
		}
	}
	t.step, t.eval, t.perm = nil, nil, nil
}
