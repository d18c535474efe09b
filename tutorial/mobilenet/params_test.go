package mobilenet

import (
	"math"
	"testing"
)

// TestParameterCount: torchvision.models.mobilenet_v2(num_classes=10) has 2,236,682 trainable parameters
// (sum(p.numel() for p in model.parameters())), and 52 batch-norm layers carry running statistics beside them.
func TestParameterCount(t *testing.T) {
	m := New(Default())
	if got := m.NumTrainable(); got != 2_236_682 {
		t.Errorf("NumTrainable() = %d, want 2,236,682", got)
	}
	bn := 0
	for _, p := range m.Params {
		if p.Kind == BNMean {
			bn++
		}
	}
	if bn != 52 {
		t.Errorf("%d batch-norm layers, want 52 (torchvision's mobilenet_v2)", bn)
	}
	if n := len(m.blocks); n != 17 {
		t.Errorf("%d inverted residual blocks, want 17", n)
	}
	if m.lastOut != 1280 {
		t.Errorf("last conv has %d channels, want 1280", m.lastOut)
	}
}

func TestInitialValuesStatistics(t *testing.T) {
	m := New(Default())
	values := m.InitialValues(1)
	for i, p := range m.Params {
		v := values[i]
		var mean, sq float64
		for _, x := range v {
			mean += float64(x)
			sq += float64(x) * float64(x)
		}
		mean /= float64(len(v))
		std := math.Sqrt(sq/float64(len(v)) - mean*mean)
		switch p.Kind {
		case ConvKernel:
			want := math.Sqrt(2 / float64(p.FanOut))
			if len(v) >= 1000 && math.Abs(std/want-1) > 0.1 {
				t.Errorf("%s: std %.4g, want kaiming fan_out %.4g", p.Name, std, want)
			}
		case BNScale, BNVar:
			if mean != 1 || std != 0 {
				t.Errorf("%s: want all ones", p.Name)
			}
		case DenseWeight:
			if math.Abs(std/0.01-1) > 0.1 {
				t.Errorf("%s: std %.4g, want 0.01", p.Name, std)
			}
		}
	}
	if a, b := m.InitialValues(7)[0][0], m.InitialValues(7)[0][0]; a != b {
		t.Error("InitialValues is not deterministic for a fixed seed")
	}
}
