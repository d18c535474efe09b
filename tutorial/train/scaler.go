package train

import (
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
)

// LossScaler holds torch.amp.GradScaler's constants. GoMLX has no loss scaling and its optimizers expose no hook
// for one, so the scaling lives in our step: the loss is multiplied by Scale before the gradient, the gradients are
// divided by it, and the update is skipped when any of them is not finite.
type LossScaler struct {
	InitScale      float64 // 65536 (2¹⁶)
	GrowthFactor   float64 // ×2 ...
	GrowthInterval int     // ... after 2000 consecutive finite steps
	BackoffFactor  float64 // ×0.5 on any inf/NaN gradient, and the step is skipped
}

// DefaultScaler is GradScaler's default (a function, not a variable: a default nobody can change behind a caller's
// back).
func DefaultScaler() LossScaler {
	return LossScaler{InitScale: 65536, GrowthFactor: 2, GrowthInterval: 2000, BackoffFactor: 0.5}
}

// ScalerState is the scaler's state between steps (on the device it is two scalars of the training state).
type ScalerState struct {
	Scale   float64
	Tracker int // consecutive finite steps since the last change of scale
}

// Update is the host reference of the rule the compiled step applies (see updateGraph); unit tests compare them.
// It returns the new state and whether the optimizer step must be skipped.
func (ls LossScaler) Update(s ScalerState, finite bool) (next ScalerState, skip bool) {
	if !finite {
		return ScalerState{Scale: s.Scale * ls.BackoffFactor, Tracker: 0}, true
	}
	s.Tracker++
	if s.Tracker >= ls.GrowthInterval {
		return ScalerState{Scale: s.Scale * ls.GrowthFactor, Tracker: 0}, false
	}
	return s, false
}

// excerpt: gradscaler

// updateGraph is Update in the graph: scale float32 scalar, tracker int32 scalar, finite boolean scalar.
func (ls LossScaler) updateGraph(scale, tracker, finite *Node) (newScale, newTracker *Node) {
	g := scale.Graph()
	grown := AddScalar(tracker, 1)
	growNow := GreaterOrEqual(grown, Scalar(g, dtypes.Int32, ls.GrowthInterval))
	finiteScale := Where(growNow, MulScalar(scale, ls.GrowthFactor), scale)
	finiteTracker := Where(growNow, ZerosLike(tracker), grown)
	newScale = Where(finite, finiteScale, MulScalar(scale, ls.BackoffFactor))
	newTracker = Where(finite, finiteTracker, ZerosLike(tracker))
	return
}

// excerpt end
