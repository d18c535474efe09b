package backend

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
)

// SupportsDType reports whether backend b advertises dtype dt (e.g. dtypes.BFloat16, dtypes.Float16) in its
// compute.Capabilities, and says what that answer is worth, so a tutorial can pick bf16/f16 training only
// where it is expected to work.
//
// Capabilities are a static table per backend implementation, not a probe of the device: they do not know
// that an older GPU emulates bf16 slowly, and GoMLX (v0.28.16) does not consult them before building a graph.
// As of go-xla v0.4.13 the xla table lists BFloat16 but omits Float16, although XLA itself implements f16;
// the pure-Go backend (compute v0.1.14) lists both.
func SupportsDType(b compute.Backend, dt dtypes.DType) (ok bool, why string) {
	if b == nil {
		return false, "no backend"
	}
	ok = b.Capabilities().DTypes[dt]
	if ok {
		return true, fmt.Sprintf("%s is listed in the %s backend's Capabilities", dt, b.Name())
	}
	why = fmt.Sprintf("%s is not listed in the %s backend's Capabilities", dt, b.Name())
	if dt == dtypes.Float16 && b.Name() == "xla" {
		why += " (go-xla's table omits it though XLA implements f16: try it)"
	}
	return false, why
}

// Supports is [SupportsDType] for the chosen backend.
func (c *Choice) Supports(dt dtypes.DType) (ok bool, why string) { return SupportsDType(c.Backend, dt) }
