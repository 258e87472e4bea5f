#!/usr/bin/env python3
"""End-to-end package tests: writes multi-op crest graphs, compiles each with
`crest-compile --target=CHIP -o graph.crest`, runs the package with
`crest-run --device=emu --verify` (race detector on, the default) at several
wave interleavings, and checks the outputs a second time against NumPy here
(float64, with this script's own error bounds; nothing shared with the
runtime's reference evaluator).

Two graph families, with the input element type T in f32, f16 or bf16:

  mlp   z = cast_T(relu(x @ w1 + b1)) @ w2     x: MxK, w1: KxN1, w2: N1xN2
        y = softmax(z)                         outputs z, y (f32)
  attn  s = q @ k^T                            q: BxMxK, k: BxNxK (batch_matmul)
        o = cast_T(softmax(s)) @ v             v: BvxNxD (Bv = 1 broadcasts)
                                               outputs s, o (f32)

(for T = f32 there is no cast). Every contraction gets a sync setting:
wf1..wf3 (`sync <scope = wavefront, stages = S>`), wg1..wg3 (`sync <scope =
workgroup, stages = S>`), or an explicit `config` (cfgA: 16x16 MFMA,
workgroup scope, 2 stages, 4 waves; cfgB: 32x32 MFMA, wavefront scope,
2 waves).

The matrix is in `cases()`: per chip and input type, 4 mlp and 4 attn graphs
whose dimensions form a Latin square over 1, 7, 197, 1000 (each value is M, N
and K of some contraction; at most 1000 x 197 x 7 per contraction) plus one
larger graph with 1000 twice (up to 1000 x 1000 x 197), and the 8 sync
settings spread so that each appears at least twice per group. It found the
"LDS unwaited-write" race of 2-stage workgroup kernels whose K loop is not
unrolled (LLVM dropped the barrier's lgkmcnt wait; fixed in LowerToGPU.cpp).

`--chip C --dtype T` runs one group: the cases of `cases(chip, dtype)`.
`--device hip --hip-library LIB` runs the packages with `crest-run
--device=hip` on LIB (libcrest-hip.so, docs/Hip.md), the interleavings set
through its environment (test/e2e/hip).
Each run prints one line ending in PASS or FAIL; the last line is
  <chip> <dtype>: N graphs, R runs, F failed
and the exit code is 1 if anything failed.
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

V = [1, 7, 197, 1000]
CHIPS = ["gfx90a", "gfx942"]
DTYPES = ["f32", "f16", "bf16"]
SYNCS = ["wf1", "wg2", "cfgA", "wg3", "wf2", "wg1", "cfgB", "wf3"]
U32 = 2.0 ** -24
UNIT = {"f32": U32, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}

# Explicit configurations: instruction names per chip and input type.
MMA16 = {("gfx90a", "f32"): "v_mfma_f32_16x16x4f32",
         ("gfx90a", "f16"): "v_mfma_f32_16x16x16f16",
         ("gfx90a", "bf16"): "v_mfma_f32_16x16x16bf16_1k",
         ("gfx942", "f32"): "v_mfma_f32_16x16x4_f32",
         ("gfx942", "f16"): "v_mfma_f32_16x16x16_f16",
         ("gfx942", "bf16"): "v_mfma_f32_16x16x16_bf16"}
MMA32 = {("gfx90a", "f32"): "v_mfma_f32_32x32x2f32",
         ("gfx90a", "f16"): "v_mfma_f32_32x32x8f16",
         ("gfx90a", "bf16"): "v_mfma_f32_32x32x8bf16_1k",
         ("gfx942", "f32"): "v_mfma_f32_32x32x2_f32",
         ("gfx942", "f16"): "v_mfma_f32_32x32x8_f16",
         ("gfx942", "bf16"): "v_mfma_f32_32x32x8_bf16"}


# --- element types, independent of the runtime ---------------------------

def bf16_bits(x):
    """Round-to-nearest-even float32 -> bf16 bit patterns (finite values)."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def store(x, dtype):
    """The array written to the .npy file for values x (float64) in dtype,
    and the float64 values it really holds."""
    if dtype == "bf16":
        bits = bf16_bits(x.astype(np.float32))
        return bits, bf16_value(bits)
    arr = x.astype(np.float16 if dtype == "f16" else np.float32)
    return arr, arr.astype(np.float64)


