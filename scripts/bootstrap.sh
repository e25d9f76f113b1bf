#!/usr/bin/env bash
# Sets up a virtual environment in $VENV (default .venv) and builds kcjax into
# it against the installed jaxlib. Works from nothing (only python3 and a C++
# compiler) and offline where jax is already installed for $PYTHON.
set -euo pipefail
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
  "$PYTHON" -m venv --system-site-packages "$VENV"
fi

# Install only what is missing: the GPU machine has no network but has all of it.
need=()
for pair in jax:jax numpy:numpy tqdm:tqdm pybind11:pybind11 \
            scikit_build_core:scikit-build-core pytest:pytest \
            networkx:networkx scipy:scipy hypothesis:hypothesis; do
  "$PY" -c "import ${pair%%:*}" 2>/dev/null || need+=("${pair#*:}")
done
if ! command -v cmake >/dev/null 2>&1 && ! "$PY" -c "import cmake" 2>/dev/null; then
  need+=(cmake ninja)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "bootstrap: installing ${need[*]}"
  "$PY" -m pip install -q "${need[@]}"
fi

# Build against the jaxlib in this environment (the FFI ABI is only backward
# compatible, so no isolated build with another jaxlib). Editable: the
# package is this checkout's kcjax/ (scikit-build-core's import redirect also
# serves the compiled extension from the environment), so Python started in
# the checkout imports the same package as Python started anywhere else.
# KCJAX_EDITABLE=0 installs a copy instead.
editable=(-e)
[ "${KCJAX_EDITABLE:-1}" = 0 ] && editable=()
"$PY" -m pip install -q --no-build-isolation --no-deps ${KCJAX_PIP_ARGS:-} "${editable[@]}" .
