package profile

// Allocated memory, as opposed to planned memory: PJRT_Device_MemoryStats (the memory package's doc says why both).
// It lives here, not in tutorial/profile/memory, because it is a call into the plugin through cgo, and this
// package holds the one cgo binding of the plugin's C API (pjrt_cgo.go).

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xlareflect"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

// DeviceMemory reads PJRT_Device_MemoryStats of the addressable device `device` of a GoMLX XLA backend (the
// compute.Backend created by the "xla" backend, i.e. go-xla's *compute/xla.Backend).
func DeviceMemory(backend any, device int) (memory.DeviceStats, error) {
	v := xlareflect.Concrete(reflect.ValueOf(backend))
	notXLA := fmt.Errorf("device memory statistics need the XLA backend (go-xla compute/xla.Backend), got %T", backend)
	b, ok := xlareflect.StructOf(v)
	if !ok {
		return memory.DeviceStats{}, notXLA
	}
	plugin, ok := xlareflect.StructOf(b.FieldByName("plugin"))
	if !ok {
		return memory.DeviceStats{}, notXLA
	}
	api := plugin.FieldByName("api")
	client, ok := xlareflect.StructOf(b.FieldByName("client"))
	if !ok || !xlareflect.NonNilPointer(api) {
		return memory.DeviceStats{}, errors.New("XLA backend not initialized or already finalized")
	}
	devs := client.FieldByName("addressableDevices")
	if !devs.IsValid() || devs.Kind() != reflect.Slice {
		return memory.DeviceStats{}, notXLA
	}
	if device < 0 || device >= devs.Len() {
		return memory.DeviceStats{}, fmt.Errorf("device %d out of range: the backend has %d addressable devices", device, devs.Len())
	}
	d, ok := xlareflect.StructOf(devs.Index(device))
	if !ok {
		return memory.DeviceStats{}, notXLA
	}
	cDev := d.FieldByName("cDevice")
	if !xlareflect.NonNilPointer(cDev) {
		return memory.DeviceStats{}, notXLA
	}
	st, err := deviceMemoryStats(api.UnsafePointer(), cDev.UnsafePointer())
	runtime.KeepAlive(backend)
	return st, err
}
