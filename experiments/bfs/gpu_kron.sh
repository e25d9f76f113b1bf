#!/usr/bin/env bash
# The BFS Kronecker rows in one call, on an installed build (no build here): the Graph500
# GTEPS of scales $SCALES (edge factor 16) and the seed's Kron-20-512, then Nsight Compute on
# one Kron-$NCU_SCALE traversal (speed of light, memory, and per-instruction stall samples,
# summarized by experiments/tools/ncu_source.py: where a large traversal's time goes).
# Results: $OUT/bfs_kron.json (+ .txt), $OUT/bfs_ncu_details.csv, $OUT/bfs_ncu_source.json.
# POLICY_SED: a sed script for a copy of ffi/include/kcjax/bfs/policy.h, built beside the
# tree while it is measured, then the same rows of "auto" on it ($OUT/bfs_kron_policy.json).
# BASE_TAR: a `git archive` of the commit to compare with (a path under the tree, e.g. in
# .gpu/), built beside it the same way and measured on the same rows ($OUT/bfs_kron_base.json).
# BFS_ARGS: more bench.py arguments for every build (e.g. --methods auto,enterprise);
# POLICY_ARGS: for the policy build only. VARIANTS: more policy copies, a line each,
# "NAME SED" ($OUT/bfs_kron_NAME.json).
#
#   OUT=/tmp/out bash experiments/bfs/gpu_kron.sh      # about 4 minutes on an H200
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"

# build_beside NAME: installs /tmp/kcjax-bfs-NAME-src (already filled) into /tmp/kcjax-bfs-NAME.
build_beside() {
  (cd "/tmp/kcjax-bfs-$1-src" && KCJAX_CUDA=ON "$PY" -m pip install -q --no-build-isolation \
    --no-deps --target "/tmp/kcjax-bfs-$1" -Cbuild-dir="/tmp/kcjax-bfs-build-$1" .) \
    >"$OUT/build_$1.log" 2>&1
}

# rows NAME [ARGS...]: the Kronecker rows on build NAME ("" for the installed one) into
# $OUT/bfs_kron[_NAME].json (+ .txt).
rows() {
  local name=$1 suffix=${1:+_$1} bench=experiments/bfs/bench.py
  shift
  # The base commit is measured by its own bench.py (the tree's may use newer API).
  [[ $name == base ]] && bench=/tmp/kcjax-bfs-base-src/experiments/bfs/bench.py
  echo "== kron${suffix} ($(date +%T))"
  # shellcheck disable=SC2086
  PYTHONPATH=${name:+/tmp/kcjax-bfs-$name} timeout "${KRON_TIMEOUT:-240}" "$PY" -P \
    "$bench" --sections kron --scales "${SCALES:-20,22,24}" ${EF512---ef512} \
    --sources "${SOURCES:-16}" --repeats 3 ${BFS_ARGS:-} "$@" -o "$OUT/bfs_kron$suffix.json" \
    >"$OUT/bfs_kron$suffix.txt" 2>&1 || { status=1; [[ -n $name ]] && tail -5 "$OUT/build_$name.log"; }
  tail -12 "$OUT/bfs_kron$suffix.txt"
}

# policy_copy NAME SED: this tree with SED applied to policy.h, built beside it.
policy_copy() {
  rm -rf "/tmp/kcjax-bfs-$1" "/tmp/kcjax-bfs-$1-src" "/tmp/kcjax-bfs-build-$1"
  mkdir -p "/tmp/kcjax-bfs-$1-src"
  tar --exclude=./.gpu --exclude=./.venv --exclude=./build -cf - . |
    tar -xf - -C "/tmp/kcjax-bfs-$1-src"
  sed -i "$2" "/tmp/kcjax-bfs-$1-src/ffi/include/kcjax/bfs/policy.h"
  diff ffi/include/kcjax/bfs/policy.h "/tmp/kcjax-bfs-$1-src/ffi/include/kcjax/bfs/policy.h"
  build_beside "$1" &
}
[[ -n ${POLICY_SED:-} ]] && policy_copy policy "$POLICY_SED"
# VARIANTS: more policy copies, a line each: NAME SED (measured after the policy copy).
while read -r name sed_script; do
  [[ -n $name ]] && policy_copy "$name" "$sed_script"
done <<<"${VARIANTS:-}"
if [[ -n ${BASE_TAR:-} ]]; then
  rm -rf /tmp/kcjax-bfs-base* && mkdir -p /tmp/kcjax-bfs-base-src
  tar -xf "$BASE_TAR" -C /tmp/kcjax-bfs-base-src
  ln -s "$PWD/.gpu" /tmp/kcjax-bfs-base-src/.gpu
  build_beside base &
fi

if [[ -n ${TESTS:-} ]]; then
  echo "== tests ($(date +%T))"
  timeout -s KILL "${TEST_TIMEOUT:-200}" "$PY" -P -m pytest -q -rf tests/bfs/test_gpu.py \
    -k "$TESTS" 2>&1 | tee "$OUT/bfs_test_gpu.log" | tail -4
  status=$((status | PIPESTATUS[0]))
fi

rows ""
wait
[[ -n ${POLICY_SED:-} ]] && rows policy ${POLICY_ARGS:-}
while read -r name _; do
  [[ -n $name ]] && rows "$name"
done <<<"${VARIANTS:-}"
[[ -n ${BASE_TAR:-} ]] && rows base

if [[ -n ${NCU_SCALE-22} ]]; then
  echo "== ncu kron${NCU_SCALE:-22} ($(date +%T))"
  # Two warm-up traversals, then two profiled (the BFS kernels only).
  timeout -s KILL "${NCU_TIMEOUT:-180}" ncu --clock-control none --kernel-name regex:Bfs \
    --launch-skip 2 --launch-count 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section SourceCounters -f -o "$OUT/bfs_ncu" \
    "$PY" -P experiments/bfs/profile_run.py --scale "${NCU_SCALE:-22}" --sources 2 \
    >"$OUT/bfs_ncu.log" 2>&1 || status=1
  tail -4 "$OUT/bfs_ncu.log"
  ncu -i "$OUT/bfs_ncu.ncu-rep" --page details --csv >"$OUT/bfs_ncu_details.csv" 2>/dev/null
  ncu -i "$OUT/bfs_ncu.ncu-rep" --page source --csv --print-source sass \
    >"$OUT/bfs_ncu_sass.csv" 2>/dev/null && gzip -f "$OUT/bfs_ncu_sass.csv"
  rm -f "$OUT/bfs_ncu.ncu-rep"
  "$PY" -P experiments/tools/ncu_source.py "$OUT/bfs_ncu_sass.csv.gz" --top 25 \
    --out "$OUT/bfs_ncu_source.json" >"$OUT/bfs_ncu_source.txt" 2>&1
  grep -E "Duration|DRAM Throughput|L2 Hit Rate|Memory Throughput|Compute \(SM\)" \
    "$OUT/bfs_ncu_details.csv" | cut -c1-200 | head -20
fi
exit $status
