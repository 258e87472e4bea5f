"""ctypes declarations of Crest's two C APIs.

libCrestCompiler.so (crest_compiler.h) and libCrestRuntimeC.so
(crest_runtime.h) are found in CREST_LIBRARY_DIR when it is set, else in the
library folder recorded when this package was built or installed
(_config.py). Both are loaded with RTLD_LOCAL: they export their C
functions only and bring their own MLIR and LLVM (Debian's shared
libraries), so other LLVMs in the process do not matter.
"""

import ctypes
import os

from . import _config

COMPILER_API_MAJOR = 1
COMPILER_API_MINOR = 0
RUNTIME_API_MAJOR = 1
RUNTIME_API_MINOR = 1


def library_dir():
    """The folder the two libraries are loaded from."""
    override = os.environ.get("CREST_LIBRARY_DIR")
    if override:
        return override
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _config.LIBRARY_DIR))


class _Error(ctypes.Structure):
    pass


class _Session(ctypes.Structure):
    pass


class _Output(ctypes.Structure):
    pass


DIAGNOSTIC_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p,
                                       ctypes.c_char_p, ctypes.c_void_p)
ERROR_P = ctypes.POINTER(_Error)
SESSION_P = ctypes.POINTER(_Session)
OUTPUT_P = ctypes.POINTER(_Output)


def _declare(lib, name, restype, *argtypes):
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)


def _check_version(name, library_version, major, minor):
    got_major, got_minor = library_version >> 16, library_version & 0xFFFF
    if got_major != major or got_minor < minor:
        raise ImportError(
            "%s has API %d.%d; this crest module needs %d.%d or a later %d.x"
            % (name, got_major, got_minor, major, minor, major))


def load_compiler():
    path = os.path.join(library_dir(), "libCrestCompiler.so")
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    c = ctypes
    _declare(lib, "crest_compiler_api_version", c.c_uint32)
    _check_version(path, lib.crest_compiler_api_version(), COMPILER_API_MAJOR,
                   COMPILER_API_MINOR)
    _declare(lib, "crest_compiler_version_string", c.c_char_p)
    _declare(lib, "crest_compiler_error_message", c.c_char_p, ERROR_P)
    _declare(lib, "crest_compiler_error_location", c.c_char_p, ERROR_P)
    _declare(lib, "crest_compiler_error_destroy", None, ERROR_P)
    _declare(lib, "crest_compiler_session_create", ERROR_P,
             c.POINTER(SESSION_P))
    _declare(lib, "crest_compiler_session_destroy", None, SESSION_P)
    _declare(lib, "crest_compiler_session_set_option", ERROR_P, SESSION_P,
             c.c_char_p, c.c_char_p)
    _declare(lib, "crest_compiler_session_set_diagnostic_callback", None,
             SESSION_P, DIAGNOSTIC_CALLBACK, c.c_void_p)
    _declare(lib, "crest_compiler_compile", ERROR_P, SESSION_P, c.c_int,
             c.c_void_p, c.c_size_t, c.c_char_p, c.POINTER(OUTPUT_P))
    _declare(lib, "crest_compiler_output_data", c.c_void_p, OUTPUT_P,
             c.POINTER(c.c_size_t))
    _declare(lib, "crest_compiler_output_chip", c.c_char_p, OUTPUT_P)
    _declare(lib, "crest_compiler_output_report", c.c_char_p, OUTPUT_P)
    _declare(lib, "crest_compiler_output_report_json", c.c_char_p, OUTPUT_P)
    _declare(lib, "crest_compiler_output_destroy", None, OUTPUT_P)
    return lib


# crest_runtime.h
class _Device(ctypes.Structure):
    pass


class _Model(ctypes.Structure):
    pass


class _RunSession(ctypes.Structure):
    pass


DEVICE_P = ctypes.POINTER(_Device)
MODEL_P = ctypes.POINTER(_Model)
RUN_SESSION_P = ctypes.POINTER(_RunSession)

