#!/usr/bin/env python3
"""Small kernels of a trainopt profile: report.json's kernel table, kernels under a mean time (default 6 µs),
grouped by family (the kernel's name without its numeric suffix), with calls and µs a step.
Usage: small_kernels.py report.json[.gz] [limit_us]"""
import collections, gzip, json, re, sys
path = sys.argv[1]
lim = float(sys.argv[2]) if len(sys.argv) > 2 else 6.0
r = json.load(gzip.open(path) if path.endswith('.gz') else open(path))
ks, steps = r['kernels']['kernels'], r['kernels']['steps']
print(f"{path}: {steps} steps, {r['kernels']['kernel_count']/steps:.1f} kernels a step, "
      f"{r['kernels']['kernel_time_us']/steps:.1f} µs of kernels a step")
for l in (3.0, lim):
    s = [k for k in ks if k['mean_us'] < l]
    print(f"under {l:g} µs: {sum(k['count'] for k in s)/steps:.1f} kernels a step, "
          f"{sum(k['total_us'] for k in s)/steps:.1f} µs a step")
calls, us = collections.Counter(), collections.Counter()
for k in ks:
    if k['mean_us'] < lim:
        f = re.sub(r'(_\d+)+$', '', k['name'])[:60]
        calls[f] += k['count'] / steps; us[f] += k['total_us'] / steps
print(f"\nfamilies of the kernels under {lim:g} µs      calls a step   µs a step")
for f, v in us.most_common():
    print(f"{f:<60} {calls[f]:8.1f} {v:10.1f}")
