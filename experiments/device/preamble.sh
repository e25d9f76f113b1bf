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

# build_base NAME: installs .gpu/base.tar (a git archive of a change's base) into
# /tmp/kcjax-NAME-base (put it first on PYTHONPATH to run it), its sources in
# /tmp/kcjax-NAME-base-src beside a link to this tree's .gpu; log: $OUT/build_base.log.
build_base() {
  local src=/tmp/kcjax-$1-base-src target=/tmp/kcjax-$1-base
  rm -rf "$src" "$target" && mkdir -p "$src"
  tar -xf .gpu/base.tar -C "$src"
  ln -sfn "$PWD/.gpu" "$src/.gpu"
  (cd "$src" && KCJAX_CUDA=${KCJAX_CUDA:-ON} "$PY" -m pip install -q --no-build-isolation \
    --no-deps --target "$target" -Cbuild-dir="/tmp/kcjax-$1-build-base" .) \
    >"$OUT/build_base.log" 2>&1
}
