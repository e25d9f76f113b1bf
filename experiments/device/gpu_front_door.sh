#!/usr/bin/env bash
# The front door on the GPU in one device call: this tree built (and, if
# .gpu/base.tar exists, a git archive of the change's base built beside it), then
# the parts named in PARTS (default: "tests bench"):
#   tests     the GPU tests of TESTS (default: the BFS, truss and matching GPU tests and
#             tests/test_front_door.py), each file under its own time limit
#   repro     experiments/device/sanitizer_repro.sh (why compute-sanitizer crashed jax)
#   bench     experiments/tools/front_door.py on this tree (FRONT_ARGS) and on the base
# Results under $OUT; the short tables are printed last.
#
#   git archive BASE -o .gpu/base.tar; bash experiments/device/gpu_front_door.sh
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/preamble.sh"
PARTS=${PARTS:-tests bench}
FRONT_ARGS=${FRONT_ARGS:---first-call --new-queries yeast}
TESTS=${TESTS:-tests/bfs/test_gpu.py tests/truss/test_gpu.py tests/match/test_gpu.py tests/test_front_door.py}

OUT="$OUT/build" bash experiments/device/gpu_check.sh build >/dev/null || { echo "build failed"; exit 1; }
head -2 "$OUT/build/gpu.txt"
[[ -f .gpu/base.tar ]] && { build_base front & }

has() { [[ " $PARTS " == *" $1 "* ]]; }

if has tests; then
  for t in $TESTS; do
    name=$(basename "$(dirname "$t")")_$(basename "$t" .py)
    timeout -s KILL "${TEST_TIMEOUT:-240}" "$PY" -P -m pytest -q -x -rf "$t" >"$OUT/$name.log" 2>&1
    echo "$t: $(tail -1 "$OUT/$name.log")"
  done
fi
if has repro; then
  bash experiments/device/sanitizer_repro.sh
fi
if has bench; then
  wait
  # shellcheck disable=SC2086
  timeout -s KILL "${BENCH_TIMEOUT:-300}" "$PY" -P experiments/tools/front_door.py $FRONT_ARGS \
    --out "$OUT/front_door_tree.json" >"$OUT/front_door_tree.txt" 2>"$OUT/front_door_tree.log"
  echo "tree bench rc=$?"
  if [[ -d /tmp/kcjax-front-base ]]; then
    # shellcheck disable=SC2086
    PYTHONPATH=/tmp/kcjax-front-base timeout -s KILL "${BENCH_TIMEOUT:-300}" "$PY" -P \
      experiments/tools/front_door.py ${BASE_FRONT_ARGS:-} --out "$OUT/front_door_base.json" \
      >"$OUT/front_door_base.txt" 2>"$OUT/front_door_base.log"
    echo "base bench rc=$?"
  fi
  for f in front_door_base front_door_tree; do
    [[ -f "$OUT/$f.txt" ]] && { echo "== $f"; cat "$OUT/$f.txt"; }
  done
fi
# Only the archive comes back (the device tool returns few files).
tar -czf /tmp/front_door_results.tgz -C "$OUT" . 2>/dev/null
find "$OUT" -mindepth 1 -delete && mv /tmp/front_door_results.tgz "$OUT/results.tgz"
exit $status
