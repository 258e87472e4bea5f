#!/usr/bin/env python3
"""Compares the operators docs/Onnx.md lists with the importer's registry.

usage: check_supported_ops.py ONNX_MD DIAGNOSTICS

DIAGNOSTICS is crest-translate's output for a model with an unsupported
operator: its "supported operators: A, B, ..." list is the registry's
(lib/Import/Onnx/Registry.h). The first column of the table under
"## Operators" in ONNX_MD must name the same operators, each once.
"""
import re
import sys


def documented(path):
    text = open(path, encoding="utf-8").read()
    section = text.split("## Operators", 1)[1].split("\n## ", 1)[0]
    names = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or cells[0] in ("ONNX", "") or \
                set(cells[0]) <= set("-"):
            continue
        names += [n.strip() for n in cells[0].split(",")]
    return names


def main(md, diagnostics):
    match = re.search(r"supported operators: (.*)", open(diagnostics).read())
    if not match:
        sys.exit("no list of supported operators in " + diagnostics)
    registry = [n.strip() for n in match.group(1).split(",")]
    docs = documented(md)
    ok = True
    for name in sorted(set(docs)):
        if docs.count(name) > 1:
            print(f"{name}: listed {docs.count(name)} times in {md}")
            ok = False
    for name in sorted(set(registry) - set(docs)):
        print(f"{name}: registered but not in {md}")
        ok = False
    for name in sorted(set(docs) - set(registry)):
        print(f"{name}: in {md} but not registered")
        ok = False
    print(f"{len(registry)} registered, {len(set(docs))} documented: "
          + ("match" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
