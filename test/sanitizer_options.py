"""The sanitizer runtime options of the sanitizer build (docs/Reliability.md).

One list for the lit suites (test/lit.cfg.py, test/Unit/lit.cfg.py) and
scripts/fuzz.sh (`python3 test/sanitizer_options.py` prints the exports).
Debian's LLVM and MLIR libraries are not instrumented, hence:
- detect_leaks=0: LLVM's and MLIR's singletons are never freed;
- detect_container_overflow=0: std::vector's annotations are one-sided;
- detect_odr_violation=0: MLIR's static libraries are linked into several
  of Crest's shared objects, as in the normal build;
- allow_user_poisoning=0: LLVM's allocators poison and unpoison their slabs
  only in instrumented code (LLVM_ADDRESS_SANITIZER_BUILD), so their inlined
  copies in Crest's code and Debian's uninstrumented ones disagree;
- verify_asan_link_order=0: C programs of the tests that link
  libCrestRuntimeC.so without being instrumented themselves.
UBSan's reports are fatal (-fno-sanitize-recover=all) and print a stack.
"""

ASAN_OPTIONS = [
    "detect_leaks=0",
    "detect_container_overflow=0",
    "detect_odr_violation=0",
    "allow_user_poisoning=0",
    "verify_asan_link_order=0",
    "abort_on_error=0",
    "print_summary=1",
]
UBSAN_OPTIONS = ["print_stacktrace=1", "halt_on_error=1"]


def environment():
    return {"ASAN_OPTIONS": ":".join(ASAN_OPTIONS),
            "UBSAN_OPTIONS": ":".join(UBSAN_OPTIONS)}


if __name__ == "__main__":
    for name, value in environment().items():
        print("export %s='%s'" % (name, value))
