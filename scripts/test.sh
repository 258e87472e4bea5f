#!/usr/bin/env bash
# The whole test suite from a fresh machine: installs the packages, builds
# Crest, runs every lit test and every unit test (through lit), and ends with
# one line "N passed, N failed[, N skipped]". Exits non-zero on any failure
# or when no test ran.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CREST_BUILD_DIR:-$root/build}"
export CREST_BUILD_DIR="$build"

"$root/scripts/build.sh"

xml="$build/test-results.xml"
rm -f "$xml"
set +e
/usr/lib/llvm-22/bin/lit -sv --xunit-xml-output="$xml" \
  "$build/test" "$build/test/Unit"
lit_status=$?
python3 "$root/scripts/summarize-tests.py" "$xml"
summary_status=$?
set -e
[ "$lit_status" -eq 0 ] && [ "$summary_status" -eq 0 ]
