#!/usr/bin/env python3
"""run74's table, from rc.txt: samples/s of F, G, D, P, A (and B) at 512 and 128, each lever's gain over F at both
batches, the spread of F within the call (f-512 against f2-512), and the rule written before the call: a lever wins
where it beats F at both batches by more than that spread and by more than 0.2% (repeats across calls differ by
0.2-0.4%). Whether it trained (finite, falling loss) and what its profile shows are read from the logs and profiles.

usage: table.py [RUN_DIR] > table.md"""
import re, sys

d = sys.argv[1] if len(sys.argv) > 1 else "."
sps = {}
for line in open(f"{d}/rc.txt"):
    m = re.match(r"(\w+)-(\d+) \[.*\] rc=(\d+) : (\d+) samples/s", line)
    if m and m.group(3) == "0":
        sps[(m.group(1), int(m.group(2)))] = int(m.group(4))
names = {"f": "F: FastestDepthwise", "g": "G: + bn-sums=gram", "d": "D: + expand-grad=distributed",
         "p": "P: + project-prologue=bn-relu6", "a": "A: G + D + P", "b": "B: G + D"}
spread = abs(sps[("f2", 512)] - sps[("f", 512)]) / sps[("f", 512)] if ("f2", 512) in sps and ("f", 512) in sps else None
bar = max(spread or 0, 0.002)
print("| configuration | 512: samples/s | gain | 128: samples/s | gain | wins at both (> %.2f%%) |" % (100 * bar))
print("|---|---:|---:|---:|---:|:---:|")
for k, name in names.items():
    cells, wins = [], True
    for b in (512, 128):
        v, f = sps.get((k, b)), sps.get(("f", b))
        gain = (v - f) / f if v and f else None
        cells += [str(v) if v else "—", "" if k == "f" or gain is None else "%+.1f%%" % (100 * gain)]
        wins = wins and gain is not None and gain > bar
    verdict = "" if k == "f" else ("yes" if wins else "no")
    print(f"| {name} | " + " | ".join(cells) + f" | {verdict} |")
if spread is not None:
    print(f"\nF at 512 twice in the call: {sps[('f', 512)]} and {sps[('f2', 512)]} ({100 * spread:.2f}% apart).")
