#!/usr/bin/env python3
"""End-to-end check of the fused attention kernel (crest-lower-attention):
writes a graph with one crest.attention, compiles it with crest-compile for a
chip into a package, runs it with crest-run on the emulator at several wave
interleavings (race detector on, outputs poisoned by crest-run) with
--verify (the host reference evaluator), and compares the outputs with a
NumPy float64 evaluation written here, independently of Crest:

  s = scale * Q K^T (K/V head h // (Hq // Hkv)), masked pairs -inf:
      k >= kv_length[b]; the bool mask false; causal top_left k > q,
      bottom_right k > q + L - Lq; window W: k <= diag - W
  out = softmax(s) V per row; a row without a visible key is 0, lse -inf.

Checks, per run: exactly one kernel launch in the compiled graph (no score
or probability matrix in memory); relative L2 error of the output at most
--rtol (1e-3 for f16/bf16 P; 3e-2 for fp8 P); rows without a visible key
exactly 0 and their lse -inf; no NaN or inf elsewhere; lse within 1e-3
(absolute, the natural log of the row sum); zero races.

Each run prints one line
  <case> seed=<seed>: rel_l2=E lse_err=E races=N PASS|FAIL
and the script exits 1 if any run fails.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
from crest_launch import launches as find_launches  # noqa: E402

SEEDS = [0, 7, 99]
NP = {"f32": np.float32, "f16": np.float16}


def bf16_round(x):
    b = np.asarray(x, np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def ttype(shape, elt):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elt + ">"


def reference(q, k, v, length, mask, causal, window, scale):
    B, Hq, Lq, D = q.shape
    Hkv, Lkv = k.shape[1], k.shape[2]
    G = Hq // Hkv
    out = np.zeros((B, Hq, Lq, v.shape[3]))
    lse = np.full((B, Hq, Lq), -np.inf)
    kk = np.arange(Lkv)
    for b in range(B):
        L = Lkv if length is None else min(max(int(length[b]), 0), Lkv)
        for h in range(Hq):
            s = scale * (q[b, h] @ k[b, h // G].T)  # Lq x Lkv
            vis = np.broadcast_to(kk[None, :] < L, s.shape).copy()
            qq = np.arange(Lq)[:, None]
            diag = qq + (L - Lq if causal == "bottom_right" else 0)
            if causal != "none":
                vis &= kk[None, :] <= diag
                if window:
                    vis &= kk[None, :] > diag - window
            if mask is not None:
                vis &= np.broadcast_to(mask, (B, Hq, Lq, Lkv))[b, h]
            for i in range(Lq):
                if not vis[i].any():
                    continue
                row = s[i][vis[i]]
                m = row.max()
                e = np.exp(row - m)
                out[b, h, i] = (e / e.sum()) @ v[b, h // G][vis[i]]
                lse[b, h, i] = m + np.log(e.sum())
    return out, lse


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-run", default=None,
                   help="default: crest-run next to crest-compile")
    p.add_argument("--crest-opt", default=None)  # %{tools} passes these
    p.add_argument("--crest-emu", default=None)
    p.add_argument("--tmp", default=None)
    p.add_argument("--chip", default="gfx942")
    p.add_argument("--shape", required=True,
                   help="B,Hq,Hkv,Lq,Lkv,D[,Dv]")
    p.add_argument("--type", default="f16", choices=["f16", "bf16", "f32"])
    p.add_argument("--out", default=None, help="result type (default: type)")
    p.add_argument("--causal", default="none",
                   choices=["none", "top_left", "bottom_right"])
    p.add_argument("--window", type=int, default=0)
    p.add_argument("--scale", type=float, default=None)
    p.add_argument("--kv-length", default=None,
                   help="comma-separated per batch: kv_length operand")
    p.add_argument("--mask", default=None,
                   help="mask shape (x-separated, broadcast to the scores); "
                        "random, with the first query row of each "
                        "[b, h] fully masked")
    p.add_argument("--lse", action="store_true")
    p.add_argument("--logits", type=float, default=0,
                   help="scale Q so the largest |score| is about this")
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--packed-qkv", action="store_true",
                   help="one [B, L, (Hq + 2 Hkv) D] input, sliced, split "
                        "into heads and transposed in the graph (a fused "
                        "QKV projection's output; needs Lq = Lkv, D = Dv)")
    p.add_argument("--merge-heads", action="store_true",
                   help="the graph transposes the result to [B, L, H, Dv] "
                        "and reshapes it to [B, L, H Dv]")
    a = p.parse_args()

    dims = [int(x) for x in a.shape.split(",")]
    B, Hq, Hkv, Lq, Lkv, D = dims[:6]
    Dv = dims[6] if len(dims) > 6 else D
    out_elt = a.out or a.type
    rng = np.random.default_rng(a.seed)
    if not a.crest_run:
        a.crest_run = os.path.join(os.path.dirname(a.crest_compile),
                                   "crest-run")
    tmp = a.tmp or tempfile.mkdtemp(prefix="crest-attn-")
    os.makedirs(tmp, exist_ok=True)

    def make(shape, s=1.0, x=None):
        x = (rng.standard_normal(shape) if x is None else x) * s
        if a.type == "bf16":
            bits = bf16_round(x)
            return bits, bf16_value(bits).astype(np.float64)
        t = x.astype(NP[a.type])
        return t, t.astype(np.float64)

    kn, kv = make((B, Hkv, Lkv, D))
    vn, vv = make((B, Hkv, Lkv, Dv))
    qs = 1.0
    if a.logits:
        # Scale Q so that the largest |scale * q.k| is about --logits (the
        # inputs stay finite in their type: f16 reaches 65504).
        sc = a.scale if a.scale else 1 / np.sqrt(D)
        raw = rng.standard_normal((B, Hq, Lq, D))
        kh = np.repeat(kv, Hq // Hkv, axis=1)
        qs = a.logits / (sc * np.abs(np.einsum("bhqd,bhkd->bhqk", raw,
                                                kh)).max())
    qn, qv = make((B, Hq, Lq, D), qs, raw if a.logits else None)
    if a.packed_qkv:
        # Q, K and V are the heads of one packed tensor, cut here by NumPy
        # as the graph cuts it with slices, reshapes and transposes.
        assert Lq == Lkv and D == Dv and not a.logits
        L = Lq
        packed, packed_v = make((B, L, (Hq + 2 * Hkv) * D))

        def heads(x, first, count):
            part = x[:, :, first * D:(first + count) * D]
            return part.reshape(B, L, count, D).transpose(0, 2, 1, 3)
        qv = heads(packed_v, 0, Hq)
        kv = heads(packed_v, Hq, Hkv)
        vv = heads(packed_v, Hq + Hkv, Hkv)
    if a.logits:
        kh = np.repeat(kv, Hq // Hkv, axis=1)
        print("largest |logit| %.0f" % (sc * np.abs(np.einsum(
            "bhqd,bhkd->bhqk", qv, kh)).max()))
    np.save(f"{tmp}/q.npy", qn)
    np.save(f"{tmp}/k.npy", kn)
    np.save(f"{tmp}/v.npy", vn)
    args = [f"%q: {ttype([B, Hq, Lq, D], a.type)}",
            f"%k: {ttype([B, Hkv, Lkv, D], a.type)}",
            f"%v: {ttype([B, Hkv, Lkv, Dv], a.type)}"]
    inputs = ["q", "k", "v"]
    views = ""
    if a.packed_qkv:
        np.save(f"{tmp}/qkv.npy", packed)
        width = (Hq + 2 * Hkv) * D
        tp = ttype([B, L, width], a.type)
        args = [f"%qkv: {tp}"]
        inputs = ["qkv"]
        for name, first, count in (("q", 0, Hq), ("k", Hq, Hkv),
                                   ("v", Hq + Hkv, Hkv)):
            ts = ttype([B, L, count * D], a.type)
            th = ttype([B, L, count, D], a.type)
            tt = ttype([B, count, L, D], a.type)
            views += (f"    %{name}s = crest.slice %qkv offsets [0, 0, "
                      f"{first * D}] : {tp} -> {ts}\n"
                      f"    %{name}h = crest.reshape %{name}s : {ts} to {th}\n"
                      f"    %{name} = crest.transpose %{name}h permutation "
                      f"[0, 2, 1, 3] : {th} -> {tt}\n")
    types = [ttype([B, Hq, Lq, D], a.type), ttype([B, Hkv, Lkv, D], a.type),
             ttype([B, Hkv, Lkv, Dv], a.type)]
    extra = ""
    length = mask = None
    if a.kv_length:
        length = np.array([int(x) for x in a.kv_length.split(",")], np.int32)
        np.save(f"{tmp}/len.npy", length)
        args.append(f"%len: {ttype([B], 'i32')}")
        inputs.append("len")
        extra += f" kv_length %len : {ttype([B], 'i32')}"
    if a.mask:
        mshape = [int(x) for x in a.mask.split("x")]
        mask = rng.random(mshape) < 0.7
        if len(mshape) >= 2 and mshape[-2] == Lq:
            mask[..., 0, :] = False
        np.save(f"{tmp}/mask.npy", mask)
        args.append(f"%mask: {ttype(mshape, 'i1')}")
        inputs.append("mask")
        extra += f" mask %mask : {ttype(mshape, 'i1')}"
    if a.causal != "none":
        extra += f" causal = {a.causal}"
    if a.window:
        extra += f" window = {a.window}"
    if a.scale:
        extra += f" scale = {a.scale:e} : f32"
    pelt = a.type if a.type != "f32" else "f32"
    TO = ttype([B, Hq, Lq, Dv], out_elt)
    TL = ttype([B, Hq, Lq], "f32")
    results = f"{TO}, {TL}" if a.lse else TO
    names = "%o, %l" if a.lse else "%o"
    merge = ""
    returned, rtypes = names, results
    if a.merge_heads:
        TT = ttype([B, Lq, Hq, Dv], out_elt)
        TM = ttype([B, Lq, Hq * Dv], out_elt)
        merge = (f"    %t = crest.transpose %o permutation [0, 2, 1, 3] : "
                 f"{TO} -> {TT}\n"
                 f"    %m = crest.reshape %t : {TT} to {TM}\n")
        returned, rtypes = ("%m, %l", f"{TM}, {TL}") if a.lse else ("%m", TM)
    src = (f"module {{\n  func.func @f({', '.join(args)}) -> ({rtypes}) {{\n"
           f"{views}"
           f"    {names} = crest.attention %q, %k, %v{extra}\n"
           f"      qk <lhs = {a.type}, rhs = {a.type}, acc = f32, out = f32>\n"
           f"      pv <lhs = {pelt}, rhs = {a.type}, acc = f32, out = {out_elt}>\n"
           f"      : {types[0]}, {types[1]}, {types[2]} -> {results}\n"
           f"{merge}"
           f"    return {returned} : {rtypes}\n  }}\n}}\n")
    open(f"{tmp}/graph.mlir", "w").write(src)
    host = subprocess.run([a.crest_compile, f"{tmp}/graph.mlir",
                           f"--target={a.chip}", "--emit=mlir"],
                          capture_output=True, text=True)
    if host.returncode != 0:
        sys.stderr.write(src + host.stderr)
        return 1
    launches = find_launches(host.stdout)
    if len(launches) != 1:
        print(f"FAIL: expected one launch, got {launches}")
        return 1
    subprocess.run([a.crest_compile, f"{tmp}/graph.mlir", f"--target={a.chip}",
                    "-o", f"{tmp}/g.crest"], check=True)

    want, want_lse = reference(qv, kv, vv, length, mask, a.causal, a.window,
                               a.scale if a.scale else 1 / np.sqrt(D))
    empty = np.isinf(want_lse)
    packed_note = (" packed-qkv" if a.packed_qkv else "") + (
        " merge-heads" if a.merge_heads else "")
    name = (f"{a.chip} {a.type}->{out_elt}{packed_note} B={B} Hq={Hq} "
            f"Hkv={Hkv} Lq={Lq} "
            f"Lkv={Lkv} D={D} Dv={Dv} causal={a.causal}"
            f"{' window=' + str(a.window) if a.window else ''}"
            f"{' kv_length=' + a.kv_length if a.kv_length else ''}"
            f"{' mask=' + a.mask if a.mask else ''}")
    ok = True
    for seed in SEEDS:
        cmd = [a.crest_run, f"{tmp}/g.crest", "--device=emu", "--verify"]
        cmd += [f"--input={tmp}/{i}.npy" for i in inputs]
        cmd += [f"--output={tmp}/o.npy"]
        if a.lse:
            cmd += [f"--output={tmp}/l.npy"]
        if seed:
            cmd += [f"--emu-seed={seed}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            print(f"{name} seed={seed}: crest-run exit {proc.returncode} FAIL")
            ok = False
            continue
        races = sum(int(x) for x in re.findall(r"(\d+) races?", proc.stdout))
        got = np.load(f"{tmp}/o.npy")
        got = (bf16_value(got) if out_elt == "bf16" else got).astype(np.float64)
        if a.merge_heads:
            # Back to [B, H, L, Dv], by NumPy, to compare with the reference.
            got = got.reshape(B, Lq, Hq, Dv).transpose(0, 2, 1, 3)
        finite = bool(np.all(np.isfinite(got)))
        rel = float(np.linalg.norm(got - want) /
                    max(np.linalg.norm(want), 1e-30))
        zero_rows = bool(np.all(got[empty] == 0))
        lse_err = 0.0
        lse_ok = True
        if a.lse:
            gl = np.load(f"{tmp}/l.npy").astype(np.float64)
            lse_ok = bool(np.all(np.isneginf(gl[empty])))
            if (~empty).any():
                lse_err = float(np.abs(gl[~empty] - want_lse[~empty]).max())
            lse_ok &= lse_err <= 1e-3 * max(1.0, float(
                np.abs(want_lse[~empty]).max() if (~empty).any() else 1))
        good = finite and rel <= a.rtol and zero_rows and lse_ok and races == 0
        ok &= good
        print(f"{name} seed={seed}: rel_l2={rel:.3g} lse_err={lse_err:.3g} "
              f"empty_rows={int(empty.sum())} races={races} "
              f"{'PASS' if good else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
