#!/usr/bin/env bash
# The candidate filter and matching order of the plan on the GPU, in one call, on an installed
# build (no build here): a fast subset of the GPU tests (CPU == CUDA), then the queries issue #25
# loses on (large search trees) and the small hprd / email-Enron ones, each graph in its own
# process under a time limit, with GVSM's order as the ablation (the order before this change).
# Results: $OUT/match_order_test_gpu.log, $OUT/match_order_<graph>.json; a table last.
#
#   OUT=/tmp/out bash experiments/match/gpu_order.sh      # at most about 5 minutes
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"

echo "== tests ($(date +%T))"
timeout "${TEST_TIMEOUT:-150}" "$PY" -P -m pytest -q -rf tests/match/test_gpu.py \
  -k "not counts_tsv_row or yeast or hprd-query_dense_16_1" 2>&1 \
  | tee "$OUT/match_order_test_gpu.log" | tail -8
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

run() {  # graph limit_s queries...
  local g=$1 limit=$2
  shift 2
  echo "== $g ($(date +%T))"
  timeout "$limit" "$PY" -P experiments/match/bench.py --graphs "$g" --queries "$@" \
    --repeats 3 --budget 2 --ablation --ablation-max 2 --variants gvsm_order \
    --out "$OUT/match_order_$g.json" 2>&1 | grep -v "^WARNING" | tail -3
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}
run hprd 25 query_dense_16_{1..12}
run yeast 45 query_dense_16_1 query_dense_24_1 query_sparse_32_2 query_dense_32_1 \
  query_sparse_16_1
run email-Enron 35 query_4_{1..6} query_dense_8_{1..3} query_sparse_8_1
run human 35 query_sparse_12_2 query_sparse_12_1

"$PY" - "$OUT" <<'PY'
import json, sys
from pathlib import Path

print(f"{'graph':12s} {'query':18s} {'estimate_s':>10s} {'gvsm_s':>10s} {'peer_s':>10s} {'x_peer':>7s} ok")
for f in sorted(Path(sys.argv[1]).glob("match_order_*.json")):
    for r in json.loads(f.read_text()).get("rows", []):
        g = r.get("ablation", {}).get("gvsm_order", {})
        peer = r.get("peer_best_s") or float("nan")
        print(
            f"{r['graph']:12s} {r['query']:18s} {r['median_s']:10.6f} "
            f"{g.get('median_s', float('nan')):10.6f} {peer:10.6f} "
            f"{peer / r['median_s']:7.2f} {r['correct'] and g.get('correct', True)}"
        )
PY
exit $status
