package nvml

// A GPU sampler: what nvidia-smi would say, polled every few tens of milliseconds while the training loop runs.
// It is the coarse, always-available view (no plugin, no CUPTI) that the PyTorch tutorial starts from, and the
// cross-check of the kernel-level numbers: NVML's "GPU utilization" is the fraction of time at least one kernel
// ran, like GPU busy % (but averaged by the driver over its own period, 1/6 s to 1 s depending on the GPU, so
// samples closer than that repeat values). Memory "used" includes whatever the PJRT allocator reserved (see
// tutorial/profile/memory), so it is an upper bound, not the model's footprint.
//
// NVML is reached through github.com/NVIDIA/go-nvml, which dlopens libnvidia-ml.so.1 at Init: on a machine
// without the driver, StartSampler returns an error saying "NVML not available: …" and a Sampler whose summary
// says the same; nothing else in the report depends on it.

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Sample is one NVML reading.
type Sample struct {
	AtMs         float64 `json:"t_ms"` // Since StartSampler.
	UtilPct      float64 `json:"util_pct"`
	MemUtilPct   float64 `json:"mem_util_pct"`
	MemUsedBytes uint64  `json:"mem_used_bytes"`
	SMClockMHz   float64 `json:"sm_clock_mhz"`
	PowerW       float64 `json:"power_w"`
}

// Summary summarizes a sampling run. When NVML is unavailable only Available=false and Reason are set.
type Summary struct {
	Available       bool     `json:"available"`
	Reason          string   `json:"reason,omitempty"`
	Device          string   `json:"device,omitempty"`
	Samples         int      `json:"samples"`
	IntervalMs      float64  `json:"interval_ms"`
	DurationMs      float64  `json:"duration_ms"`
	UtilMeanPct     float64  `json:"util_mean_pct"`
	UtilMedianPct   float64  `json:"util_median_pct"`
	UtilMaxPct      float64  `json:"util_max_pct"`
	MemUsedMaxBytes uint64   `json:"mem_used_max_bytes"`
	MemTotalBytes   uint64   `json:"mem_total_bytes"`
	SMClockMeanMHz  float64  `json:"sm_clock_mean_mhz"`
	PowerMeanW      float64  `json:"power_mean_w"`
	PowerMaxW       float64  `json:"power_max_w"`
	Errors          int      `json:"read_errors,omitempty"`
	Series          []Sample `json:"series,omitempty"` // At most MaxSeriesSamples, evenly thinned.
}

// MaxSeriesSamples bounds the time series kept in a summary (and in report.json).
const MaxSeriesSamples = 600

// gpuReader is one GPU's sensor access (NVML in nvml_cgo.go; fakes in tests).
type gpuReader interface {
	Name() string
	MemTotal() uint64
	Read() (Sample, error)
	Close()
}

// Sampler polls a GPU in a goroutine between StartSampler and Stop.
type Sampler struct {
	reason   string
	reader   gpuReader
	interval time.Duration
	start    time.Time
	stopCh   chan struct{}
	done     chan struct{}
	once     sync.Once

	mu      sync.Mutex
	samples []Sample
	errors  int
	summary Summary
}

// DefaultSampleInterval is the polling period of StartSampler when 0 is given.
const DefaultSampleInterval = 25 * time.Millisecond

// StartSampler starts polling GPU `device` every interval (0: DefaultSampleInterval). Without NVML it returns an
// error "NVML not available: …" together with a usable no-op Sampler, so callers may ignore the error.
func StartSampler(device int, interval time.Duration) (*Sampler, error) {
	r, err := openNVML(device)
	if err != nil {
		s := &Sampler{reason: "NVML not available: " + err.Error()}
		return s, errors.New(s.reason)
	}
	return startSampler(r, interval), nil
}

func startSampler(r gpuReader, interval time.Duration) *Sampler {
	if interval <= 0 {
		interval = DefaultSampleInterval
	}
	s := &Sampler{reader: r, interval: interval, start: time.Now(), stopCh: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *Sampler) loop() {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	s.read()
	for {
		select {
		case <-s.stopCh:
			return
		case <-t.C:
			s.read()
		}
	}
}

func (s *Sampler) read() {
	smp, err := s.reader.Read()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errors++
		return
	}
	smp.AtMs = float64(time.Since(s.start).Microseconds()) / 1e3
	s.samples = append(s.samples, smp)
}

// Err is the reason the sampler does nothing, or nil.
func (s *Sampler) Err() error {
	if s == nil {
		return errors.New("NVML not available: no sampler")
	}
	if s.reason != "" {
		return errors.New(s.reason)
	}
	return nil
}

// Stop ends sampling and returns the summary (safe to call more than once, and on a nil or no-op Sampler).
func (s *Sampler) Stop() Summary {
	if s == nil {
		return Summary{Reason: "NVML not available: no sampler"}
	}
	if s.reader == nil {
		return Summary{Reason: s.reason}
	}
	s.once.Do(func() {
		close(s.stopCh)
		<-s.done
		s.mu.Lock()
		s.summary = summarizeSamples(s.samples, s.interval, time.Since(s.start))
		s.summary.Errors = s.errors
		s.mu.Unlock()
		s.summary.Device = s.reader.Name()
		s.summary.MemTotalBytes = s.reader.MemTotal()
		s.reader.Close()
	})
	return s.summary
}

func summarizeSamples(samples []Sample, interval, elapsed time.Duration) Summary {
	sum := Summary{Available: true, Samples: len(samples), IntervalMs: float64(interval.Microseconds()) / 1e3,
		DurationMs: float64(elapsed.Microseconds()) / 1e3}
	if len(samples) == 0 {
		return sum
	}
	utils := make([]float64, len(samples))
	var utilSum, clockSum, powerSum float64
	for i, smp := range samples {
		utils[i] = smp.UtilPct
		utilSum += smp.UtilPct
		clockSum += smp.SMClockMHz
		powerSum += smp.PowerW
		sum.UtilMaxPct = max(sum.UtilMaxPct, smp.UtilPct)
		sum.PowerMaxW = max(sum.PowerMaxW, smp.PowerW)
		sum.MemUsedMaxBytes = max(sum.MemUsedMaxBytes, smp.MemUsedBytes)
	}
	n := float64(len(samples))
	sum.UtilMeanPct, sum.SMClockMeanMHz, sum.PowerMeanW = utilSum/n, clockSum/n, powerSum/n
	sort.Float64s(utils)
	if m := len(utils); m%2 == 1 {
		sum.UtilMedianPct = utils[m/2]
	} else {
		sum.UtilMedianPct = (utils[m/2-1] + utils[m/2]) / 2
	}
	if len(samples) <= MaxSeriesSamples {
		sum.Series = append([]Sample(nil), samples...)
	} else {
		for i := range MaxSeriesSamples {
			sum.Series = append(sum.Series, samples[i*len(samples)/MaxSeriesSamples])
		}
	}
	return sum
}

// String is a one-line summary.
func (g Summary) String() string {
	if !g.Available {
		return g.Reason
	}
	return fmt.Sprintf("%s: %d samples every %.0f ms: utilization mean %.1f%%, median %.1f%%, max %.1f%%; memory used max %.2f GB; SM clock %.0f MHz; power mean %.0f W, max %.0f W",
		g.Device, g.Samples, g.IntervalMs, g.UtilMeanPct, g.UtilMedianPct, g.UtilMaxPct, float64(g.MemUsedMaxBytes)/1e9,
		g.SMClockMeanMHz, g.PowerMeanW, g.PowerMaxW)
}
