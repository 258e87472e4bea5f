#!/usr/bin/env bash
# The whole test suite under ASan and UBSan (docs/Reliability.md): installs
# the packages, configures ${CREST_SANITIZE_BUILD_DIR:-build-san} with
# CREST_SANITIZE=address,undefined and CREST_FUZZ=ON (the same build
# scripts/fuzz.sh fuzzes in), builds it, runs every lit and unit test and
# ends with one line "N passed, N failed[, N skipped]". Extra arguments go
# to lit (e.g. a test folder: build-san/test/Reliability).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CREST_SANITIZE_BUILD_DIR:-$root/build-san}"

"$root/scripts/setup.sh"
llvm=/usr/lib/llvm-22
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
    -DCREST_SANITIZE=address,undefined -DCREST_FUZZ=ON
fi
ninja -C "$build"

xml="$build/test-results.xml"
rm -f "$xml"
if [ $# -eq 0 ]; then
  set -- "$build/test" "$build/test/Unit"
fi
set +e
"$llvm/bin/lit" -sv --xunit-xml-output="$xml" "$@"
lit_status=$?
python3 "$root/scripts/summarize-tests.py" "$xml"
summary_status=$?
set -e
[ "$lit_status" -eq 0 ] && [ "$summary_status" -eq 0 ]