def round_to(x, dtype):
    return store(x, dtype)[1]


# --- the graphs ----------------------------------------------------------

def tensor(shape, elt):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + elt + ">"


def sync_text(spec, chip, dtype):
    if spec.startswith("wf") or spec.startswith("wg"):
        scope = "wavefront" if spec.startswith("wf") else "workgroup"
        return f"sync <scope = {scope}, stages = {spec[2]}>"
    if spec == "cfgA":
        return (f'config <mma = "{MMA16[chip, dtype]}", workgroup_tile = '
                f"[32, 32, 16], wave_tile = [16, 16], scope = workgroup, "
                f"stages = 2>")
    if spec == "cfgB":
        k = 8 if dtype != "f32" else 4
        return (f'config <mma = "{MMA32[chip, dtype]}", workgroup_tile = '
                f"[64, 32, {k}], wave_tile = [32, 32], scope = wavefront, "
                f"stages = 1>")
    raise ValueError(spec)


def precision(dtype):
    return f"precision <lhs = {dtype}, rhs = {dtype}, acc = f32, out = f32>"


def mlp_graph(c):
    m, k, n1, n2 = c["dims"]
    t = c["dtype"]
    x, w1, b1 = tensor([m, k], t), tensor([k, n1], t), tensor([n1], "f32")
    w2, h, z = tensor([n1, n2], t), tensor([m, n1], "f32"), tensor([m, n2], "f32")
    ht = tensor([m, n1], t)
    s1 = sync_text(c["sync"][0], c["chip"], t)
    s2 = sync_text(c["sync"][1], c["chip"], t)
    cast = (f"  %hc = crest.cast %a : {h} to {ht}\n" if t != "f32" else "")
    hv = "%hc" if t != "f32" else "%a"
    return f"""// {c['name']}
func.func @mlp(%x: {x} {{crest.name = "x"}}, %w1: {w1} {{crest.name = "w1"}},
               %b1: {b1} {{crest.name = "b1"}}, %w2: {w2} {{crest.name = "w2"}})
    -> ({z} {{crest.name = "z"}}, {z} {{crest.name = "y"}}) {{
  %h = crest.matmul %x, %w1 {precision(t)}
         {s1}
         : {x}, {w1} -> {h}
  %hb = crest.add %h, %b1 : {h}, {b1} -> {h}
  %a = crest.relu %hb : {h}
{cast}  %z = crest.matmul {hv}, %w2 {precision(t)}
         {s2}
         : {ht}, {w2} -> {z}
  %y = crest.softmax %z : {z}
  return %z, %y : {z}, {z}
}}
"""


def attn_graph(c):
    b, bv, m, k, n, d = c["dims"]
    t = c["dtype"]
    q, kk, v = tensor([b, m, k], t), tensor([b, n, k], t), tensor([bv, n, d], t)
    s, pt, o = tensor([b, m, n], "f32"), tensor([b, m, n], t), tensor([b, m, d], "f32")
    s1 = sync_text(c["sync"][0], c["chip"], t)
    s2 = sync_text(c["sync"][1], c["chip"], t)
    cast = (f"  %pc = crest.cast %p : {s} to {pt}\n" if t != "f32" else "")
    pv = "%pc" if t != "f32" else "%p"
    return f"""// {c['name']}
func.func @attn(%q: {q} {{crest.name = "q"}}, %k: {kk} {{crest.name = "k"}},
                %v: {v} {{crest.name = "v"}})
    -> ({s} {{crest.name = "s"}}, {o} {{crest.name = "o"}}) {{
  %s = crest.batch_matmul %q, %k transpose_rhs {precision(t)}
         {s1}
         : {q}, {kk} -> {s}
  %p = crest.softmax %s : {s}
{cast}  %o = crest.batch_matmul {pv}, %v {precision(t)}
         {s2}
         : {pt}, {v} -> {o}
  return %s, %o : {s}, {o}
}}
"""


