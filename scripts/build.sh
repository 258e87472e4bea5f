#!/usr/bin/env bash
# Installs what Crest needs (scripts/setup.sh), then configures and builds it
# into ${CREST_BUILD_DIR:-build} with clang-22, lld and ccache.
# CREST_CMAKE_ARGS adds CMake options to the first configuration (the
# sanitizer build: scripts/sanitize.sh); CREST_BUILD_TARGETS names what to
# build (default: all).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CREST_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"

llvm=/usr/lib/llvm-22
# Let ccache share results between checkouts in different folders (CI builds
# a fresh clone elsewhere).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm/bin/lit" \
    -DCMAKE_C_COMPILER="$llvm/bin/clang" \
    -DCMAKE_CXX_COMPILER="$llvm/bin/clang++" \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    ${CREST_CMAKE_ARGS:-}
fi
ninja -C "$build" ${CREST_BUILD_TARGETS:-all}
