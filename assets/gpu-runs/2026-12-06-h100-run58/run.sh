#!/bin/bash
# Device call run58 (session 17), the session's last device time. On an H200 (what issue 15 asks for): target 1,
# the row kernels at 128/256/512 beside PyTorch's step 11, then the space-to-depth stem. On an H100: the
# space-to-depth stem (`-model stem=space-to-depth`, unmeasured) against the patches stem it would replace, in
# alternating processes at 128 and once at 512, and a profile of each at 128.
RUN=58 LIMIT=${LIMIT:-480}
. "$(dirname "$0")/../lib.sh"
(cd tutorial/mobilenet && timeout 120 /tmp/mobilenet.test -test.run 'TestStem' -test.v > $W/test/stem.log 2>&1)
log "test rc=$? $(grep -E '^(--- |ok|FAIL|PASS)|--- FAIL|panic|rror' $W/test/stem.log | head -10 | tr '\n' ';' | cut -c1-1000)"
T=",dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward,dw-tiling=rows"
case "$GPU" in
*H200*)
  v rows-128 128 "$T"; v rows-256 256 "$T"; v rows-512 512 "$T"
  P=reduction-row=256,stem=space-to-depth v s2d-128 128 "$T"
  torch11 128,512,256
  P=reduction-row=256,stem=space-to-depth v s2d-512 512 "$T" ;;
*)
  v patches-128a 128 "$T"
  P=reduction-row=256,stem=space-to-depth v s2d-128a 128 "$T"
  v patches-128b 128 "$T"
  P=reduction-row=256,stem=space-to-depth v s2d-128b 128 "$T"
  P=reduction-row=256,stem=space-to-depth prof s2d "$T"
  prof patches "$T"
  v patches-512 512 "$T"
  P=reduction-row=256,stem=space-to-depth v s2d-512 512 "$T" ;;
esac
