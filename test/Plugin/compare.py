#!/usr/bin/env python3
"""Runs one opt command line through crest-opt and through mlir-opt with
libCrestPlugin.so, and checks that both print the same.

usage: compare.py CREST_OPT MLIR_OPT PLUGIN [--expect-fail] -- ARGS...

The plugin run is `MLIR_OPT --load-dialect-plugin=PLUGIN ARGS`, the other
`CREST_OPT ARGS`. Both must succeed (or both fail, under --expect-fail) and
print byte-identical stdout and stderr. Then the plugin run's stdout and
stderr are passed on, for FileCheck, and the exit code is 0; otherwise the
differences are printed and the exit code is 1.
"""
import difflib
import subprocess
import sys


def main(argv):
    crest_opt, mlir_opt, plugin = argv[1:4]
    rest = argv[4:]
    expect_fail = "--expect-fail" in rest[: rest.index("--")]
    args = rest[rest.index("--") + 1:]
    runs = {}
    for name, cmd in (
        ("crest-opt", [crest_opt] + args),
        ("mlir-opt + plugin", [mlir_opt, "--load-dialect-plugin=" + plugin]
         + args),
    ):
        runs[name] = subprocess.run(cmd, capture_output=True)
    crest, plug = runs["crest-opt"], runs["mlir-opt + plugin"]
    ok = True
    for name, run in runs.items():
        if (run.returncode != 0) != expect_fail:
            expected = " (a failure was expected)" if expect_fail else ""
            print(f"compare.py: {name} exited with {run.returncode}{expected}",
                  file=sys.stderr)
            sys.stderr.write(run.stderr.decode(errors="replace"))
            ok = False
    for stream in ("stdout", "stderr"):
        a, b = getattr(crest, stream), getattr(plug, stream)
        if a != b:
            ok = False
            print(f"compare.py: the {stream} differs", file=sys.stderr)
            sys.stderr.writelines(difflib.unified_diff(
                a.decode(errors="replace").splitlines(True),
                b.decode(errors="replace").splitlines(True),
                "crest-opt", "mlir-opt + plugin", n=2))
    if not ok:
        return 1
    sys.stdout.buffer.write(plug.stdout)
    sys.stderr.buffer.write(plug.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