DEVICE_KINDS = {"auto": 0, "hip": 1, "emu": 2, "emulator": 2}

# crest_dtype, in the header's order: (name, numpy type name or None when
# NumPy has no such type: those tensors are passed as raw bits).
DTYPES = [("f64", "float64"), ("f32", "float32"), ("f16", "float16"),
          ("bf16", None), ("f8E4M3FNUZ", None), ("f8E5M2FNUZ", None),
          ("f8E4M3FN", None), ("f8E5M2", None), ("i64", "int64"),
          ("i32", "int32"), ("i16", "int16"), ("i8", "int8"), ("u8", "uint8"),
          ("i1", "bool"), ("u16", "uint16"), ("u32", "uint32"),
          ("u64", "uint64")]
STATUS_RACE = 7
STATUS_VERIFY = 8


def load_runtime():
    path = os.path.join(library_dir(), "libCrestRuntimeC.so")
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    c = ctypes
    _declare(lib, "crest_api_version", c.c_uint32)
    _check_version(path, lib.crest_api_version(), RUNTIME_API_MAJOR,
                   RUNTIME_API_MINOR)
    _declare(lib, "crest_last_error", c.c_char_p)
    _declare(lib, "crest_status_name", c.c_char_p, c.c_int)
    _declare(lib, "crest_dtype_size", c.c_size_t, c.c_int)
    _declare(lib, "crest_device_create", c.c_int, c.c_int, c.c_char_p,
             c.c_uint, c.c_void_p, c.POINTER(DEVICE_P))
    _declare(lib, "crest_device_destroy", None, DEVICE_P)
    _declare(lib, "crest_device_describe", c.c_char_p, DEVICE_P)
    _declare(lib, "crest_device_get_kind", c.c_int, DEVICE_P)
    _declare(lib, "crest_model_load_memory", c.c_int, c.c_void_p, c.c_size_t,
             c.POINTER(MODEL_P))
    _declare(lib, "crest_model_destroy", None, MODEL_P)
    _declare(lib, "crest_model_chip", c.c_char_p, MODEL_P)
    _declare(lib, "crest_model_code_object_version", c.c_uint, MODEL_P)
    _declare(lib, "crest_model_num_inputs", c.c_size_t, MODEL_P)
    _declare(lib, "crest_model_num_outputs", c.c_size_t, MODEL_P)
    for name in ("crest_model_input", "crest_model_output"):
        _declare(lib, name, c.c_int, MODEL_P, c.c_size_t,
                 c.POINTER(c.c_char_p), c.POINTER(c.c_int),
                 c.POINTER(c.c_size_t), c.POINTER(c.c_int64))
    _declare(lib, "crest_session_create", c.c_int, DEVICE_P, MODEL_P,
             c.POINTER(RUN_SESSION_P))
    _declare(lib, "crest_session_destroy", None, RUN_SESSION_P)
    _declare(lib, "crest_session_bind_input", c.c_int, RUN_SESSION_P,
             c.c_char_p, c.c_int, c.POINTER(c.c_int64), c.c_size_t,
             c.c_void_p, c.c_size_t)
    _declare(lib, "crest_session_run", c.c_int, RUN_SESSION_P)
    _declare(lib, "crest_session_read_output", c.c_int, RUN_SESSION_P,
             c.c_char_p, c.c_void_p, c.c_size_t)
    _declare(lib, "crest_session_verify", c.c_int, RUN_SESSION_P,
             c.POINTER(c.c_char_p))
    _declare(lib, "crest_session_report", c.c_char_p, RUN_SESSION_P)
    _declare(lib, "crest_session_last_run_seconds", c.c_double,
             RUN_SESSION_P)
    _declare(lib, "crest_session_last_run_modelled_us", c.c_double,
             RUN_SESSION_P)
    return lib
