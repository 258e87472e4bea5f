#!/usr/bin/env python3
"""Builds the seed corpora of Crest's fuzz targets (fuzz/, docs/Reliability.md).

    fuzz-corpus.py --tools BUILD/bin --out DIR [--shared ../shared]

writes DIR/<target>/ for each target from what the repository and the
machine hold: the tests' MLIR and ONNX text models, the ONNX conformance
models and tensors of Debian's libonnx-testdata, packages and code objects
compiled from examples/ with crest-compile, the tests' assembly kernels
assembled with llvm-mc and ld.lld, .npy files written with NumPy, and, where
../shared exists, its peers' code objects, models and reliability
reproducers. Also copies each target's regression inputs
(test/Fuzz/Inputs/<target>/). Files over --max-bytes are left out.
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM = "/usr/lib/llvm-22/bin"
ONNX_TESTDATA = "/usr/share/libonnx-testdata/data"
# The emulator target's first byte picks a chip (EmulatorFuzzer.cpp).
EMU_CHIPS = ["gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"]
TARGETS = ["onnx", "ir", "package", "code-object", "npy", "tensor-proto",
           "emulator"]


def walk(top, suffixes):
    for dirpath, _, files in os.walk(top):
        for f in sorted(files):
            if f.endswith(suffixes):
                yield os.path.join(dirpath, f)


class Corpus:
    def __init__(self, out, max_bytes):
        self.out = out
        self.max_bytes = max_bytes
        self.counts = {t: 0 for t in TARGETS}
        for t in TARGETS:
            os.makedirs(os.path.join(out, t), exist_ok=True)

    def add(self, target, data):
        if not data or len(data) > self.max_bytes:
            return
        name = hashlib.sha1(data).hexdigest()
        path = os.path.join(self.out, target, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
            self.counts[target] += 1

    def add_file(self, target, path):
        if os.path.getsize(path) <= self.max_bytes:
            with open(path, "rb") as f:
                self.add(target, f.read())


def assemble(source, tmp):
    """A test's assembly kernel as (chip, code object bytes, .text bytes)."""
    text = open(source, errors="replace").read()
    m = re.search(r'\.amdgcn_target\s+"amdgcn-amd-amdhsa--(gfx[0-9a-f]+)', text)
    if not m:
        return None
    chip = m.group(1)
    obj = os.path.join(tmp, "k.o")
    hsaco = os.path.join(tmp, "k.hsaco")
    code = os.path.join(tmp, "k.text")
    try:
        subprocess.run([LLVM + "/llvm-mc", "-triple=amdgcn-amd-amdhsa",
                        "-mcpu=" + chip, "-filetype=obj", source, "-o", obj],
                       check=True, capture_output=True, timeout=60)
        subprocess.run([LLVM + "/ld.lld", "-shared", obj, "-o", hsaco],
                       check=True, capture_output=True, timeout=60)
        subprocess.run([LLVM + "/llvm-objcopy", "-O", "binary",
                        "--only-section=.text", hsaco, code],
                       check=True, capture_output=True, timeout=60)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return None
    return chip, open(hsaco, "rb").read(), open(code, "rb").read()


