#!/usr/bin/env bash
# The matching engine's GPU check in one call, on an installed build (no build here):
# the GPU tests, then the heavy queries of issue #25, one process per data graph under a
# time limit (a CUDA kernel cannot be interrupted, only its process), lightest first so a
# cut loses only the heaviest. Results: $OUT/match_test_gpu.log and $OUT/match_<graph>.json.
#
#   OUT=/tmp/out bash experiments/match/gpu_heavy.sh      # about 4 minutes on one H200
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"

echo "== tests ($(date +%T))"
timeout "${TEST_TIMEOUT:-100}" "$PY" -P -m pytest -q -rf tests/match/test_gpu.py \
  -k "not counts_tsv_row or yeast or hprd" 2>&1 | tee "$OUT/match_test_gpu.log" | tail -15
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

run() {  # graph limit_s queries...
  local g=$1 limit=$2
  shift 2
  echo "== $g ($(date +%T))"
  timeout "$limit" "$PY" -P experiments/match/bench.py --graphs "$g" --queries "$@" \
    --repeats 3 --budget 2 --out "$OUT/match_$g.json" 2>&1 | grep -v "^WARNING" | tail -8
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}
run yeast 40 query_dense_24_1 query_sparse_16_1 query_dense_32_1
run human 30 query_sparse_12_2 query_sparse_12_1
run email-Enron 25 query_dense_8_3
run ca-AstroPh 80 query_dense_12_1 query_dense_12_2 query_sparse_12_3 query_dense_16_1 \
  query_dense_16_3
exit $status
