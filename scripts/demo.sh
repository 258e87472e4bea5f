#!/usr/bin/env bash
# Crest's main job on a real example, from a fresh machine: installs the
# packages, builds Crest, then
#  1. compiles examples/mlp.mlir (a two-layer perceptron) for gfx942 into an
#     HSA code object and prints the per-kernel report;
#  2. compiles the MLP's first layer (x * W1 + b1, ReLU: one fused kernel)
#     and runs it on the built-in AMDGPU emulator (there is no AMD GPU
#     here) at several wave interleavings, checking every output against
#     NumPy and that the LDS race detector finds nothing.
# (The host runtime and crest-run, which will run the whole graph, are the
# next milestone; see the status table in README.md.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CREST_BUILD_DIR:-$root/build}"
export CREST_BUILD_DIR="$build"
export CREST_BUILD_TARGETS="crest-opt crest-compile crest-emu"

"$root/scripts/build.sh"
out="$build/demo"
mkdir -p "$out"

echo
echo "== crest-compile examples/mlp.mlir --target=gfx942 --emit=hsaco --report"
"$build/bin/crest-compile" "$root/examples/mlp.mlir" --target=gfx942 \
  --emit=hsaco -o "$out/mlp.co" --report

echo
echo "== layer 1 of the MLP (8x256 * 256x128 f16, + bias, ReLU) on the emulator"
/usr/bin/python3 "$root/test/Codegen/e2e/run_matmul.py" --tmp "$out/layer1" \
  --chip gfx942 --m 8 --n 128 --k 256 --precision f16 --epilogue relu \
  --crest-opt "$build/bin/crest-opt" \
  --crest-compile "$build/bin/crest-compile" \
  --crest-emu "$build/bin/crest-emu"
