"""Helpers for scripts and tests that run one Crest kernel on crest-emu:
compile a graph to a code object and read the launch geometry the codegen
chose from the annotated host op."""
import re
import subprocess

# The printed form of #crest.launch (include/crest/Dialect/Crest/IR/
# CrestAttrs.td): kernel, grid [x, y, z], block [x, y, z].
LAUNCH = re.compile(r"crest\.launch = #crest\.launch<"
                    r"kernel = @crest_kernels::@(\w+), "
                    r"grid = \[(\d+), (\d+), (\d+)\], "
                    r"block = \[(\d+), (\d+), (\d+)\]>")
CONFIG = re.compile(r"config <[^>]*>")


def launches(text):
    """Every #crest.launch in printed MLIR `text`, in order, as
    (kernel name, (grid x, y, z), (block x, y, z)) with int sizes."""
    return [(m.group(1), tuple(int(g) for g in m.group(2, 3, 4)),
             tuple(int(b) for b in m.group(5, 6, 7)))
            for m in LAUNCH.finditer(text)]


def launch_of(crest_opt, src, chip, want_config=False):
    """(block, grid "X,Y,Z", kernel name, config text or None) of the first
    kernel `src` lowers to on `chip`."""
    config = None
    if want_config:
        selected = subprocess.run(
            [crest_opt, src, f"--crest-attach-target=chip={chip}",
             "--crest-select-config"],
            check=True, capture_output=True, text=True).stdout
        match = CONFIG.search(selected)
        config = match.group(0) if match else "?"
    host = subprocess.run(
        [crest_opt, src, f"--crest-attach-target=chip={chip}",
         "--crest-select-config", "--crest-lower-to-gpu"],
        check=True, capture_output=True, text=True).stdout
    kernel, (gx, gy, gz), (block, _, _) = launches(host)[0]
    return str(block), f"{gx},{gy},{gz}", kernel, config


def compile_hsaco(crest_compile, src, chip, out, flags=()):
    subprocess.run([crest_compile, src, f"--target={chip}", "--emit=hsaco",
                    "-o", out] + list(flags), check=True)
