#!/usr/bin/env bash
# Crest's main job on a real example, from a fresh machine: installs the
# packages, builds Crest, then
#  1. generates the inputs of examples/transformer-block.mlir (a post-LN
#     transformer encoder block: 4-head self-attention, GELU feed-forward,
#     residuals, two layer norms; deterministic, non-zero) and NumPy's
#     float64 evaluation of the block;
#  2. compiles the graph for gfx942 into a .crest package (fused MFMA,
#     softmax, layer-norm, reduction and elementwise kernels; the per-kernel
#     report);
#  3. runs the package with crest-run --device=auto --verify --report: on an
#     AMD GPU of that chip through HIP, else on Crest's AMDGPU emulator with
#     its LDS race detector on (one line says which and why), checking the
#     output against the host reference evaluator; on the emulator the
#     report's time is the timing model's (docs/Timing.md): the modelled us
#     and bound of each kernel, and the block's total with launch overheads;
#  4. runs it on the emulator at two other wave interleavings;
#  5. compares the output with NumPy's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CREST_BUILD_DIR:-$root/build}"
export CREST_BUILD_DIR="$build"
export CREST_BUILD_TARGETS="crest-compile crest-run"

"$root/scripts/build.sh"
out="$build/demo"
mkdir -p "$out"
bin="$build/bin"
graph="$root/examples/transformer-block.mlir"

echo
echo "== inputs: examples/transformer_block_inputs.py $out"
/usr/bin/python3 "$root/examples/transformer_block_inputs.py" "$out" --expected
inputs=()
for name in x wq wk wv wo ln1_scale ln1_bias w1 b1 w2 b2 ln2_scale ln2_bias; do
  inputs+=(--input "$name=$out/$name.npy")
done

echo
echo "== crest-compile examples/transformer-block.mlir --target=gfx942 -o block.crest --report"
"$bin/crest-compile" "$graph" --target=gfx942 -o "$out/block.crest" --report

echo
echo "== crest-run block.crest --device=auto --verify --report"
"$bin/crest-run" "$out/block.crest" --device=auto "${inputs[@]}" \
  --output "y=$out/y.npy" --verify --report 2>&1

echo
echo "== the emulator at two more wave interleavings (race detector on)"
for schedule in "--emu-quantum=1" "--emu-seed=7 --emu-quantum=3"; do
  # shellcheck disable=SC2086
  "$bin/crest-run" "$out/block.crest" --device=emu $schedule \
    "${inputs[@]}" --verify | sed -n "s/^verify: /$schedule: verify: /p"
done

echo
echo "== NumPy"
/usr/bin/python3 - "$out/y.npy" "$out/expected.npy" <<'EOF'
import sys
import numpy as np
y = np.load(sys.argv[1]).astype(np.float64)
want = np.load(sys.argv[2]).astype(np.float64)
err = float(np.abs(y - want).max())
ok = y.shape == want.shape and err <= 2e-3
print(f"y {list(y.shape)}: max |y| {np.abs(want).max():.3f}, max abs "
      f"difference from NumPy's float64 block {err:.2e}: "
      f"{'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
EOF
