// Package cifar is the first stage of the tutorial's training pipeline:
// CIFAR-10 bytes on disk → compact uint8 images in memory → host-side
// batching primitives (shuffling, gathering, PIL-exact resizing to 224,
// normalization).
//
// It is a Go port of what the PyTorch tutorial gets from torchvision:
// datasets.CIFAR10 plus the transform T.Resize(224), T.ToTensor(),
// T.Normalize((0.5,)*3, (0.5,)*3). The reference trains MobileNetV2 on the
// 32×32 images upsampled to 224×224, so the resize here reproduces Pillow's
// bilinear resample bit for bit, and the normalization reproduces
// torchvision's float32 arithmetic.
//
// Images are kept as uint8 in HWC order (height, width, channel), because the
// GPU model runs channels-last (NHWC): a batch can go to the device as one
// contiguous block without a transpose. The CIFAR-10 files store channel-major
// (CHW) records; the reader converts once, at load time.
//
// Everything here uses only the Go standard library, so the data stage can be
// built and tested on machines without an accelerator or network: the
// download is tested against a local HTTP server, and [WriteSynthetic] /
// [Synthetic] provide a deterministic, learnable stand-in when the real data
// cannot be fetched.
package cifar
