//go:build !(cgo && linux)

package profile

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

// Capture is a profiling session in the CUDA PJRT plugin; without cgo on Linux there is none.
type Capture struct{}

// StartCapture needs cgo on Linux (dlopen of the loaded plugin): here it always returns ErrNoPlugin.
func StartCapture(pluginPath string, opts CaptureOptions) (*Capture, error) {
	return nil, fmt.Errorf("%w (this binary was built without cgo on Linux)", ErrNoPlugin)
}

// Plugin describes the plugin the capture runs in.
func (c *Capture) Plugin() PluginInfo { return PluginInfo{} }

// Window is the wall-clock interval of the capture.
func (c *Capture) Window() Window { return Window{} }

// Stop ends the capture.
func (c *Capture) Stop() ([]byte, error) { return nil, ErrNoPlugin }

func deviceMemoryStats(apiPtr, devicePtr unsafe.Pointer) (memory.DeviceStats, error) {
	return memory.DeviceStats{}, errors.New("PJRT_Device_MemoryStats needs cgo on Linux")
}
