//go:build cgo && linux

package nvml

import (
	"fmt"

	nv "github.com/NVIDIA/go-nvml/pkg/nvml"
)

type nvmlReader struct {
	dev      nv.Device
	name     string
	memTotal uint64
}

// openNVML initializes NVML (go-nvml dlopens libnvidia-ml.so.1 here; a missing library is the error
// ERROR_LIBRARY_NOT_FOUND, not a panic — the recover is a second line of defence) and opens GPU `device`.
func openNVML(device int) (r gpuReader, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("go-nvml panicked: %v", p)
		}
	}()
	if ret := nv.Init(); ret != nv.SUCCESS {
		return nil, fmt.Errorf("nvml.Init: %s (is the NVIDIA driver's libnvidia-ml.so.1 installed?)", ret.Error())
	}
	dev, ret := nv.DeviceGetHandleByIndex(device)
	if ret != nv.SUCCESS {
		_ = nv.Shutdown()
		return nil, fmt.Errorf("nvml.DeviceGetHandleByIndex(%d): %s", device, ret.Error())
	}
	nr := &nvmlReader{dev: dev}
	if name, ret := dev.GetName(); ret == nv.SUCCESS {
		nr.name = name
	}
	if mem, ret := dev.GetMemoryInfo(); ret == nv.SUCCESS {
		nr.memTotal = mem.Total
	}
	return nr, nil
}

func (r *nvmlReader) Name() string     { return r.name }
func (r *nvmlReader) MemTotal() uint64 { return r.memTotal }
func (r *nvmlReader) Close()           { _ = nv.Shutdown() }

// Read takes one sample; quantities a GPU does not report (e.g. power on some boards) stay 0.
func (r *nvmlReader) Read() (Sample, error) {
	var s Sample
	u, ret := r.dev.GetUtilizationRates()
	if ret != nv.SUCCESS {
		return s, fmt.Errorf("GetUtilizationRates: %s", ret.Error())
	}
	s.UtilPct, s.MemUtilPct = float64(u.Gpu), float64(u.Memory)
	if mem, ret := r.dev.GetMemoryInfo(); ret == nv.SUCCESS {
		s.MemUsedBytes = mem.Used
	}
	if clk, ret := r.dev.GetClockInfo(nv.CLOCK_SM); ret == nv.SUCCESS {
		s.SMClockMHz = float64(clk)
	}
	if mw, ret := r.dev.GetPowerUsage(); ret == nv.SUCCESS {
		s.PowerW = float64(mw) / 1e3
	}
	return s, nil
}
