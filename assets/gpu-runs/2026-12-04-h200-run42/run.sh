#!/bin/bash
# Device call run42 (session 11): the train package's test binary on the GPU once more, built from the committed
# flat-state code (run41 ran the same test on the version before a refactor: the layout now comes from the model,
# and oneStep unpacks it, so the notebooks' excerpt of the loop stays as it was).
cd "$(dirname "$0")/../../.."
gunzip -c gpu/train.test.gz > /tmp/train.test; chmod +x /tmp/train.test
. gpu/jax-cuda-env.sh
W=/tmp/w42; mkdir -p $W/test
trap 'tar czf $OUT/run42.tgz -C $W .' EXIT
(cd tutorial/train && timeout 200 /tmp/train.test -test.run 'TestFlatStateMatchesTensors|TestDeviceResidentSteps' -test.v > $W/test/flat.log 2>&1)
echo "test rc=$? $(grep -E '^(--- |ok|FAIL|PASS)|losses' $W/test/flat.log | tr '\n' ';')" | tee $W/rc.txt
