#!/usr/bin/env bash
# Where a large traversal's time goes, level by level, without a profiler: copies of this tree
# whose grid kernel (bfs_levels.cu, TraverseQueues) stops after L levels are built side by side
# (LEVELS, default "2 3 4 5"), then the same Kronecker rows are timed on each; the median time
# of copy L minus copy L-1 is level L-1 (with the switch's collection pass and the filters).
# The full tree's rows come first. SPLIT (e.g. "2"): copies that stop after level L's frontier
# is counted (BuildFrontier), before it is expanded: level L's time splits into the two.
# Results: $OUT/bfs_levels_<L>.json (+ .txt), $OUT/bfs_levels_b<L>.json for SPLIT.
#
#   OUT=/tmp/out bash experiments/bfs/gpu_levels.sh      # after gpu_check.sh build; ~4 minutes
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"
LEVELS=${LEVELS:-"2 3 4 5"}
ARGS=${LEVEL_ARGS:-"--sections kron --scales 24 --sources 16 --repeats 3"}

# copy NAME PERL: this tree with PERL applied to bfs_levels.cu, built in the background.
copy() {
  local src=/tmp/kcjax-bfs-levels-src-$1
  rm -rf "$src" "/tmp/kcjax-bfs-levels-$1" && mkdir -p "$src"
  tar --exclude=./.gpu --exclude=./.venv --exclude=./build -cf - . | tar -xf - -C "$src"
  perl -0pi -e "$2" "$src/ffi/cuda/bfs/bfs_levels.cu"
  diff -q ffi/cuda/bfs/bfs_levels.cu "$src/ffi/cuda/bfs/bfs_levels.cu" >/dev/null &&
    { echo "patch $1 failed"; exit 1; }
  (cd "$src" && KCJAX_CUDA=ON "$PY" -m pip install -q --no-build-isolation --no-deps \
    --target "/tmp/kcjax-bfs-levels-$1" -Cbuild-dir="/tmp/kcjax-bfs-levels-build-$1" .) \
    >"$OUT/build_levels_$1.log" 2>&1 &
}
# The last level loop of the file is TraverseQueues' (TraverseScan's comes first), and so is
# the last frontier test.
for L in $LEVELS; do
  copy "$L" "s/(.*)for \(int32_t level = 0;; \+\+level\) \{/\${1}for (int32_t level = 0; level < $L; ++level) {/s"
done
for L in ${SPLIT:-}; do
  copy "b$L" "s/(.*)if \(lv.frontier == 0\) break;/\${1}if (lv.frontier == 0 || level == $L) break;/s"
done

echo "== full tree ($(date +%T))"
# shellcheck disable=SC2086
timeout 200 "$PY" -P experiments/bfs/bench.py $ARGS -o "$OUT/bfs_levels_all.json" \
  >"$OUT/bfs_levels_all.txt" 2>&1 || status=1
tail -3 "$OUT/bfs_levels_all.txt" | grep -v "^{"
wait
for L in $LEVELS ${SPLIT:+$(printf 'b%s ' $SPLIT)}; do
  echo "== first $L levels ($(date +%T))"
  # shellcheck disable=SC2086
  PYTHONPATH="/tmp/kcjax-bfs-levels-$L" timeout 200 "$PY" -P experiments/bfs/bench.py $ARGS \
    -o "$OUT/bfs_levels_$L.json" >"$OUT/bfs_levels_$L.txt" 2>&1 ||
    { status=1; tail -3 "$OUT/build_levels_$L.log"; }
  tail -3 "$OUT/bfs_levels_$L.txt" | grep -v "^{"
done
exit $status
