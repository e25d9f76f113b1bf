# The shared start of the one-call GPU scripts under experiments/<family>/ (sourced, not
# run): strict mode, the repository root as the working directory, $OUT created, unbuffered
# Python, $PY (python3 unless set) and status=0 for the script's exit code.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[1]}")/../.." || exit 1
OUT=${OUT:-/tmp/kcjax-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
status=0
