"""Crest from Python: compile a model for an AMD GPU and run it.

    import numpy as np
    import crest

    package = crest.compile("model.onnx", target="gfx942", precision="f16")
    print(package.report)              # the resource table, as text
    print(package.kernels[0]["vgprs"])  # ... and as data
    outputs = crest.run(package, {"input": np.ones((8, 256), np.float32)},
                        device="emu", verify=True)

crest.compile is crest-compile in process (libCrestCompiler.so); crest.run
runs a package through the runtime (libCrestRuntimeC.so) on a GPU through
HIP or on Crest's AMDGPU emulator. Both are ctypes over the C APIs
(crest_compiler.h, crest_runtime.h); see docs/Python.md.
"""

import collections
import ctypes
import json
import os
import warnings

from . import _capi

__all__ = ["compile", "run", "Package", "Diagnostic", "CompileError",
           "CompileWarning", "RunError", "VerifyError", "version",
           "library_dir"]

library_dir = _capi.library_dir

_compiler = None
_runtime = None


def _compiler_lib():
    global _compiler
    if _compiler is None:
        _compiler = _capi.load_compiler()
    return _compiler


def _runtime_lib():
    global _runtime
    if _runtime is None:
        _runtime = _capi.load_runtime()
    return _runtime


def version():
    """Crest's version, e.g. "0.1.0" (the compiler library's)."""
    return _compiler_lib().crest_compiler_version_string().decode()


Diagnostic = collections.namedtuple("Diagnostic",
                                    ["severity", "message", "location"])
Diagnostic.__doc__ = """One diagnostic of a compile: severity ("error",
"warning", "note" or "remark"), message, and location ("file:line:col",
"model.onnx: node 'n'" or "")."""

_SEVERITIES = ["error", "warning", "note", "remark"]


class CompileError(Exception):
    """A compile failed. `message` is the first error's text, `location`
    its location ("" if it has none), `diagnostics` every Diagnostic of the
    compile, and str() the whole report, one diagnostic per line."""

    def __init__(self, text, message, location, diagnostics):
        super().__init__(text)
        self.message = message
        self.location = location
        self.diagnostics = diagnostics


class CompileWarning(UserWarning):
    """A warning of a compile (warnings.warn'd; also Package.diagnostics)."""


class RunError(Exception):
    """The runtime failed: `status` is the C API's status name
    ("CREST_ERROR_INPUT", ...) and the message says why."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (status, message))
        self.status = status
        self.message = message


class VerifyError(RunError):
    """run(..., verify=True): an output is beyond the reference's
    tolerance. `report` has one line per output; `outputs` the arrays."""

    def __init__(self, status, message, report, outputs):
        super().__init__(status, message)
        self.report = report
        self.outputs = outputs


class Package:
    """A compiled .crest package (or, with emit="hsaco"/"mlir"/..., what
    crest-compile writes for it): `data` the bytes, `chip`, `report` the
    --report table as text, `report_data` the same as a dict ({"chip",
    "wave_size", "code_object_version", "kernels": [...]}), `kernels` its
    list of per-kernel dicts, `diagnostics` the warnings of the compile."""

    def __init__(self, data, chip="", report="", report_data=None,
                 diagnostics=()):
        self.data = bytes(data)
        self.chip = chip
        self.report = report
        self.report_data = report_data or {"kernels": []}
        self.diagnostics = list(diagnostics)

    @property
    def kernels(self):
        return self.report_data.get("kernels", [])

    @classmethod
    def load(cls, path):
        """A package from a .crest file (crest-compile -o model.crest)."""
        with open(path, "rb") as f:
            return cls(f.read())

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.data)

    def _signature(self, inputs):
        with _Model(self.data) as model:
            return [value[:3] for value in model.signature(inputs)]

    @property
    def inputs(self):
        """[(name, dtype name, shape)] of the graph's inputs."""
        return self._signature(True)

    @property
    def outputs(self):
        """[(name, dtype name, shape)] of the graph's outputs."""
        return self._signature(False)

    def __repr__(self):
        return "<crest.Package %s, %d bytes, %d kernels>" % (
            self.chip or "?", len(self.data), len(self.kernels))