def npy_seeds(corpus):
    try:
        import io
        import numpy as np
    except ImportError:
        return
    rng = np.random.default_rng(7)
    arrays = [
        rng.standard_normal((2, 3)).astype(np.float32),
        rng.standard_normal((4,)).astype(np.float16),
        rng.integers(-5, 5, (2, 2, 2)).astype(np.int32),
        rng.integers(0, 200, (3, 1)).astype(np.uint8),
        rng.integers(-9, 9, (5,)).astype(np.int64),
        np.asarray(rng.standard_normal((2, 3)), order="F").astype(np.float32),
        np.float32(3.5).reshape(()),
        np.zeros((0, 4), np.float32) + 1,
        rng.standard_normal((1, 2, 1, 2)).astype(">f4"),
    ]
    for a in arrays:
        buf = io.BytesIO()
        np.save(buf, a)
        corpus.add("npy", buf.getvalue())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tools", required=True, help="folder of crest-compile")
    p.add_argument("--out", required=True)
    p.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    p.add_argument("--max-bytes", type=int, default=1 << 20)
    args = p.parse_args()
    corpus = Corpus(args.out, args.max_bytes)

    # Regression inputs first: every crash ever found.
    for t in TARGETS:
        d = os.path.join(ROOT, "test", "Fuzz", "Inputs", t)
        if os.path.isdir(d):
            for f in walk(d, ("",)):
                corpus.add_file(t, f)

    for f in walk(os.path.join(ROOT, "test"), (".pbtxt",)):
        corpus.add_file("onnx", f)
    for top in (os.path.join(ROOT, "test"), os.path.join(ROOT, "examples")):
        for f in walk(top, (".mlir",)):
            corpus.add_file("ir", f)
    if os.path.isdir(ONNX_TESTDATA):
        for f in walk(ONNX_TESTDATA, (".onnx",)):
            corpus.add_file("onnx", f)
        for f in walk(ONNX_TESTDATA, (".pb",)):
            if os.path.getsize(f) <= 4096:
                corpus.add_file("tensor-proto", f)

    shared = args.shared
    if os.path.isdir(shared):
        for f in walk(shared, (".onnx",)):
            corpus.add_file("onnx", f)
        for f in walk(shared, (".hsaco", ".co")):
            corpus.add_file("code-object", f)
        for f in walk(os.path.join(shared, "reliability"), ("",)):
            name = os.path.basename(f)
            if name.endswith(".mlir"):
                corpus.add_file("ir", f)
            elif name.endswith(".onnx"):
                corpus.add_file("onnx", f)
            elif name.endswith(".npy"):
                corpus.add_file("npy", f)
            elif name.endswith(".crest"):
                corpus.add_file("package", f)

    with tempfile.TemporaryDirectory() as tmp:
        for f in walk(os.path.join(ROOT, "test"), (".s",)):
            built = assemble(f, tmp)
            if not built:
                continue
            chip, hsaco, text = built
            corpus.add("code-object", hsaco)
            if chip in EMU_CHIPS:
                # One launch byte per seed: 1 or 2 waves, timing on and off.
                for launch in (0x00, 0x01, 0x08, 0x15):
                    corpus.add("emulator",
                               bytes([EMU_CHIPS.index(chip), launch]) + text)
        compile_tool = os.path.join(args.tools, "crest-compile")
        for example in ("matmul-relu.mlir", "mlp.mlir", "attention.mlir",
                        "fp8-gfx942.mlir"):
            src = os.path.join(ROOT, "examples", example)
            for chip in ("gfx942", "gfx90a", "gfx950", "gfx1100"):
                out = os.path.join(tmp, "out.crest")
                r = subprocess.run([compile_tool, src, "--target=" + chip,
                                    "--emit=package", "-o", out],
                                   capture_output=True, timeout=600)
                if r.returncode == 0:
                    corpus.add_file("package", out)
                out = os.path.join(tmp, "out.hsaco")
                r = subprocess.run([compile_tool, src, "--target=" + chip,
                                    "--emit=hsaco", "-o", out],
                                   capture_output=True, timeout=600)
                if r.returncode != 0 or not os.path.isfile(out):
                    continue
                corpus.add_file("code-object", out)
                text = os.path.join(tmp, "out.text")
                if subprocess.run([LLVM + "/llvm-objcopy", "-O", "binary",
                                   "--only-section=.text", out, text],
                                  capture_output=True).returncode == 0:
                    code = open(text, "rb").read()[:8192]
                    corpus.add("emulator",
                               bytes([EMU_CHIPS.index(chip), 0x01]) + code)
        npy_seeds(corpus)

    for t in TARGETS:
        print("fuzz-corpus: %-12s %5d seeds" % (t, corpus.counts[t]))
    empty = [t for t in TARGETS if not os.listdir(os.path.join(args.out, t))]
    if empty:
        print("fuzz-corpus: no seeds for " + ", ".join(empty), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
