#!/bin/bash
# Device call run77 (prepared in session 30, with the session's last 325 s of device time): the Gram sums' GPU test
# with its reference rounded on the host (run75 found the cause of its failures), and if it passes G = N +
# bn-sums=gram against N (run76's best) at 512 and 128 in alternating order.
RUN=77 LIMIT=${LIMIT:-170}
. "$(dirname "$0")/../lib.sh"
P=reduction-row=256,stem=space-to-depth
F=",dw-forward=triton-stats,dw-input-grad=triton,dw-kernel-grad=in-dx,dw-prologue=bn-relu6-backward,dw-tiling=rows,dw-row-carry=sums,dw-row-unroll=2,dw-row-tiles=per-layer,project-prologue=bn-relu6" # = ladder fast start's model
(cd tutorial/mobilenet && timeout 60 /tmp/mobilenet.test -test.run 'TestGramSums' -test.v > $W/test/gram.log 2>&1)
log "gram test rc=$? $(grep -c -- '--- PASS' $W/test/gram.log) passed, $(grep -c -- '--- FAIL' $W/test/gram.log) failed"
export TO=60
grep -q "^--- PASS: TestGramSums " $W/test/gram.log && { v g-512 512 "$F,bn-sums=gram"; v n-512 512 "$F"; v n-128 128 "$F"; v g-128 128 "$F,bn-sums=gram"; }
log "end"
