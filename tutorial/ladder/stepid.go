package ladder

import (
	"fmt"
	"strconv"
	"strings"
)

// StepID names a measured configuration: a rung ("1".."14", "5b"), optionally the batch it ran at ("@512": rungs
// 9 and up come at several batch sizes) and an experiment's model formulation ("+dw-input-grad=phases"):
//
//	12    12@512    13@512+dw-input-grad=phases    13+relu6=clip
//
// Results files, the CLI's -steps and -step, profile folders and the notebooks all name steps this way;
// [ParseStepID] is the one place that reads the grammar and [StepID.String] the one that writes it.
type StepID struct {
	Rung        string
	Batch       int    // 0: not given
	Formulation string // "": the ladder's own formulation
}

// ParseStepID reads "RUNG[@BATCH][+FORMULATION]". The rung is letters and digits; the batch a positive integer.
// The formulation is kept as text (mobilenet.Config.SetFormulation checks it when it is applied).
func ParseStepID(s string) (StepID, error) {
	s = strings.TrimSpace(s)
	rest, formulation, _ := strings.Cut(s, "+")
	rung, batch, hasBatch := strings.Cut(rest, "@")
	id := StepID{Rung: rung, Formulation: formulation}
	if rung == "" || strings.IndexFunc(rung, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z')
	}) >= 0 {
		return StepID{}, fmt.Errorf("bad step ID %q: want a rung such as 1, 5b or 12, then optionally @BATCH and +FORMULATION", s)
	}
	if hasBatch {
		b, err := strconv.Atoi(batch)
		if err != nil || b < 1 {
			return StepID{}, fmt.Errorf("bad step ID %q: the batch after @ must be a positive integer", s)
		}
		id.Batch = b
	}
	return id, nil
}

// ParseStepIDs reads a comma-separated list of step IDs.
func ParseStepIDs(list string) ([]StepID, error) {
	var ids []StepID
	for _, s := range strings.Split(list, ",") {
		id, err := ParseStepID(s)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// String writes the ID back in the grammar ParseStepID reads.
func (id StepID) String() string {
	s := id.Rung
	if id.Batch > 0 {
		s += "@" + strconv.Itoa(id.Batch)
	}
	if id.Formulation != "" {
		s += "+" + id.Formulation
	}
	return s
}

// Matches reports whether the measured step got is one that the wanted ID id names: the same rung, and the
// same batch and formulation where id gives them — "13" matches 13@512 and 13+dw-input-grad=phases, "13@512"
// matches 13@512+… but not 13@256.
func (id StepID) Matches(got StepID) bool {
	return id.Rung == got.Rung && (id.Batch == 0 || id.Batch == got.Batch) &&
		(id.Formulation == "" || id.Formulation == got.Formulation)
}

// MatchesAny reports whether any of ids matches got; no ids matches everything.
func MatchesAny(ids []StepID, got StepID) bool {
	if len(ids) == 0 {
		return true
	}
	for _, id := range ids {
		if id.Matches(got) {
			return true
		}
	}
	return false
}

// Order sorts step IDs along the ladder: by rung number ("5" < "5b" < "10"), then batch, then formulation.
func (id StepID) Order() float64 {
	digits := strings.TrimRight(id.Rung, "abcdefghijklmnopqrstuvwxyz")
	n, _ := strconv.ParseFloat(digits, 64)
	if len(digits) < len(id.Rung) {
		n += 0.5
	}
	return n + float64(id.Batch)/1e6
}
