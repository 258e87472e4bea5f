# Sanitizer and fuzzing builds (docs/Reliability.md).
#
#   CREST_SANITIZE=address,undefined   ASan and UBSan on Crest's own code
#   CREST_FUZZ=ON                      libFuzzer coverage on Crest's code; the
#                                      targets in fuzz/ become fuzzers
#
# LLVM's HandleLLVMOptions does the compiling part (LLVM_USE_SANITIZER,
# LLVM_USE_SANITIZE_COVERAGE, as LLVM's own sanitizer bots use them); this
# maps Crest's options onto it and adds what a build against Debian's
# uninstrumented LLVM and MLIR needs. Include it before HandleLLVMOptions.
#
# Every binary links the shared sanitizer runtime (-shared-libsan), found
# through an rpath, so that Crest's shared libraries (libCrestRuntimeC.so,
# libCrestCompiler.so, libCrestPlugin.so) carry their runtime with them and
# still link with -z defs; a program that is not instrumented (python3 with
# ctypes, Debian's mlir-opt with the plugin) must preload it (LD_PRELOAD; the
# lit suite does so through %python and %mlir_opt).

set(CREST_SANITIZE "" CACHE STRING
  "Sanitizers for Crest's code: address, undefined or address,undefined")
option(CREST_FUZZ
  "Build the fuzz targets (fuzz/) as libFuzzer fuzzers; needs clang and CREST_SANITIZE" OFF)

set(CREST_SANITIZER_RUNTIME "")
if(CREST_SANITIZE OR CREST_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "CREST_SANITIZE and CREST_FUZZ need clang "
                        "(CMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++)")
  endif()
  string(REPLACE "," ";" crest_sanitizers "${CREST_SANITIZE}")
  set(crest_llvm_sanitizers "")
  foreach(s IN LISTS crest_sanitizers)
    string(STRIP "${s}" s)
    if(s STREQUAL "address")
      list(APPEND crest_llvm_sanitizers Address)
    elseif(s STREQUAL "undefined")
      list(APPEND crest_llvm_sanitizers Undefined)
    else()
      message(FATAL_ERROR "CREST_SANITIZE: unknown sanitizer '${s}' "
                          "(known: address, undefined)")
    endif()
  endforeach()
  if(CREST_FUZZ AND NOT "Address" IN_LIST crest_llvm_sanitizers)
    message(FATAL_ERROR "CREST_FUZZ=ON needs CREST_SANITIZE to include address")
  endif()
  set(LLVM_USE_SANITIZER "${crest_llvm_sanitizers}")
  # LLVM's own choice for UBSan: vptr needs RTTI, which LLVM is built
  # without; function checks calls through pointers into uninstrumented code.
  # Every report is fatal, so a test that triggers one fails.
  set(LLVM_UBSAN_FLAGS
    "-fsanitize=undefined -fno-sanitize=vptr,function -fno-sanitize-recover=all")
  if(CREST_FUZZ)
    set(LLVM_USE_SANITIZE_COVERAGE ON)
  endif()

  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -print-runtime-dir
    OUTPUT_VARIABLE crest_runtime_dir OUTPUT_STRIP_TRAILING_WHITESPACE)
  if("Address" IN_LIST crest_llvm_sanitizers)
    set(CREST_SANITIZER_RUNTIME
      "${crest_runtime_dir}/libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so")
  else()
    set(CREST_SANITIZER_RUNTIME
      "${crest_runtime_dir}/libclang_rt.ubsan_standalone-${CMAKE_SYSTEM_PROCESSOR}.so")
  endif()
  if(NOT EXISTS "${CREST_SANITIZER_RUNTIME}")
    message(FATAL_ERROR "No sanitizer runtime at ${CREST_SANITIZER_RUNTIME}: "
                        "install libclang-rt-22-dev (scripts/setup.sh does)")
  endif()
  string(APPEND CMAKE_C_FLAGS " -shared-libsan")
  string(APPEND CMAKE_CXX_FLAGS " -shared-libsan")
  foreach(kind EXE SHARED MODULE)
    string(APPEND CMAKE_${kind}_LINKER_FLAGS
      " -shared-libsan -Wl,-rpath,${crest_runtime_dir}")
  endforeach()
  message(STATUS "Crest: sanitizers ${LLVM_USE_SANITIZER}, fuzzing ${CREST_FUZZ}, "
                 "runtime ${CREST_SANITIZER_RUNTIME}")
endif()
