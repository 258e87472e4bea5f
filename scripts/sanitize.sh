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

CREST_BUILD_DIR="$build" \
  CREST_CMAKE_ARGS="-DCREST_SANITIZE=address,undefined -DCREST_FUZZ=ON" \
  "$root/scripts/build.sh"
llvm=/usr/lib/llvm-22

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
