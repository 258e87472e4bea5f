#!/usr/bin/env python3
"""An independent reader of .crest packages, for tests.

It shares no code with runtime/lib/Package.cpp: it parses the container from
docs/Package.md, checks the container's own rules (magic, version, sizes,
256-byte alignment, bounds, no overlap, section kinds and indices) and then
prints what was asked:

  inspect_package.py model.crest --summary      one line per table entry
  inspect_package.py model.crest --manifest     the manifest JSON, as stored
  inspect_package.py model.crest --liveness     recomputes every value's live
                                                range and checks buffer sharing
  inspect_package.py model.crest --extract-code-object N OUT
  inspect_package.py model.crest --weight NAME  the weight's values (numpy)

Exit code 1 with "error: ..." when the package breaks a rule.
"""

import argparse
import json
import struct
import sys

MAGIC = b"CRESTPKG"
ALIGN = 256
KINDS = {1: "manifest", 2: "weights", 3: "code-object"}
DTYPES = {"f64": "<f8", "f32": "<f4", "f16": "<f2", "i64": "<i8",
          "i32": "<i4", "i16": "<i2", "i8": "i1", "ui8": "u1", "i1": "u1"}
SIZES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "f8E4M3FNUZ": 1,
         "f8E5M2FNUZ": 1, "f8E4M3FN": 1, "f8E5M2": 1, "i64": 8, "i32": 4,
         "i16": 2, "i8": 1, "ui8": 1, "i1": 1}


def fail(message):
    print("error: " + message, file=sys.stderr)
    sys.exit(1)


def read_container(data):
    if len(data) < 32:
        fail("shorter than the header")
    magic, version, count, size, reserved = struct.unpack_from("<8sIIQQ", data)
    if magic != MAGIC:
        fail("bad magic %r" % magic)
    if version != 1:
        fail("version %d" % version)
    if size != len(data):
        fail("header size %d, file %d" % (size, len(data)))
    if reserved != 0:
        fail("reserved %d" % reserved)
    table_end = 32 + 24 * count
    if count < 1 or table_end > len(data):
        fail("section count %d" % count)
    sections = []
    for i in range(count):
        kind, index, offset, length = struct.unpack_from("<IIQQ",
                                                         data, 32 + 24 * i)
        if kind not in KINDS:
            fail("section %d: kind %d" % (i, kind))
        if offset % ALIGN:
            fail("section %d: offset %d not aligned" % (i, offset))
        if offset < table_end or offset + length > len(data):
            fail("section %d: [%d, %d) out of bounds" %
                 (i, offset, offset + length))
        sections.append((KINDS[kind], index, offset, length))
    spans = sorted((s[2], s[2] + s[3]) for s in sections if s[3])
    for (_, end), (start, _) in zip(spans, spans[1:]):
        if start < end:
            fail("sections overlap")
    by_kind = {}
    for kind, index, offset, length in sections:
        by_kind.setdefault(kind, {})
        if index in by_kind[kind]:
            fail("two %s sections with index %d" % (kind, index))
        by_kind[kind][index] = data[offset:offset + length]
    for kind in ("manifest", "weights"):
        if sorted(by_kind.get(kind, {})) != [0]:
            fail("needs exactly one %s section, index 0" % kind)
    codes = by_kind.get("code-object", {})
    if sorted(codes) != list(range(len(codes))):
        fail("code objects not numbered 0..n-1")
    manifest = json.loads(by_kind["manifest"][0].decode("utf-8"))
    return {"manifest": manifest, "weights": by_kind["weights"][0],
            "codes": [codes[i] for i in range(len(codes))],
            "sections": sections}


def nbytes(value):
    n = SIZES[value["type"]]
    for d in value["shape"]:
        n *= d
    return n


def describe(value):
    return "%s[%s]" % (value["type"], ",".join(map(str, value["shape"])))


def summary(pkg):
    m = pkg["manifest"]
    values = m["values"]
    print("package chip=%s cov=%d wave=%d graph=%s code_objects=%d "
          "weights_bytes=%d" % (m["chip"], m["code_object_version"],
                                m["wave_size"], m["graph_name"],
                                len(pkg["codes"]), len(pkg["weights"])))
    for kind, index, offset, length in pkg["sections"]:
        print("section %s %d offset=%d size=%d" % (kind, index, offset,
                                                   length))
    for i, v in enumerate(values):
        extra = ""
        if "buffer" in v:
            extra += " buffer=%d" % v["buffer"]
        if v.get("buffer_offset", 0):
            extra += " at=%d" % v["buffer_offset"]
        if v["kind"] == "weight":
            extra += " weight=%d+%d" % (v["weight_offset"], v["weight_size"])
        print("value %d %s %s %s%s" % (i, v["name"], v["kind"], describe(v),
                                       extra))
    print("inputs " + " ".join(values[i]["name"] for i in m["inputs"]))
    print("outputs " + " ".join(values[i]["name"] for i in m["outputs"]))
    for i, b in enumerate(m["buffers"]):
        users = [v["name"] for v in values if v.get("buffer") == i]
        print("buffer %d size=%d values=%s" % (i, b["size"], ",".join(users)))
    for i, k in enumerate(m["kernels"]):
        info = " ".join(("%s=%g" if isinstance(v, float) else "%s=%d") %
                        (key, v) for key, v in sorted(k["info"].items()))
        print("kernel %d %s code_object=%d op=%s %s" %
              (i, k["name"], k["code_object"], k["op"], info))
    for i, l in enumerate(m["launches"]):
        print("launch %d kernel=%s grid=%s block=%s args=%s" %
              (i, m["kernels"][l["kernel"]]["name"],
               ",".join(map(str, l["grid"])), ",".join(map(str, l["block"])),
               ",".join(values[a]["name"] for a in l["args"])))
    for i, n in enumerate(m["graph"]):
        print("node %d %s (%s) -> (%s) attrs=%s at %s" %
              (i, n["op"], ",".join(values[a]["name"] for a in n["inputs"]),
               ",".join(values[a]["name"] for a in n["outputs"]),
               json.dumps(n["attributes"], sort_keys=True),
               n["location"].rsplit("/", 1)[-1]))


