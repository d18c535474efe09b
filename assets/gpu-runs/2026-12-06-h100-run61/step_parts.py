#!/usr/bin/env python3
"""Session 23: where a step's kernel time goes in one profile (default: prof-stats, the best options as of this
run), by kernel family — the Triton row kernels, XLA's fusions by kind (loop_convert_fusion, input_reduce_fusion,
…: the name without its number), and the rest (cuBLAS/cuDNN GEMMs and convolutions) — then the largest elementwise (loop_) fusions
with the bytes a full pass over a tensor of their thread count × 4 elements (XLA's loop emitter gives each thread
4 bf16 values on these shapes) would move, to say which of them already run at the memory's speed.

usage: step_parts.py [PROFILE_DIR] > step-parts.txt"""
import collections, glob, gzip, json, re, sys

d = sys.argv[1] if len(sys.argv) > 1 else "prof-stats"
r = json.load(gzip.open(glob.glob(f"{d}/*/report.json.gz")[0]))
steps = r["conditions"]["steps"]
ks = r["kernels"]["kernels"]
fam = collections.defaultdict(float)
for k in ks:
    n = k["name"]
    f = "Triton row kernels (dw_*)" if n.startswith("dw_") else re.sub(r"_\d+$", "", n) if "fusion" in n else "GEMMs, convolutions, other"
    fam[f] += k["total_us"] / steps
total = sum(fam.values())
print(f"{d}: {total:.0f} µs of kernels a step")
for f, t in sorted(fam.items(), key=lambda x: -x[1])[:8]:
    print(f"  {t:7.1f} µs  {100 * t / total:4.1f}%  {f}")
print("\nlargest loop fusions (elementwise): µs a call, calls a step, threads, elements (×4), TB/s if they read 2 and write 1 bf16 tensor of that size")
for k in sorted((k for k in ks if k["name"].startswith("loop_")), key=lambda k: -k["total_us"])[:6]:
    threads = 1
    for x in list(k["grid"]) + list(k["block"]):
        threads *= int(x)
    elems = 4 * threads
    print(f"  {k['name']:24s} {k['mean_us']:6.1f} µs ×{k['count'] // steps}  {threads / 1e6:6.2f}M threads  "
          f"{elems / 1e6:6.1f}M elements  {3 * 2 * elems / (k['mean_us'] * 1e-6) / 1e12:4.2f} TB/s")
