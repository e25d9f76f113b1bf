#!/usr/bin/env bash
# Per-level timeline of Kronecker traversals from clock stamps in the kernel
# (experiments/bfs/timeline.py): a copy of this tree with the stamps is built beside it, one
# traversal per call runs from each of $SOURCES random sources ($REPEATS times each), and the
# kernel's lines become per-source, per-level times. PATCH (optional): a perl script applied
# to the copy's bfs_levels.cu as well (a variant's timeline).
# Results: $OUT/bfs_timeline.json (+ .txt, the slowest, middle and fastest sources).
#
#   OUT=/tmp/out SCALE=24 bash experiments/bfs/gpu_timeline.sh    # about 2 minutes on an H200
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"
src=/tmp/kcjax-bfs-timeline-src
rm -rf "$src" /tmp/kcjax-bfs-timeline && mkdir -p "$src"
tar --exclude=./.gpu --exclude=./.venv --exclude=./build -cf - . | tar -xf - -C "$src"
"$PY" -P experiments/bfs/timeline.py patch "$src" || exit 1
[[ -n ${PATCH:-} ]] && perl -0pi -e "$PATCH" "$src/ffi/cuda/bfs/bfs_levels.cu"
(cd "$src" && KCJAX_CUDA=ON "$PY" -m pip install -q --no-build-isolation --no-deps \
  --target /tmp/kcjax-bfs-timeline -Cbuild-dir=/tmp/kcjax-bfs-timeline-build .) \
  >"$OUT/build_timeline.log" 2>&1 || { tail -20 "$OUT/build_timeline.log"; exit 1; }
echo "== timeline kron${SCALE:-24} ($(date +%T))"
PYTHONPATH=/tmp/kcjax-bfs-timeline timeout "${TIMELINE_TIMEOUT:-300}" "$PY" -P \
  experiments/bfs/timeline.py run --scale "${SCALE:-24}" --sources "${SOURCES:-64}" \
  --repeats "${REPEATS:-2}" >"$OUT/bfs_timeline_raw.txt" 2>"$OUT/bfs_timeline_run.log" || status=1
"$PY" -P experiments/bfs/timeline.py parse "$OUT/bfs_timeline_raw.txt" \
  -o "$OUT/bfs_timeline.json" | tee "$OUT/bfs_timeline.txt"
exit $status
