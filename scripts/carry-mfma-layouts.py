#!/usr/bin/env python3
"""Writes the subset of ../shared/mfma-layouts that Crest's unit tests read
into test/Inputs/mfma-layouts, so that a fresh clone runs them.

Kept: the top-level keys, every instruction's `properties`, and the A, B and
D layouts of the dense instructions (C equals D, `C_equals_D`). Dropped: the
tool's `detail` and `derived` text, the sparse and OPSEL variants' layouts.
Usage: scripts/carry-mfma-layouts.py [shared-dir]
"""
import json
import os
import sys

FILES = ["cdna1", "cdna2", "cdna3", "rdna3", "rdna4"]
KEPT_MATRICES = ("A", "B", "D", "C_equals_D")


def subset(data):
    for inst in data["instructions"].values():
        inst.pop("detail", None)
        inst.pop("derived", None)
        if inst["properties"]["sparse"]:
            inst.pop("layouts", None)
            continue
        for layout in inst["layouts"].values():
            for key in list(layout):
                if key not in KEPT_MATRICES:
                    del layout[key]
    return data


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        root, "..", "shared")
    out = os.path.join(root, "test", "Inputs", "mfma-layouts")
    for name in FILES:
        with open(os.path.join(shared, "mfma-layouts", name + ".json")) as f:
            data = subset(json.load(f))
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(data, f, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main()