def _looks_like_path(source):
    return isinstance(source, os.PathLike) or (
        isinstance(source, str) and "\n" not in source)


def _input_kind(data, name, format):
    if format is not None:
        if format not in ("mlir", "onnx"):
            raise ValueError("format must be 'mlir' or 'onnx', got %r"
                             % (format,))
        return format
    if name and name.endswith(".onnx"):
        return "onnx"
    if name and (name.endswith(".mlir") or name.endswith(".mlirbc")):
        return "mlir"
    if data.startswith(b"ML\xefR"):  # MLIR bytecode
        return "mlir"
    try:
        data.decode("utf-8")
        return "mlir"
    except UnicodeDecodeError:
        return "onnx"


def compile(source, target=None, precision=None, onnx_dims=None,
            emit="package", format=None, name=None, report=True,
            code_object_version=None, opt_level=None, wave_size=None,
            fuse_attention=None, calibration=None, precision_budget=None,
            holdout=None, fuse_prologues=None, fuse_rows=None):
    """Compiles a model and returns a Package.

    source: a path (str or os.PathLike; ".onnx" files are ONNX, others
        MLIR), the model's bytes (MLIR text or bytecode, or an ONNX
        ModelProto; `format` or the content decides), or MLIR text as a str
        with newlines.
    target: the chip ("gfx942", ...; default: the graph's #crest.target).
    precision: ONNX models, TOSA and linalg graphs: "f32" (ONNX's default),
        "f16" or "bf16", the type contractions read; "fp8" or "auto"
        (docs/Precision.md).
    onnx_dims: ONNX models only: sizes of symbolic dimensions, a dict or
        "name=size,...".
    emit: "package" (default), "hsaco", "mlir", "llvm" or "asm".
    fuse_attention: False keeps attention written as ops unfused (default
        True; docs/Attention.md).
    fuse_prologues: False keeps the casts and per-channel scales of
        contraction operands, and the ops computing a layer norm's,
        softmax's or reduction's input, as kernels of their own (default
        True; docs/Codegen.md).
    fuse_rows: False keeps the elementwise ops around layer norms,
        softmaxes and reductions as kernels of their own (default True;
        docs/Codegen.md).
    calibration, holdout: precision "fp8"/"auto": directories of input sets;
        precision_budget: precision "auto"'s loss budget (docs/Precision.md).
    Raises CompileError (with the message and location of the diagnostics)
    when the model does not compile.
    """
    if _looks_like_path(source):
        path = os.fspath(source)
        with open(path, "rb") as f:
            data = f.read()
        name = name or path
    elif isinstance(source, str):
        data = source.encode("utf-8")
        format = format or "mlir"
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        raise TypeError("source must be a path, bytes or MLIR text, not %s"
                        % type(source).__name__)
    kind = _input_kind(data, name, format)

    options = {"emit": emit, "report": "1" if report else "0"}
    if target is not None:
        options["target"] = target
    if precision is not None:
        options["precision"] = precision
    if onnx_dims is not None:
        if isinstance(onnx_dims, dict):
            onnx_dims = ",".join("%s=%d" % item for item in onnx_dims.items())
        options["onnx-dims"] = onnx_dims
    for option, value in (("code-object-version", code_object_version),
                          ("opt-level", opt_level),
                          ("wave-size", wave_size),
                          ("calibration", calibration),
                          ("precision-budget", precision_budget),
                          ("holdout", holdout)):
        if value is not None:
            options[option] = os.fspath(value) if isinstance(
                value, os.PathLike) else str(value)
    if fuse_attention is not None:
        options["fuse-attention"] = "1" if fuse_attention else "0"
    if fuse_prologues is not None:
        options["fuse-prologues"] = "1" if fuse_prologues else "0"
    if fuse_rows is not None:
        options["fuse-rows"] = "1" if fuse_rows else "0"


    lib = _compiler_lib()
    diagnostics = []

    def on_diagnostic(severity, message, location, user_data):
        diagnostics.append(Diagnostic(
            _SEVERITIES[severity] if 0 <= severity < 4 else "error",
            message.decode("utf-8", "replace"),
            location.decode("utf-8", "replace")))

    callback = _capi.DIAGNOSTIC_CALLBACK(on_diagnostic)
    session = _capi.SESSION_P()
    _raise_compile_error(lib, lib.crest_compiler_session_create(
        ctypes.byref(session)), diagnostics)
    try:
        lib.crest_compiler_session_set_diagnostic_callback(session, callback,
                                                           None)
        for option, value in options.items():
            _raise_compile_error(lib, lib.crest_compiler_session_set_option(
                session, option.encode(), str(value).encode()), diagnostics)
        output = _capi.OUTPUT_P()
        buffer = ctypes.create_string_buffer(data, len(data))
        error = lib.crest_compiler_compile(
            session, 1 if kind == "onnx" else 0, buffer, len(data),
            name.encode() if name else None, ctypes.byref(output))
        _raise_compile_error(lib, error, diagnostics)
    finally:
        lib.crest_compiler_session_destroy(session)
    try:
        size = ctypes.c_size_t()
        pointer = lib.crest_compiler_output_data(output, ctypes.byref(size))
        result = ctypes.string_at(pointer, size.value) if size.value else b""
        package = Package(
            result,
            chip=lib.crest_compiler_output_chip(output).decode(),
            report=lib.crest_compiler_output_report(output).decode(),
            report_data=json.loads(
                lib.crest_compiler_output_report_json(output).decode()),
            diagnostics=diagnostics)
    finally:
        lib.crest_compiler_output_destroy(output)
    for diagnostic in diagnostics:
        if diagnostic.severity == "warning":
            warnings.warn(CompileWarning(
                (diagnostic.location + ": " if diagnostic.location else "")
                + diagnostic.message), stacklevel=2)
    return package


