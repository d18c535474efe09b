package cifar

// Mean and Std are the per-channel normalization constants of the PyTorch
// reference (T.Normalize((0.5,)*3, (0.5,)*3)): they map pixel values from
// [0, 1] to [-1, 1], the range MobileNetV2's first layer was written for.
const (
	Mean = 0.5
	Std  = 0.5
)

// normTable[v] is torchvision's value for pixel byte v: ToTensor divides by
// 255 in float32, Normalize subtracts Mean and divides by Std in float32. A
// 256-entry table computed with the same float32 steps is both bit-exact and
// faster than computing per pixel.
var normTable = func() (t [256]float32) {
	for v := range t {
		x := float32(v) / float32(255)
		x = float32(x - float32(Mean))
		t[v] = float32(x / float32(Std))
	}
	return t
}()

// NormalizeValue returns the normalized float32 value of one pixel byte,
// (v/255 − 0.5)/0.5, bit-identical to torchvision's ToTensor + Normalize.
func NormalizeValue(v uint8) float32 { return normTable[v] }

// Normalize converts pixel bytes to normalized float32 values,
// dst[i] = (src[i]/255 − 0.5)/0.5, element-wise, so layout (NHWC) is
// preserved. dst must be at least as long as src.
func Normalize(dst []float32, src []uint8) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = normTable[v]
	}
}
