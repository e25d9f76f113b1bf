#!/usr/bin/env bash
# k-truss before and after in one GPU call: the GPU tests, then the same benchmark
# (experiments/truss/bench.py) on this tree and on .gpu/base.tar (a git archive of
# the change's base, built beside it), then both side by side and this tree's peer
# table (printed last).
#
#   git archive BASE -o .gpu/base.tar                                    # before the call
#   bash experiments/device/gpu_check.sh build && bash experiments/truss/compare.sh  # on the GPU
#
# Without .gpu/base.tar only this tree is measured. POLICY_SED: a sed script for a copy of
# this tree's ffi/include/kcjax/truss/truss.h (e.g. 's/kRecounts = 1;/kRecounts = 0;/'),
# built and measured as a third column-set (compare.py TREE.json POLICY.json after the
# base table); POLICY2_SED likewise, a fourth (policy2). TRUSS_ARGS: bench.py's arguments
# (default: every shared graph, k = 3 and k_max, the decomposition, no R-MAT);
# TESTS: the GPU tests' -k expression (default: all but the shared ground truth of
# graphs other than cit-HepTh); TREE_VARIANTS: this tree's k_truss variants (default auto+core, the default method;
# dag+core, edge+core; and dag: no prefilter, so no memoized core numbers in play). Results and logs go to $OUT.
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"
PY=${VENV:-$(python3 -c 'import sys; print(sys.prefix)')}/bin/python
ARGS=${TRUSS_ARGS:-"--scales --no-ablation --repeats 5 --cpu-max-edges 0 --dense-max-edges 0"}
VARIANTS=${TREE_VARIANTS:-"auto+core dag+core edge+core dag"}
BASE_SRC=/tmp/kcjax-truss-base-src  # build_base's sources

have_base=
if [[ -f .gpu/base.tar ]]; then
  build_base truss &
  have_base=1
fi

# build_policy NAME SED: this tree with SED applied to its truss.h, installed into
# /tmp/kcjax-truss-NAME (log: $OUT/build_NAME.log).
build_policy() {
  local src=/tmp/kcjax-truss-$1-src
  rm -rf "$src" "/tmp/kcjax-truss-$1" && mkdir -p "$src"
  tar --exclude=./.gpu --exclude=./.venv --exclude=./build -cf - . | tar -xf - -C "$src"
  ln -sfn "$PWD/.gpu" "$src/.gpu"
  sed -i "$2" "$src/ffi/include/kcjax/truss/truss.h"
  diff ffi/include/kcjax/truss/truss.h "$src/ffi/include/kcjax/truss/truss.h"
  (cd "$src" && KCJAX_CUDA=ON "$PY" -m pip install -q --no-build-isolation \
    --no-deps --target "/tmp/kcjax-truss-$1" -Cbuild-dir="/tmp/kcjax-truss-build-$1" .) \
    >"$OUT/build_$1.log" 2>&1
}
declare -A POLICIES=()
[[ -n ${POLICY_SED:-} ]] && POLICIES[policy]=$POLICY_SED
[[ -n ${POLICY2_SED:-} ]] && POLICIES[policy2]=$POLICY2_SED
for name in "${!POLICIES[@]}"; do
  build_policy "$name" "${POLICIES[$name]}" &
done

echo "== tests ($(date +%T))"
timeout -s KILL "${TEST_TIMEOUT:-150}" "$PY" -P -m pytest -q -rf tests/truss/test_gpu.py \
  -k "${TESTS:-not shared_ground_truth or cit-HepTh}" 2>&1 | tee "$OUT/test_gpu.log" | tail -4
status=$((status | PIPESTATUS[0]))
wait

echo "== bench tree ($(date +%T))"
# shellcheck disable=SC2086
timeout -s KILL "${BENCH_TIMEOUT:-150}" "$PY" -P experiments/truss/bench.py $ARGS \
  --variants $VARIANTS --out "$OUT/truss_tree.json" >"$OUT/bench_tree.txt" 2>"$OUT/bench_tree.log"
status=$((status | $?))
if [[ -n $have_base ]]; then
  echo "== bench base ($(date +%T))"
  # shellcheck disable=SC2086
  PYTHONPATH=/tmp/kcjax-truss-base timeout -s KILL "${BENCH_TIMEOUT:-150}" "$PY" -P \
    "$BASE_SRC/experiments/truss/bench.py" $ARGS --out "$OUT/truss_base.json" \
    >"$OUT/bench_base.txt" 2>"$OUT/bench_base.log" || tail -5 "$OUT/build_base.log"
  [[ -f $OUT/truss_base.json ]] &&
    "$PY" -P experiments/truss/compare.py "$OUT/truss_base.json" "$OUT/truss_tree.json" |
    tee "$OUT/compare.txt"
fi
for name in $(printf '%s\n' "${!POLICIES[@]}" | sort); do
  echo "== bench $name ($(date +%T))"
  # shellcheck disable=SC2086
  PYTHONPATH=/tmp/kcjax-truss-$name timeout -s KILL "${BENCH_TIMEOUT:-150}" "$PY" -P \
    experiments/truss/bench.py $ARGS --variants $VARIANTS --out "$OUT/truss_$name.json" \
    >"$OUT/bench_$name.txt" 2>"$OUT/bench_$name.log" || tail -5 "$OUT/build_$name.log"
  [[ -f $OUT/truss_$name.json ]] &&
    "$PY" -P experiments/truss/compare.py "$OUT/truss_tree.json" "$OUT/truss_$name.json" |
    tee "$OUT/compare_$name.txt"
done
echo "== peer table (this tree)"
sed -n '/^graph /,$p' "$OUT/bench_tree.txt"
exit "$status"
