"""Helpers for scripts and tests that run one Crest kernel on crest-emu:
compile a graph to a code object and read the launch geometry the codegen
chose from the annotated host op."""
import re
import subprocess

# The printed form of #crest.launch (include/crest/Dialect/Crest/IR/
# CrestAttrs.td): kernel, grid [x, y, z], block [x, y, z], then the optional
# workspace and semaphore tensor types.
LAUNCH = re.compile(r"crest\.launch = #crest\.launch<"
                    r"kernel = @crest_kernels::@(\w+), "
                    r"grid = \[(\d+), (\d+), (\d+)\], "
                    r"block = \[(\d+), (\d+), (\d+)\]"
                    r"(?:, workspace = \[([^\]]*)\])?"
                    r"(?:, semaphores = \[([^\]]*)\])?>")
TENSOR = re.compile(r"tensor<((?:\d+x)*)(\w+)>")
DTYPES = {"f32": "float32", "i32": "int32", "f16": "float16"}
CONFIG = re.compile(r"config <[^>]*>")


def launches(text):
    """Every #crest.launch in printed MLIR `text`, in order, as
    (kernel name, (grid x, y, z), (block x, y, z)) with int sizes."""
    return [(m.group(1), tuple(int(g) for g in m.group(2, 3, 4)),
             tuple(int(b) for b in m.group(5, 6, 7)))
            for m in LAUNCH.finditer(text)]


def _tensor_types(text):
    """[(shape tuple, numpy dtype name)] of a list of tensor types."""
    return [(tuple(int(d) for d in dims.split("x") if d), DTYPES[elt])
            for dims, elt in TENSOR.findall(text or "")]


def buffers_of(text):
    """(workspace types, semaphore types) of the first #crest.launch in
    `text`: the kernel arguments after its results."""
    m = LAUNCH.search(text)
    return _tensor_types(m.group(8)), _tensor_types(m.group(9))


def buffer_args(buffers, tmp, np):
    """crest-emu --arg options for the buffers `buffers_of` returned, with
    files in `tmp`: workspaces filled with NaN (a kernel must not read what
    it did not write), semaphores zero as the host planner leaves them;
    each semaphore is written back to tmp/semaphoresI.out.npy so the caller
    can check the kernel left it zero."""
    workspace, semaphores = buffers
    args = []
    for i, (shape, dtype) in enumerate(workspace):
        path = f"{tmp}/workspace{i}.npy"
        np.save(path, np.full(shape, np.nan, dtype=dtype))
        args.append(f"--arg=in:{path}")
    for i, (shape, dtype) in enumerate(semaphores):
        path = f"{tmp}/semaphores{i}.npy"
        np.save(path, np.zeros(shape, dtype=dtype))
        args.append(f"--arg=inout:{path}:{tmp}/semaphores{i}.out.npy")
    return args


def launch_of(crest_opt, src, chip, want_config=False, want_buffers=False):
    """(block, grid "X,Y,Z", kernel name, config text or None) of the first
    kernel `src` lowers to on `chip`, and with `want_buffers` its
    (workspace, semaphore) types as a fifth element (see buffers_of)."""
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
    if want_buffers:
        return (str(block), f"{gx},{gy},{gz}", kernel, config,
                buffers_of(host))
    return str(block), f"{gx},{gy},{gz}", kernel, config


def compile_hsaco(crest_compile, src, chip, out, flags=()):
    subprocess.run([crest_compile, src, f"--target={chip}", "--emit=hsaco",
                    "-o", out] + list(flags), check=True)
