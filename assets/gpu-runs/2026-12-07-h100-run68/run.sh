#!/bin/bash
# Device call run68 (session 26): with per-layer tiles, keep dK in its own kernel on the stride-1 28×28 layers
# (mobilenet.inDxSlower), where run67's profile had the merged dx + dK kernel 169 µs a step slower at 512 (161
# registers, 12% occupancy) and run65's 44 µs at 128. Two binaries: gpu/trainopt.gz is the commit before the change
# (dK in the dx kernel on every layer), gpu/trainopt-new.xz the change; each runs FastestDepthwise's configuration
# as a ladder configuration, alternated, then a kernel profile of the new one at 512 to see the split.
RUN=68 LIMIT=${LIMIT:-170}
. "$(dirname "$0")/../lib.sh"
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('gpu/trainopt-new.xz'), open('/tmp/trainopt-new','wb'))"
chmod +x /tmp/trainopt-new; cp /tmp/trainopt /tmp/trainopt-old
use() { cp /tmp/trainopt-$1 /tmp/trainopt; }
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer"
use new; v new-512 512 "$F"; use old; v old-512 512 "$F"
v old-128 128 "$F"; use new; v new-128 128 "$F"
use old; v old-512b 512 "$F"; use new; v new-512b 512 "$F"
PB=512 profkeep new512 "$F"
log "end"
