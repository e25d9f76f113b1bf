#!/usr/bin/env bash
# The GPU runs behind experiments/results/cliques, one device call per suite:
#
#   bash experiments/device/gpu_suite.sh check    # build, GPU tests, sanitizers, anchors table
#                                          # (CHECK_BENCH_ARGS: another table instead;
#                                          # NO_CPU_BENCH=1: without the CPU handlers' table)
#   bash experiments/device/gpu_suite.sh table2   # Table 2 analogue on the GPU, R-MAT at growing scales
#                                          # (TABLE2_GRAPHS, RMAT_GRAPHS, NO_AUTO: a part of it)
#   bash experiments/device/gpu_suite.sh study    # ablation, λ sweep, listing, all-k, k = 9/10, R-MAT
#   bash experiments/device/gpu_suite.sh verify   # build, GPU tests, KCMiner vs static_l2 (k = 4..8)
#                                          # and the anchors table, in one 10-minute call
#   bash experiments/device/gpu_suite.sh local    # build, GPU tests, sanitizers, per-vertex counts
#                                          # (KCMiner vs pivot, k = 4..8, every graph)
#   bash experiments/device/gpu_suite.sh bounds   # build, GPU tests, sanitizers, KCMiner k = 4, 5 with
#                                          # and without the max_degree hint, anchors table
#   bash experiments/device/gpu_suite.sh rmat-table  # every variant at k = 4..9 on a sparser R-MAT of
#                                          # scale 22 (RMAT_TABLE, default rmat22-2), and the
#                                          # per-vertex rows of ego-Facebook and com-dblp
#   bash experiments/device/gpu_suite.sh arena    # build, GPU tests, KCMiner vs static_l2 at k = 4..6
#                                          # on every graph and R-MAT 22 (edge factor 2)
#   bash experiments/device/gpu_suite.sh small    # short calls: per-kernel timelines (k = 4, 5) and the
#                                          # variants at k = 4..6 on every graph
#   bash experiments/device/gpu_suite.sh compare  # this tree against .gpu/base.tar (git archive of the
#                                          # change's base) and, with POLICY_SED (a sed script
#                                          # for a copy's policy.h), a policy variant: the
#                                          # same benchmark (COMPARE_ARGS, DEEP_ARGS; the
#                                          # variant: POLICY_ARGS, the base: BASE_ARGS) on
#                                          # each; NO_TEST=1: no tests
#   bash experiments/device/gpu_suite.sh families  # build, every family's GPU tests and sanitizer
#                                          # workloads (gpu_sanitize.sh; WORKLOADS: a subset)
#   bash experiments/device/gpu_suite.sh ncu      # build, Nsight Compute per kernel (NCU_ARGS: the
#                                          # workload, lanes_run.py; NCU_METRICS), as a table;
#                                          # NCU_SOURCE=1: also per-instruction counts
#                                          # (ncu_source.py)
#   bash experiments/device/gpu_suite.sh scaling       # 1 vs 2 (or more) GPUs: com-dblp (multi-GPU kind)
#   bash experiments/device/gpu_suite.sh scaling-rmat  # the same on R-MAT scale 22, round-robin split
#   bash experiments/device/gpu_suite.sh mesh     # 4-GPU kinds (issue 48): k-cliques by enumeration,
#                                          # pivot and all sizes (scaling.py --suite mesh) and the
#                                          # long matching queries (match/scaling.py) on 1, 2, 4
#                                          # devices (DEVICES), in about 7 minutes; needs
#                                          # .gpu/graphs and .gpu/matching
#   DEVICES=1,2,4 bash experiments/device/gpu_suite.sh scaling-many  # 4/8-GPU kinds: com-dblp and
#                                                # R-MAT 22 (not with NO_RMAT=1), both splits,
#                                                # the given device counts
#
# Each part writes under $OUT/<part>/ (see gpu_check.sh); everything is packed
# into $OUT/results.tgz at the end (the device tool returns few files).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT_OUT=${OUT:-/tmp/kcjax-out}
mkdir -p "$ROOT_OUT"
ALL="email-Enron ca-CondMat wiki-Vote cit-HepTh com-amazon soc-Epinions1 ca-AstroPh com-dblp ego-Facebook"
# The same graphs, the heaviest at k = 9 last (a time limit cuts them first).
TABLE2="email-Enron ca-CondMat wiki-Vote cit-HepTh com-amazon soc-Epinions1 ca-AstroPh ego-Facebook com-dblp"

