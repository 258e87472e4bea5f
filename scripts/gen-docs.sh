#!/usr/bin/env bash
# Regenerates docs/reference/ from the sources: the dialect and pass
# reference from ODS (mlir-tblgen's doc generators, `ninja mlir-doc`) and the
# chip table from lib/Target/ChipTable.cpp (crest-chips).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CREST_BUILD_DIR:-$root/build}"
CREST_BUILD_DIR="$build" CREST_BUILD_TARGETS="mlir-doc crest-chips" \
  "$root/scripts/build.sh"
out="$root/docs/reference"
mkdir -p "$out"
cp "$build/docs/Dialects/CrestDialect.md" "$out/CrestDialect.md"
cp "$build/docs/Passes/CrestPasses.md" "$out/CrestPasses.md"
cp "$build/docs/Passes/CrestCodegenPasses.md" "$out/CrestCodegenPasses.md"
cp "$build/docs/Passes/CrestConversionPasses.md" "$out/CrestConversionPasses.md"
cp "$build/docs/Passes/CrestCodegenTransformsPasses.md" "$out/CrestCodegenTransformsPasses.md"
"$build/bin/crest-chips" > "$out/ChipTable.md"
echo "gen-docs: wrote $out"