# --- inputs and the NumPy reference with error bounds --------------------

def nonzero_uniform(rng, shape, scale):
    """Values with magnitude in [0.25, 1] * scale and a random sign: never 0."""
    mag = rng.uniform(0.25, 1.0, size=shape)
    sign = np.where(rng.integers(0, 2, size=shape) == 1, 1.0, -1.0)
    return mag * sign * scale


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_bound(y, err_in):
    n = y.shape[-1]
    return y * (2 * err_in.max(axis=-1, keepdims=True) + (n + 10) * 4 * U32)


def mlp_inputs(c, rng):
    m, k, n1, n2 = c["dims"]
    t = c["dtype"]
    files, vals = {}, {}
    for name, shape, scale, dt in [("x", (m, k), 1.0, t),
                                   ("w1", (k, n1), k ** -0.5, t),
                                   ("b1", (n1,), 0.5, "f32"),
                                   ("w2", (n1, n2), 2 * n1 ** -0.5, t)]:
        files[name], vals[name] = store(nonzero_uniform(rng, shape, scale), dt)
    x, w1, b1, w2 = (vals[n] for n in ("x", "w1", "b1", "w2"))
    acc = x @ w1 + b1
    h = np.maximum(acc, 0)
    err_h = 2 * (k + 2) * U32 * (np.abs(x) @ np.abs(w1) + np.abs(b1))
    if t != "f32":
        hq = round_to(h, t)
        err_h = err_h + 2 * UNIT[t] * h
    else:
        hq = h
    z = hq @ w2
    err_z = 2 * (n1 + 2) * U32 * (np.abs(hq) @ np.abs(w2)) + err_h @ np.abs(w2)
    y = softmax(z)
    return files, {"z": (z, err_z), "y": (y, softmax_bound(y, err_z))}


def attn_inputs(c, rng):
    b, bv, m, k, n, d = c["dims"]
    t = c["dtype"]
    files, vals = {}, {}
    for name, shape, scale in [("q", (b, m, k), k ** -0.25),
                               ("k", (b, n, k), k ** -0.25),
                               ("v", (bv, n, d), 1.0)]:
        files[name], vals[name] = store(nonzero_uniform(rng, shape, scale), t)
    q, kk, v = vals["q"], vals["k"], vals["v"]
    kt = np.swapaxes(kk, 1, 2)
    s = q @ kt
    err_s = 2 * (k + 2) * U32 * (np.abs(q) @ np.abs(kt))
    p = softmax(s)
    err_p = softmax_bound(p, err_s)
    if t != "f32":
        pq = round_to(p, t)
        err_p = err_p + 2 * UNIT[t] * p
    else:
        pq = p
    o = pq @ v  # v's batch of 1 broadcasts, as in NumPy
    err_o = 2 * (n + 2) * U32 * (np.abs(pq) @ np.abs(v)) + err_p @ np.abs(v)
    return files, {"s": (s, err_s), "o": (o, err_o)}


# --- the coverage matrix -------------------------------------------------

# One permutation of V per group: case i of a family gives role j the value
# V[perm[(i + j) % 4]] (a Latin square), so in every group each of 1, 7, 197
# and 1000 is M, N and K of some contraction, and the groups combine them
# differently. All four values of a case differ, so a contraction is at most
# 1000 x 197 x 7.
PERMS = [(0, 1, 2, 3), (3, 2, 1, 0), (1, 3, 0, 2), (2, 0, 3, 1),
         (0, 2, 3, 1), (3, 1, 0, 2)]
