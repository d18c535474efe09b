package nvml

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestSamplerWithoutNVML(t *testing.T) {
	s, err := StartSampler(0, 10*time.Millisecond)
	if err == nil {
		sum := s.Stop()
		t.Skipf("NVML is available here (%s): nothing to test", sum.String())
	}
	if !strings.HasPrefix(err.Error(), "NVML not available: ") {
		t.Errorf("error %q should start with \"NVML not available: \"", err)
	}
	if s == nil || s.Err() == nil {
		t.Fatal("StartSampler should return a no-op sampler carrying the reason")
	}
	sum := s.Stop()
	if sum.Available || !strings.HasPrefix(sum.Reason, "NVML not available: ") || sum.String() != sum.Reason {
		t.Errorf("summary %+v", sum)
	}
	_ = s.Stop() // Idempotent.
	var nilSampler *Sampler
	if got := nilSampler.Stop(); got.Available {
		t.Error("nil sampler available")
	}
	t.Logf("%s", sum.Reason)
}

type fakeReader struct {
	n      atomic.Int32
	closed atomic.Bool
}

func (f *fakeReader) Name() string     { return "Fake GPU" }
func (f *fakeReader) MemTotal() uint64 { return 141 << 30 }
func (f *fakeReader) Close()           { f.closed.Store(true) }
func (f *fakeReader) Read() (Sample, error) {
	i := f.n.Add(1)
	if i == 2 {
		return Sample{}, errors.New("transient")
	}
	return Sample{UtilPct: float64(10 * (i % 5)), MemUsedBytes: uint64(i) << 20, SMClockMHz: 1980, PowerW: 300 + float64(i)}, nil
}

func TestSamplerLoop(t *testing.T) {
	r := &fakeReader{}
	s := startSampler(r, 2*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for r.n.Load() < 6 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	sum := s.Stop()
	if !sum.Available || sum.Samples < 5 || sum.Errors != 1 || sum.Device != "Fake GPU" || sum.MemTotalBytes != 141<<30 || !r.closed.Load() {
		t.Errorf("summary %+v", sum)
	}
	if sum.SMClockMeanMHz != 1980 || sum.UtilMaxPct > 40 || len(sum.Series) != sum.Samples {
		t.Errorf("summary values %+v", sum)
	}
	if again := s.Stop(); again.Samples != sum.Samples {
		t.Error("second Stop differs")
	}
}

func TestSummarizeSamples(t *testing.T) {
	var smp []Sample
	for _, u := range []float64{10, 20, 90, 40} {
		smp = append(smp, Sample{UtilPct: u, PowerW: u, MemUsedBytes: uint64(u)})
	}
	s := summarizeSamples(smp, 25*time.Millisecond, time.Second)
	if s.UtilMeanPct != 40 || s.UtilMedianPct != 30 || s.UtilMaxPct != 90 || s.PowerMaxW != 90 || s.MemUsedMaxBytes != 90 ||
		s.IntervalMs != 25 || s.Samples != 4 {
		t.Errorf("%+v", s)
	}
	many := make([]Sample, 5*MaxSeriesSamples)
	if got := summarizeSamples(many, time.Millisecond, time.Second); len(got.Series) != MaxSeriesSamples {
		t.Errorf("series not thinned: %d", len(got.Series))
	}
}
