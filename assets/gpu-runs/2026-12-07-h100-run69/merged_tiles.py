#!/usr/bin/env python3
"""Session 26: a tile for each merged dx + dK row kernel (dw_input_kernel_grad_rows_*, dw-kernel-grad=in-dx) from a
sweep of uniform tiles, as run61's per_layer.py chose the other row kernels' tiles.

usage: merged_tiles.py [--forward] FASTEST DEFAULT TILE...   (profile folders of `trainopt profile`, e.g. prof-fastest
prof-default prof-c16 …; FASTEST is FastestDepthwise with its per-layer tiles, DEFAULT the same loop with the
default tile; a TILE folder's name after "prof-" names its tile)

For each merged kernel: µs a step with FASTEST's tile (today's: the dx kernel's table entry), the default tile and
each swept tile, with registers and occupancy of the fastest, and the pick — the fastest tile where it beats
FASTEST's by 3% or more (run61's rule), else today's. --forward (session 27) reads the forward kernels
(dw_forward_rows_stats_*) of the same profiles instead: the sweep's uniform tiles reached them too."""
import glob, gzip, json, os, re, sys

FORWARD = '--forward' in sys.argv[1:2]
KIND = 'forward_rows_stats' if FORWARD else 'input_kernel_grad_rows'
PAT = re.compile(r'dw_' + KIND + r'_(?:bn_)?n\d+_(h\d+)_w\d+_(c\d+)_(s\d)')

def load(d):
    f = glob.glob(os.path.join(d, '**', 'report.json*'), recursive=True)[0]
    r = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    steps = r['kernels']['steps']
    out = {}
    for k in r['kernels']['kernels']:
        m = PAT.match(k['name'])
        if m:
            key = '_'.join(m.groups())
            us, _ = out.get(key, (0.0, k))
            out[key] = (us + k['total_us'] / steps, k)
    return out

dirs = sys.argv[2:] if FORWARD else sys.argv[1:]
if len(dirs) < 2:
    sys.exit(__doc__)
labels = [os.path.basename(d.rstrip('/')).replace('prof-', '') for d in dirs]
runs = [load(d) for d in dirs]
print(('forward kernel' if FORWARD else 'merged kernel') + ' | ' + ' | '.join(labels) + ' | fastest (regs, occupancy) | pick | µs saved')
saved = 0.0
for key in sorted(runs[0], key=lambda k: -runs[0][k][0]):
    row = [r.get(key, (float('nan'), None))[0] for r in runs]
    b = min(range(len(row)), key=lambda i: row[i] if row[i] == row[i] else 1e18)
    k = runs[b][key][1]
    pick = labels[b] if row[b] <= 0.97 * row[0] else labels[0]
    saved += row[0] - row[labels.index(pick)]
    print(f"{key} | " + ' | '.join(f'{v:.1f}' for v in row) +
          f" | {labels[b]} ({k.get('registers', '?')}r {k.get('theoretical_occupancy_pct', 0):.0f}%) | {pick} | {row[0] - row[labels.index(pick)]:.1f}")
print(f'sum saved by the picks: {saved:.0f} µs a step')