# A larger case per group: 1000 appears twice (up to 1000 x 1000 x 197).
BIG = [("mlp", (1000, 197, 1000, 7)), ("attn", (2, 1, 197, 1000, 197, 7)),
       ("mlp", (197, 1000, 197, 1000)), ("attn", (1, 1, 1000, 7, 1000, 197)),
       ("mlp", (7, 1000, 1000, 197)), ("attn", (3, 3, 197, 197, 1000, 7))]


def cases(chip, dtype):
    g = CHIPS.index(chip) * len(DTYPES) + DTYPES.index(dtype)
    perm = PERMS[g]
    out = []
    for i in range(4):
        m, k, n1, n2 = (V[perm[(i + j) % 4]] for j in range(4))
        out.append(dict(family="mlp", dims=(m, k, n1, n2)))
    for i in range(4):
        m, k, n, d = (V[perm[(i + j + 2) % 4]] for j in range(4))
        b = 1 + (i + g) % 3
        bv = 1 if i % 2 else b
        out.append(dict(family="attn", dims=(b, bv, m, k, n, d)))
    fam, dims = BIG[g]
    out.append(dict(family=fam, dims=dims, big=True))
    # Sync settings: 18 contractions walk the 8 settings from an offset, so
    # each group has every setting at least twice.
    for i, c in enumerate(out):
        c["sync"] = (SYNCS[(2 * i + g) % 8], SYNCS[(2 * i + 1 + g) % 8])
        c["chip"], c["dtype"], c["index"] = chip, dtype, i
        c["name"] = (f"{chip} {dtype} {c['family']} "
                     f"{'x'.join(map(str, c['dims']))} "
                     f"[{c['sync'][0]},{c['sync'][1]}]")
    return out


def schedules(case_index):
    """(quantum, seed): the default, the finest round-robin, a random one."""
    return [(64, 0), (1, 0), (3 + case_index % 13, 1000 + 17 * case_index)]


# --- running -------------------------------------------------------------