def window_run(shape, result, attrs):
    """The first flat index of a slice whose elements are one contiguous
    run of the input's (row-major), else None: enumerates the elements."""
    import itertools
    offsets = attrs.get("offsets", [0] * len(shape))
    strides = attrs.get("strides", [1] * len(shape))
    flat = []
    for index in itertools.product(*(range(d) for d in result)):
        f = 0
        for o, s, i, d in zip(offsets, strides, index, shape):
            f = f * d + o + s * i
        flat.append(f)
    if flat != list(range(flat[0], flat[0] + len(flat))):
        return None
    return flat[0]


def liveness(pkg):
    """Recomputes live ranges from the launches; checks every buffer.

    A reshape node whose output lies in exactly its input's bytes (same
    buffer, offset and size), or a slice node whose elements are one
    contiguous run of its input's and whose output lies at that run's bytes,
    is an alias: the two are one storage class,
    live from the first to the last launch naming either, and may hold at
    most one input, output or weight."""
    m = pkg["manifest"]
    values = m["values"]
    root = list(range(len(values)))

    def find(i):
        while root[i] != i:
            i = root[i]
        return i

    for n in m["graph"]:
        if n["op"] not in ("reshape", "slice"):
            continue
        a, r = values[n["inputs"][0]], values[n["outputs"][0]]
        if "buffer" not in r or r["buffer"] != a.get("buffer"):
            continue
        at = r.get("buffer_offset", 0) - a.get("buffer_offset", 0)
        if n["op"] == "reshape":
            if at == 0 and nbytes(r) == nbytes(a):
                root[find(n["outputs"][0])] = find(n["inputs"][0])
                print("alias %s = reshape of %s in buffer %d" %
                      (r["name"], a["name"], r["buffer"]))
            continue
        run = window_run(a["shape"], r["shape"], n["attributes"])
        if run is not None and run * SIZES[a["type"]] == at:
            root[find(n["outputs"][0])] = find(n["inputs"][0])
            print("alias %s = window of %s at +%d bytes in buffer %d" %
                  (r["name"], a["name"], at, r["buffer"]))
    first, last = {}, {}
    for i, l in enumerate(m["launches"]):
        for a in l["args"]:
            c = find(a)
            first.setdefault(c, i)
            last[c] = i
    owners = {}
    for i, v in enumerate(values):
        if v["kind"] in ("input", "output", "weight"):
            c = find(i)
            if c in owners:
                fail("%s and %s hold the same bytes" %
                     (values[owners[c]]["name"], v["name"]))
            owners[c] = i
    shared = 0
    for b, buf in enumerate(m["buffers"]):
        users = [i for i, v in enumerate(values) if v.get("buffer") == b]
        if not users:
            fail("buffer %d unused" % b)
        for u in users:
            v = values[u]
            if v.get("buffer_offset", 0) + nbytes(v) > buf["size"]:
                fail("%s does not fit buffer %d" % (v["name"], b))
        classes = {}
        for u in users:
            classes.setdefault(find(u), []).append(u)
        if len(classes) == 1:
            continue
        shared += 1
        for c in classes:
            if c in owners:
                fail("%s (%s) shares buffer %d" %
                     (values[owners[c]]["name"],
                      values[owners[c]]["kind"], b))
        spans = sorted((first[c], last[c], "+".join(values[u]["name"]
                                                      for u in members))
                       for c, members in classes.items())
        for (_, end, a), (start, _, c) in zip(spans, spans[1:]):
            if start <= end:
                fail("%s and %s share buffer %d while both live" % (a, c, b))
        print("buffer %d shared by %s, size %d = max(%s)" %
              (b, " ".join("%s[%d,%d]" % (n, s, e) for s, e, n in spans),
               buf["size"], ",".join(str(nbytes(values[u])) for u in users)))
    for v in values:
        if v["kind"] == "weight":
            end = v["weight_offset"] + v["weight_size"]
            if v["weight_size"] != nbytes(v) or end > len(pkg["weights"]):
                fail("weight %s bytes out of range" % v["name"])
    print("liveness ok: %d shared buffers" % shared)


def weight(pkg, name):
    import numpy as np
    for v in pkg["manifest"]["values"]:
        if v["name"] == name and v["kind"] == "weight":
            raw = pkg["weights"][v["weight_offset"]:
                                 v["weight_offset"] + v["weight_size"]]
            return np.frombuffer(raw, dtype=DTYPES[v["type"]]).reshape(
                v["shape"])
    fail("no weight named " + name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package")
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--manifest", action="store_true")
    parser.add_argument("--liveness", action="store_true")
    parser.add_argument("--weight")
    parser.add_argument("--extract-code-object", nargs=2,
                        metavar=("INDEX", "OUT"))
    args = parser.parse_args()
    with open(args.package, "rb") as f:
        pkg = read_container(f.read())
    if args.summary:
        summary(pkg)
    if args.manifest:
        print(json.dumps(pkg["manifest"], indent=1, sort_keys=True))
    if args.liveness:
        liveness(pkg)
    if args.weight:
        import numpy as np
        np.set_printoptions(threshold=1 << 20, linewidth=200)
        print(weight(pkg, args.weight))
    if args.extract_code_object:
        index, out = args.extract_code_object
        with open(out, "wb") as f:
            f.write(pkg["codes"][int(index)])


if __name__ == "__main__":
    main()
