#!/usr/bin/env bash
# Labeled matching before and after in one GPU call, on an installed build of this tree: the
# same bench.py rows on this tree and on .gpu/base.tar (a git archive of the change's base,
# built here beside it), then both side by side (device span, median of 3; every count checked
# against counts.tsv).
#
#   git archive BASE -o .gpu/base.tar                                       # before the call
#   bash experiments/device/gpu_check.sh build && bash experiments/match/compare.sh  # on the GPU
#
# PAIRS: graph:query,query,... words (default: a mix of small plans and large trees).
# Results: $OUT/match_{tree,base}_<graph>.json, $OUT/match_compare.txt.
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"
PAIRS=${PAIRS:-"hprd:query_dense_16_1,query_dense_16_8,query_dense_16_11
yeast:query_dense_16_1,query_dense_24_1,query_dense_32_1,query_sparse_16_1,query_sparse_32_2
human:query_dense_12_1,query_dense_12_2,query_sparse_12_1,query_sparse_12_2
email-Enron:query_4_1,query_dense_8_1,query_dense_8_2,query_sparse_8_1
ca-AstroPh:query_dense_8_1,query_dense_8_2,query_sparse_8_3,query_dense_12_3,query_dense_16_1"}

echo "== build base ($(date +%T))"
build_base match || { tail -20 "$OUT/build_base.log"; exit 1; }

side_run() {  # side command...: the command with the base build first on the path for "base"
  local side=$1
  shift
  if [[ $side == base ]]; then PYTHONPATH=/tmp/kcjax-match-base "$@"; else "$@"; fi
}

for pair in $PAIRS; do
  g=${pair%%:*}
  IFS=, read -r -a queries <<<"${pair#*:}"
  for side in tree base; do
    echo "== $side $g ($(date +%T))"
    side_run "$side" timeout "${GRAPH_TIMEOUT:-120}" "$PY" -P experiments/match/bench.py --graphs "$g" \
      --queries "${queries[@]}" --repeats 3 --budget 2 \
      --out "$OUT/match_${side}_$g.json" 2>&1 | grep -v "^WARNING" | tail -1
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
done

"$PY" - "$OUT" <<'PY' | tee "$OUT/match_compare.txt"
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
def rows(side):
    return {(r["graph"], r["query"]): r for f in sorted(out.glob(f"match_{side}_*.json"))
            for r in json.loads(f.read_text()).get("rows", [])}
tree, base = rows("tree"), rows("base")
print(f"{'graph':12s} {'query':18s} {'base_s':>10s} {'tree_s':>10s} {'x':>6s} {'peer_s':>10s} {'x_peer':>6s} ok")
for key, t in tree.items():
    b = base.get(key, {})
    bs = b.get("median_s", float("nan"))
    peer = t.get("peer_best_s") or float("nan")
    print(f"{key[0]:12s} {key[1]:18s} {bs:10.6f} {t['median_s']:10.6f} {bs / t['median_s']:6.2f} "
          f"{peer:10.6f} {peer / t['median_s']:6.2f} {t['correct'] and b.get('correct', True)}")
PY
exit $status
