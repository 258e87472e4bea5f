#!/usr/bin/env python3
"""Writes a model of ONNX's recurrent cells over a 5-step sequence.

  recurrent.py OUT_DIR

writes OUT_DIR/model.onnx and OUT_DIR/test_data_set_0/{input_N,output_NN}.pb
(the layout scripts/run-onnx-model.py reads). Opset 14, X (5x2x4), Xb
(2x5x4, batch first):

  LSTM bidirectional, hidden 8, B, initial_h, initial_c, peepholes P,
       clip 0.75                              -> y0 Y, y1 Y_h, y2 Y_c
  GRU forward, hidden 6, B, initial_h, linear_before_reset 0   -> y3 Y
  GRU reverse, hidden 6, B, linear_before_reset 1               -> y4 Y, y5 Y_h
  RNN forward on Xb (layout 1), hidden 5, B, activations [Relu] -> y6 Y

The expected outputs are an independent NumPy float64 evaluation of the
cell equations of the ONNX specification (gate orders iofc, zrh), not
Crest's unrolling. Weights are uniform in +-0.5 so that the gates are far
from saturation and the recurrence matters: each output is compared with
the same cell run with R = 0 (printed, far beyond the tolerances).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_writer import (FLOAT, attribute_float, attribute_int,  # noqa: E402
                         attribute_string, field_bytes, field_varint, node,
                         tensor, value_info, write_test_case)

SEQ, BATCH, INPUT = 5, 2, 4
HL, HG, HR = 8, 6, 5
CLIP = 0.75


def strings_attribute(name, values):
    """AttributeProto: strings 9, type 20 (STRINGS = 8)."""
    return (field_bytes(1, name) + b"".join(field_bytes(9, v) for v in values)
            + field_varint(20, 8))


def weights():
    rng = np.random.default_rng(20261203)
    u = lambda *shape: rng.uniform(-0.5, 0.5, shape).astype(np.float32)  # noqa: E731
    return {
        "x": u(SEQ, BATCH, INPUT), "xb": u(BATCH, SEQ, INPUT),
        "lw": u(2, 4 * HL, INPUT), "lr": u(2, 4 * HL, HL), "lb": u(2, 8 * HL),
        "lh": u(2, BATCH, HL), "lc": u(2, BATCH, HL), "lp": u(2, 3 * HL),
        "gw": u(1, 3 * HG, INPUT), "gr": u(1, 3 * HG, HG), "gb": u(1, 6 * HG),
        "gh": u(1, BATCH, HG),
        "vw": u(1, 3 * HG, INPUT), "vr": u(1, 3 * HG, HG), "vb": u(1, 6 * HG),
        "rw": u(1, HR, INPUT), "rr": u(1, HR, HR), "rb": u(1, 2 * HR),
    }


NODES = [
    ("LSTM", ["x", "lw", "lr", "lb", "", "lh", "lc", "lp"], ["y0", "y1", "y2"],
     [attribute_int("hidden_size", HL),
      attribute_string("direction", "bidirectional"),
      attribute_float("clip", CLIP)]),
    ("GRU", ["x", "gw", "gr", "gb", "", "gh"], ["y3"],
     [attribute_int("hidden_size", HG)]),
    ("GRU", ["x", "vw", "vr", "vb"], ["y4", "y5"],
     [attribute_int("hidden_size", HG),
      attribute_string("direction", "reverse"),
      attribute_int("linear_before_reset", 1)]),
    ("RNN", ["xb", "rw", "rr", "rb"], ["y6"],
     [attribute_int("hidden_size", HR), attribute_int("layout", 1),
      strings_attribute("activations", ["Relu"])]),
]
OUTPUTS = ["y0", "y1", "y2", "y3", "y4", "y5", "y6"]


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def lstm(x, w, r, b, h, c, p, clip, reverse):
    hs = h.shape[-1]
    wi, wo, wf, wc = np.split(w, 4)
    ri, ro, rf, rc = np.split(r, 4)
    wbi, wbo, wbf, wbc, rbi, rbo, rbf, rbc = np.split(b, 8)
    pi, po, pf = np.split(p, 3)
    cl = lambda v: np.clip(v, -clip, clip)  # noqa: E731
    ys = [None] * len(x)
    order = range(len(x) - 1, -1, -1) if reverse else range(len(x))
    for t in order:
        xt = x[t]
        i = sigmoid(cl(xt @ wi.T + h @ ri.T + wbi + rbi + pi * c))
        f = sigmoid(cl(xt @ wf.T + h @ rf.T + wbf + rbf + pf * c))
        g = np.tanh(cl(xt @ wc.T + h @ rc.T + wbc + rbc))
        c = f * c + i * g
        o = sigmoid(cl(xt @ wo.T + h @ ro.T + wbo + rbo + po * c))
        # The clip bounds the gates' inputs only: the cell state goes into
        # h unclipped, as onnxruntime computes it.
        h = o * np.tanh(c)
        ys[t] = h
    assert hs == h.shape[-1]
    return np.stack(ys), h, c


def gru(x, w, r, b, h, linear_before_reset, reverse):
    wz, wr, wh = np.split(w, 3)
    rz, rr, rh = np.split(r, 3)
    wbz, wbr, wbh, rbz, rbr, rbh = np.split(b, 6)
    ys = [None] * len(x)
    order = range(len(x) - 1, -1, -1) if reverse else range(len(x))
    for t in order:
        xt = x[t]
        z = sigmoid(xt @ wz.T + h @ rz.T + wbz + rbz)
        rg = sigmoid(xt @ wr.T + h @ rr.T + wbr + rbr)
        if linear_before_reset:
            hh = np.tanh(xt @ wh.T + rg * (h @ rh.T + rbh) + wbh)
        else:
            hh = np.tanh(xt @ wh.T + (rg * h) @ rh.T + rbh + wbh)
        h = (1 - z) * hh + z * h
        ys[t] = h
    return np.stack(ys), h


def rnn_relu(x, w, r, b, h):
    wb, rb = np.split(b, 2)
    ys = []
    for xt in x:
        h = np.maximum(xt @ w.T + h @ r.T + wb + rb, 0)
        ys.append(h)
    return np.stack(ys), h


def reference(p, recurrence=True, clip=CLIP):
    q = {k: v.astype(np.float64) for k, v in p.items()}
    if not recurrence:
        for k in ("lr", "gr", "vr", "rr"):
            q[k] = np.zeros_like(q[k])
    out = {}
    yf, hf, cf = lstm(q["x"], q["lw"][0], q["lr"][0], q["lb"][0], q["lh"][0],
                      q["lc"][0], q["lp"][0], clip, False)
    yr, hr, cr = lstm(q["x"], q["lw"][1], q["lr"][1], q["lb"][1], q["lh"][1],
                      q["lc"][1], q["lp"][1], clip, True)
    out["y0"] = np.stack([yf, yr], axis=1)  # [seq, dirs, batch, hidden]
    out["y1"] = np.stack([hf, hr])
    out["y2"] = np.stack([cf, cr])
    y3, _ = gru(q["x"], q["gw"][0], q["gr"][0], q["gb"][0], q["gh"][0], 0,
                False)
    out["y3"] = y3[:, None]
    y4, h4 = gru(q["x"], q["vw"][0], q["vr"][0], q["vb"][0],
                 np.zeros((BATCH, HG)), 1, True)
    out["y4"] = y4[:, None]
    out["y5"] = h4[None]
    y6, _ = rnn_relu(q["xb"].transpose(1, 0, 2), q["rw"][0], q["rr"][0],
                     q["rb"][0], np.zeros((BATCH, HR)))
    out["y6"] = y6[:, None].transpose(2, 0, 1, 3)  # layout 1: [batch, seq, 1, h]
    return out


def model_bytes(p, y):
    nodes = [node(op, ins, outs, "/%s%d/%s" % (op.lower(), i, op), attrs)
             for i, (op, ins, outs, attrs) in enumerate(NODES)]
    graph = b"".join(field_bytes(1, n) for n in nodes)
    graph += field_bytes(2, "recurrent")
    graph += b"".join(field_bytes(5, tensor(k, v)) for k, v in p.items()
                      if k not in ("x", "xb"))
    graph += field_bytes(11, value_info("x", FLOAT, p["x"].shape))
    graph += field_bytes(11, value_info("xb", FLOAT, p["xb"].shape))
    for name in OUTPUTS:
        graph += field_bytes(12, value_info(name, FLOAT, y[name].shape))
    opset = field_bytes(1, "") + field_varint(2, 14)
    return (field_varint(1, 8) + field_bytes(2, "recurrent.py")
            + field_bytes(7, graph) + field_bytes(8, opset))


def main():
    out = sys.argv[1]
    p = weights()
    y = reference(p)
    write_test_case(out, model_bytes(p, y),
                    [(name, p[name]) for name in ("x", "xb")],
                    [(name, y[name].astype(np.float32)) for name in OUTPUTS])
    flat = reference(p, recurrence=False)
    print("min over outputs of max |y - y_without_R| / max |y|: %.2f" % min(
        np.max(np.abs(y[k] - flat[k])) / np.max(np.abs(y[k])) for k in OUTPUTS))
    print("max |y0 - y0_unclipped| / max |y0|: %.3f" % (
        np.max(np.abs(y["y0"] - reference(p, clip=np.inf)["y0"]))
        / np.max(np.abs(y["y0"]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
