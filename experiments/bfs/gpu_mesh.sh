#!/usr/bin/env bash
# The multi-device BFS on a machine of several GPUs (issue 47), after
# `bash experiments/device/gpu_check.sh build`:
#   bash experiments/bfs/gpu_mesh.sh [tests] [bench] [cmdbuf] [base] [big] [sanitize] [processes]   (default: tests bench)
# tests: tests/bfs/test_mesh.py's GPU and multi-device tests on the GPUs ($OUT/test_mesh.log;
#        MESH_TEST_K replaces the -k expression, e.g. "gpu" for the GPU tests alone);
# bench: experiments/bfs/mesh_scaling.py, Kronecker 24 and 26 on 1, 2 and 4 GPUs beside the
#        single-GPU kcjax.bfs ($OUT/bfs_mesh.json, .txt);
# cmdbuf: bench again with XLA's command buffers widened to loops, conditionals and
#        collectives (MESH_CMDBUF_FLAGS; $OUT/bfs_mesh_cmdbuf.json, .txt);
# base:  bench on .gpu/base.tar (a git archive of the change's base, built here) with
#        MESH_BASE_ARGS, for an A/B in one call ($OUT/bfs_mesh_base.json, .txt);
# processes: 2 processes x 2 GPUs under jax.distributed ($OUT/mesh_process{0,1}.log);
# sanitize: compute-sanitizer memcheck of the level steps' kernels ($OUT/sanitize_mesh.log);
# big:   scale 27 on 4 GPUs only ($OUT/bfs_mesh_big.json; MESH_BIG_ARGS replaces
#        "--scales 27 --devices 4", e.g. "--scales 28 --devices 4 --sources 16").
source "$(dirname "$0")/../device/preamble.sh"
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(tests bench)
for s in "${stages[@]}"; do
  echo "== $s ($(date +%T))"
  case "$s" in
    tests)
      timeout -s KILL "${MESH_TEST_TIMEOUT:-240}" "$PY" -P -m pytest -q -rf -x \
        tests/bfs/test_mesh.py -k "${MESH_TEST_K:-gpu or multidevice or one_device}" 2>&1 |
        tee "$OUT/test_mesh.log" | tail -25
      [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
      ;;
    bench)
      timeout -s KILL "${MESH_BENCH_TIMEOUT:-330}" "$PY" -P experiments/bfs/mesh_scaling.py \
        ${MESH_BENCH_ARGS:-} --out "$OUT/bfs_mesh.json" 2>"$OUT/bfs_mesh.log" |
        tee "$OUT/bfs_mesh.txt"
      [[ ${PIPESTATUS[0]} -eq 0 ]] || { status=1; tail -30 "$OUT/bfs_mesh.log"; }
      ;;
    cmdbuf)
      XLA_FLAGS="${XLA_FLAGS:-} ${MESH_CMDBUF_FLAGS:---xla_gpu_enable_command_buffer=FUSION,CUBLAS,CUBLASLT,CUSTOM_CALL,CUDNN,WHILE,CONDITIONAL,COLLECTIVES}" \
        timeout -s KILL "${MESH_BENCH_TIMEOUT:-330}" "$PY" -P experiments/bfs/mesh_scaling.py \
        ${MESH_CMDBUF_ARGS:-${MESH_BENCH_ARGS:-}} --out "$OUT/bfs_mesh_cmdbuf.json" \
        2>"$OUT/bfs_mesh_cmdbuf.log" | tee "$OUT/bfs_mesh_cmdbuf.txt"
      [[ ${PIPESTATUS[0]} -eq 0 ]] || { status=1; tail -30 "$OUT/bfs_mesh_cmdbuf.log"; }
      ;;
    base)
      build_base mesh || { status=1; tail -20 "$OUT/build_base.log"; continue; }
      PYTHONPATH=/tmp/kcjax-mesh-base timeout -s KILL "${MESH_BENCH_TIMEOUT:-330}" "$PY" -P \
        experiments/bfs/mesh_scaling.py ${MESH_BASE_ARGS:-${MESH_BENCH_ARGS:-}} \
        --out "$OUT/bfs_mesh_base.json" 2>"$OUT/bfs_mesh_base.log" | tee "$OUT/bfs_mesh_base.txt"
      [[ ${PIPESTATUS[0]} -eq 0 ]] || { status=1; tail -30 "$OUT/bfs_mesh_base.log"; }
      ;;
    big)
      timeout -s KILL "${MESH_BIG_TIMEOUT:-300}" "$PY" -P experiments/bfs/mesh_scaling.py \
        ${MESH_BIG_ARGS:---scales 27 --devices 4} --no-single --out "$OUT/bfs_mesh_big.json" \
        2>"$OUT/bfs_mesh_big.log" | tee "$OUT/bfs_mesh_big.txt"
      [[ ${PIPESTATUS[0]} -eq 0 ]] || { status=1; tail -30 "$OUT/bfs_mesh_big.log"; }
      ;;
    sanitize)
      # Only kcjax's kernels are instrumented (their names contain "kcjax").
      # Every error printed (--print-limit 0), then counted by kind: the API return codes of
      # NCCL's and XLA's set-up (209, 704) are expected; an access error in a kernel is not.
      XLA_PYTHON_CLIENT_PREALLOCATE=false timeout -s KILL "${MESH_SANITIZE_TIMEOUT:-240}" \
        compute-sanitizer --tool memcheck --kernel-name kns=kcjax --print-limit 0 \
        "$PY" -P experiments/bfs/mesh_sanitize_run.py >"$OUT/sanitize_mesh.log" 2>&1
      grep "^========= [A-Z]" "$OUT/sanitize_mesh.log" | sed 's/[0-9][0-9]* errors/N errors/' |
        sort | uniq -c | sort -rn | head -12
      ;;
    processes)
      # jax.distributed: 2 processes x 2 GPUs (NCCL), tests/bfs/_mesh_worker.py; both print
      # RESULT lines whose mesh distances must equal the single-device ones.
      port=$((20000 + RANDOM % 20000))
      for pid in 0 1; do
        CUDA_VISIBLE_DEVICES=$((2 * pid)),$((2 * pid + 1)) timeout -s KILL "${MESH_PROC_TIMEOUT:-180}" \
          "$PY" -P tests/bfs/_mesh_worker.py "127.0.0.1:$port" 2 "$pid" 90 \
          >"$OUT/mesh_process$pid.log" 2>&1 &
      done
      wait
      "$PY" - "$OUT" <<'PYEOF' || status=1
import json, pathlib, sys
rows = []
for pid in (0, 1):
    text = (pathlib.Path(sys.argv[1]) / f"mesh_process{pid}.log").read_text()
    found = [line for line in text.splitlines() if line.startswith("RESULT ")]
    if not found:
        print(f"process {pid}: no RESULT line; tail:\n" + text[-3000:])
        sys.exit(1)
    rows.append(json.loads(found[-1][7:]))
ok = all(r["mesh"] == r["single"] and r["devices"] == 4 for r in rows)
ok = ok and rows[0]["kron"] == rows[1]["kron"] and rows[0]["mesh"] == rows[1]["mesh"]
print("2 processes x 2 GPUs:", "distances equal" if ok else "MISMATCH", rows[0]["kron_entries"])
sys.exit(0 if ok else 1)
PYEOF
      ;;
    *) echo "unknown stage $s (tests, bench, cmdbuf, base, big, sanitize, processes)"; status=1 ;;
  esac
done
exit $status
