"""Checks the arithmetic of crest-run's timing output (test/tools/crest-run
timing.test, trace.test, test/Runtime/c-api.test) from the numbers it
prints, never from copied ones:

  check_timing.py OUT.txt --kernels=a,b [--clock=MHz] [--trace=TRACE.json]
  check_timing.py OUT.txt --modelled-line

OUT.txt holds the output of one crest-run with --timing (and optionally
--report and --benchmark). Per launch, cycles / clock is the modelled time;
the model's total is the sum of the kernels' modelled time plus their launch
overheads, and its share of overhead is overhead / total. --report's column
and total and --benchmark's median must be the same numbers. --trace checks
the Perfetto trace: valid JSON, one "launch overhead" slice and one kernel
slice per launch on the "model" process, back to back, and each kernel's
compute-unit timeline inside its slice. --clock: every launch is modelled at
that clock. --modelled-line: OUT.txt is
examples/run_model.c's output (the C API's report and
crest_session_last_run_modelled_us).
"""
import json
import re
import sys

NUM = r"([0-9]+(?:\.[0-9]+)?)"
HEADER = re.compile(r"^launch (\d+): (\S+), grid \d+x\d+x\d+, block \d+x\d+x\d+$")
MODELLED = re.compile(r"^  modelled time: (\d+) cycles = " + NUM + r" us at (\d+) "
                      r"MHz \(\+ " + NUM + r" us launch overhead\)$")
BOUND = re.compile(r"^  bound: (.+?) \((.+)\)$")
TOTAL = (r"(\d+) launch(?:es)?, " + NUM + r" us modelled = " + NUM +
         r" us in kernels \+ " + NUM + r" us launch overhead \(" + NUM +
         r"% of the total\), (gfx\w+) at (\d+) MHz")
MODEL = re.compile(r"^model '[^']*': " + TOTAL + r"$")
REPORT_TOTAL = re.compile(r"^total: " + TOTAL + r"; " + NUM +
                          r" ms host wall time \(emulation\)$")
REPORT_ROW = re.compile(r"^(\d+)\s+(\S+)(?:\s+\d+){8}\s+" + NUM + r" (.+?)\s+" +
                        NUM + r"(?:\s+\d+){5}$")
BENCH = re.compile(r"^benchmark: (\d+) runs, modelled median " + NUM +
                   r" us \(.*the same in all (\d+) runs: the timing model is "
                   r"deterministic\)$")
C_API = re.compile(r"^modelled time of the run: " + NUM + r" us$")

errors = []


def check(cond, what):
    if not cond:
        errors.append(what)
    return cond


def close(a, b, tol, what):
    check(abs(a - b) <= tol, f"{what}: {a} vs {b} (tolerance {tol})")


def parse_timing(lines):
    """Per launch (index, kernel, cycles, us, mhz, overhead, bound), and the
    model's total."""
    launches, total = [], None
    for i, line in enumerate(lines):
        m = HEADER.match(line)
        if m:
            t = MODELLED.match(lines[i + 1]) if i + 1 < len(lines) else None
            b = BOUND.match(lines[i + 2]) if i + 2 < len(lines) else None
            if check(t and b, f"launch {m[1]}: no modelled time and bound lines"):
                launches.append((int(m[1]), m[2], int(t[1]), float(t[2]),
                                 int(t[3]), float(t[4]), b[1]))
        m = MODEL.match(line)
        if m:
            check(total is None, "two model totals")
            total = m
    return launches, total


def check_total(total, launches, what):
    n, t, k, o, share = (int(total[1]), float(total[2]), float(total[3]),
                         float(total[4]), float(total[5]))
    check(n == len(launches), f"{what}: {n} launches counted, {len(launches)} "
          "printed")
    # Each printed kernel time is rounded to 0.01, each overhead to 0.1.
    close(k, sum(l[3] for l in launches), 0.005 * (n + 1), f"{what}: kernels")
    close(o, sum(l[5] for l in launches), 0.05 * n + 0.005, f"{what}: overheads")
    close(t, k + o, 0.011, f"{what}: total = kernels + overheads")
    check(o > 0, f"{what}: no launch overhead")
    close(share, 100 * o / t, 0.05 + 100 * 0.011 / t, f"{what}: overhead share")
    check(total[6] == "gfx942" or total[6] == "gfx90a", f"{what}: chip")
    return t