def _raise_compile_error(lib, error, diagnostics):
    if not error:
        return
    text = lib.crest_compiler_error_message(error).decode("utf-8", "replace")
    location = lib.crest_compiler_error_location(error).decode(
        "utf-8", "replace")
    lib.crest_compiler_error_destroy(error)
    errors = [d for d in diagnostics if d.severity == "error"]
    message = errors[0].message if errors else text
    if errors:
        location = errors[0].location
    raise CompileError(text, message, location, list(diagnostics))


class _Model:
    """A crest_model, loaded from package bytes."""

    def __init__(self, data):
        self.lib = _runtime_lib()
        self.handle = _capi.MODEL_P()
        buffer = ctypes.create_string_buffer(data, len(data))
        _check(self.lib, self.lib.crest_model_load_memory(
            buffer, len(data), ctypes.byref(self.handle)))

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()

    def close(self):
        if self.handle:
            self.lib.crest_model_destroy(self.handle)
            self.handle = _capi.MODEL_P()

    def signature(self, inputs):
        """[(name, dtype name, shape, crest_dtype)] of the inputs or
        outputs."""
        lib = self.lib
        count = (lib.crest_model_num_inputs if inputs
                 else lib.crest_model_num_outputs)(self.handle)
        describe = lib.crest_model_input if inputs else lib.crest_model_output
        values = []
        for index in range(count):
            name = ctypes.c_char_p()
            dtype = ctypes.c_int()
            rank = ctypes.c_size_t()
            shape = (ctypes.c_int64 * 8)()
            _check(lib, describe(self.handle, index, ctypes.byref(name),
                                 ctypes.byref(dtype), ctypes.byref(rank),
                                 shape))
            values.append((name.value.decode(), _capi.DTYPES[dtype.value][0],
                           tuple(shape[i] for i in range(rank.value)),
                           dtype.value))
        return values


