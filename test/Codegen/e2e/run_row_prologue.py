#!/usr/bin/env python3
"""Row prologues end to end: layer norms, softmaxes and reductions whose
input is computed by elementwise ops and gathers (an embedding lookup),
which crest-fuse-epilogues fuses into the row kernel's loads (or, for a row
too
long for registers, a crest.kernel written out), compiled for one chip, run
on the emulator (outputs poisoned) and compared with NumPy's float64
evaluation of the graph's definition.

  run_row_prologue.py BIN_DIR TMP_DIR [--target gfx942] [--case NAME]

prints one line per case
  <name>: <launches> launch(es) [<kernel ops>] ..., max_rel_err E, PASS|FAIL
and exits 1 if a case fails or does not compile to the launches it names.
"""
import os
import subprocess
import sys

import numpy as np

from graph_cases import Cases, launched_kernels, ty

CASES = Cases()
case = CASES.case


def layer_norm(x, g, b, axis, eps=1e-5):
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@case
def embedding_layer_norm():
    """A BERT-style embedding: token ids (one negative, counted from the
    end, and one past the table, which reads zeros) into a 6-row table,
    plus a position embedding, layer-normed; the pre-norm sum also feeds a
    residual add, so the row kernel stores it too."""
    t3, s3 = ty((2, 5, 48), "f32"), ty((48,), "f32")
    inputs = [("ids", (2, 5), "i64"), ("table", (6, 48), "f32"),
              ("pos", (5, 48), "f32"), ("gamma", (48,), "f32"),
              ("beta", (48,), "f32")]
    lines = [
        f"%e = crest.gather %table, %ids : {ty((6, 48), 'f32')}, "
        f"{ty((2, 5), 'i64')} -> {t3}",
        f"%s = crest.add %e, %pos : {t3}, {ty((5, 48), 'f32')} -> {t3}",
        f"%y = crest.layer_norm %s, %gamma, %beta {{axis = 2 : i64}} : {t3}, "
        f"{s3}, {s3} -> {t3}",
        f"%r = crest.add %s, %y : {t3}, {t3} -> {t3}",
    ]
    outputs = [("y", "%y", t3), ("r", "%r", t3)]

    def reference(v):
        ids = v["ids"].astype(np.int64)
        ids = np.where(ids < 0, ids + 6, ids)
        rows = np.where((ids >= 0)[..., None] & (ids < 6)[..., None],
                        v["table"][np.clip(ids, 0, 5)], 0.0)
        s = rows + v["pos"]
        y = layer_norm(s, v["gamma"], v["beta"], 2)
        return {"y": y, "r": s + y}

    ids = np.array([[0, 3, -1, 5, 2], [4, 9, 1, 3, 3]], dtype=np.int64)
    return inputs, lines, outputs, reference, {"ids": ids}, \
        ["gather+add+layer_norm", "add"]


@case
def softmax_inner_axis():
    """softmax over axis 0 (rows strided by 40) of x * 0.5 + c[40]."""
    t = ty((6, 40), "f32")
    inputs = [("x", (6, 40), "f32"), ("c", (40,), "f32")]
    lines = [
        f"%h = arith.constant dense<0.5> : {t}",
        f"%t = crest.mul %x, %h : {t}, {t} -> {t}",
        f"%u = crest.add %t, %c : {t}, {ty((40,), 'f32')} -> {t}",
        f"%y = crest.softmax %u {{axis = 0 : i64}} : {t}",
    ]

    def reference(v):
        return {"y": softmax(v["x"] * 0.5 + v["c"], 0)}

    return inputs, lines, [("y", "%y", t)], reference, {}, ["mul+add+softmax"]


@case
def layer_norm_f16():
    """An f16 sum (rounded to f16 before the norm reads it) layer-normed
    over two trailing dimensions, in f16; the sum is also an output."""
    t = ty((3, 4, 24), "f16")
    s = ty((4, 24), "f16")
    inputs = [("x", (3, 4, 24), "f16"), ("z", (3, 4, 24), "f16"),
              ("gamma", (4, 24), "f16"), ("beta", (4, 24), "f16")]
    lines = [
        f"%s = crest.add %x, %z : {t}, {t} -> {t}",
        f"%y = crest.layer_norm %s, %gamma, %beta {{axis = 1 : i64}} : {t}, "
        f"{s}, {s} -> {t}",
    ]

    def reference(v):
        sum16 = (v["x"] + v["z"]).astype(np.float16).astype(np.float64)
        return {"y": layer_norm(sum16, v["gamma"], v["beta"], 1), "s": sum16}

    return inputs, lines, [("y", "%y", t), ("s", "%s", t)], reference, {}, \
        ["add+layer_norm"]


