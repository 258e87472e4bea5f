"""Helpers for scripts and tests that run one Crest kernel on crest-emu:
compile a graph to a code object and read the launch geometry the codegen
chose from the annotated host op."""
import re
import subprocess

LAUNCH = re.compile(r"crest.launch = \{block = array<i32: (\d+), 1, 1>, "
                    r"grid = array<i32: (\d+), (\d+), (\d+)>, "
                    r"kernel = @crest_kernels::@(\w+)\}")
CONFIG = re.compile(r"config <[^>]*>")


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
    block, gx, gy, gz, kernel = LAUNCH.search(host).groups()
    return block, f"{gx},{gy},{gz}", kernel, config


def compile_hsaco(crest_compile, src, chip, out, flags=()):
    subprocess.run([crest_compile, src, f"--target={chip}", "--emit=hsaco",
                    "-o", out] + list(flags), check=True)
