"""corrupt.py MODE IN.crest OUT.crest: writes a damaged copy of a package.
Modes: append (300 zero bytes at the end), truncate (the first half),
key (renames the manifest key "launches"), elf (breaks the first code
object's ELF magic), buffer (shrinks buffer 0 by one byte, in place: the
input living there no longer fits). The container is parsed here by hand,
from docs/Package.md."""
import struct
import sys

mode, src, dst = sys.argv[1:4]
b = bytearray(open(src, "rb").read())
assert b[:8] == b"CRESTPKG", "not a package"
count = struct.unpack_from("<I", b, 12)[0]
sections = [struct.unpack_from("<IIQQ", b, 32 + 24 * i) for i in range(count)]
manifest = next(s for s in sections if s[0] == 1)
code = next(s for s in sections if s[0] == 3 and s[1] == 0)
text = bytes(b[manifest[2]:manifest[2] + manifest[3]])
if mode == "append":
    b += bytes(300)
elif mode == "truncate":
    b = b[:len(b) // 2]
elif mode == "key":
    i = manifest[2] + text.index(b'"launches"')
    b[i + 1:i + 9] = b"lAunches"
elif mode == "elf":
    assert b[code[2]:code[2] + 4] == b"\x7fELF"
    b[code[2] + 1] = ord("X")
elif mode == "buffer":
    i = text.index(b'"size": ') + len(b'"size": ')
    j = i
    while text[j:j + 1].isdigit():
        j += 1
    old = int(text[i:j])
    new = str(old - 1).rjust(j - i)  # same length: the offsets stay valid
    b[manifest[2] + i:manifest[2] + j] = new.encode()
else:
    sys.exit(f"unknown mode {mode}")
open(dst, "wb").write(bytes(b))