@case
def reduce_sum_inner():
    """reduce_sum over axis 1 of [4, 40, 6] (rows strided by 6) of
    x - c[6], which is also an output: each element is read, computed and
    stored once."""
    t = ty((4, 40, 6), "f32")
    inputs = [("x", (4, 40, 6), "f32"), ("c", (6,), "f32")]
    lines = [
        f"%s = crest.sub %x, %c : {t}, {ty((6,), 'f32')} -> {t}",
        f"%y = crest.reduce_sum %s dims [1] : {t} -> {ty((4, 6), 'f32')}",
    ]

    def reference(v):
        s = v["x"] - v["c"]
        return {"y": s.sum(axis=1), "s": s}

    return inputs, lines, [("y", "%y", ty((4, 6), "f32")), ("s", "%s", t)], \
        reference, {}, ["sub+reduce_sum"]


@case
def mean_of_squares():
    """The mean of squares over 3000-long rows (an RMS norm's statistic):
    longer than the kernel holds in registers, read lane-strided, so the
    squares stay a kernel of their own (slower fused in the timing
    model)."""
    t = ty((3, 3000), "f32")
    inputs = [("x", (3, 3000), "f32")]
    lines = [
        f"%q = crest.mul %x, %x : {t}, {t} -> {t}",
        f"%y = crest.reduce_mean %q dims [1] keep_dims : {t} -> "
        f"{ty((3, 1), 'f32')}",
    ]

    def reference(v):
        return {"y": (v["x"] * v["x"]).mean(axis=1, keepdims=True)}

    return inputs, lines, [("y", "%y", ty((3, 1), "f32"))], reference, {}, \
        ["mul", "reduce_mean"]


@case
def pool_of_silu():
    """global_avg_pool2d of SiLU (x * sigmoid(x)) of a graph input."""
    t = ty((2, 8, 7, 7), "f32")
    inputs = [("x", (2, 8, 7, 7), "f32")]
    lines = [
        f"%g = crest.sigmoid %x : {t}",
        f"%q = crest.mul %x, %g : {t}, {t} -> {t}",
        f"%y = crest.global_avg_pool2d %q : {t} -> {ty((2, 8, 1, 1), 'f32')}",
    ]

    def reference(v):
        x = v["x"]
        return {"y": (x / (1 + np.exp(-x))).mean(axis=(2, 3), keepdims=True)}

    return inputs, lines, [("y", "%y", ty((2, 8, 1, 1), "f32"))], reference, \
        {}, ["sigmoid+mul+global_avg_pool2d"]


@case
def rms_statistic():
    """An RMS norm written out: x * (1 / sqrt(mean(x^2) + eps)). The
    squares, the mean, + eps, sqrt and the reciprocal are one kernel (its
    epilogue runs once per row); the final multiply, of the input's size,
    is another."""
    t = ty((6, 320), "f32")
    c = ty((6, 1), "f32")
    inputs = [("x", (6, 320), "f32")]
    lines = [
        f"%eps = arith.constant dense<1.0e-3> : {c}",
        f"%one = arith.constant dense<1.0> : {c}",
        f"%q = crest.mul %x, %x : {t}, {t} -> {t}",
        f"%m = crest.reduce_mean %q dims [1] keep_dims : {t} -> {c}",
        f"%v = crest.add %m, %eps : {c}, {c} -> {c}",
        f"%r = crest.sqrt %v : {c}",
        f"%i = crest.div %one, %r : {c}, {c} -> {c}",
        f"%y = crest.mul %x, %i : {t}, {c} -> {t}",
    ]

    def reference(v):
        x = v["x"]
        i = 1 / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-3)
        return {"y": x * i, "i": i}

    return inputs, lines, [("y", "%y", t), ("i", "%i", c)], reference, {}, \
        ["mul+reduce_mean+add+sqrt+div", "mul"]


@case
def norm_relu():
    """A layer norm's epilogue (a scale and a ReLU per element) with the
    norm's own value returned too."""
    t = ty((5, 96), "f32")
    inputs = [("x", (5, 96), "f32"), ("gamma", (96,), "f32"),
              ("w", (96,), "f32")]
    lines = [
        f"%n = crest.layer_norm %x, %gamma : {t}, {ty((96,), 'f32')} -> {t}",
        f"%s = crest.mul %n, %w : {t}, {ty((96,), 'f32')} -> {t}",
        f"%r = crest.relu %s : {t}",
    ]

    def reference(v):
        n = layer_norm(v["x"], v["gamma"], 0.0, 1)
        return {"n": n, "r": np.maximum(n * v["w"], 0)}

    return inputs, lines, [("n", "%n", t), ("r", "%r", t)], reference, {}, \
        ["layer_norm+mul+relu"]


def long_row(written_out, op="layer_norm"):
    t = ty((3, 2048), "f32")
    v1 = ty((2048,), "f32")
    inputs = [("x", (3, 2048), "f32"), ("b", (2048,), "f32")]
    lines = [f"%s = crest.add %x, %b : {t}, {v1} -> {t}"]
    if op == "layer_norm":
        inputs.append(("gamma", (2048,), "f32"))
        lines.append(f"%y = crest.layer_norm %s, %gamma : {t}, {v1} -> {t}")
    else:
        lines.append(f"%y = crest.softmax %s : {t}")

    def reference(v):
        s = v["x"] + v["b"]
        y = layer_norm(s, v["gamma"], 0.0, 1) if op == "layer_norm" \
            else softmax(s, 1)
        return {"y": y, "s": s}

    outputs = [("y", "%y", t), ("s", "%s", t)]
    kernels = ["add", op]
    if written_out:
        # And an epilogue, applied as each element of the result is stored.
        lines += [f"%two = arith.constant dense<2.0> : {t}",
                  f"%z = crest.mul %y, %two : {t}, {t} -> {t}"]
        outputs.append(("z", "%z", t))
        kernels = [f"add+{op}+mul"]

    def reference_z(v):
        want = reference(v)
        want["z"] = 2 * want["y"]
        return want

    return inputs, lines, outputs, reference_z, {"kernel": written_out}, \
        kernels


