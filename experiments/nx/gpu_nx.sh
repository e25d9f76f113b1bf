#!/usr/bin/env bash
# One GPU call for the networkx backend, every stage's result printed as it ends:
# (1) the maximal-clique GPU tests (the CUDA twin returns the CPU handler's cliques in
# its order, the per-vertex largest cliques alike), then (2) floor.py on com-dblp:
# per function networkx's time, kcjax's (cold calls, the result checked equal to
# networkx's), the floor, kcjax / floor and the speedup; conversion from nx.Graph
# timed apart; find_cliques and node_clique_number also with the CUDA search.
#
#   NO_BUILD=1 bash experiments/nx/gpu_nx.sh   # ~2 minutes after a CUDA build
#
# OUT: results folder. NO_BUILD unset: build first (experiments/device/gpu_check.sh
# build). GRAPHS: floor.py's graphs (default com-dblp). FUNCTIONS: floor.py's functions
# (default: the ones whose networkx runs fit the call, ~55 s of networkx on com-dblp).
# FLOOR_TIMEOUT (default 140 s), TEST_TIMEOUT (default 60 s).
source "$(dirname "$0")/../device/preamble.sh"
GRAPHS=${GRAPHS:-com-dblp}
FUNCTIONS=${FUNCTIONS:-find_cliques node_clique_number triangles core_number k_core k_truss \
bfs_edges bfs_layers bfs_successors single_source_shortest_path_length}
if [ -z "${NO_BUILD:-}" ]; then
  bash experiments/device/gpu_check.sh build || exit 1
fi
echo "== maximal-clique GPU tests ($(date +%T))"
# The CUDA search's rows only once its tests passed (a hang there would cost the table).
maximal_gpu=--maximal-gpu
timeout "${TEST_TIMEOUT:-60}" "$PY" -P -m pytest -q -rf -p no:cacheprovider \
  tests/cliques/test_gpu.py -k maximal 2>&1 | tee "$OUT/test_gpu_maximal.log" | tail -6 ||
  { status=1; maximal_gpu=; echo "(CUDA search rows left out)"; }
for g in $GRAPHS; do
  echo "== floor.py $g ($(date +%T))"
  # shellcheck disable=SC2086
  timeout "${FLOOR_TIMEOUT:-140}" "$PY" -P experiments/nx/floor.py --graphs "$g" --kcjax \
    $maximal_gpu --repeats 3 --functions $FUNCTIONS --out "$OUT/nx_floor_$g.json" 2>&1 |
    tee "$OUT/nx_floor_$g.txt" | cut -c1-200 || status=1
done
echo "== done ($(date +%T))"
exit $status
