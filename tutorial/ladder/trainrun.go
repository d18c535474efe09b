package ladder

import "github.com/gomlx-tutorials/trainopt/tutorial/artifact"

// TrainRun is `trainopt train`'s summary file (-json): one configuration's measurement with the conditions it
// was made under. The notebooks read these files (assets/gpu-runs/*/train-*.json); nothing reads the command's
// printed summary back.
type TrainRun struct {
	Conditions artifact.Conditions `json:"conditions"`
	// Config is the configuration in words, e.g. "bf16 batch 128, 32×32 uint8, resize+normalise on device".
	Config string `json:"config"`
	Result Result `json:"result"`
	// Accuracy is the held-out accuracy at the end (0..1), when it was evaluated.
	Accuracy *float64 `json:"accuracy,omitempty"`
}

// Write writes the summary to path atomically.
func (r *TrainRun) Write(path string) error { return artifact.WriteJSON(path, r) }

// ReadTrainRun reads a summary file written by [TrainRun.Write].
func ReadTrainRun(path string) (*TrainRun, error) {
	var r TrainRun
	if err := artifact.ReadJSON(path, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
