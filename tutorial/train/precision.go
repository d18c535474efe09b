// Package train is the compiled training step for MobileNetV2 — forward, backward and update in one XLA program —
// with the precision policies of the tutorial (float32; float16 with dynamic loss scaling; bfloat16), SGD with
// momentum in PyTorch's form, the input stages the ladder needs (host float32, uint8 with normalisation on the
// device, 32×32 uint8 resized on the device, a device-resident dataset sampled on the device), several steps per
// Execute with a While loop, evaluation, and a timed loop that reports progress.
package train

import (
	"fmt"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
)

// Precision is a mixed-precision policy.
type Precision string

const (
	// F32 trains in float32 throughout (the tutorial's baseline).
	F32 Precision = "f32"
	// F16 keeps float32 master weights and runs convolutions and matrix products in float16, with batch-norm
	// statistics, softmax and loss in float32 and dynamic loss scaling (GradScaler's semantics): the analogue of
	// torch.autocast(dtype=float16) + torch.amp.GradScaler.
	F16 Precision = "f16"
	// BF16 is the same without loss scaling: bfloat16 has float32's exponent range, so gradients do not underflow.
	BF16 Precision = "bf16"
)

// ParsePrecision accepts f32/fp32/float32, f16/fp16/float16, bf16/bfloat16.
func ParsePrecision(s string) (Precision, error) {
	switch strings.ToLower(s) {
	case "f32", "fp32", "float32":
		return F32, nil
	case "f16", "fp16", "float16", "amp":
		return F16, nil
	case "bf16", "bfloat16":
		return BF16, nil
	}
	return "", fmt.Errorf("unknown precision %q: want f32, f16 or bf16", s)
}

// DType is the dtype convolutions and matrix products run in.
func (p Precision) DType() dtypes.DType {
	switch p {
	case F16:
		return dtypes.Float16
	case BF16:
		return dtypes.BFloat16
	}
	return dtypes.Float32
}

// Scaled reports whether the policy uses dynamic loss scaling.
func (p Precision) Scaled() bool { return p == F16 }

// CheckBackend returns a clear error when the backend cannot run the policy's dtype, instead of a failure deep
// inside compilation.
func (p Precision) CheckBackend(backend compute.Backend) error {
	dt := p.DType()
	if IsXLA(backend) {
		// go-xla's capability list omits Float16, but XLA compiles float16 programs (measured on the H200).
		return nil
	}
	caps := backend.Capabilities()
	if caps.DTypes != nil && !caps.DTypes[dt] {
		return fmt.Errorf("backend %q (%s) does not support %s, needed by precision %s: use -precision f32 or another backend",
			backend.String(), backend.Description(), dt, p)
	}
	return nil
}

// IsXLA reports whether the backend is go-xla's (CUDA or CPU PJRT plugin).
func IsXLA(backend compute.Backend) bool { return strings.HasPrefix(backend.String(), "xla") }
