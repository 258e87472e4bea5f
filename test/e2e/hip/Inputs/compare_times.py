#!/usr/bin/env python3
"""compare_times.py HIP_REPORT EMU_REPORT

Checks that the per-kernel times of `crest-run --device=hip --report` on
libcrest-hip.so with CREST_HIP_TIMING=1 (HIP event times, in ms with three
decimals) are the timing model's times from `crest-run --device=emu
--report` (the "model (us)" column, without launch overhead) plus the
model's launch overhead per launch (from the report's total line): to
within the 0.5 us of the HIP report's rounding. Prints
"N kernels: HIP event times = modelled times" or the differences (exit 1).
"""
import re
import sys


def rows(text, time_column):
    """kernel name -> time, from the table under the report's header."""
    lines = text.splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("#   kernel"))
    names = lines[header]
    start = names.index(time_column)
    out = {}
    for line in lines[header + 1:]:
        if not re.match(r"\d+\s", line):
            break
        fields = line.split()
        out[fields[1]] = float(line[start:].split()[0])
    return out


def main():
    hip = open(sys.argv[1]).read()
    emu = open(sys.argv[2]).read()
    hip_ms = rows(hip, "time (ms)")
    model_us = rows(emu, "model (us)")
    total = re.search(r"total: (\d+) launches, ([0-9.]+) us modelled = "
                      r"([0-9.]+) us in kernels \+ ([0-9.]+) us launch", emu)
    launches, overhead = int(total.group(1)), float(total.group(4))
    per_launch = overhead / launches
    bad = []
    if sorted(hip_ms) != sorted(model_us):
        bad.append(f"kernels differ: {sorted(hip_ms)} vs {sorted(model_us)}")
    for name, us in model_us.items():
        got = hip_ms.get(name, -1) * 1000
        want = us + per_launch
        if abs(got - want) > 0.5 + 0.01:
            bad.append(f"{name}: HIP {got:.1f} us, model {want:.2f} us")
    hip_total = float(re.search(r"total: \d+ launches, ([0-9.]+) ms", hip)
                      .group(1)) * 1000
    model_total = float(total.group(2))
    if abs(hip_total - model_total) > 0.5 + 0.01:
        bad.append(f"total: HIP {hip_total:.1f} us, model {model_total:.2f} us")
    if bad:
        print("\n".join(bad))
        return 1
    print(f"{len(model_us)} kernels: HIP event times = modelled times")
    return 0


if __name__ == "__main__":
    sys.exit(main())
