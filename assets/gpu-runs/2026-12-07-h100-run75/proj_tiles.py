#!/usr/bin/env python3
"""Session 30: run75's sweep of the projection kernels' tile. For each profile (prof-*), each projection kernel's
µs a step (kernels of the same name added up: the three 14×14 384→64 layers share one), then the projection
kernels' total, XLA's reductions (which add up the weight-gradient kernel's partial sums), and all kernels; the
last table is each kernel's best setting against base (the default tile), best first.

usage: proj_tiles.py > proj-tiles.txt"""
import collections, glob, gzip, json, re

rows, fam = {}, {}
for d in sorted(glob.glob("prof-*")):
    f = glob.glob(f"{d}/*/report.json.gz")
    if not f:
        continue
    r = json.load(gzip.open(f[0]))
    steps = r["conditions"]["steps"]
    per = collections.defaultdict(float)
    tot = collections.defaultdict(float)
    for k in r["kernels"]["kernels"]:
        n, us = k["name"], k["total_us"] / steps
        m = re.match(r"project_(forward|weight_grad)_p\d+_(c\d+_k\d+)_", n)
        if m:
            per[f"{m.group(1)[:7]} {m.group(2)} p{n.split('_p')[1].split('_')[0]}"] += us
            tot["project"] += us
        elif n.startswith("input_reduce_fusion"):
            tot["reduce"] += us
        tot["all"] += us
    name = d[5:]
    rows[name], fam[name] = per, tot
names = sorted(rows, key=lambda n: (n not in ("base", "base2"), n))
kernels = sorted({k for r in rows.values() for k in r})
print("µs a step at 128 (H100), by setting (-model project-<setting>)")
print(f"{'kernel':36s}" + "".join(f"{n[:13]:>14s}" for n in names))
for k in kernels:
    print(f"{k:36s}" + "".join(f"{rows[n].get(k, 0):14.1f}" for n in names))
for t in ("project", "reduce", "all"):
    print(f"{'total ' + t:36s}" + "".join(f"{fam[n][t]:14.1f}" for n in names))
print("\nbest setting a kernel, against the mean of base and base2")
gain = 0
for k in kernels:
    b = (rows["base"][k] + rows["base2"][k]) / 2
    best = min(names, key=lambda n: rows[n].get(k, 1e9))
    gain += b - rows[best][k]
    print(f"{k:36s} {b:8.1f} → {rows[best][k]:8.1f}  {best}  (base/base2 {rows['base'][k]:.1f}/{rows['base2'][k]:.1f})")
print(f"sum of the per-kernel bests: {gain:.1f} µs a step")
