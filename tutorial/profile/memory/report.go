package memory

// What is known about memory, for the profile report (tutorial/profile.Report.Memory) and its recommendations.

import "fmt"

// CompiledAt is the compiled memory of the training step at one batch size.
type CompiledAt struct {
	Batch int `json:"batch"`
	Stats
}

// Report gathers what is known about memory.
type Report struct {
	CapacityBytes     int64        `json:"capacity_bytes,omitempty"` // Device memory (e.g. DeviceInfo.MemoryBytes).
	Compiled          []CompiledAt `json:"compiled,omitempty"`
	Device            *DeviceStats `json:"device,omitempty"`
	Model             *Model       `json:"model,omitempty"`
	Headroom          float64      `json:"headroom,omitempty"`
	PredictedMaxBatch int          `json:"predicted_max_batch,omitempty"`
}

// Predict fits the memory model to the compiled points and predicts the largest batch (headroom e.g. 0.1).
func (m *Report) Predict(headroom float64) error {
	var pts []Point
	for _, c := range m.Compiled {
		pts = append(pts, Point{Batch: c.Batch, Bytes: c.Device.Total()})
	}
	model, err := Fit(pts)
	if err != nil {
		return err
	}
	m.Model, m.Headroom = &model, headroom
	m.PredictedMaxBatch = model.MaxBatch(m.CapacityBytes, headroom)
	return nil
}

// Use returns the memory use to judge: the allocator's peak if known, else the compiled total at batch (or the
// largest compiled total); nil if nothing is known.
func (m *Report) Use(batch int) *Use {
	if m == nil || m.CapacityBytes <= 0 {
		return nil
	}
	if m.Device != nil && m.Device.PeakBytesInUse >= 0 {
		return &Use{UsedBytes: m.Device.PeakBytesInUse, CapacityBytes: m.CapacityBytes, Source: "PJRT peak_bytes_in_use"}
	}
	var best *CompiledAt
	for i := range m.Compiled {
		c := &m.Compiled[i]
		if c.Batch == batch {
			best = c
			break
		}
		if best == nil || c.Device.Total() > best.Device.Total() {
			best = c
		}
	}
	if best == nil {
		return nil
	}
	return &Use{UsedBytes: best.Device.Total(), CapacityBytes: m.CapacityBytes,
		Source: fmt.Sprintf("XLA compiled memory at batch %d", best.Batch)}
}

// Use is how much of the device's memory the program takes.
type Use struct {
	UsedBytes     int64  `json:"used_bytes"`
	CapacityBytes int64  `json:"capacity_bytes"`
	Source        string `json:"source"` // E.g. "PJRT peak_bytes_in_use" or "compiled memory (XLA)".
}
