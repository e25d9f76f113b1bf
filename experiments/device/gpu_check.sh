#!/usr/bin/env bash
# Build, test, sanitize and benchmark kcjax on the GPU machine in one call.
#
#   bash experiments/device/gpu_check.sh STAGE...
#   stages: build test bench sanitize ncu scaling mesh
#
# Expects the shared graphs and anchors copied into .gpu/ (carried to the
# machine, see BUILD.md) and writes logs and results under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/kcjax-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export CUDACXX=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
VENV=${VENV:-$(python3 -c 'import sys; print(sys.prefix)')}
PY="$VENV/bin/python"
BENCH_ARGS=${BENCH_ARGS:-}
SCALING_ARGS=${SCALING_ARGS:-}
status=0

stage() { echo "== $1 ($(date +%T))"; }

for s in "$@"; do
  case "$s" in
    build)
      stage build
      nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
      # The CUDA toolkit the kernels are built with (nvcc on PATH, else CUDA's default prefix).
      { nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version; } | grep -i release |
        tee -a "$OUT/gpu.txt" || true
      # -vv: bootstrap.sh installs with -q, and one -v would only cancel it
      # (ptxas's register and spill lines then never reach build.log).
      # A copy, not editable: PYTHONPATH must be able to put another build first (compare).
      VENV="$VENV" KCJAX_EDITABLE=0 KCJAX_CUDA=ON KCJAX_PIP_ARGS="-Cbuild-dir=/tmp/kcjax-build -vv -Ccmake.define.CMAKE_CUDA_FLAGS=-Xptxas=-v" \
        bash scripts/bootstrap.sh >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
      grep -E "ptxas info|spill|warning" "$OUT/build.log" | sort | uniq | head -40 >"$OUT/ptxas.txt"
      ;;
    test)
      stage test
      timeout "${TEST_TIMEOUT:-300}" "$PY" -P -m pytest -q -rf tests/cliques/test_gpu.py 2>&1 | tee "$OUT/test_gpu.log" | tail -25
      status=$((status | PIPESTATUS[0]))
      ;;
    bench)
      stage bench
      # shellcheck disable=SC2086
      # BENCH_SCRIPT: another tree's bench.py (a base commit measured with its own API).
      timeout "${BENCH_TIMEOUT:-420}" "$PY" -P "${BENCH_SCRIPT:-experiments/cliques/bench.py}" $BENCH_ARGS --out "$OUT/bench.json" \
        2>"$OUT/bench.log" | tee "$OUT/bench.txt"
      status=$((status | PIPESTATUS[0]))
      ;;
    sanitize)
      stage sanitize
      # Only kcjax's kernels are instrumented (their names contain "kcjax").
      for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
        # shellcheck disable=SC2086
        XLA_PYTHON_CLIENT_PREALLOCATE=false timeout -s KILL "${SANITIZE_TIMEOUT:-240}" \
          compute-sanitizer --tool "$tool" --kernel-name kns=kcjax \
          "$PY" -P experiments/cliques/sanitize_run.py ${SANITIZE_METHODS:-} 2>&1 |
          tee "$OUT/sanitize_$tool.log" | tail -6
      done
      ;;
    ncu)
      stage ncu
      # Every kernel of the profiled process (lanes_run.py orients on the CPU;
      # NCU_ARGS: its arguments, NCU_METRICS: other metrics), or those whose
      # name matches NCU_FILTER (a regex; without it, a workload that builds
      # its graph on the GPU, such as R-MAT, spends the call profiling that).
      # XLA's autotuning is off: with it, R-MAT 22 never reached the count
      # under ncu (XLA logged "delay kernel timed out"; docs/tuning.md).
      # shellcheck disable=SC2086
      XLA_FLAGS="${XLA_FLAGS:-} --xla_gpu_autotune_level=0" \
        timeout -s KILL "${NCU_TIMEOUT:-300}" ncu --clock-control none --csv \
        ${NCU_FILTER:+--kernel-name "regex:$NCU_FILTER"} \
        --metrics "${NCU_METRICS:-smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum}" \
        "$PY" -P experiments/cliques/lanes_run.py ${NCU_ARGS:-} >"$OUT/ncu.csv" 2>"$OUT/ncu.log"
      tail -5 "$OUT/ncu.log"
      if [[ -n ${NCU_SOURCE:-} ]]; then
        # Per-instruction executed counts (SourceCounters), exported per
        # kernel launch as SASS and summarized by ncu_source.py (opcode mix,
        # hottest instructions).
        # shellcheck disable=SC2086
        XLA_FLAGS="${XLA_FLAGS:-} --xla_gpu_autotune_level=0" \
          timeout -s KILL "${NCU_TIMEOUT:-300}" ncu --clock-control none --section SourceCounters \
          ${NCU_FILTER:+--kernel-name "regex:$NCU_FILTER"} -f -o "$OUT/source" \
          "$PY" -P experiments/cliques/lanes_run.py ${NCU_ARGS:-} >"$OUT/source.log" 2>&1
        tail -3 "$OUT/source.log"
        ncu -i "$OUT/source.ncu-rep" --page source --csv --print-source sass \
          >"$OUT/source_sass.csv" 2>>"$OUT/source.log"
        gzip -f "$OUT/source_sass.csv"
        rm -f "$OUT/source.ncu-rep"
        "$PY" -P experiments/tools/ncu_source.py "$OUT/source_sass.csv.gz" --out "$OUT/source.json"
      fi
      ;;
    mesh)
      # k-cliques and matching on 1, 2 and 4 devices (issue 48): cliques.json, match.json
      stage mesh
      timeout -s KILL "${MESH_CLIQUES_TIMEOUT:-280}" "$PY" -P experiments/cliques/scaling.py \
        --suite mesh --devices "${DEVICES:-1,2,4}" --time-limit "${MESH_CLIQUES_S:-210}" \
        --out "$OUT/cliques.json" 2>"$OUT/cliques.log" | tee "$OUT/cliques.txt"
      timeout -s KILL "${MESH_MATCH_TIMEOUT:-150}" "$PY" -P experiments/match/scaling.py \
        --devices "${DEVICES:-1,2,4}" --time-limit "${MESH_MATCH_S:-90}" \
        --out "$OUT/match.json" 2>"$OUT/match.log" | tee "$OUT/match.txt"
      # 2 processes x 2 GPUs under jax.distributed: the two-process test's worker
      # (enumeration, pivot, all sizes, per-vertex counts, matching) on GPU pairs.
      if [[ -z ${NO_MULTIPROCESS:-} ]]; then
        for i in 0 1; do
          CUDA_VISIBLE_DEVICES=$((2 * i)),$((2 * i + 1)) timeout -s KILL 150 "$PY" -P \
            tests/cliques/_two_process_worker.py 127.0.0.1:23457 2 "$i" 90 \
            >"$OUT/two_process_$i.log" 2>&1 &
        done
        wait
        grep -h "^RESULT " "$OUT"/two_process_*.log | "$PY" -c '
import json, sys
rows = [json.loads(line[7:]) for line in sys.stdin]
ok = len(rows) == 2 and all(
    r["devices"] == 4 and all(c == r["local"] for c in r["counts"].values())
    and all(a == b for a, b in r["pairs"].values()) for r in rows)
print("two processes x 2 GPUs:", "same counts" if ok else "MISMATCH or missing", len(rows))
' | tee "$OUT/two_process.txt"
      fi
      ;;
    scaling)
      stage scaling
      # shellcheck disable=SC2086
      timeout "${SCALING_TIMEOUT:-420}" "$PY" -P experiments/cliques/scaling.py $SCALING_ARGS \
        --out "$OUT/scaling.json" 2>"$OUT/scaling.log" | tee "$OUT/scaling.txt"
      status=$((status | PIPESTATUS[0]))
      ;;
    *) echo "unknown stage $s"; exit 2 ;;
  esac
done
exit "$status"
