#!/usr/bin/env bash
# This tree against .gpu/base.tar (a git archive of the change's base) in one device
# call, interleaved so that drift between runs shows: the base built beside this tree,
# then ROUNDS rounds of base, tree for each benchmark (the base runs its own scripts):
#   cliques   experiments/cliques/bench.py $CLIQUES_ARGS
#   truss     experiments/truss/bench.py $TRUSS_ARGS
# (BENCHES: a subset), then the tables: cliques/compare.py over every run (ratios to
# the first base) and truss/compare.py per round (x = base / tree). Device span and
# busy time are in the JSON files: a restructure with identical SASS moves spans
# (host gaps) but not busy time. NO_BUILD=1: this tree is installed already.
#
#   git archive BASE -o .gpu/base.tar; ROUNDS=2 bash experiments/device/gpu_ab.sh
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/preamble.sh"
ROUNDS=${ROUNDS:-2}
BENCHES=${BENCHES:-cliques truss}
GRAPHS="email-Enron ca-CondMat wiki-Vote cit-HepTh com-amazon soc-Epinions1 ca-AstroPh com-dblp ego-Facebook"
CLIQUES_ARGS=${CLIQUES_ARGS:-"--graphs $GRAPHS --ks 4-8 --methods kcminer pivot --repeats 5 --budget 1"}
TRUSS_ARGS=${TRUSS_ARGS:-"--scales --no-ablation --repeats 5 --cpu-max-edges 0 --dense-max-edges 0"}
BASE=/tmp/kcjax-ab-base  # build_base's install; its sources in $BASE-src
[[ -f .gpu/base.tar ]] || { echo "no .gpu/base.tar"; exit 2; }

if [[ -z ${NO_BUILD:-} ]]; then
  OUT="$OUT/build" bash experiments/device/gpu_check.sh build >/dev/null || { echo "build failed"; exit 1; }
fi
if [[ -z ${NO_BUILD:-} || ! -d $BASE ]]; then
  build_base ab || { echo "base build failed"; tail -20 "$OUT/build_base.log"; exit 1; }
fi

run() {  # run BENCH SIDE ROUND: one benchmark on one build, rows to $OUT/BENCH_SIDE_ROUND.json
  local bench=$1 side=$2 round=$3 root=. args
  [[ $bench == cliques ]] && args=$CLIQUES_ARGS || args=$TRUSS_ARGS
  [[ $side == base ]] && root=$BASE-src
  # shellcheck disable=SC2086
  if [[ $side == base ]]; then
    PYTHONPATH=$BASE timeout -s KILL "${BENCH_TIMEOUT:-240}" "$PY" -P "$root/experiments/$bench/bench.py" \
      $args --out "$OUT/${bench}_${side}_$round.json" >/dev/null 2>"$OUT/${bench}_${side}_$round.log"
  else
    timeout -s KILL "${BENCH_TIMEOUT:-240}" "$PY" -P "experiments/$bench/bench.py" \
      $args --out "$OUT/${bench}_${side}_$round.json" >/dev/null 2>"$OUT/${bench}_${side}_$round.log"
  fi
  echo "$bench $side round $round: rc=$?"
}

for round in $(seq 1 "$ROUNDS"); do
  for bench in $BENCHES; do
    run "$bench" base "$round"
    run "$bench" tree "$round"
  done
done

if [[ " $BENCHES " == *" cliques "* ]]; then
  runs=()
  for round in $(seq 1 "$ROUNDS"); do
    runs+=("base$round=$OUT/cliques_base_$round.json" "tree$round=$OUT/cliques_tree_$round.json")
  done
  "$PY" -P experiments/cliques/compare.py "${runs[@]}" --out "$OUT/cliques_ab.json" \
    --note "${AB_NOTE:-this tree against .gpu/base.tar, $ROUNDS interleaved rounds}" |
    tee "$OUT/cliques_ab.txt"
fi
if [[ " $BENCHES " == *" truss "* ]]; then
  for round in $(seq 1 "$ROUNDS"); do
    echo "== truss round $round (x = base / tree)"
    "$PY" -P experiments/truss/compare.py "$OUT/truss_base_$round.json" "$OUT/truss_tree_$round.json" |
      tee "$OUT/truss_ab_$round.txt"
  done
fi
# Only the archive comes back (the device tool returns few files).
tar -czf /tmp/ab_results.tgz -C "$OUT" . 2>/dev/null
find "$OUT" -mindepth 1 -delete && mv /tmp/ab_results.tgz "$OUT/results.tgz"
exit $status
