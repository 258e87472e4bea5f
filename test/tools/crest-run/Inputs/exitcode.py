"""Runs a command and fails unless it exits with the given code:
exitcode.py CODE CMD ARGS..."""
import subprocess
import sys

code = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:])
if proc.returncode != code:
    sys.exit(f"exitcode.py: expected exit code {code}, got {proc.returncode}")