def _check(lib, status):
    if status != 0:
        raise RunError(lib.crest_status_name(status).decode(),
                       lib.crest_last_error().decode("utf-8", "replace"))


def _numpy_type(np, dtype_index, lib):
    name, numpy_name = _capi.DTYPES[dtype_index]
    if numpy_name:
        return np.dtype(numpy_name)
    # bf16 and fp8 travel as their raw bits.
    return np.dtype("uint16" if lib.crest_dtype_size(dtype_index) == 2
                    else "uint8")


def run(package, inputs, device="auto", verify=False):
    """Runs a package and returns {output name: numpy.ndarray}.

    package: a Package, the bytes of one, or a .crest file's path.
    inputs: {input name: array-like}; each is converted to the input's
        element type (bf16 and fp8 inputs are given as uint16/uint8 arrays
        of their bits) and must have its shape.
    device: "auto" (HIP if a GPU of the package's chip is usable, else the
        emulator), "emu" (or "emulator") or "hip".
    verify: also compare every output with the host reference evaluator;
        raises VerifyError when one is beyond tolerance.
    Raises RunError when the runtime fails (a missing input, a wrong shape,
    no such device, LDS races on the emulator, ...).
    """
    import numpy as np

    if isinstance(package, Package):
        data = package.data
    elif isinstance(package, (bytes, bytearray, memoryview)):
        data = bytes(package)
    else:
        data = Package.load(os.fspath(package)).data
    if device not in _capi.DEVICE_KINDS:
        raise ValueError("device must be 'auto', 'emu' or 'hip', got %r"
                         % (device,))
    lib = _runtime_lib()
    model = _Model(data)
    dev = _capi.DEVICE_P()
    session = _capi.RUN_SESSION_P()
    try:
        signature_in = model.signature(True)
        signature_out = model.signature(False)
        names = [value[0] for value in signature_in]
        unknown = sorted(set(inputs) - set(names))
        if unknown:
            raise RunError("CREST_ERROR_INPUT",
                           "the package has no input %s; its inputs are %s"
                           % (", ".join(map(repr, unknown)),
                              ", ".join(map(repr, names))))
        _check(lib, lib.crest_device_create(
            _capi.DEVICE_KINDS[device], lib.crest_model_chip(model.handle),
            lib.crest_model_code_object_version(model.handle), None,
            ctypes.byref(dev)))
        _check(lib, lib.crest_session_create(dev, model.handle,
                                             ctypes.byref(session)))
        keep = []
        for name, _, shape, dtype in signature_in:
            if name not in inputs:
                continue  # the runtime names the missing input
            array = np.ascontiguousarray(
                np.asarray(inputs[name]).astype(
                    _numpy_type(np, dtype, lib), copy=False))
            keep.append(array)
            dims = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
            _check(lib, lib.crest_session_bind_input(
                session, name.encode(), dtype, dims, array.ndim,
                array.ctypes.data_as(ctypes.c_void_p), array.nbytes))
        _check(lib, lib.crest_session_run(session))
        outputs = {}
        for name, _, shape, dtype in signature_out:
            array = np.empty(shape, _numpy_type(np, dtype, lib))
            _check(lib, lib.crest_session_read_output(
                session, name.encode(),
                array.ctypes.data_as(ctypes.c_void_p), array.nbytes))
            outputs[name] = array
        if verify:
            report = ctypes.c_char_p()
            status = lib.crest_session_verify(session, ctypes.byref(report))
            if status == _capi.STATUS_VERIFY:
                raise VerifyError(
                    lib.crest_status_name(status).decode(),
                    lib.crest_last_error().decode("utf-8", "replace"),
                    (report.value or b"").decode(), outputs)
            _check(lib, status)
        return outputs
    finally:
        if session:
            lib.crest_session_destroy(session)
        if dev:
            lib.crest_device_destroy(dev)
        model.close()