part() {  # part NAME STAGES... (environment passed through)
  local name=$1
  shift
  OUT="$ROOT_OUT/$name" bash experiments/device/gpu_check.sh "$@"
}

build_test_sanitize() {  # build, tests/cliques/test_gpu.py and both sanitizers, with their summaries
  part build build
  TEST_TIMEOUT=230 part test test
  grep -E "passed|failed|error" "$ROOT_OUT/test/test_gpu.log" | tail -3
  SANITIZE_TIMEOUT=90 part sanitize sanitize
  grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|hazards\]|ffi/cuda/" \
    "$ROOT_OUT"/sanitize/sanitize_*.log | sort | uniq -c | head -20
}

other_build() {  # other_build NAME SRC: builds SRC into /tmp/kcjax-NAME (pip --target)
  (cd "$2" && KCJAX_CUDA=ON python3 -m pip install -q --no-build-isolation --no-deps \
    --target "/tmp/kcjax-$1" -Cbuild-dir="/tmp/kcjax-build-$1" .) >"$ROOT_OUT/build_$1.log" 2>&1 ||
    { echo "build $1 failed"; tail -20 "$ROOT_OUT/build_$1.log"; }
}

case "${1:-}" in
  compare)
    part build build
    others=()
    if [[ -f .gpu/base.tar ]]; then
      rm -rf /tmp/kcjax-src-base && mkdir -p /tmp/kcjax-src-base
      tar -xf .gpu/base.tar -C /tmp/kcjax-src-base
      ln -sfn "$PWD/.gpu" /tmp/kcjax-src-base/.gpu  # its benchmark reads the graphs there
      other_build base /tmp/kcjax-src-base &
      others+=(base)
    fi
    if [[ -n ${POLICY_SED:-} ]]; then
      rm -rf /tmp/kcjax-src-policy && mkdir -p /tmp/kcjax-src-policy
      tar --exclude=./.gpu --exclude=./.venv --exclude=./build -cf - . |
        tar -xf - -C /tmp/kcjax-src-policy
      sed -i "$POLICY_SED" /tmp/kcjax-src-policy/ffi/include/kcjax/cliques/policy.h
      diff <(sed "$POLICY_SED" ffi/include/kcjax/cliques/policy.h) ffi/include/kcjax/cliques/policy.h
      other_build policy /tmp/kcjax-src-policy &
      others+=(policy)
    fi
    if [[ -z ${NO_TEST:-} ]]; then
      TEST_TIMEOUT=${COMPARE_TEST_TIMEOUT:-150} part test test
      grep -E "passed|failed|error" "$ROOT_OUT/test/test_gpu.log" | tail -3
    fi
    wait
    args=${COMPARE_ARGS:-"--graphs $ALL --ks 6-8 --methods kcminer static_l2 --repeats 5 --budget 1"}
    # COMPARE_STAGE=scaling: scaling.py (COMPARE_ARGS are its arguments) instead of bench.py.
    stage=${COMPARE_STAGE:-bench}
    export SCALING_TIMEOUT=${COMPARE_TIMEOUT:-150} BENCH_TIMEOUT=${COMPARE_TIMEOUT:-150}
    SCALING_ARGS="$args" BENCH_ARGS="$args" part tree "$stage" >/dev/null
    [[ -n ${DEEP_ARGS:-} ]] && BENCH_TIMEOUT=60 BENCH_ARGS="$DEEP_ARGS" part tree_deep bench
    runs=("tree=$ROOT_OUT/tree/$stage.json" "tree=$ROOT_OUT/tree_deep/bench.json")
    for o in "${others[@]}"; do
      oargs=$args
      [[ $o == policy ]] && oargs=${POLICY_ARGS:-$args}
      [[ $o == base ]] && oargs=${BASE_ARGS:-$args}
      # The base runs its own benchmark script (its API may differ from this tree's).
      script=
      [[ $o == base ]] && script=$(ls /tmp/kcjax-src-base/experiments/{cliques/,}bench.py 2>/dev/null | head -1)
      PYTHONPATH=/tmp/kcjax-$o BENCH_SCRIPT=$script SCALING_ARGS="$oargs" BENCH_ARGS="$oargs" \
        part "$o" "$stage" >/dev/null
      [[ -n ${DEEP_ARGS:-} && $o == base ]] &&
        PYTHONPATH=/tmp/kcjax-$o BENCH_SCRIPT=$script BENCH_TIMEOUT=60 BENCH_ARGS="$DEEP_ARGS" \
          part base_deep bench
      runs+=("$o=$ROOT_OUT/$o/$stage.json" "$o=$ROOT_OUT/${o}_deep/bench.json")
    done
    python3 -P experiments/cliques/compare.py "${runs[@]}" --out "$ROOT_OUT/compare.json"
    ;;
  families)
    # Every family's GPU tests (CPU == CUDA, ground truth) and its sanitizer
    # workload under memcheck, racecheck and synccheck (gpu_sanitize.sh; WORKLOADS
    # narrows the list).
    OUT="$ROOT_OUT/families" bash experiments/device/gpu_sanitize.sh
    ;;
  ncu)
    # Nsight Compute metrics per kernel launch (NCU_ARGS: lanes_run.py's
    # arguments, NCU_METRICS: the metrics, NCU_FILTER: a kernel-name regex),
    # as a table (ncu_table.py); NCU_SOURCE=1 adds SASS-level counts.
    part build build
    part ncu ncu
    python3 -P experiments/tools/ncu_table.py "$ROOT_OUT/ncu/ncu.csv" --out "$ROOT_OUT/ncu/ncu.json"
    ;;
  check)
    part build build
    # The CPU handlers and dense JAX on the host's cores (JAX_PLATFORMS=cpu),
    # beside the GPU stages (pinned to the other half of the cores); not
    # with NO_CPU_BENCH=1.
    cpu_bench=
    if [[ -z ${NO_CPU_BENCH:-} ]]; then
      mkdir -p "$ROOT_OUT/table2_cpu"
      JAX_PLATFORMS=cpu PYTHONUNBUFFERED=1 taskset -c 8-15 timeout "${CPU_BENCH_TIMEOUT:-420}" \
        python3 -P experiments/cliques/bench.py --graphs $TABLE2 --ks 4-9 --methods kcminer pivot dense \
        --repeats 3 --budget 10 --out "$ROOT_OUT/table2_cpu/bench.json" \
        >"$ROOT_OUT/table2_cpu/bench.txt" 2>"$ROOT_OUT/table2_cpu/bench.log" &
      cpu_bench=$!
    fi
    TEST_TIMEOUT=230 part test test
    grep -E "passed|failed|error" "$ROOT_OUT/test/test_gpu.log" | tail -3
    SANITIZE_TIMEOUT=80 part sanitize sanitize
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|hazards\]|ffi/cuda/" \
      "$ROOT_OUT"/sanitize/sanitize_*.log | sort | uniq -c | head -20
    BENCH_TIMEOUT=${CHECK_BENCH_TIMEOUT:-200} \
      BENCH_ARGS=${CHECK_BENCH_ARGS:-"--graphs $ALL --ks 4-8 --methods kcminer pivot auto"} \
      part anchors bench
    if [[ -n $cpu_bench ]]; then
      wait "$cpu_bench"
      tail -3 "$ROOT_OUT/table2_cpu/bench.log"
    fi
    ;;
  table2)
    # Table 2 analogue: every enumeration variant and dense JAX on the GPU,
    # k = 4..9, then R-MAT at growing scales (cost growth with size).
    part build build
    BENCH_TIMEOUT=${TABLE2_TIMEOUT:-330} BENCH_ARGS="--graphs ${TABLE2_GRAPHS:-$TABLE2} --ks 4-9 --methods kcminer static_l1 \
      static_l2 thread warp binary_search dense --repeats 3 --budget 8" part table2 bench
    BENCH_TIMEOUT=${RMAT_TIMEOUT:-130} BENCH_ARGS="--graphs ${RMAT_GRAPHS:-rmat16 rmat18 rmat20 rmat22} --ks 4-6 \
      --methods kcminer pivot binary_search --repeats 3 --budget 20" part rmat_scales bench
    # method="auto" (eager count_cliques) beside the methods it picks, small k.
    if [[ -z ${NO_AUTO:-} ]]; then
      BENCH_TIMEOUT=60 BENCH_ARGS="--graphs $ALL --ks 4-6 --methods kcminer pivot auto" \
        part auto bench
    fi
    ;;
  verify)
    part build build
    TEST_TIMEOUT=200 part test test
    grep -E "passed|failed|error" "$ROOT_OUT/test/test_gpu.log" | tail -3
    BENCH_TIMEOUT=170 BENCH_ARGS="--graphs $ALL --ks 4-8 --methods kcminer static_l2 --repeats 3 \
      --budget 8" part variants bench >/dev/null
    BENCH_TIMEOUT=170 BENCH_ARGS="--graphs $ALL --ks 4-8 --methods kcminer pivot auto" \
      part anchors bench
    ;;
  local)
    build_test_sanitize
    BENCH_TIMEOUT=${LOCAL_TIMEOUT:-150} BENCH_ARGS="--graphs $ALL --ks 4-8 --methods local \
      local_pivot --repeats 5 --budget 10" part local bench
    ;;
  bounds)
    # Solve kernels planned from the hint (device-side class bounds) against
    # the classes read back first (--no-hint), side by side in one call.
    build_test_sanitize
    BENCH_TIMEOUT=60 BENCH_ARGS="--graphs $ALL --ks 4-5 --methods kcminer static_l2 --repeats 7" \
      part hint bench >/dev/null
    BENCH_TIMEOUT=60 BENCH_ARGS="--graphs $ALL --ks 4-5 --methods kcminer static_l2 --repeats 7 \
      --no-hint" part nohint bench >/dev/null
    BENCH_TIMEOUT=${ANCHORS_TIMEOUT:-200} BENCH_ARGS="--graphs $ALL --ks 4-8 --methods kcminer \
      pivot auto" part anchors bench
    ;;
  rmat-table)
    # The default R-MAT 22 (edge factor 16) has 1.2e11 4-cliques and about
    # 20x more per size: k = 9 is out of reach of enumeration. Edge factor 2
    # keeps scale 22 (8 M edges) with counts every variant can reach (CPU
    # pivot at scales 16, 18, 20: 3.8e5, 3.0e7, 1.6e9 9-cliques).
    part build build
    BENCH_TIMEOUT=120 BENCH_ARGS="--graphs ego-Facebook com-dblp --ks 4-8 --methods local \
      local_pivot --repeats 5 --budget 10" part local bench >/dev/null
    BENCH_TIMEOUT=${RMAT_TABLE_TIMEOUT:-380} BENCH_ARGS="--graphs ${RMAT_TABLE:-rmat22-2} --ks 4-9 \
      --methods kcminer static_l2 static_l1 warp thread binary_search pivot --repeats 3 \
      --budget 40" part rmat_table bench
    ;;
  arena)
    part build build
    TEST_TIMEOUT=230 part test test
    grep -E "passed|failed|error" "$ROOT_OUT/test/test_gpu.log" | tail -3
    BENCH_TIMEOUT=150 BENCH_ARGS="--graphs $ALL rmat22-2 --ks 4-6 --methods kcminer static_l2 \
      --repeats 7" part variants bench
    ;;
  small)
    # Where the span of a sub-millisecond count goes (timeline.py), and the
    # variants that compete with KCMiner there.
    part build build
    mkdir -p "$ROOT_OUT/timeline"
    timeout 120 python3 -P experiments/cliques/timeline.py --graphs email-Enron wiki-Vote ego-Facebook \
      ca-CondMat com-dblp --ks 4 5 --methods kcminer binary_search static_l2 \
      --out "$ROOT_OUT/timeline/timeline.json" >"$ROOT_OUT/timeline/timeline.txt" 2>&1
    grep "^##" "$ROOT_OUT/timeline/timeline.txt"
    BENCH_TIMEOUT=150 BENCH_ARGS="--graphs $ALL --ks 4-6 --methods kcminer kcminer@0 static_l2 \
      binary_search auto --repeats 5" part small bench
    ;;
  study)
    part build build
    BENCH_TIMEOUT=150 BENCH_ARGS="--graphs email-Enron cit-HepTh ca-AstroPh com-dblp --ks 5-8 \
      --methods kcminer static_l1 static_l2 thread warp binary_search --budget 12 --repeats 3" \
      part ablation bench
    BENCH_TIMEOUT=90 BENCH_ARGS="--graphs soc-Epinions1 ca-AstroPh com-dblp ego-Facebook --ks 6-7 \
      --methods kcminer@0 kcminer@0.1 kcminer@0.25 kcminer@0.5 kcminer@1.01 --repeats 3" \
      part lambda bench
    BENCH_TIMEOUT=60 BENCH_ARGS="--graphs com-dblp --ks 3-10 --methods allk pivot --repeats 5" \
      part allk bench
    BENCH_TIMEOUT=60 BENCH_ARGS="--graphs com-dblp --ks 5-6 --methods list --repeats 3" \
      part listing bench
    BENCH_TIMEOUT=70 BENCH_ARGS="--graphs com-dblp --ks 9-10 --methods kcminer pivot --repeats 3 \
      --budget 200" part deep bench
    BENCH_TIMEOUT=110 BENCH_ARGS="--graphs rmat22 --ks 4-9 --methods kcminer pivot --repeats 3 \
      --budget 15" part rmat bench
    ;;
  scaling)
    part build build
    SCALING_TIMEOUT=300 SCALING_ARGS="--graphs com-dblp --ks 5-8" part scaling scaling
    BENCH_TIMEOUT=80 BENCH_ARGS="--graphs com-dblp --ks 9 --methods kcminer --repeats 1 \
      --no-device-timer" part deep bench
    ;;
  scaling-rmat)
    # Round-robin only: the committed run predates the balanced split's bound
    # for graphs with billions of wedges (distributed.split_sizes).
    part build build
    SCALING_TIMEOUT=170 SCALING_ARGS="--graphs rmat22 --ks 4-5 --repeats 1 \
      --strategies round_robin --budget 30" part scaling_rmat scaling
    ;;
  mesh)
    part build build
    part mesh mesh
    ;;
  scaling-many)
    part build build
    SCALING_TIMEOUT=150 SCALING_ARGS="--graphs com-dblp --ks 5-8 --devices ${DEVICES:-1,2,4,8}" \
      part scaling scaling
    if [[ -z ${NO_RMAT:-} ]]; then
      SCALING_TIMEOUT=260 SCALING_ARGS="--graphs rmat22 --ks 4-6 --repeats 1 --budget 40 \
        --devices ${DEVICES:-1,2,4,8}" part scaling_rmat scaling
    fi
    ;;
  *)
    echo "usage: $0 compare|families|check|table2|study|verify|local|bounds|rmat-table|arena|small|scaling|scaling-rmat|scaling-many|mesh" >&2
    exit 2
    ;;
esac
tar czf /tmp/results.tgz -C "$ROOT_OUT" . && mv /tmp/results.tgz "$ROOT_OUT/results.tgz"
find "$ROOT_OUT" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
