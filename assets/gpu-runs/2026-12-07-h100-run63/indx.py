#!/usr/bin/env python3
"""Session 24: dK made in the dx kernel (dw-kernel-grad=in-dx) against the two kernels it replaces, layer by layer.

usage: indx.py PROFILE_A PROFILE_B   (e.g. prof-cs2 prof-cs2dk; each holds a report.json.gz of `trainopt profile`)

For each depthwise geometry: µs a step of dx + dK in A (dw_input_grad_rows_bn_* + dw_kernel_grad_rows_*) and of
the merged kernel (dw_input_kernel_grad_rows_*) plus any dK kernel left in B, with the merged kernel's registers and
occupancy; then the totals of the row kernels and of all kernels in each profile."""
import collections, glob, gzip, json, re, sys

PAT = re.compile(r'dw_(forward|input_grad|input_kernel_grad|kernel_grad)_rows_(?:bn_|stats_)?(n\d+_h\d+_w\d+_c\d+_s\d)')

def load(d):
    r = json.load(gzip.open(glob.glob(f"{d}/**/report.json.gz", recursive=True)[0]))
    steps = r["kernels"]["steps"]
    per = collections.defaultdict(lambda: collections.defaultdict(float))
    info = {}
    for k in r["kernels"]["kernels"]:
        m = PAT.match(k["name"])
        if m:
            per[m.group(2)][m.group(1)] += k["total_us"] / steps
            info[(m.group(2), m.group(1))] = k
    return per, r["kernels"]["kernel_time_us"] / steps, info

(a, ta, _), (b, tb, info) = load(sys.argv[1]), load(sys.argv[2])
print(f"geometry | {sys.argv[1]}: dx + dK µs | {sys.argv[2]}: merged + dK left µs | merged kernel regs, occupancy")
sa = sb = 0
for geo in sorted(a, key=lambda g: -(a[g]["input_grad"] + a[g]["kernel_grad"])):
    x = a[geo]["input_grad"] + a[geo]["kernel_grad"]
    y = b[geo]["input_kernel_grad"] + b[geo]["kernel_grad"] + b[geo]["input_grad"]
    sa, sb = sa + x, sb + y
    k = info.get((geo, "input_kernel_grad"), {})
    regs = f"{k.get('registers', '-')}r {k.get('theoretical_occupancy_pct', 0):.0f}%" if k else "-"
    print(f"{geo} | {a[geo]['input_grad']:.1f} + {a[geo]['kernel_grad']:.1f} = {x:.1f} | {y:.1f} ({y - x:+.1f}) | {regs}")
print(f"sum | {sa:.0f} | {sb:.0f} ({sb - sa:+.0f})")
print(f"row kernels | {sum(sum(v.values()) for v in a.values()):.0f} | {sum(sum(v.values()) for v in b.values()):.0f}")
print(f"all kernels | {ta:.0f} | {tb:.0f} ({tb - ta:+.0f})")
