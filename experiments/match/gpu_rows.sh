#!/usr/bin/env bash
# Every counts.tsv row of the given data graphs on the GPU, in one call, on an installed build
# (no build here): each graph in its own process under a time limit, the queries measured with
# bench.py (device span, median of 3, the count checked) and the ablation variants $VARIANTS on
# the queries faster than $ABLATION_MAX seconds; a table last.
# Results: $OUT/match_rows_<graph>.json.
#
#   OUT=/tmp/out VARIANTS="compact" bash experiments/match/gpu_rows.sh hprd yeast human
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"

for g in "$@"; do
  echo "== $g ($(date +%T))"
  # shellcheck disable=SC2086
  timeout "${GRAPH_TIMEOUT:-150}" "$PY" -P experiments/match/bench.py --graphs "$g" \
    --repeats 3 --budget 2 --time-limit 100 --ablation --ablation-max "${ABLATION_MAX:-0.05}" \
    --variants ${VARIANTS:-compact} --out "$OUT/match_rows_$g.json" 2>&1 |
    grep -v "^WARNING" | tail -2
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done

"$PY" - "$OUT" <<'PY'
import json, sys
from pathlib import Path

rows = [r for f in sorted(Path(sys.argv[1]).glob("match_rows_*.json"))
        for r in json.loads(f.read_text()).get("rows", [])]
names = sorted({v for r in rows for v in r.get("ablation", {})})
print(f"{'graph':12s} {'query':18s} {'span_s':>9s} {'busy_s':>9s} "
      + " ".join(f"{v:>10s}" for v in names) + f" {'peer_s':>9s} {'x_peer':>6s} ok")
for r in rows:
    peer = r.get("peer_best_s") or float("nan")
    ab = r.get("ablation", {})
    print(f"{r['graph']:12s} {r['query']:18s} {r['median_s']:9.6f} {r.get('busy_s', float('nan')):9.6f} "
          + " ".join(f"{ab.get(v, {}).get('median_s', float('nan')):10.6f}" for v in names)
          + f" {peer:9.6f} {peer / r['median_s']:6.2f} "
          + str(r["correct"] and all(a.get("correct", True) for a in ab.values())))
PY
exit $status
