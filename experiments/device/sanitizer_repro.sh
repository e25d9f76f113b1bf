#!/usr/bin/env bash
# Why compute-sanitizer ended jax processes with a segmentation fault: a minimal
# program (no kcjax: one eager op, then a second jitted program compiled while the
# tool runs, then a sort, which XLA autotunes) under memcheck with one setting
# changed at a time. Prints one line per variant (exit code, the tool's summary)
# and writes each log to $OUT/repro_<variant>.log. REPRO_VARIANTS names a subset.
#
#   OUT=/tmp/out bash experiments/device/sanitizer_repro.sh
set -uo pipefail
OUT=${OUT:-/tmp/kcjax-out}
mkdir -p "$OUT"
PROGRAM='
import jax, jax.numpy as jnp
x = jnp.arange(1 << 16, dtype=jnp.float32)
print("eager", float(x.sum()))
f = jax.jit(lambda v: (v * 2.0).sum())
print("jit", float(f(x)))
g = jax.jit(lambda v: jnp.sort(-v)[:4])
print("sort", g(x))
'
run() {  # run NAME ENV... : the program under memcheck with ENV set
  local name=$1
  shift
  [[ -z ${REPRO_VARIANTS:-} || " $REPRO_VARIANTS " == *" $name "* ]] || return 0
  env "$@" timeout -s KILL "${REPRO_TIMEOUT:-120}" compute-sanitizer --tool memcheck \
    ${REPRO_TOOL_ARGS:-} python3 -c "$PROGRAM" >"$OUT/repro_$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc $(grep -hE "ERROR SUMMARY" "$OUT/repro_$name.log" | tail -1)" |
    tee -a "$OUT/repro_summary.txt"
}
: >"$OUT/repro_summary.txt"
compute-sanitizer --version | tail -1 | tee -a "$OUT/repro_summary.txt"
run default X=1
run no_prealloc XLA_PYTHON_CLIENT_PREALLOCATE=false
run no_autotune XLA_PYTHON_CLIENT_PREALLOCATE=false XLA_FLAGS=--xla_gpu_autotune_level=0
run no_cmdbuf XLA_PYTHON_CLIENT_PREALLOCATE=false XLA_FLAGS=--xla_gpu_enable_command_buffer=
run no_autotune_no_cmdbuf XLA_PYTHON_CLIENT_PREALLOCATE=false \
  "XLA_FLAGS=--xla_gpu_autotune_level=0 --xla_gpu_enable_command_buffer="
run one_compile_thread XLA_PYTHON_CLIENT_PREALLOCATE=false \
  "XLA_FLAGS=--xla_gpu_force_compilation_parallelism=1"
run lazy_loading XLA_PYTHON_CLIENT_PREALLOCATE=false CUDA_MODULE_LOADING=EAGER
