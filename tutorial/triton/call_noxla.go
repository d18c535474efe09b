//go:build !(((linux && (amd64 || arm64)) || (darwin && arm64) || (windows && amd64)) && !noxla)

package triton

import (
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
)

func emit(*Function, string, []shapes.Shape, []compute.Value) ([]compute.Value, error) {
	return nil, errorf("this binary was built without the XLA backend (noxla tag or unsupported platform)")
}
