# -*- Python -*-
# lit configuration for Crest's regression tests.

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Crest"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".pbtxt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.crest_obj_root, "test")
# Unit/ has its own config (GoogleTest binaries); Inputs/ folders hold files
# that tests read.
config.excludes = ["Unit", "Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%crest_src_root", config.crest_src_root))
config.substitutions.append(("%crest_obj_root", config.crest_obj_root))
# A sanitizer build (CREST_SANITIZE, docs/Reliability.md): every Crest
# binary links ASan's shared runtime, with the options of
# sanitizer_options.py (which says why). Programs that are not instrumented
# but load Crest's shared libraries (python3 through ctypes, Debian's
# mlir-opt with the plugin) get the runtime preloaded through
# %{crest_python} and %mlir_opt.
sanitizer_preload = ""
if config.crest_sanitize:
    sys.path.insert(0, os.path.dirname(__file__))
    import sanitizer_options
    config.available_features.add("sanitized")
    config.environment.update(sanitizer_options.environment())
    sanitizer_preload = "env LD_PRELOAD=" + config.crest_sanitizer_runtime + " "
config.substitutions.append(("%python", sys.executable))
# Crest's version, from project(Crest VERSION ...) in CMakeLists.txt.
config.substitutions.append(("%crest_version", config.crest_version))
config.substitutions.append(
    ("%clang", os.path.join(config.llvm_tools_dir, "clang++")))

config.substitutions.append(
    ("%cc", os.path.join(config.llvm_tools_dir, "clang")))
# The shared libraries of the two C APIs (crest_compiler.h, crest_runtime.h).
config.substitutions.append(
    ("%crest_compiler_library",
     os.path.join(config.crest_obj_root, "lib", "libCrestCompiler.so")))
config.substitutions.append(
    ("%crest_runtime_library",
     os.path.join(config.crest_obj_root, "lib", "libCrestRuntimeC.so")))

# Other LLVMs Debian installs (libllvm14, libllvm15), which
# test/Embedding/foreign-llvm.test loads before libCrestCompiler.so.
other_llvms = [l for l in ("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
                           "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1")
               if os.path.exists(l)]
if other_llvms:
    config.available_features.add("other-llvm")
    config.substitutions.append(
        ("%{other_llvm_preloads}",
         " ".join("--preload=" + l for l in other_llvms)))

# The crest Python package (test/Python): its tests are unittest cases,
# run by pytest where Debian's python3-pytest is installed, else by the
# file's own unittest.main().
import subprocess
if subprocess.call([sys.executable, "-c", "import pytest"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
    config.substitutions.append(
        ("%{pytest}", sys.executable + " -m pytest -p no:cacheprovider"))
else:
    config.substitutions.append(("%{pytest}", sys.executable))
config.substitutions.append(
    ("%{crest_python}", sanitizer_preload + "env PYTHONPATH=" +
     os.path.join(config.crest_obj_root, "python")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.crest_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("crest-opt", unresolved="fatal"),
    ToolSubst("crest-chips", unresolved="fatal"),
    ToolSubst("crest-compile", unresolved="fatal"),
    ToolSubst("crest-emu", unresolved="fatal"),
    ToolSubst("crest-run", unresolved="fatal"),
    ToolSubst("crest-pack", unresolved="fatal"),
    ToolSubst("crest-example-run-model", unresolved="fatal"),
    ToolSubst("crest-example-compile-and-run", unresolved="fatal"),
    ToolSubst("crest-translate", unresolved="fatal"),
]
# The fuzz targets (fuzz/, test/Fuzz).
tools += [ToolSubst("crest-%s-fuzzer" % t, unresolved="fatal")
          for t in ("onnx", "ir", "package", "code-object", "npy",
                    "tensor-proto", "emulator")]
if config.crest_fuzz_engine.startswith("libfuzzer"):
    config.available_features.add("libfuzzer")
llvm_config.add_tool_substitutions(tools, tool_dirs)

# A machine with an AMD GPU driver (tests of the HIP "no device" path are
# unsupported there).
if os.path.exists("/dev/kfd"):
    config.available_features.add("amd-gpu")

# libcrest-hip.so, HIP's API on the emulator (docs/Hip.md): tests that run
# Crest's HIP device through it declare `REQUIRES: crest-hip`.
crest_hip_library = os.path.join(config.crest_obj_root, "lib", "libcrest-hip.so")
if os.path.exists(crest_hip_library):
    config.available_features.add("crest-hip")
    config.substitutions.append(("%crest_hip_library", crest_hip_library))
    # The same library without the graph entry points (runtime/hip).
    config.substitutions.append(("%crest_hip_nographs_library",
        os.path.join(config.crest_obj_root, "lib",
                     "libcrest-hip-nographs.so")))

# clang can compile HIP programs (host and device): it needs
# clang-offload-bundler (clang-tools-22), HIP's headers and Debian's ROCm
# device libraries.
hip_device_libs = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
if (os.path.exists(os.path.join(config.llvm_tools_dir, "clang-offload-bundler"))
        and os.path.isdir(hip_device_libs)
        and os.path.exists("/usr/include/hip/hip_runtime.h")):
    config.available_features.add("hip-clang")
    config.substitutions.append(("%hip_device_libs", hip_device_libs))

# Tests that read ../shared declare `REQUIRES: shared`.
if os.path.isdir(config.crest_shared_dir):
    config.available_features.add("shared")
    config.substitutions.append(("%shared", config.crest_shared_dir))

# Debian's mlir-opt-22 and Crest's plugin for it (test/Plugin).
# %mlir_opt_binary is the program itself (for ldd); it comes first, as
# %mlir_opt is its prefix.
config.substitutions.append(
    ("%mlir_opt_binary", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(
    ("%mlir_opt", sanitizer_preload +
     os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(
    ("%crest_plugin",
     os.path.join(config.crest_obj_root, "lib", "libCrestPlugin.so")))

# The environment in which test/Embedding configures and builds projects
# against an installed Crest: Crest's C++ compiler and linker, Ninja, and at
# most two parallel jobs.
consumer_env = ["CC=" + config.cmake_c_compiler,
                "CXX=" + config.cmake_cxx_compiler, "CMAKE_GENERATOR=Ninja",
                "CMAKE_BUILD_PARALLEL_LEVEL=2"]
ldflags = []
if config.llvm_use_linker:
    ldflags.append("-fuse-ld=" + config.llvm_use_linker)
if config.crest_sanitize:
    # Crest's static libraries are instrumented: a program that links them
    # links the same sanitizer runtime.
    ldflags += ["-fsanitize=" + config.crest_sanitize, "-shared-libsan",
                "-Wl,-rpath," + os.path.dirname(config.crest_sanitizer_runtime)]
if ldflags:
    consumer_env.append("LDFLAGS='" + " ".join(ldflags) + "'")
config.substitutions.append(("%{consumer_env}", "env " + " ".join(consumer_env)))
config.substitutions.append(("%cmake", config.cmake_command))

# The tools the end-to-end scripts drive.
config.substitutions.append(
    ("%{tools}",
     " ".join("--%s %s" % (t, os.path.join(config.crest_tools_dir, t))
              for t in ("crest-opt", "crest-compile", "crest-emu"))))
