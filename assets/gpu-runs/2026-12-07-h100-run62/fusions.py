#!/usr/bin/env python3
"""The fusions of an optimized HLO module (XLA's *after_optimizations.txt dump, gzipped or not) whose names start
with a prefix: for each, its output shape, its operands' shapes and the ops of the computation it calls — to name
the kernels a profile lists only by fusion name.

usage: fusions.py DUMP [PREFIX]   (PREFIX defaults to loop_convert_fusion)
"""
import gzip, re, sys

path = sys.argv[1]
prefix = sys.argv[2] if len(sys.argv) > 2 else 'loop_convert_fusion'
text = (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)).read()
# Computations: "%name (params) -> type {" … "}" at the start of a line.
comps = {}
for m in re.finditer(r'^(?:ENTRY )?%?([\w.-]+) [^\n]*\{\n(.*?)^\}', text, re.M | re.S):
    comps[m.group(1)] = m.group(2)
shapes = {}  # instruction name -> its shape, for operands
for line in text.splitlines():
    m = re.match(r'\s*(?:ROOT )?%?([\w.-]+) = (\S+?\[[^\]]*\](?:\{[^}]*\})?|\([^)]*\)) ', line)
    if m:
        shapes[m.group(1)] = m.group(2)
for line in text.splitlines():
    m = re.match(r'\s*(?:ROOT )?%?(' + re.escape(prefix) + r'[\w.-]*) = (\S+) fusion\((.*?)\), kind=(\w+), calls=%?([\w.-]+)', line)
    if not m:
        continue
    name, shape, operands, kind, callee = m.groups()
    ops = [o.strip().lstrip('%') for o in operands.split(',') if o.strip()]
    print(f'{name} = {shape} ({kind})')
    for o in ops:
        print(f'    operand {o}: {shapes.get(o, "?")}')
    body = comps.get(callee, '')
    kinds = re.findall(r'= \S+ (\w[\w-]*)\(', body)
    print(f'    {callee}: ' + ', '.join(f'{k}×{kinds.count(k)}' for k in sorted(set(kinds))))
