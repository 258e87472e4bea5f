#!/usr/bin/env python3
"""graph_saving.py STREAM_REPORT GRAPH_REPORT OVERHEAD_US GRAPH_OVERHEAD_US

Reads the total HIP event time ("total: N launches, X ms (GPU event time)")
of `crest-run --device=hip --report` on libcrest-hip.so with
CREST_HIP_TIMING=1, launched one by one (STREAM) and from a HIP graph
(GRAPH), and checks that the graph saves N x (OVERHEAD_US -
GRAPH_OVERHEAD_US): the kernels' modelled times are the same, only the
per-kernel launch overhead differs. The reports round to 0.001 ms, so the
check allows 1 us. Prints the numbers and "PASS" or "FAIL"
(exit 1).
"""
import re
import sys


def total(path):
    m = re.search(r"total: (\d+) launches, ([0-9.]+) ms \(GPU event time\)",
                  open(path).read())
    return int(m.group(1)), float(m.group(2)) * 1000


def main():
    n, stream_us = total(sys.argv[1])
    n2, graph_us = total(sys.argv[2])
    overhead, graph_overhead = float(sys.argv[3]), float(sys.argv[4])
    want = n * (overhead - graph_overhead)
    got = stream_us - graph_us
    ok = n == n2 and abs(got - want) <= 1.0
    print(f"{n} kernels: stream {stream_us:.0f} us, graph {graph_us:.0f} us, "
          f"saved {got:.0f} us, expected {n} x ({overhead} - "
          f"{graph_overhead}) = {want:.0f} us: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
