"""fuzz_package.py CREST_RUN IN.crest TMP N -- ARGS...: runs crest-run on N
seeded corruptions of a package (random bit flips in the code object, 64-byte
zeroed runs in it, bit flips in the manifest) and fails if any run ends
other than with exit 0, 1, 2 or 3 (a signal, i.e. a crash) or takes more
than 60 s. Prints how many runs ended with each exit code."""
import random
import struct
import subprocess
import sys

crest_run, src, tmp, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
args = sys.argv[sys.argv.index("--") + 1:]
b = open(src, "rb").read()
count = struct.unpack_from("<I", b, 12)[0]
sections = [struct.unpack_from("<IIQQ", b, 32 + 24 * i) for i in range(count)]
manifest = next(s for s in sections if s[0] == 1)
code = next(s for s in sections if s[0] == 3)
rnd = random.Random(1)
codes = {}
for trial in range(n):
    d = bytearray(b)
    kind = trial % 3
    if kind == 0:
        for _ in range(4):
            i = code[2] + 4 + rnd.randrange(code[3] - 4)
            d[i] ^= 1 << rnd.randrange(8)
    elif kind == 1:
        i = code[2] + 4 + rnd.randrange(code[3] - 68)
        d[i:i + 64] = bytes(64)
    else:
        i = manifest[2] + rnd.randrange(manifest[3])
        d[i] ^= 1 << rnd.randrange(8)
    path = f"{tmp}/fuzz.crest"
    open(path, "wb").write(bytes(d))
    p = subprocess.run([crest_run, path] + args, capture_output=True,
                       text=True, timeout=60)
    codes[p.returncode] = codes.get(p.returncode, 0) + 1
    if p.returncode not in (0, 1, 2, 3):
        sys.exit(f"trial {trial}: exit {p.returncode}\n{p.stderr}")
    if p.returncode == 1 and "error:" not in p.stderr:
        sys.exit(f"trial {trial}: exit 1 without an error message")
print("fuzz: %d runs, no crash; exit codes %s" % (
    n, ", ".join(f"{c}: {k}" for c, k in sorted(codes.items()))))
