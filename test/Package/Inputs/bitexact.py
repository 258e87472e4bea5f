"""Shared by the check_*.py NumPy oracles of test/Package: compares the
outputs a package run wrote against the values NumPy computed, bit-exact
(the tests pick values that are multiples of a power of two, far from
f32's rounding), and prints one line per output for FileCheck."""
import numpy as np


def compare(want, paths):
    """want: name -> expected array, in the order of paths (.npy files).
    Returns the process exit code: 0 when every output is equal."""
    ok = len(want) == len(paths)
    for (name, value), path in zip(want.items(), paths):
        got = np.load(path).astype(np.float64)
        good = got.shape == value.shape and np.array_equal(got, value)
        ok &= good
        print("%s shape %s: %s" % (name, got.shape,
                                   "equal" if good else "DIFFERENT"))
    return 0 if ok else 1


def run(argv, x, want):
    """The command line of a check_*.py oracle: `input X.npy` writes the
    graph's input x (f32); `check OUT.npy...` compares the outputs against
    want(x), a name -> array dict in the graph's result order."""
    if argv[1] == "input":
        np.save(argv[2], x.astype(np.float32))
        return 0
    return compare(want(x), argv[2:])
