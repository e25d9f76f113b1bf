#!/usr/bin/env bash
# compute-sanitizer over every family's kernels, and the families' GPU tests, in one
# device call: this tree built; every sanitizer workload of WORKLOADS (default: each
# family's experiments/<family>/*sanitize_run.py) run once without the tool, so that each of its
# XLA programs is compiled into a fresh persistent cache; then at once (one process
# each, no preallocation, so they share the GPU) every test file of TESTS and every
# workload under every tool of SANITIZE_TOOLS, its programs loaded from that cache.
# XLA compiling a GPU program while the tool runs ended the process with a
# segmentation fault (jaxlib 0.11.2, compute-sanitizer 2025.3.1), so nothing is
# compiled under the tool: the workloads are deterministic, and the flags below are
# part of the cache key, so the second run finds every program. Each process has its
# own time limit (TEST_TIMEOUT, SANITIZE_TIMEOUT); a summary table is printed last and
# the logs come back in $OUT/results.tgz. SANITIZE_ARGS: more compute-sanitizer options;
# over several GPUs NCCL's and XLA's set-up calls return API errors (209: no kernel image,
# 704: peer access already enabled) that memcheck counts as errors: "--report-api-errors no"
# leaves only the kernels' own errors in the summary.
#
#   bash experiments/device/gpu_sanitize.sh
#   WORKLOADS=experiments/truss/sanitize_run.py SANITIZE_TOOLS=racecheck TESTS= \
#     bash experiments/device/gpu_sanitize.sh
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/preamble.sh"
WORKLOADS=${WORKLOADS:-$(ls experiments/{cliques,bfs,truss,match}/*sanitize_run.py)}
SANITIZE_TOOLS=${SANITIZE_TOOLS:-memcheck racecheck synccheck}
TESTS=${TESTS-tests/cliques/test_gpu.py tests/bfs/test_gpu.py tests/truss/test_gpu.py tests/match/test_gpu.py tests/test_front_door.py}
export XLA_PYTHON_CLIENT_PREALLOCATE=false
export JAX_COMPILATION_CACHE_DIR=/tmp/kcjax-sanitize-cache
export JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
export JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=0
# One compile thread and no autotuning: the least XLA work, should a program miss.
SANITIZE_XLA_FLAGS="--xla_gpu_autotune_level=0 --xla_gpu_force_compilation_parallelism=1"

if [[ -z ${NO_BUILD:-} ]]; then  # NO_BUILD=1: this tree is built already
  OUT="$OUT/build" bash experiments/device/gpu_check.sh build >/dev/null || { echo "build failed"; exit 1; }
  head -2 "$OUT/build/gpu.txt"
fi
compute-sanitizer --version | tail -1

# name PATH: a workload's log name, its family and its prefix (bfs, bfs_mesh, ...).
name() {
  local stem
  stem=$(basename "$1" .py)
  stem=${stem%sanitize_run}
  echo "$(basename "$(dirname "$1")")${stem:+_${stem%_}}"
}
for w in $WORKLOADS; do
  XLA_FLAGS="$SANITIZE_XLA_FLAGS" timeout -s KILL "${WARM_TIMEOUT:-240}" \
    "$PY" -P "$w" >"$OUT/warm_$(name "$w").log" 2>&1 &
done
wait
for w in $WORKLOADS; do echo "$(name "$w") warm-up: $(tail -1 "$OUT/warm_$(name "$w").log")"; done

for t in $TESTS; do
  name=test_$(basename "$(dirname "$t")")_$(basename "$t" .py)
  timeout -s KILL "${TEST_TIMEOUT:-420}" "$PY" -P -m pytest -q -rf "$t" >"$OUT/$name.log" 2>&1 &
done
for w in $WORKLOADS; do
  for tool in $SANITIZE_TOOLS; do
    # --kernel-name kns=kcjax: only kcjax's kernels are instrumented (XLA's are not ours).
    XLA_FLAGS="$SANITIZE_XLA_FLAGS" timeout -s KILL "${SANITIZE_TIMEOUT:-420}" compute-sanitizer \
      --tool "$tool" --kernel-name kns=kcjax ${SANITIZE_ARGS:-} "$PY" -P "$w" \
      >"$OUT/sanitize_$(name "$w")_$tool.log" 2>&1 &
  done
done
wait

echo "== tests"
for t in $TESTS; do
  name=test_$(basename "$(dirname "$t")")_$(basename "$t" .py)
  echo "$t: $(tail -1 "$OUT/$name.log")"
done
echo "== sanitizers (tool summary; the workload's last line)"
for w in $WORKLOADS; do
  f=$(name "$w")
  for tool in $SANITIZE_TOOLS; do
    log="$OUT/sanitize_${f}_$tool.log"
    summary=$(grep -hE "(ERROR|RACECHECK|SYNCCHECK) SUMMARY" "$log" | tail -1)
    [[ -n $summary ]] || { summary="no summary (killed or crashed)"; status=1; }
    printf '%-8s %-10s %s | %s\n' "$f" "$tool" "$summary" "$(grep -v '^=' "$log" | tail -1)"
  done
done
tar -czf /tmp/sanitize_results.tgz -C "$OUT" . 2>/dev/null
find "$OUT" -mindepth 1 -delete && mv /tmp/sanitize_results.tgz "$OUT/results.tgz"
exit $status
