#!/usr/bin/env python3
"""The longest Rust functions under src/ at a commit, longest first.

Usage: scripts/longest-fns.py [COMMIT] [-n N] [--tests]
  COMMIT   what to measure (default HEAD), read with git: no checkout needed
  -n N     how many to print (default 10)
  --tests  count test code too (files named tests.rs, `#[cfg(test)] mod` blocks)

A function's length is its lines from the one holding `fn` to the one holding
its closing brace, inclusive (attributes and doc comments not counted; an
inner function counts inside its outer one as well). Braces are matched with
comments, strings and character literals blanked out; a `fn` ending in `;`
(a declaration without a body) is skipped. Code generated into OUT_DIR is
not in git, so not counted.
"""
import re
import subprocess
import sys


RAW = re.compile(r'[bc]?r(#*)"')


def blank(src):
    """`src` with comments, strings and char literals replaced by spaces (newlines kept)."""
    out, i, n = list(src), 0, len(src)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif (m := RAW.match(src, i)) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            end = src.find('"' + m.group(1), m.end())
            j = n if end < 0 else end + 1 + len(m.group(1))
            wipe(m.end(), j - 1 - len(m.group(1)))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            wipe(i + 1, j)
            i = j + 1
        elif c == "'":
            if i + 1 < n and src[i + 1] == "\\":  # '\n', '\'', '\u{..}'
                j = src.find("'", i + 3)
                wipe(i + 1, j)
                i = j + 1
            elif i + 2 < n and src[i + 2] == "'":  # 'x'
                wipe(i + 1, i + 2)
                i += 3
            else:  # a lifetime
                i += 1
        else:
            i += 1
    return "".join(out)


def functions(path, src, tests):
    code = blank(src)
    line_of = lambda pos: code.count("\n", 0, pos) + 1
    skip = []  # (start, end) of #[cfg(test)] mod blocks
    if not tests:
        for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", code):
            skip.append((m.start(), match_brace(code, m.end() - 1)))
    for m in re.finditer(r"\bfn\s+([A-Za-z_]\w*)", code):
        if any(a <= m.start() < b for a, b in skip):
            continue
        depth, j = 0, m.end()
        while j < len(code) and not (depth == 0 and code[j] in "{;"):
            depth += (code[j] in "([") - (code[j] in ")]")
            j += 1
        if j < len(code) and code[j] == "{":
            end = match_brace(code, j)
            yield line_of(end) - line_of(m.start()) + 1, f"{path}:{line_of(m.start())}", m.group(1)


def match_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        depth += {"{": 1, "}": -1}.get(code[j], 0)
        if depth == 0:
            return j
    return len(code)


def main(argv):
    commit, top, tests, args = "HEAD", 10, False, iter(argv)
    for a in args:
        if a == "-n":
            top = int(next(args))
        elif a == "--tests":
            tests = True
        else:
            commit = a
    git = lambda *a: subprocess.run(["git", *a], check=True, capture_output=True, text=True).stdout
    paths = [p for p in git("ls-tree", "-r", "--name-only", commit, "--", "src").split() if p.endswith(".rs")]
    if not tests:
        paths = [p for p in paths if not p.endswith("/tests.rs")]
    found = [f for p in paths for f in functions(p, git("show", f"{commit}:{p}"), tests)]
    for lines, where, name in sorted(found, key=lambda f: -f[0])[:top]:
        print(f"{lines:5}  {where}  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
