#!/usr/bin/env python3
"""Checks that every line of OUTPUT appears, verbatim, as a whole line of
the Markdown file DOC (the guide shows what the commands print):

  doc_lines.py DOC OUTPUT [--ignore REGEX]

Lines matching --ignore (e.g. one naming a temporary path) are skipped.
"""
import argparse
import re
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("doc")
    p.add_argument("output")
    p.add_argument("--ignore")
    args = p.parse_args()
    doc = set(open(args.doc).read().splitlines())
    missing = []
    lines = open(args.output).read().splitlines()
    for line in lines:
        if args.ignore and re.search(args.ignore, line):
            continue
        if line not in doc:
            missing.append(line)
    for line in missing:
        print(f"{args.doc}: missing line: {line!r}", file=sys.stderr)
    if missing or not lines:
        return 1
    print(f"{len(lines)} lines in {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
