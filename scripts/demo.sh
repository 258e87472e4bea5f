#!/usr/bin/env bash
# Crest's main job on a real example, from a fresh machine: installs the
# packages, builds Crest, and runs the furthest stage that exists today on
# examples/mlp.mlir: the graph is checked against each chip of the chip
# table (its precision must map onto the chip's matrix instructions), and
# an fp8 graph shows the diagnostic for a flavour a chip does not have.
# (Kernel codegen, the emulator and crest-run come with later milestones;
# see the status table in README.md.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CREST_BUILD_DIR:-$root/build}"
export CREST_BUILD_DIR="$build" CREST_BUILD_TARGETS=crest-opt

"$root/scripts/build.sh"
opt="$build/bin/crest-opt"

echo
echo "== examples/mlp.mlir attached to gfx942 and verified"
"$opt" "$root/examples/mlp.mlir" --crest-attach-target=chip=gfx942

echo
echo "== the same graph on every chip Crest knows"
for chip in gfx908 gfx90a gfx942 gfx950 gfx1100 gfx1201; do
  if "$opt" "$root/examples/mlp.mlir" --crest-attach-target=chip=$chip \
       -o /dev/null 2>/dev/null; then
    echo "  $chip: ok"
  else
    echo "  $chip: rejected"
  fi
done

echo
echo "== fp8 (FNUZ) graph: accepted on gfx942, rejected on gfx950 (OCP fp8)"
"$opt" "$root/examples/fp8-gfx942.mlir" --crest-attach-target=chip=gfx942 -o /dev/null
echo "  gfx942: ok"
if "$opt" "$root/examples/fp8-gfx942.mlir" --crest-attach-target=chip=gfx950 \
     --mlir-print-op-on-diagnostic=false -o /dev/null; then
  echo "  gfx950 unexpectedly accepted FNUZ fp8" >&2
  exit 1
fi
