#!/usr/bin/env python3
"""Batch norm's sums in run61's profiles: kernel time by category per step, and each bn_sums kernel's bandwidth.

usage: sums.py DIR...   (profile folders holding a report.json or report.json.gz; prof-bnsums for the per-kernel table)
A bn_sums kernel reads its activation once: rows × C values of 2 bytes (bf16), named in the kernel (bn_sums_r…_c…).
"""
import glob, gzip, json, re, sys

for d in sys.argv[1:]:
    f = glob.glob(d + '/**/report.json*', recursive=True)[0]  # kept gzipped in the repository
    k = json.load(gzip.open(f) if f.endswith('.gz') else open(f))['kernels']
    st = k['steps']
    print(f"{d}: {k['kernel_time_us'] / st:.0f} µs of kernels and {k['kernel_count'] / st:.0f} kernels a step; " +
          ', '.join(f"{c['category']} {c['time_us'] / st:.0f}" for c in k['categories']))
    sums = sorted((x for x in k['kernels'] if x['name'].startswith('bn_sums')), key=lambda x: -x['total_us'])
    total = moved = 0
    for x in sums:
        rows, c = map(int, re.match(r'bn_sums_r(\d+)_c(\d+)', x['name']).groups())
        us = x['total_us'] / x['count']
        total += x['total_us'] / st
        moved += rows * c * 2 * x['count'] / st
        print(f"  rows {rows} C {c} ×{x['count'] / st:.0f}: {us:.1f} µs, {rows * c * 2 / us / 1e6:.2f} TB/s, grid {x['grid'][:2]}")
    if sums:
        print(f"  bn_sums: {total:.0f} µs a step, {moved / total / 1e6:.2f} TB/s overall")
