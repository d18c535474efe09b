#!/usr/bin/env python3
"""Per-kernel times of the depthwise Triton kernels across profiles (report.json of `trainopt profile`).

usage: rowtile.py [-regs] DIR...   (each DIR holds a report.json or report.json.gz somewhere below it; its name
labels the column)

-regs (added in session 22; without it the output is what produced rowtile.txt): each time followed by the kernel's
registers a thread and theoretical occupancy, "196.6 (90r 31%)" — rowtile-regs.txt, and run62's question whether
carried sums (dw-row-carry=sums) freed registers and bought warps.

For each kernel of the row kernels: µs per step in each profile and the bandwidth it reached in the first one
(bytes it must read and write once: forward x + y, dx dy + z + dx, dK x + dy), then per geometry and kind the
fastest tile, and the sum of those fastest against the first profile's sum.
"""
import glob, gzip, json, os, re, sys

def load(d):
    f = glob.glob(os.path.join(d, '**', 'report.json*'), recursive=True)[0]  # kept gzipped in the repository
    r = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    steps = r['kernels']['steps']
    out = {}
    for k in r['kernels']['kernels']:
        m = re.match(r'dw_(forward|input_grad|kernel_grad)_rows_(?:bn_|stats_)?n(\d+)_h(\d+)_w(\d+)_c(\d+)_s(\d)', k['name'])
        if m:
            out[k['name']] = (k['total_us'] / steps, k)
    return out, r['kernels']['kernel_time_us'] / steps, steps

def nbytes(name):
    m = re.match(r'dw_(forward|input_grad|kernel_grad)_rows_(?:bn_|stats_)?n(\d+)_h(\d+)_w(\d+)_c(\d+)_s(\d)', name)
    kind, n, h, w, c, s = m.group(1), *map(int, m.groups()[1:])
    ho = (h - 1) // s + 1
    big, small = n * h * w * c * 2, n * ho * ho * c * 2
    return {'forward': big + small, 'input_grad': small + 2 * big, 'kernel_grad': big + small}[kind]

regs = '-regs' in sys.argv[1:]
dirs = [a for a in sys.argv[1:] if a != '-regs']
runs = [load(d) for d in dirs]
labels = [os.path.basename(d.rstrip('/')).replace('prof-', '') for d in dirs]
base = runs[0][0]
print('kernel µs/step' + ''.join(f' | {l}' for l in labels) + ' | TB/s (first) | best')
best_sum = 0
for name, (us, k) in sorted(base.items(), key=lambda kv: -kv[1][0]):
    row = [r[0].get(name, (float('nan'),))[0] for r in runs]
    b = min(range(len(row)), key=lambda i: row[i] if row[i] == row[i] else 1e18)
    best_sum += row[b]
    short = re.sub(r'_bf16.*', '', name.replace('dw_', ''))
    per = k['count'] / runs[0][2]  # launches per step (layers of one geometry)
    cells = []
    for r, v in zip(runs, row):
        cell = f'{v:.1f}'
        if regs and name in r[0]:
            kk = r[0][name][1]
            cell += f" ({kk.get('registers', '?')}r {kk.get('theoretical_occupancy_pct', 0):.0f}%)"
        cells.append(cell)
    print(short + f' ×{per:.0f}' + ''.join(f' | {c}' for c in cells) + f' | {nbytes(name) * per / us / 1e6:.2f} | {labels[b]}')
print('sum of row kernels' + ''.join(f' | {sum(v[0] for v in r[0].values()):.0f}' for r in runs) + f' | | best per kernel {best_sum:.0f}')
print('all kernels' + ''.join(f' | {r[1]:.0f}' for r in runs))
