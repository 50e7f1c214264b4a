#!/usr/bin/env python3
"""docs/clients.md shows only code that a client test runs.

Each ```python block follows a line `<!-- doc-test: python=FILE -->`
(the docs checker, tests/docs/check.py, reads the same marker); each
```js and ```java block is followed, after any further blocks of its
language, by a line linking the test file (`From [FILE](../FILE)`). Every
non-blank line of a block must be a line of that file (leading and trailing
blanks aside). ```text blocks show messages and are not checked here; the
tests check those messages.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join("docs", "clients.md")


def blocks(lines):
    """(line number, language, code lines, index after the block)."""
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*```(\w+)\s*$", lines[i])
        if m:
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            yield i + 1, m.group(1), lines[i + 1:j], i, j + 1
            i = j
        i += 1


def source_of(lines, lang, start, after):
    if lang == "python":
        m = re.match(r"\s*<!--\s*doc-test:\s*python=(\S+)\s*-->", lines[start - 1]) if start else None
        return m.group(1) if m else None
    # The first line of prose after the block (and after any blocks that go on
    # with the same example) names the file.
    j = after
    while j < len(lines):
        text = lines[j].strip()
        if not text:
            j += 1
        elif text.startswith("```"):
            j += 1
            while lines[j].strip() != "```":
                j += 1
            j += 1
        else:
            m = re.search(r"\]\(\.\./(tests/clients/[^)#\s]+)\)", text)
            return m.group(1) if m else None
    return None


def main():
    lines = open(os.path.join(ROOT, DOC)).read().splitlines()
    failed = checked = 0
    for number, lang, code, start, after in blocks(lines):
        if lang not in ("python", "js", "java"):
            continue
        source = source_of(lines, lang, start, after)
        if not source:
            print(f"FAIL {DOC}:{number}: a ```{lang} block that names no test file")
            failed += 1
            continue
        ran = {x.strip() for x in open(os.path.join(ROOT, source)).read().splitlines()}
        missing = [c.strip() for c in code if c.strip() and c.strip() not in ran]
        if missing:
            print(f"FAIL {DOC}:{number}: lines of the ```{lang} block that {source} does not have: {missing}")
            failed += 1
        else:
            print(f"ok   {DOC}:{number}: every line of the ```{lang} block is in {source}")
            checked += 1
    sys.exit(1 if failed or not checked else 0)


if __name__ == "__main__":
    main()
