#!/usr/bin/env bash
# One GPU call for the networkx backend: build with CUDA, the maximal-clique GPU tests
# (the CUDA twin returns the CPU handler's cliques in its order), then floor.py on
# com-dblp and two smaller shared graphs: every served function with networkx's time,
# kcjax's (cold calls, results checked equal to networkx's), the floor, kcjax / floor
# and the speedup; conversion from nx.Graph timed apart; find_cliques and
# node_clique_number also with the CUDA search (--maximal-gpu).
#
#   bash experiments/nx/gpu_nx.sh        # OUT: results folder; NO_BUILD=1: skip the build
#                                        # GRAPHS: the smaller graphs (default email-Enron wiki-Vote; not ego-Facebook:
#                                        # 869 M maximal cliques, networkx cannot list them)
#                                        # FLOOR_ARGS: more floor.py arguments (--functions ...)
source "$(dirname "$0")/../device/preamble.sh"
GRAPHS=${GRAPHS:-email-Enron wiki-Vote}
FLOOR_ARGS=${FLOOR_ARGS:-}
if [ -z "${NO_BUILD:-}" ]; then
  bash experiments/device/gpu_check.sh build || exit 1
fi
timeout 240 "$PY" -P -m pytest -q -rf tests/cliques/test_gpu.py -k maximal 2>&1 |
  tee "$OUT/test_gpu_maximal.log" | tail -5 || status=1
for g in com-dblp $GRAPHS; do
  timeout 400 "$PY" -P experiments/nx/floor.py --graphs "$g" --kcjax --maximal-gpu --repeats 3 \
    $FLOOR_ARGS --out "$OUT/nx_floor_$g.json" >"$OUT/nx_floor_$g.txt" 2>&1 || status=1
  sed -n '/^| graph/,$p' "$OUT/nx_floor_$g.txt"
  tail -3 "$OUT/nx_floor_$g.txt"
done
exit $status