def run_case(args, c, index, tmp):
    os.makedirs(tmp, exist_ok=True)
    src = os.path.join(tmp, "graph.mlir")
    text = mlp_graph(c) if c["family"] == "mlp" else attn_graph(c)
    open(src, "w").write(text)
    rng = np.random.default_rng(1000 * index + 7)
    files, want = (mlp_inputs if c["family"] == "mlp" else attn_inputs)(c, rng)
    for name, (w, _) in want.items():
        # The tests must be able to fail: nothing all-zero.
        assert np.count_nonzero(w) > 0, (c["name"], name)
    inputs = []
    for name, arr in files.items():
        np.save(f"{tmp}/{name}.npy", arr)
        inputs += ["--input", f"{name}={tmp}/{name}.npy"]
    pkg = os.path.join(tmp, "graph.crest")
    t0 = time.time()
    proc = subprocess.run([args.crest_compile, src, f"--target={c['chip']}",
                           "-o", pkg], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"{c['name']}: crest-compile failed: FAIL")
        sys.stdout.write(proc.stdout + proc.stderr)
        return 1, 1
    compile_s = time.time() - t0
    runs = failed = 0
    plan = schedules(index)
    if c.get("big"):
        plan = plan[1:]  # the larger graph: the finest and a random one
    for q, seed in plan[:args.schedules]:
        outputs = []
        for name in want:
            outputs += ["--output", f"{name}={tmp}/{name}.npy"]
        env = None
        if args.device == "hip":
            # Crest's HIP device through libcrest-hip.so: the interleaving
            # comes from the library's environment (docs/Hip.md).
            cmd = [args.crest_run, pkg, "--device=hip", "--verify"]
            env = dict(os.environ, CREST_HIP_LIBRARY=args.hip_library,
                       CREST_HIP_CHIP=c["chip"], CREST_HIP_QUANTUM=str(q),
                       CREST_HIP_SEED=str(seed))
        else:
            cmd = [args.crest_run, pkg, "--device=emu", "--verify",
                   f"--emu-quantum={q}", f"--emu-seed={seed}"]
        cmd += inputs + outputs
        if runs == 0:
            cmd.append("--report")  # and print the launch count
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        runs += 1
        launches = re.search(r"total: (\d+) launch", proc.stdout)
        msgs = []
        ok = proc.returncode == 0 and "verify: PASS" in proc.stdout
        if re.search(r"race detector found|race on byte", proc.stderr):
            ok = False
            msgs.append("race reported")
        if proc.returncode != 0:
            msgs.append(f"crest-run exit {proc.returncode}")
        worst = 0.0
        for name, (w, bound) in want.items():
            path = f"{tmp}/{name}.npy"
            if not os.path.exists(path):
                ok = False
                msgs.append(f"no {name}")
                continue
            got = np.load(path).astype(np.float64)
            if got.shape != w.shape:
                ok = False
                msgs.append(f"{name} shape {got.shape} != {w.shape}")
                continue
            err = np.abs(got - w)
            bad = ~(err <= bound)  # NaN fails
            if bad.any():
                ok = False
                i = np.unravel_index(int(np.argmax(np.where(
                    np.isnan(err), np.inf, err - bound))), w.shape)
                msgs.append(f"{name}: {int(bad.sum())} beyond NumPy bound, "
                            f"worst {list(i)}: got {got[i]}, want {w[i]} "
                            f"+- {bound[i]:.3g}")
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(bound > 0, err / bound, np.where(err > 0, np.inf, 0))
            worst = max(worst, float(np.nanmax(ratio)) if ratio.size else 0.0)
            os.remove(path)
        extra = f" launches={launches.group(1)} compile={compile_s:.2f}s" \
            if launches else ""
        if args.device == "hip" and "hip (requested): HIP" not in proc.stderr:
            ok = False
            msgs.append("did not run on the HIP device")
        print(f"{c['name']} q={q} seed={seed}:{extra} verify "
              f"{'PASS' if 'verify: PASS' in proc.stdout else 'FAIL'}, "
              f"numpy err/bound={worst:.3f}"
              f"{'; ' + '; '.join(msgs) if msgs else ''} "
              f"{'PASS' if ok else 'FAIL'}")
        if not ok:
            failed += 1
            sys.stdout.write(proc.stdout + proc.stderr)
    return runs, failed


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--chip", required=True, choices=CHIPS + ["all"])
    p.add_argument("--dtype", required=True, choices=DTYPES + ["all"])
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-run", required=True)
    p.add_argument("--tmp", required=True)
    p.add_argument("--schedules", type=int, default=3,
                   help="how many of the interleavings to run")
    p.add_argument("--only", type=int, help="run only this case index")
    p.add_argument("--device", choices=["emu", "hip"], default="emu",
                   help="hip: crest-run --device=hip through --hip-library")
    p.add_argument("--hip-library", help="libcrest-hip.so, for --device hip")
    p.add_argument("--list", action="store_true", help="print the cases")
    args = p.parse_args()
    if args.device == "hip" and not args.hip_library:
        p.error("--device hip needs --hip-library")
    all_cases = [c for chip in (CHIPS if args.chip == "all" else [args.chip])
                 for dtype in (DTYPES if args.dtype == "all" else [args.dtype])
                 for c in cases(chip, dtype)]
    if args.list:
        for c in all_cases:
            print(c["index"], c["name"])
        return 0
    os.makedirs(args.tmp, exist_ok=True)
    total_runs = total_failed = graphs = 0
    for c in all_cases:
        if args.only is not None and c["index"] != args.only:
            continue
        runs, failed = run_case(args, c, c["index"], os.path.join(
            args.tmp, f"{c['chip']}-{c['dtype']}-{c['index']}"))
        graphs += 1
        total_runs += runs
        total_failed += failed
    print(f"{args.chip} {args.dtype}: {graphs} graphs, {total_runs} runs, "
          f"{total_failed} failed")
    return 1 if total_failed or not total_runs else 0


if __name__ == "__main__":
    sys.exit(main())
