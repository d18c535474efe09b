package ladder

import (
	"bytes"
	"encoding/json"
	"math"
)

// JSON has no NaN or infinity, and encoding/json refuses a whole value that holds one ("json: unsupported value: NaN"):
// one diverged step's losses would cost the results file every step measured before it in the process
// (assets/gpu-runs/2026-12-07-h100-run70/). A Result writes a loss that is not finite as null and reads null back as
// NaN.

// MarshalJSON writes r with its non-finite losses as null.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result // Result's fields without its methods: no recursion
	return json.Marshal(struct {
		plain
		LossFirst *float64   `json:"loss_first"`
		LossLast  *float64   `json:"loss_last"`
		Losses    []*float64 `json:"losses,omitempty"`
	}{plain(r), finiteOrNil(r.LossFirst), finiteOrNil(r.LossLast), finitesOrNil(r.Losses)})
}

// UnmarshalJSON reads what MarshalJSON writes (and every results file written before it): null losses as NaN.
func (r *Result) UnmarshalJSON(data []byte) error {
	type plain Result
	w := struct {
		*plain
		LossFirst json.RawMessage `json:"loss_first"`
		LossLast  json.RawMessage `json:"loss_last"`
		Losses    []*float64      `json:"losses,omitempty"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var err error
	if r.LossFirst, err = nullAsNaN(w.LossFirst); err != nil {
		return err
	}
	if r.LossLast, err = nullAsNaN(w.LossLast); err != nil {
		return err
	}
	r.Losses = nil
	for _, l := range w.Losses {
		r.Losses = append(r.Losses, math.NaN())
		if l != nil {
			r.Losses[len(r.Losses)-1] = *l
		}
	}
	return nil
}

func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func finitesOrNil(v []float64) []*float64 {
	var out []*float64
	for _, x := range v {
		out = append(out, finiteOrNil(x))
	}
	return out
}

// nullAsNaN reads a JSON number, null as NaN and a missing value as 0.
func nullAsNaN(raw json.RawMessage) (float64, error) {
	switch {
	case len(raw) == 0:
		return 0, nil
	case bytes.Equal(raw, []byte("null")):
		return math.NaN(), nil
	}
	var v float64
	err := json.Unmarshal(raw, &v)
	return v, err
}
