#!/usr/bin/env python3
"""Checks the tuning part of `crest-compile --tune --report` (docs/Compiling.md,
"Tuning") against itself and against independent sources:

  check_tuning.py REPORT [--candidates N] [--simulated S] [--cached C]
                  [--heuristic-mlir FILE] [--tuned-mlir FILE]
                  [--package FILE] [--kernels K] [--emu-timing FILE]

Per tuned contraction: the first candidate is the heuristic's and exactly one
is the tuned one; the tuned time is the smallest and at most the heuristic's;
the summary line and the gain agree with the candidate lines; at most N
candidates, all distinct. The total line sums the contractions and counts the
simulated and cached measurements. With --heuristic-mlir (crest-opt
--crest-select-config without tuning), each contraction's heuristic
candidate must be the configuration the heuristic selects there; with
--tuned-mlir (crest-compile --emit=mlir --tune), the tuned candidate the one
the compiled op carries; with --package, each tuned kernel's modelled_us
equals its tuned time; with --emu-timing (crest-emu --timing output for the
one tuned kernel, as compiled), the tuned time is what crest-emu models for
it. Prints "tuning ok: ..." or fails with a message.
"""
import argparse
import json
import re
import struct
import sys

CANDIDATE = re.compile(r"^  +([0-9.]+) us  (.*?)(?:  +((?:heuristic|tuned|cached)(?:, (?:heuristic|tuned|cached))*))?$")
SUMMARY = re.compile(r"^  heuristic ([0-9.]+) us, tuned ([0-9.]+) us: ([0-9.]+)x$")
TOTAL = re.compile(r"^total: (?:heuristic ([0-9.]+) us, tuned ([0-9.]+) us: ([0-9.]+)x over )?(\d+) tuned contractions?(?:, (\d+) not tuned)?; (\d+) simulated, (\d+) cached$")
# The op's own configuration (`config <...>` in the op's syntax) is printed
# before its attribute dictionary, which may hold more (crest.tuning).
CONFIG = re.compile(r'\bconfig <mma = "(\w+)", workgroup_tile = \[(\d+), (\d+), (\d+)\], wave_tile = \[(\d+), (\d+)\], scope = (\w+)(?:, stages = (\d+))?(?:, split_k = (\d+))?(?:, rhs_vector = (\d+))?(?:, global_split_k = (\d+))?>')


def fail(message):
    sys.exit("check_tuning.py: " + message)


def describe(match):
    """The report's description of a printed #crest.config."""
    mma, tm, tn, tk, wm, wn, scope, stages, split, vector, groups = \
        match.groups()
    text = f"{mma} {tm}x{tn}x{tk} waves {wm}x{wn} {scope} stages {stages or 1}"
    if split and int(split) > 1:
        text += f" split_k {split}"
    if vector and int(vector) > 1:
        text += f" rhs_vector {vector}"
    if groups and int(groups) > 1:
        text += f" global_split_k {groups}"
    return text


def contraction_configs(path):
    """The configuration of every contraction of the host function, in
    order (kernels have lowered them: none is left in gpu.modules)."""
    configs = []
    for line in open(path):
        if re.search(r"crest\.(matmul|batch_matmul|conv2d)\b", line):
            m = CONFIG.search(line)
            if not m:
                fail(f"{path}: no #crest.config on: {line.strip()}")
            configs.append(describe(m))
    return configs


def read_package(path):
    data = open(path, "rb").read()
    count = struct.unpack_from("<I", data, 12)[0]
    for i in range(count):
        kind, _, offset, size = struct.unpack_from("<IIQQ", data, 32 + 24 * i)
        if kind == 1:
            return json.loads(data[offset:offset + size])
    fail(f"{path}: no manifest")


