package train

import (
	"fmt"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Step runs one training step on a batch prepared by the host: x is [B,S,S,3] float32 (InputFloat32), [B,S,S,3]
// uint8 (InputUint8) or [B,32,32,3] uint8 (InputUint8Small); labels is [B] int32. It returns the loss as a device
// tensor: reading it (tensors.ToScalar) synchronises, so a loop that wants no per-step sync reads it only now and
// then. go-xla's Execute itself waits for the device before it returns.
func (t *Trainer) Step(x, labels *tensors.Tensor) (*tensors.Tensor, error) {
	if t.Config.Input == InputDeviceData {
		return nil, fmt.Errorf("this trainer reads the device-resident dataset: call StepDevice")
	}
	return t.call(x, labels)
}

// SetDeviceData uploads the uint8 training set ([n,32,32,3] HWC, labels 0..9) to the device once, for
// InputDeviceData: from then on no host work happens per step.
func (t *Trainer) SetDeviceData(images, labels []uint8, n int) error {
	if len(images) != n*32*32*3 || len(labels) != n {
		return fmt.Errorf("device data: want %d images of 32×32×3 and %d labels, got %d bytes and %d labels",
			n, n, len(images), len(labels))
	}
	if need := t.Config.Batch * t.Config.StepsPerCall; n < need {
		return fmt.Errorf("device data: %d images cannot fill one call of %d steps × batch %d", n, t.Config.StepsPerCall, t.Config.Batch)
	}
	l32 := make([]int32, n)
	for i, l := range labels {
		l32[i] = int32(l)
	}
	d := &deviceData{
		images: tensors.FromFlatDataAndDimensions(images, n, 32, 32, 3),
		labels: tensors.FromFlatDataAndDimensions(l32, n),
		n:      n,
	}
	for _, x := range []*tensors.Tensor{d.images, d.labels} {
		if err := x.MaterializeOnDevice(t.Backend, false, 0); err != nil {
			return fmt.Errorf("uploading the dataset: %w", err)
		}
	}
	var err error
	if t.perm == nil {
		t.perm, err = NewExec(t.Backend, permutationGraph)
		if err != nil {
			return err
		}
	}
	t.data = d
	return t.shuffle()
}

// shuffle draws a new epoch permutation on the device: random keys sorted together with their indices
// (torch.randperm's job), from the RNG state of the training state.
func (t *Trainer) shuffle() error {
	rngIdx := t.idxRNG()
	rng, err := DonateTensorBuffer(t.state[rngIdx], t.Backend, 0)
	if err != nil {
		return err
	}
	outs, err := t.perm.Call(rng, t.data.labels)
	if err != nil {
		return fmt.Errorf("shuffling on the device: %w", err)
	}
	t.state[rngIdx] = outs[0]
	if t.data.perm != nil {
		t.data.perm.MustFinalizeAll()
	}
	t.data.perm, t.data.offset = outs[1], 0
	return nil
}

func permutationGraph(rng, labels *Node) (*Node, *Node) {
	g := rng.Graph()
	n := labels.Shape().Dim(0)
	newRNG, keys := RandomUniform(rng, shapes.Make(dtypes.Float32, n))
	less := NewClosure(g, func(g *Graph) []*Node {
		a := Parameter(g, "a", shapes.Make(dtypes.Float32))
		b := Parameter(g, "b", shapes.Make(dtypes.Float32))
		_ = Parameter(g, "ia", shapes.Make(dtypes.Int32))
		_ = Parameter(g, "ib", shapes.Make(dtypes.Int32))
		return []*Node{LessThan(a, b)}
	})
	sorted := SortFunc(less, 0, false, keys, Iota(g, shapes.Make(dtypes.Int32, n), 0))
	return newRNG, sorted[1]
}

// StepDevice runs StepsPerCall training steps in one Execute, sampling batches from the device-resident dataset in
// epoch order (a new permutation when the epoch cannot fill another call: drop_last). It returns the mean loss of
// those steps as a device tensor.
func (t *Trainer) StepDevice() (*tensors.Tensor, error) {
	if t.Config.Input != InputDeviceData || t.data == nil {
		return nil, fmt.Errorf("StepDevice needs Input = InputDeviceData and SetDeviceData first")
	}
	per := t.Config.Batch * t.Config.StepsPerCall
	if t.data.offset+per > t.data.n {
		if err := t.shuffle(); err != nil {
			return nil, err
		}
	}
	offset := int32(t.data.offset)
	t.data.offset += per
	return t.call(t.data.images, t.data.labels, t.data.perm, offset)
}

var errClosed = fmt.Errorf("the trainer was closed (Trainer.Close freed its state)")

// call executes the step, donating the state (XLA may update it in place) and keeping the new state.
func (t *Trainer) call(batch ...any) (*tensors.Tensor, error) {
	if t.step == nil {
		return nil, errClosed
	}
	// Shapes are read before the state is donated: a donated device tensor no longer knows its shape.
	if t.argShapes == nil {
		for _, s := range t.state {
			t.argShapes = append(t.argShapes, s.Shape())
		}
		for _, b := range batch {
			if x, ok := b.(*tensors.Tensor); ok {
				t.argShapes = append(t.argShapes, x.Shape())
			} else {
				t.argShapes = append(t.argShapes, tensors.MustFromAnyValue(b).Shape())
			}
		}
		// Compile apart from the first execution, so that the two can be reported separately.
		t0 := time.Now()
		if _, err := t.step.Compile(t.argShapes...); err != nil {
			t.argShapes = nil
			return nil, t.stepError(err)
		}
		t.compileTime = time.Since(t0)
	}
	args := make([]any, 0, len(t.state)+len(batch))
	for _, s := range t.state {
		buf, err := DonateTensorBuffer(s, t.Backend, 0)
		if err != nil {
			return nil, err
		}
		args = append(args, buf)
	}
	args = append(args, batch...)
	outs, err := t.step.Call(args...)
	if err != nil {
		return nil, t.stepError(err)
	}
	copy(t.state, outs[:len(t.state)])
	return outs[len(t.state)], nil
}

// stepError names the configuration whose step failed to compile or run.
func (t *Trainer) stepError(err error) error {
	return fmt.Errorf("training step (%s, batch %d): %w", t.Config.Precision, t.Config.Batch, err)
}

// ScalerState reads the loss scale, growth tracker and the number of skipped steps from the device (a sync).
func (t *Trainer) ScalerState() (s ScalerState, skipped int, err error) {
	scale, err := toScalar[float32](t.state[t.idxScale()])
	if err != nil {
		return s, 0, err
	}
	tracker, err := toScalar[int32](t.state[t.idxTracker()])
	if err != nil {
		return s, 0, err
	}
	sk, err := toScalar[int32](t.state[t.idxSkipped()])
	return ScalerState{Scale: float64(scale), Tracker: int(tracker)}, int(sk), err
}

func toScalar[T float32 | int32](x *tensors.Tensor) (v T, err error) {
	data, err := tensors.CopyFlatData[T](x)
	if err != nil {
		return v, err
	}
	if len(data) != 1 {
		return v, fmt.Errorf("want a scalar, got shape %s", x.Shape())
	}
	return data[0], nil
}

// Loss reads a loss returned by Step/StepDevice (a sync).
func Loss(x *tensors.Tensor) (float64, error) {
	v, err := toScalar[float32](x)
	return float64(v), err
}

// Evaluate returns the accuracy on n uint8 [n,32,32,3] images, in batches of Config.Batch (a last partial batch
// is evaluated with its own compiled shape).
func (t *Trainer) Evaluate(images, labels []uint8, n int) (float64, error) {
	if t.eval == nil {
		return 0, errClosed
	}
	if n == 0 {
		return 0, fmt.Errorf("evaluate: empty set")
	}
	correct := 0
	for start := 0; start < n; start += t.Config.Batch {
		end := min(n, start+t.Config.Batch)
		l32 := make([]int32, end-start)
		for i := range l32 {
			l32[i] = int32(labels[start+i])
		}
		args := make([]any, 0, len(t.Model.Params)+2)
		for _, p := range t.Params() {
			args = append(args, p)
		}
		args = append(args, tensors.FromFlatDataAndDimensions(images[start*3072:end*3072], end-start, 32, 32, 3),
			tensors.FromFlatDataAndDimensions(l32, end-start))
		outs, err := t.eval.Call(args...)
		if err != nil {
			return 0, fmt.Errorf("evaluation: %w", err)
		}
		c, err := toScalar[int32](outs[0])
		if err != nil {
			return 0, err
		}
		correct += int(c)
	}
	return float64(correct) / float64(n), nil
}

// StepGraph returns the compiled graph of the training step (after the first step), e.g. for its compiled memory
// statistics or its HLO.
func (t *Trainer) StepGraph() (*Graph, error) {
	if t.argShapes == nil {
		return nil, fmt.Errorf("the step has not been compiled yet: run a step first")
	}
	return t.step.Compile(t.argShapes...)
}