@case
def long_row_kernel():
    """Rows of 2048 (32 per lane at wave64: read three times) through a
    crest.kernel written out: the sum is stored once, in the first read."""
    return long_row(True)


@case
def softmax_long_row_kernel():
    """The same for a softmax (its first read, the row maximum, stores the
    sum)."""
    return long_row(True, "softmax")


@case
def long_row_refused():
    """The same graph left to crest-fuse-epilogues, which refuses: the
    add would be computed three times per element."""
    return long_row(False)


def values(shape, elt, rng):
    v = rng.standard_normal(shape) * 1.5 + 0.25
    return v.astype(np.float16 if elt == "f16" else np.float32)


def graph_text(inputs, lines, outputs, in_kernel):
    arg_text = ", ".join(f"%{n}: {ty(s, e)} {{crest.name = \"{n}\"}}"
                         for n, s, e in inputs)
    result_types = ", ".join(t for _, _, t in outputs)
    results = ", ".join(f"{t} {{crest.name = \"{n}\"}}"
                        for n, _, t in outputs)
    if not in_kernel:
        body = "".join("  " + line + "\n" for line in lines)
        values = ", ".join(v for _, v, _ in outputs)
    else:
        names = ", ".join(f"%{n}" for n, _, _ in inputs)
        types = ", ".join(ty(s, e) for _, s, e in inputs)
        block = ", ".join(f"%a_{n}: {ty(s, e)}" for n, s, e in inputs)
        inner = []
        for line in lines:
            for n, _, _ in inputs:
                line = line.replace(f"%{n},", f"%a_{n},").replace(
                    f"%{n} ", f"%a_{n} ")
            inner.append(line)
        yielded = ", ".join(v for _, v, _ in outputs)
        body = (f"  %k:{len(outputs)} = crest.kernel ins({names} : {types})"
                f" -> {result_types} {{\n  ^bb0({block}):\n" +
                "".join("    " + line + "\n" for line in inner) +
                f"    crest.yield {yielded} : {result_types}\n  }}\n")
        values = ", ".join(f"%k#{i}" for i in range(len(outputs)))
    return (f"func.func @rows({arg_text})\n    -> ({results}) {{\n" + body +
            f"  return {values} : {result_types}\n}}\n")


def run(name, target, bin_dir, tmp):
    inputs, lines, outputs, reference, fixed, want_kernels = \
        CASES.cases[name]()
    in_kernel = fixed.pop("kernel", False)
    work = os.path.join(tmp, name)
    os.makedirs(work, exist_ok=True)
    source = os.path.join(work, "graph.mlir")
    with open(source, "w") as f:
        f.write(graph_text(inputs, lines, outputs, in_kernel))
    package = os.path.join(work, "graph.crest")
    subprocess.run([os.path.join(bin_dir, "crest-compile"), source,
                    "--target=" + target, "-o", package], check=True)
    rng = np.random.default_rng(11)
    data = {}
    command = [os.path.join(bin_dir, "crest-run"), package, "--device=emu",
               "--verify"]
    for n, s, e in inputs:
        data[n] = fixed[n] if n in fixed else values(s, e, rng)
        path = os.path.join(work, n + ".npy")
        np.save(path, data[n])
        command += ["--input", f"{n}={path}"]
    for n, _, _ in outputs:
        command += ["--output", f"{n}={os.path.join(work, n + '.npy')}"]
    kernels = launched_kernels(bin_dir, package)
    run = subprocess.run(command, capture_output=True, text=True)
    want = reference({k: v.astype(np.float64) for k, v in data.items()})
    error = 0.0
    for n, _, _ in outputs:
        got = np.load(os.path.join(work, n + ".npy")).astype(np.float64)
        w = want[n]
        assert np.abs(w).max() > 0
        error = max(error, float(np.abs(got - w).max() / np.abs(w).max())
                    if np.isfinite(got).all() else float("inf"))
    f16 = any(e == "f16" for _, _, e in inputs)
    ok = (error <= (2e-3 if f16 else 1e-5) and kernels == want_kernels and
          run.returncode == 0 and "verify: PASS" in run.stdout)
    print("%s: %d launch(es) %s, max_rel_err %.1e, %s" % (
        name, len(kernels), " ".join("[%s]" % k for k in kernels), error,
        "PASS" if ok else "FAIL"))
    if run.returncode != 0 or "verify: PASS" not in run.stdout:
        sys.stdout.write(run.stdout + run.stderr)
    return ok


if __name__ == "__main__":
    sys.exit(CASES.main(run))
