#!/usr/bin/env python3
"""Runs crest-opt on every complete ```mlir example in the given Markdown files.

An example is complete when it defines a function (`func.func`); snippets
that only show one operation are skipped. Each example must parse and verify.
Prints one line per example and exits 1 if any fails or none was found.
"""
import re
import subprocess
import sys


def main(crest_opt, paths):
    checked = failed = 0
    for path in paths:
        text = open(path, encoding="utf-8").read()
        for match in re.finditer(r"```mlir\n(.*?)```", text, re.S):
            example = match.group(1)
            if "func.func" not in example:
                continue
            line = text.count("\n", 0, match.start()) + 2
            result = subprocess.run([crest_opt, "-", "-o", "/dev/null"],
                                    input=example, text=True,
                                    capture_output=True)
            checked += 1
            status = "ok" if result.returncode == 0 else "FAILED"
            print(f"{path}:{line}: {status}")
            if result.returncode != 0:
                failed += 1
                print(result.stderr, file=sys.stderr)
    print(f"{checked} examples checked, {failed} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
