#!/usr/bin/env python3
"""Rewrites a .crest package with an edited manifest, for tests of the
reader's validation:

  patch_manifest.py IN.crest OUT.crest 'PYTHON STATEMENT'

The statement runs with `m` bound to the manifest (parsed JSON), e.g.
`m["kernels"][0]["info"]["modelled_us"] = -1`. The container is rebuilt from
docs/Package.md (header, section table, sections 256-byte aligned, in the
original order) around the other sections' unchanged bytes.
"""
import json
import struct
import sys

ALIGN = 256


def main(src, dst, statement):
    data = open(src, "rb").read()
    count = struct.unpack_from("<I", data, 12)[0]
    sections = []
    for i in range(count):
        kind, index, offset, size = struct.unpack_from("<IIQQ", data,
                                                       32 + 24 * i)
        sections.append([kind, index, data[offset:offset + size]])
    for section in sections:
        if section[0] == 1:
            m = json.loads(section[2])
            exec(statement, {"m": m})
            section[2] = json.dumps(m).encode()
    offset = 32 + 24 * count
    table, body = b"", b""
    for kind, index, payload in sections:
        offset = (offset + ALIGN - 1) // ALIGN * ALIGN
        table += struct.pack("<IIQQ", kind, index, offset, len(payload))
        body += b"\0" * (offset - (32 + 24 * count + len(body))) + payload
        offset += len(payload)
    header = struct.pack("<8sIIQQ", b"CRESTPKG", 1, count,
                         32 + len(table) + len(body), 0)
    open(dst, "wb").write(header + table + body)


if __name__ == "__main__":
    main(*sys.argv[1:])
