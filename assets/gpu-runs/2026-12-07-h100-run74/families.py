#!/usr/bin/env python3
"""Session 30: two kernel profiles side by side by kernel family, µs a step — the Triton kernels by name prefix
(dw_ row kernels, project_ projection kernels), cuBLAS GEMMs (nvjet, cutlass, gemm), cuDNN convolutions, and
XLA's fusions by kind (the name without its number, since XLA renumbers them between programs) — for notebook
07's profile diff of the projection prologue (F → P).

usage: families.py prof-f prof-p > families.txt"""
import collections, glob, gzip, json, re, sys


def families(d):
    r = json.load(gzip.open(glob.glob(f"{d}/*/report.json.gz")[0]))
    steps = r["conditions"]["steps"]
    fam, calls = collections.defaultdict(float), collections.defaultdict(int)
    for k in r["kernels"]["kernels"]:
        n = k["name"]
        if n.startswith("dw_"):
            f = "Triton depthwise row kernels (dw_*)"
        elif n.startswith("project_"):
            f = "Triton projection kernels (project_*)"
        elif "fusion" in n:
            f = re.sub(r"_\d+$", "", n)
        elif re.search(r"nvjet|gemm|cutlass|cublas", n):
            f = "GEMMs (cuBLAS)"
        elif re.search(r"cudnn|conv2d|convolve|wgrad|dgrad", n):
            f = "convolutions (cuDNN)"
        elif n.startswith("wrapped_"):
            f = re.sub(r"_\d+$", "", n)
        else:
            f = "other"
        fam[f] += k["total_us"] / steps
        calls[f] += k["count"] / steps
    return fam, calls, r["kernels"]


a, b = sys.argv[1:3]
fa, ca, ka = families(a)
fb, cb, kb = families(b)
print(f"{'kernel family':42s} {a:>12s} {b:>12s} {'change':>9s}   µs a step (calls a step)")
for f in sorted(set(fa) | set(fb), key=lambda f: -max(fa.get(f, 0), fb.get(f, 0))):
    x, y = fa.get(f, 0), fb.get(f, 0)
    if max(x, y) < 20:
        continue
    print(f"{f:42s} {x:7.1f} ({ca.get(f, 0):3.0f}) {y:7.1f} ({cb.get(f, 0):3.0f}) {y - x:+9.1f}")
ta, tb = sum(fa.values()), sum(fb.values())
print(f"{'all kernels':42s} {ta:13.1f} {tb:13.1f} {tb - ta:+9.1f}")
print(f"{'kernels a step':42s} {ka['kernel_count'] / ka['steps']:13.1f} {kb['kernel_count'] / kb['steps']:13.1f}")
print(f"{'GPU busy %':42s} {ka['gpu_busy_pct']:13.1f} {kb['gpu_busy_pct']:13.1f}")
