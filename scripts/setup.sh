#!/usr/bin/env bash
# Installs every Debian package Crest needs to build and test. Idempotent:
# packages already present are not reinstalled and apt is not touched at all
# when nothing is missing. Works as root or through sudo.
set -euo pipefail

PACKAGES=(
  # Toolchain and MLIR/LLVM 22 (headers, static libs, CMake packages, tools).
  cmake ninja-build ccache
  clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # Sanitizer and libFuzzer runtimes: the fuzz targets (fuzz/) and the
  # sanitizer build (CREST_SANITIZE, docs/Reliability.md).
  libclang-rt-22-dev
  # clang-offload-bundler, for tests that compile HIP programs.
  clang-tools-22
  liblld-22-dev zlib1g-dev libzstd-dev
  # The ONNX importer (protobuf classes of ONNX models) and the ONNX
  # conformance test data.
  libonnx-dev libprotobuf-dev libonnx-testdata
  # Unit tests.
  libgtest-dev
  # HIP runtime headers (loaded with dlopen at run time) and device libraries.
  libamdhip64-dev rocm-device-libs
  # Tests and scripts (Debian's python3, which lit runs under, with NumPy
  # for .npy test data and host references).
  python3 python3-numpy
  # The tests of the crest Python package (test/Python; without it they run
  # under unittest).
  python3-pytest
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "setup: missing packages (${missing[*]}) and not root, and sudo is not installed" >&2
    exit 1
  fi
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
