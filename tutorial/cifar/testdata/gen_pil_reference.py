#!/usr/bin/python3
"""Generates the PIL reference outputs that resize_test.go checks against.

The Go tests never run Python: this script is committed only so the
reference files can be regenerated and audited. It was run with Debian 12's
python3-pil (Pillow 9.4.0) and python3-numpy (1.24.2):

    apt-get install python3-pil python3-numpy
    cd tutorial/cifar/testdata && /usr/bin/python3 gen_pil_reference.py

What torchvision does for T.Resize(224) on a 32x32 PIL image is
img.resize((224, 224), Image.BILINEAR), so that is the call reproduced here.

Files written (all raw bytes, HWC order, gzip-compressed):
  input_<name>.u8.gz            32x32x3 uint8 input image
  pil_<name>_<S>.u8.gz          PIL bilinear resize to SxSx3 (uint8)
  pilf_<name>_<S>.f32.gz        PIL mode "F" (float32) bilinear resize of each
                                channel, little-endian float32, HWC; for
                                upsampling this equals
                                F.interpolate(mode="bilinear",
                                align_corners=False) up to float rounding.
  normalize.f32.gz              for v = 0..255, float32 of
                                (v/255 - 0.5)/0.5 computed in float32 the way
                                ToTensor + Normalize((0.5,)*3, (0.5,)*3) do.
"""
import gzip

import numpy as np
from PIL import Image


def pattern():
    # Smooth gradients, hard edges, and saturated 0/255 regions, so both the
    # interpolation and the clipping paths are exercised.
    y, x = np.mgrid[0:32, 0:32]
    r = (x * 8) % 256
    g = (y * 8 + x * 3) % 256
    b = np.where((x // 4 + y // 4) % 2 == 0, 255, 0)
    img = np.stack([r, g, b], axis=-1)
    img[0:4, 28:32, :] = 255
    img[28:32, 0:4, :] = 0
    return img.astype(np.uint8)


def noise():
    # Pixel noise: every output depends on many distinct input values and
    # every uint8 value occurs, the hardest case for fixed-point rounding.
    rs = np.random.RandomState(20240601)
    return rs.randint(0, 256, size=(32, 32, 3)).astype(np.uint8)


def write(name, arr):
    with gzip.GzipFile(name, "wb", mtime=0) as f:
        f.write(arr.tobytes())


def main():
    for name, img in (("pattern", pattern()), ("noise", noise())):
        write(f"input_{name}.u8.gz", img)
        for size in (224, 40, 33, 64):
            out = np.asarray(
                Image.fromarray(img, "RGB").resize((size, size), Image.BILINEAR)
            )
            assert out.shape == (size, size, 3) and out.dtype == np.uint8
            write(f"pil_{name}_{size}.u8.gz", out)
        for size in (40, 64):
            chans = []
            for c in range(3):
                f = Image.fromarray(img[:, :, c].astype(np.float32), "F")
                chans.append(np.asarray(f.resize((size, size), Image.BILINEAR)))
            outf = np.stack(chans, axis=-1).astype("<f4")
            write(f"pilf_{name}_{size}.f32.gz", outf)
    # ToTensor: uint8 -> float32, div(255); Normalize: sub_(mean).div_(std),
    # all in float32.
    v = np.arange(256, dtype=np.float32) / np.float32(255)
    v = (v - np.float32(0.5)) / np.float32(0.5)
    assert v.dtype == np.float32
    write("normalize.f32.gz", v.astype("<f4"))


if __name__ == "__main__":
    main()
