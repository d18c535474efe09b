#!/usr/bin/env python3
"""Session 23: the per-layer tile table (tutorial/mobilenet/depthwise_rows_tiles.go, -model dw-row-tiles=per-layer)
from this run's per-kernel times: for each row kernel the fastest tile of the sweep, kept where it beats the default
by 3% or more. Reads rowtile-regs.txt (rowtile.py -regs); prints per-layer.txt."""
import sys

lines = open(sys.argv[1] if len(sys.argv) > 1 else "rowtile-regs.txt").read().splitlines()
tiles = [h.strip() for h in lines[0].split("|")][1:12]
default = picked = fastest = 0.0
print("kernel ×layers | default µs/step | fastest tile | µs/step | per-layer pick | µs/step")
for line in lines[1:]:
    cells = [c.strip() for c in line.split("|")]
    if not cells[0].startswith(("forward", "input_grad", "kernel_grad")):
        continue
    times = [float(c.split()[0]) for c in cells[1:12]]
    best = min(times)
    pick = tiles[times.index(best)] if best <= 0.97 * times[0] else "default"
    t = times[tiles.index(pick)]
    default, fastest, picked = default + times[0], fastest + best, picked + t
    print(f"{cells[0]} | {times[0]:.1f} | {tiles[times.index(best)]} | {best:.1f} | {pick} | {t:.1f}")
print(f"sum | {default:.0f} | | {fastest:.0f} | | {picked:.0f}")
