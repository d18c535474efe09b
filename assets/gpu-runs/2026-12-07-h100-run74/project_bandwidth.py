#!/usr/bin/env python3
"""Session 30: the projection kernels of a profile (default prof-p), each with the bytes it must move — y [P, C]
and out or dout [P, K], bf16 — and the rate that makes, against ~3 TB/s (what XLA's elementwise passes reach
on this H100: step_parts.py). Why run75 swept their tile.

usage: project_bandwidth.py [PROFILE_DIR] > project-bandwidth.txt"""
import glob, gzip, json, re, sys

d = sys.argv[1] if len(sys.argv) > 1 else "prof-p"
r = json.load(gzip.open(glob.glob(f"{d}/*/report.json.gz")[0]))
steps = r["conditions"]["steps"]
total = ideal = 0
print(f"{d}: kernel, µs a call × calls a step, grid, MB it must move, TB/s")
for k in sorted(r["kernels"]["kernels"], key=lambda k: k["name"]):
    m = re.match(r"project_(forward|weight_grad)_p(\d+)_c(\d+)_k(\d+)", k["name"])
    if not m:
        continue
    p, c, kk = map(int, m.groups()[1:])
    b = (p * c + p * kk) * 2
    calls = k["count"] // steps
    print(f"  {k['name']:45s} {k['mean_us']:6.1f} µs ×{calls}  grid {k['grid']}  {b / 1e6:6.1f} MB  "
          f"{b / k['mean_us'] / 1e6:4.2f} TB/s")
    total += k["total_us"] / steps
    ideal += calls * b / 3.0e12 * 1e6
print(f"all: {total:.1f} µs a step; {ideal:.1f} at 3 TB/s")