def main():
    args = sys.argv[1:]
    path = args[0]
    opts = dict(a[2:].split("=", 1) if "=" in a else (a[2:], "")
                for a in args[1:])
    lines = open(path).read().splitlines()

    if "modelled-line" in opts:
        totals = [REPORT_TOTAL.match(l) for l in lines if REPORT_TOTAL.match(l)]
        values = [C_API.match(l) for l in lines if C_API.match(l)]
        if check(len(totals) == 1 and len(values) == 1,
                 "one report total and one modelled line"):
            rows = [REPORT_ROW.match(l) for l in lines if REPORT_ROW.match(l)]
            k = sum(float(r[3]) for r in rows)
            close(float(totals[0][3]), k, 0.005 * (len(rows) + 1),
                  "report: kernels")
            close(float(totals[0][2]),
                  float(totals[0][3]) + float(totals[0][4]), 0.011,
                  "report: total = kernels + overheads")
            check(int(totals[0][1]) == len(rows) and float(totals[0][4]) > 0,
                  "report: launches and overheads")
            close(float(values[0][1]), float(totals[0][2]), 0.0051,
                  "crest_session_last_run_modelled_us = the report's total")
        finish()
        return

    kernels = opts["kernels"].split(",")
    launches, total = parse_timing(lines)
    check([l[0] for l in launches] == list(range(len(kernels))),
          f"launch indices {[l[0] for l in launches]}")
    check([l[1] for l in launches] == kernels,
          f"kernels {[l[1] for l in launches]}, want {kernels}")
    for index, name, cycles, us, mhz, overhead, bound in launches:
        check(cycles > 0 and us > 0, f"{name}: no time")
        if "clock" in opts:
            check(mhz == int(opts["clock"]), f"{name}: clock {mhz}")
        close(us, cycles / mhz, 0.0051, f"{name}: us = cycles / MHz")
    if not check(total, "no model total"):
        finish()
        return
    t = check_total(total, launches, "--timing")

    # --report: the same per-kernel times and bounds, and the same total.
    rows = [REPORT_ROW.match(l) for l in lines if REPORT_ROW.match(l)]
    if rows:
        check(len(rows) == len(launches), f"{len(rows)} report rows")
        for r, l in zip(rows, launches):
            check(r[2] == l[1], f"report row {r[1]}: kernel {r[2]}")
            check(abs(float(r[3]) - l[3]) < 1e-9,
                  f"report row {r[1]}: {r[3]} us, --timing says {l[3]}")
            check(r[4] == l[6], f"report row {r[1]}: bound {r[4]!r}, "
                  f"--timing says {l[6]!r}")
        report_totals = [REPORT_TOTAL.match(l) for l in lines
                         if REPORT_TOTAL.match(l)]
        if check(len(report_totals) == 1, "one report total"):
            check(report_totals[0].groups()[:7] == total.groups(),
                  f"report total {report_totals[0][0]!r} vs {total[0]!r}")
    # --benchmark: its runs follow the first one, whose kernels left their
    # data in the L2 and the MALL (the emulator keeps them across launches,
    # as the hardware does): the median is never above the first run's
    # total, and it is positive.
    for line in lines:
        m = BENCH.match(line)
        if m:
            check(m[1] == m[3], "benchmark run counts")
            check(0 < float(m[2]) <= t + 0.0051,
                  f"benchmark median {m[2]} is in (0, {t}] (warm caches "
                  "never cost more)")

    if "trace" in opts:
        check_trace(opts["trace"], launches)
    finish()


def check_trace(path, launches):
    events = json.load(open(path))
    if not check(isinstance(events, list), "the trace is not a JSON array"):
        return
    for e in events:
        check(e.get("ph") in ("X", "M"), f"event phase {e.get('ph')}")
        if e.get("ph") == "X":
            check(all(k in e for k in ("name", "pid", "tid", "ts", "dur")),
                  f"incomplete event {e}")
            check(e["dur"] >= 0, f"negative duration {e}")
    names = {e["pid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "process_name"}
    check(names.get(0) == "model", f"process 0 is {names.get(0)!r}")
    model = sorted((e for e in events if e["ph"] == "X" and e["pid"] == 0),
                   key=lambda e: e["ts"])
    check(len(model) == 2 * len(launches),
          f"{len(model)} slices on the model, want {2 * len(launches)}")
    now = 0.0
    for i, l in enumerate(launches):
        if len(model) < 2 * i + 2:
            break
        overhead, kernel = model[2 * i], model[2 * i + 1]
        check(overhead["name"] == "launch overhead", f"slice {overhead}")
        check(kernel["name"] == l[1], f"slice {kernel['name']}, want {l[1]}")
        close(overhead["ts"], now, 1e-6, f"{l[1]}: overhead starts")
        close(overhead["dur"], l[5], 0.051, f"{l[1]}: overhead")
        close(kernel["ts"], overhead["ts"] + overhead["dur"], 1e-6,
              f"{l[1]}: kernel starts after its overhead")
        close(kernel["dur"], l[3], 0.0051, f"{l[1]}: kernel duration")
        now = kernel["ts"] + kernel["dur"]
        # The kernel's compute-unit timeline, in its slice.
        pids = [p for p, n in names.items() if n == f"launch {i}: {l[1]}"]
        if check(len(pids) == 1, f"no timeline process for launch {i}"):
            cu = [e for e in events if e["ph"] == "X" and e["pid"] == pids[0]]
            check(len(cu) > 0, f"launch {i}: empty timeline")
            for e in cu:
                check(e["ts"] >= kernel["ts"] - 1e-6 and
                      e["ts"] + e["dur"] <= now + 1e-6,
                      f"launch {i}: {e} outside its kernel's slice")
    check(len(names) == len(launches) + 1, f"processes {names}")


def finish():
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    print("timing arithmetic: OK")


if __name__ == "__main__":
    main()