def parse(path):
    lines = open(path).read().splitlines()
    try:
        start = next(i for i, l in enumerate(lines)
                     if l.startswith("crest-compile tuning: "))
    except StopIteration:
        fail("no 'crest-compile tuning:' line")
    blocks, total = [], None
    for line in lines[start + 1:]:
        if line.startswith("total: "):
            total = TOTAL.match(line)
            if not total:
                fail("malformed total line: " + line)
            break
        m = CANDIDATE.match(line)
        s = SUMMARY.match(line)
        if m:
            if not blocks or blocks[-1]["summary"]:
                fail("candidate line outside a contraction: " + line)
            marks = m.group(3).split(", ") if m.group(3) else []
            blocks[-1]["candidates"].append(
                (float(m.group(1)), m.group(2).rstrip(), marks))
        elif s:
            blocks[-1]["summary"] = tuple(float(g) for g in s.groups())
        elif re.match(r"^\w+: .*: not tuned$", line):
            blocks.append({"kernel": line.split(":")[0], "tuned": False,
                           "candidates": [], "summary": ()})
        elif re.match(r"^\w+: ", line):
            blocks.append({"kernel": line.split(":")[0], "tuned": True,
                           "candidates": [], "summary": None})
        else:
            fail("unexpected line: " + line)
    if total is None:
        fail("no total line")
    return blocks, total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("--candidates", type=int, default=4)
    p.add_argument("--simulated", type=int)
    p.add_argument("--cached", type=int)
    p.add_argument("--kernels", type=int, help="tuned contractions expected")
    p.add_argument("--heuristic-mlir")
    p.add_argument("--tuned-mlir")
    p.add_argument("--package")
    p.add_argument("--emu-timing",
                   help="crest-emu --timing output of the one tuned kernel")
    args = p.parse_args()

    blocks, total = parse(args.report)
    tuned = [b for b in blocks if b["tuned"]]
    sum_h = sum_t = 0.0
    simulated = cached = 0
    for b in tuned:
        name, cands = b["kernel"], b["candidates"]
        if not 1 <= len(cands) <= args.candidates:
            fail(f"{name}: {len(cands)} candidates, expected 1 to "
                 f"{args.candidates}")
        if len({c[1] for c in cands}) != len(cands):
            fail(f"{name}: a candidate is listed twice")
        heuristic = [i for i, c in enumerate(cands) if "heuristic" in c[2]]
        chosen = [i for i, c in enumerate(cands) if "tuned" in c[2]]
        if heuristic != [0]:
            fail(f"{name}: the heuristic's choice must be the first and only "
                 f"one, got {heuristic}")
        if len(chosen) != 1:
            fail(f"{name}: {len(chosen)} tuned candidates")
        h_us, t_us = cands[0][0], cands[chosen[0]][0]
        if t_us > h_us:
            fail(f"{name}: tuned {t_us} us is slower than the heuristic's "
                 f"{h_us} us")
        if t_us != min(c[0] for c in cands):
            fail(f"{name}: tuned {t_us} us is not the fastest candidate")
        if b["summary"] is None:
            fail(f"{name}: no summary line")
        sh, st, gain = b["summary"]
        if (sh, st) != (h_us, t_us):
            fail(f"{name}: summary {sh}/{st} differs from the candidates "
                 f"{h_us}/{t_us}")
        if abs(gain - h_us / t_us) > 0.006:
            fail(f"{name}: gain {gain} is not {h_us} / {t_us}")
        b["heuristic_config"], b["tuned_config"] = cands[0][1], \
            cands[chosen[0]][1]
        b["tuned_us"] = t_us
        sum_h += h_us
        sum_t += t_us
        for c in cands:
            if "cached" in c[2]:
                cached += 1
            else:
                simulated += 1

    th, tt, tgain, ntuned, nuntuned, nsim, ncached = total.groups()
    if int(ntuned) != len(tuned) or int(nuntuned or 0) != len(blocks) - len(tuned):
        fail(f"total counts {ntuned} tuned, {nuntuned} not tuned; the report "
             f"lists {len(tuned)} and {len(blocks) - len(tuned)}")
    if tuned:
        if abs(float(th) - sum_h) > 0.002 or abs(float(tt) - sum_t) > 0.002:
            fail(f"total {th}/{tt} is not the sum {sum_h:.3f}/{sum_t:.3f}")
        if float(tt) > float(th):
            fail("the tuned total is slower than the heuristic's")
    if (int(nsim), int(ncached)) != (simulated, cached):
        fail(f"total says {nsim} simulated, {ncached} cached; the candidate "
             f"lines say {simulated} and {cached}")
    if args.simulated is not None and simulated != args.simulated:
        fail(f"{simulated} simulated, expected {args.simulated}")
    if args.cached is not None and cached != args.cached:
        fail(f"{cached} cached, expected {args.cached}")
    if args.kernels is not None and len(tuned) != args.kernels:
        fail(f"{len(tuned)} tuned contractions, expected {args.kernels}")

    for path, key in ((args.heuristic_mlir, "heuristic_config"),
                      (args.tuned_mlir, "tuned_config")):
        if not path:
            continue
        configs = contraction_configs(path)
        if len(configs) != len(blocks):
            fail(f"{path}: {len(configs)} contractions, the report has "
                 f"{len(blocks)}")
        for b, config in zip(blocks, configs):
            if b["tuned"] and b[key] != config:
                fail(f"{b['kernel']}: the report's {key.split('_')[0]} "
                     f"configuration '{b[key]}' is not the op's '{config}' "
                     f"({path})")
    if args.package:
        kernels = {k["name"]: k for k in read_package(args.package)["kernels"]}
        for b in blocks:
            info = kernels[b["kernel"]]["info"]
            if not b["tuned"]:
                if "modelled_us" in info:
                    fail(f"{b['kernel']}: untuned but has modelled_us")
                continue
            if abs(info.get("modelled_us", -1) - b["tuned_us"]) > 0.0006:
                fail(f"{b['kernel']}: modelled_us "
                     f"{info.get('modelled_us')} is not the tuned "
                     f"{b['tuned_us']} us")
    if args.emu_timing:
        m = re.search(r"modelled time: (\d+) cycles = [0-9.]+ us at ([0-9.]+) "
                      r"MHz", open(args.emu_timing).read())
        if not m or len(tuned) != 1:
            fail("--emu-timing needs crest-emu --timing output and one tuned "
                 "contraction")
        us = int(m.group(1)) / float(m.group(2))
        if abs(us - tuned[0]["tuned_us"]) > 0.0006:
            fail(f"crest-emu models {us:.4f} us, tuning said "
                 f"{tuned[0]['tuned_us']} us")
    print(f"tuning ok: {len(tuned)} tuned, {len(blocks) - len(tuned)} not "
          f"tuned, {simulated} simulated, {cached} cached")
    return 0


if __name__ == "__main__":
    sys.exit(main())
