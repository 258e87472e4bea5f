# -*- Python -*-
# lit configuration for Crest's GoogleTest unit tests: every binary named
# *Tests under <build>/unittests is one test suite, each TEST one lit test.

import os
import sys

import lit.formats

config.name = "Crest-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.crest_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# Tests that read ../shared honour CREST_SHARED_DIR from the environment
# (`CREST_SHARED_DIR=/nonexistent lit build/test/Unit` runs what a checkout
# without it runs).
if "CREST_SHARED_DIR" in os.environ:
    config.environment["CREST_SHARED_DIR"] = os.environ["CREST_SHARED_DIR"]

# The sanitizer build's runtime options (test/sanitizer_options.py).
if config.crest_sanitize:
    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    import sanitizer_options
    config.environment.update(sanitizer_options.environment())
