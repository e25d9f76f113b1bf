#!/usr/bin/env bash
# Where a large traversal's time goes, level by level, without a profiler: copies of this tree
# whose grid kernel (bfs_levels.cu, TraverseQueues) stops after L levels are built side by side
# (LEVELS, default "2 3 4 5"), then the same Kronecker rows are timed on each; the median time
# of copy L minus copy L-1 is level L-1 (with the switch's collection pass and the filters).
# The full tree's rows come first. SPLIT (e.g. "2"): copies that stop after level L's frontier
# is counted (BuildFrontier), before it is expanded: level L's time splits into the two.
# ABLATE: copies whose search is cut short, a line each, "NAME L PERL": the copy stops after L
# levels and PERL is applied to ffi/include/kcjax/bfs/bottom_up.cuh (its answers are wrong
# from that level on: only the time of level L - 1 against copy L - 1 means anything).
# Results: $OUT/bfs_levels_<L>.json (+ .txt), $OUT/bfs_levels_b<L>.json for SPLIT,
# $OUT/bfs_levels_<NAME>.json for ABLATE.
#
#   OUT=/tmp/out bash experiments/bfs/gpu_levels.sh      # after gpu_check.sh build; ~4 minutes
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"
LEVELS=${LEVELS:-"2 3 4 5"}
ARGS=${LEVEL_ARGS:-"--sections kron --scales 24 --sources 16 --repeats 3"}

# copy NAME PERL [PERL2]: this tree with PERL applied to bfs_levels.cu (and PERL2 to
# bottom_up.cuh), built in the background.
copy() {
  local src=/tmp/kcjax-bfs-levels-src-$1 f
  rm -rf "$src" "/tmp/kcjax-bfs-levels-$1" && mkdir -p "$src"
  tar --exclude=./.gpu --exclude=./.venv --exclude=./build -cf - . | tar -xf - -C "$src"
  perl -0pi -e "$2" "$src/ffi/cuda/bfs/bfs_levels.cu"
  [[ -n ${3:-} ]] && perl -0pi -e "$3" "$src/ffi/include/kcjax/bfs/bottom_up.cuh"
  for f in ffi/cuda/bfs/bfs_levels.cu ${3:+ffi/include/kcjax/bfs/bottom_up.cuh}; do
    diff -q "$f" "$src/$f" >/dev/null && { echo "patch $1 failed ($f)"; exit 1; }
  done
  (cd "$src" && KCJAX_CUDA=ON "$PY" -m pip install -q --no-build-isolation --no-deps \
    --target "/tmp/kcjax-bfs-levels-$1" -Cbuild-dir="/tmp/kcjax-bfs-levels-build-$1" .) \
    >"$OUT/build_levels_$1.log" 2>&1 &
}
# The last level loop of the file is TraverseQueues' (TraverseScan's comes first), and so is
# the last frontier test.
# stop L: the perl that makes TraverseQueues stop after L levels.
stop() { echo "s/(.*)for \(int32_t level = 0;; \+\+level\) \{/\${1}for (int32_t level = 0; level < $1; ++level) {/s"; }
for L in $LEVELS; do
  copy "$L" "$(stop "$L")"
done
ABLATED=()
while read -r name levels perl; do
  [[ -z $name ]] && continue
  copy "$name" "$(stop "$levels")" "$perl"
  ABLATED+=("$name")
done <<<"${ABLATE:-}"
for L in ${SPLIT:-}; do
  copy "b$L" "s/(.*)if \(lv.frontier == 0\) break;/\${1}if (lv.frontier == 0 || level == $L) break;/s"
done

echo "== full tree ($(date +%T))"
# shellcheck disable=SC2086
timeout 200 "$PY" -P experiments/bfs/bench.py $ARGS -o "$OUT/bfs_levels_all.json" \
  >"$OUT/bfs_levels_all.txt" 2>&1 || status=1
tail -3 "$OUT/bfs_levels_all.txt" | grep -v "^{"
wait
for L in $LEVELS ${SPLIT:+$(printf 'b%s ' $SPLIT)} "${ABLATED[@]}"; do
  echo "== first $L levels ($(date +%T))"
  # shellcheck disable=SC2086
  PYTHONPATH="/tmp/kcjax-bfs-levels-$L" timeout 200 "$PY" -P experiments/bfs/bench.py $ARGS \
    -o "$OUT/bfs_levels_$L.json" >"$OUT/bfs_levels_$L.txt" 2>&1 ||
    { status=1; tail -3 "$OUT/build_levels_$L.log"; }
  tail -3 "$OUT/bfs_levels_$L.txt" | grep -v "^{"
done
exit $status
