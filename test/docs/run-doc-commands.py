#!/usr/bin/env python3
"""Runs the ```sh examples of a guide that mention a given word.

usage: run-doc-commands.py BIN_DIR SRC_ROOT GUIDE WORD WORK_DIR

Each matching block runs as one `sh -e` script in WORK_DIR, with BIN_DIR
first on PATH, then `python3` as this script's interpreter, SRC_ROOT's examples/ and test/ linked into WORK_DIR (the
guides name files relative to the checkout) and build/ linked to BIN_DIR's
parent (the guides' build folder). Prints the block's line, its output and
whether it succeeded; exits 1 if any failed or none matched.
"""
import os
import re
import subprocess
import sys


def main(bin_dir, src_root, guide, word, work_dir):
    os.makedirs(work_dir, exist_ok=True)
    links = {"examples": os.path.join(src_root, "examples"),
             "test": os.path.join(src_root, "test"),
             "build": os.path.dirname(os.path.abspath(bin_dir))}
    for name, target in links.items():
        link = os.path.join(work_dir, name)
        if not os.path.lexists(link):
            os.symlink(target, link)
    # `python3` in a guide is the interpreter running this script (the one
    # with NumPy), then the tools.
    python_dir = os.path.join(work_dir, ".python")
    os.makedirs(python_dir, exist_ok=True)
    python = os.path.join(python_dir, "python3")
    if not os.path.lexists(python):
        os.symlink(sys.executable, python)
    env = dict(os.environ, PATH=os.pathsep.join(
        [bin_dir, python_dir, os.environ["PATH"]]))
    text = open(os.path.join(src_root, guide), encoding="utf-8").read()
    ran = failed = 0
    for match in re.finditer(r"```sh\n(.*?)```", text, re.S):
        script = match.group(1)
        if word not in script or script.lstrip().startswith("$"):
            continue
        line = text.count("\n", 0, match.start()) + 2
        result = subprocess.run(["sh", "-e", "-c", script], cwd=work_dir,
                                env=env, text=True, capture_output=True)
        ran += 1
        sys.stdout.write(result.stdout)
        status = "ok" if result.returncode == 0 else "FAILED"
        print(f"{guide}:{line}: {status}")
        if result.returncode != 0:
            failed += 1
            sys.stderr.write(result.stderr)
    print(f"{ran} examples run, {failed} failed")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
