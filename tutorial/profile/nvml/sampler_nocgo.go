//go:build !(cgo && linux)

package nvml

import "errors"

// openNVML: go-nvml needs cgo on Linux.
func openNVML(device int) (gpuReader, error) {
	return nil, errors.New("this binary was built without cgo on Linux (go-nvml needs it)")
}
