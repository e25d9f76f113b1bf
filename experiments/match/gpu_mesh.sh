#!/usr/bin/env bash
# Matching over several GPUs of one host (issue 48), after
# `bash experiments/device/gpu_check.sh build`:
#   bash experiments/match/gpu_mesh.sh [scaling] [base] [profile]   (default: scaling profile)
# scaling: experiments/match/scaling.py on MATCH_DEVICES (default 1,2) with MATCH_SCALING_ARGS
#          ($OUT/match_mesh.json, .txt);
# base:    the same on .gpu/base.tar (a git archive of the change's base, built here, or
#          MATCH_BASE_PATH: a base already installed, e.g. by experiments/bfs/gpu_mesh.sh base at
#          /tmp/kcjax-mesh-base), for an A/B in one call ($OUT/match_mesh_base.json, .txt);
# profile: experiments/match/mesh_host_profile.py on MATCH_PROFILE_QUERIES, where a short
#          mesh call's host time goes ($OUT/match_mesh_profile.json, .txt).
# shellcheck source=experiments/device/preamble.sh
source "$(dirname "$0")/../device/preamble.sh"
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(scaling profile)
devices=${MATCH_DEVICES:-1,2}
scaling() {  # PYTHONPATH-prefix out-name
  PYTHONPATH=$1 timeout -s KILL "${MATCH_SCALING_TIMEOUT:-200}" "$PY" -P \
    experiments/match/scaling.py --devices "$devices" ${MATCH_SCALING_ARGS:-} \
    --out "$OUT/$2.json" >"$OUT/$2.txt" 2>&1
  local rc=$?
  grep -A40 "^graph " "$OUT/$2.txt" || tail -20 "$OUT/$2.txt"
  return $rc
}
for s in "${stages[@]}"; do
  echo "== $s ($(date +%T))"
  case "$s" in
    scaling) scaling "" match_mesh || status=1 ;;
    base)
      base=${MATCH_BASE_PATH:-/tmp/kcjax-match-base}
      if [[ -z ${MATCH_BASE_PATH:-} ]]; then
        build_base match || { status=1; tail -20 "$OUT/build_base.log"; continue; }
      fi
      scaling "$base" match_mesh_base || status=1
      ;;
    profile)
      timeout -s KILL "${MATCH_PROFILE_TIMEOUT:-120}" "$PY" -P experiments/match/mesh_host_profile.py \
        --queries ${MATCH_PROFILE_QUERIES:-hprd:query_dense_16_1 ca-AstroPh:query_dense_12_2} \
        --devices "${devices##*,}" --out "$OUT/match_mesh_profile.json" 2>&1 |
        tee "$OUT/match_mesh_profile.txt" | grep -v "^WARNING"
      [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
      ;;
    *) echo "unknown stage $s (scaling, base, profile)"; status=1 ;;
  esac
done
exit $status
