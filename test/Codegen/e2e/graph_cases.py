"""Shared by the graph-case drivers of this directory (run_prologue.py,
run_row_prologue.py): the registry of named cases, the kernels a package
launches (from crest-run --describe) and the command line."""
import argparse
import os
import subprocess


def ty(shape, elt):
    """The MLIR tensor type of `shape` (a tuple) and element type `elt`."""
    return "tensor<" + "x".join(map(str, shape)) + "x" + elt + ">"


class Cases:
    """Named cases: @cases.case registers a function under its name with
    dashes for underscores."""

    def __init__(self):
        self.cases = {}

    def case(self, fn):
        self.cases[fn.__name__.replace("_", "-")] = fn
        return fn

    def main(self, run):
        """BIN_DIR TMP_DIR [--target CHIP] [--case NAME]...: calls
        run(name, target, bin_dir, tmp) for each case (default all) and
        returns the exit code, 1 if any returned False."""
        parser = argparse.ArgumentParser()
        parser.add_argument("bin")
        parser.add_argument("tmp")
        parser.add_argument("--target", default="gfx942")
        parser.add_argument("--case", action="append",
                            choices=sorted(self.cases))
        args = parser.parse_args()
        ok = True
        for name in args.case or self.cases:
            ok &= run(name, args.target, args.bin, args.tmp)
        return 0 if ok else 1


def launched_kernels(bin_dir, package):
    """The op lists ("cast+matmul") of the kernels `package` launches, in
    launch order, from crest-run --describe."""
    describe = subprocess.run(
        [os.path.join(bin_dir, "crest-run"), package, "--describe"],
        capture_output=True, text=True, check=True).stdout
    return [line.split("[")[1].split("]")[0] for line in describe.splitlines()
            if line.startswith("  ") and "code object" in line]
