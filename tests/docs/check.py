"""Keeps the documentation true: README.md, every docs/*.md, CONTRIBUTING.md and SECURITY.md.

1. Every ```sql block runs, in order, each in a fresh database, with psql's
   ON_ERROR_STOP. A block that does not create the extension itself gets
   one where `CREATE EXTENSION uuid_ext` already ran. A line
   `<!-- doc-test: setup=FILE check=FILE -->` right before a block names
   SQL files (relative to the repository) run before and after it.
2. A query that states its result in a comment after its semicolon,
   `SELECT ...;  -- result`, must print exactly that (one row; columns
   separated by ` | `; NULL as `NULL`; in UTC with ISO dates). A result that
   differs by PostgreSQL version names the versions,
   `-- on 15, 16: result; on 17: other; on 18: ...`, and must name the
   version under test. Queries are statements that start with SELECT, SHOW,
   VALUES, TABLE or WITH; a comment after any other statement is a note.
3. A ```python block after `<!-- doc-test: python=FILE -->` is code a
   test runs: every line of it is in FILE.
4. docs/reference.md documents exactly the functions the extension
   installs (a table row starting with `` | `name( ``), and names every
   type and every `uuid_ext.*` setting it installs.
5. Every UUID function the documents name (`uuid...(` in backticks)
   exists, in the extension or in PostgreSQL.
6. README.md stays short (at most 250 lines), and relative links between
   the documents point to files and headings that exist.
7. README.md's first screen (its first 40 lines) names the two commands a
   newcomer runs on a new machine, `./scripts/demo` and `./scripts/test`,
   each on a line that says how long it takes (`N minutes`).

Runs on the shared server (which preloads the library); `main(t, names)`
checks the documents named (README, CONTRIBUTING, reference, ...): the
examples and links of each, README.md's length with it, the reference's
coverage of the catalog with `reference`.
"""
import os
import re
import subprocess

from pg import fail

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sql_blocks(text):
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```sql":
            opts = {}
            if i > 0:
                m = re.match(r"\s*<!--\s*doc-test:(.*)-->", lines[i - 1])
                if m:
                    opts = dict(kv.split("=", 1) for kv in m.group(1).split())
            start = i + 1
            i += 1
            while lines[i].strip() != "```":
                i += 1
            blocks.append((start + 1, "\n".join(lines[start:i]) + "\n", opts))
        i += 1
    return blocks


def python_blocks(text):
    """(line, code, file) of each ```python block marked with the test that runs it."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"\s*<!--\s*doc-test:\s*python=(\S+)\s*-->", line)
        if m and i + 1 < len(lines) and lines[i + 1].strip() == "```python":
            j = i + 2
            while lines[j].strip() != "```":
                j += 1
            out.append((i + 3, lines[i + 2:j], m.group(1)))
    return out


def psql(srv, dbname, sql=None, file=None):
    cmd = [*srv.psql(dbname), "-F", " | ", "-P", "null=NULL"]
    cmd += ["-f", file] if file else ["-f", "-"]
    env = dict(os.environ, PGTZ="UTC", PGDATESTYLE="ISO, MDY")
    return subprocess.run(cmd, input=sql, text=True, capture_output=True, env=env)


QUERY = re.compile(r"^\s*(SELECT|SHOW|VALUES|TABLE|WITH)\b", re.I)
PER_VERSION = re.compile(r"^on (\d+(?:, \d+)*): (.*)$")


def expected_for(comment, major):
    """The result a comment states for PostgreSQL `major` (None: not stated)."""
    parts = comment.split("; ")
    matches = [PER_VERSION.match(p) for p in parts]
    if not all(matches):
        return comment
    for m in matches:
        if str(major) in m.group(1).split(", "):
            return m.group(2)
    return None


def with_markers(sql):
    """The block with psql \\echo markers around every query that states its
    result; returns (sql, [(marker, line index in the block, comment)]).
    (The documents' SQL has no `--` inside a string literal.)"""
    lines = sql.splitlines()
    stated, begin_at, end_at = [], {}, {}
    first = None  # the first line of the statement being read
    for i, line in enumerate(lines):
        code, _, comment = line.partition("--")
        code = code.rstrip()
        if first is None and code.strip():
            first = i
        # A psql meta-command line (`\set ...`), or a query sent with
        # `\gset`, ends a statement too.
        if code.lstrip().startswith("\\") or re.search(r"\\gset\b", code):
            first = None
            continue
        if code.endswith(";"):
            if comment.strip() and QUERY.match(lines[first]):
                marker = f"@@readme-result-{len(stated)}@@"
                begin_at[first], end_at[i] = marker, marker
                stated.append((marker, first, comment.strip()))
            first = None
    out = []
    for i, line in enumerate(lines):
        if i in begin_at:
            out.append(f"\\echo {begin_at[i]}")
        out.append(line)
        if i in end_at:
            out.append(f"\\echo {end_at[i]}/")
    return "\n".join(out) + "\n", stated


def path_of(name):
    """A document's path from its name: README, CONTRIBUTING, SECURITY, or one of docs/."""
    return f"{name}.md" if name in ("README", "CONTRIBUTING", "SECURITY") else os.path.join("docs", f"{name}.md")

README_MAX_LINES = 250
# What a reader sees of README.md without scrolling, and what it must name
# there, each with how long it takes.
README_FIRST_SCREEN = 40
README_COMMANDS = ("./scripts/demo", "./scripts/test")
DURATION = re.compile(r"\b\d+(?:\.\d+)? minutes?\b")


def first_screen_misses(text):
    """The commands README.md's first screen does not name on a line with a duration."""
    lines = text.splitlines()[:README_FIRST_SCREEN]
    return [c for c in README_COMMANDS
            if not any(f"`{c}`" in line and DURATION.search(line) for line in lines)]


def documented_functions(text):
    """Function names in the rows of the reference's tables."""
    return set(re.findall(r"^\|\s*`([a-z_0-9]+)\(", text, flags=re.M))


def named_functions(text):
    """(line, name) of every `name(` written in backticks, outside code blocks."""
    out, in_code = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for span in re.findall(r"`([^`]+)`", line):
            for name in re.findall(r"(?:^|[\s.(,])([a-z_][a-z_0-9]*)\(", span):
                out.append((n, name))
    return out


def github_anchor(heading):
    """The anchor GitHub gives a heading."""
    a = heading.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


def anchors_of(text):
    seen, out = {}, set()
    in_code = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        m = None if in_code else re.match(r"^#{1,6}\s+(.*)$", line)
        if m:
            a = github_anchor(m.group(1))
            k = seen.get(a, 0)
            seen[a] = k + 1
            out.add(a if k == 0 else f"{a}-{k}")
    return out


def check_links(doc, text):
    """Relative links to files and headings of the repository that do not exist."""
    bad = []
    here = os.path.dirname(os.path.join(ROOT, doc))
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(here, path)) if path else os.path.join(ROOT, doc)
        if not os.path.exists(full):
            bad.append(f"{target} (no file {os.path.relpath(full, ROOT)})")
        elif anchor and full.endswith(".md") and anchor not in anchors_of(open(full).read()):
            bad.append(f"{target} (no heading #{anchor} in {os.path.relpath(full, ROOT)})")
    return bad


def run_blocks(srv, doc, text, major):
    """Runs the SQL blocks of one document; returns (failures, results checked)."""
    failures = checked = 0
    for n, (line, sql, opts) in enumerate(sql_blocks(text), 1):
        sql, stated = with_markers(sql)
        db = f"doc_block_{n}"
        psql(srv, "postgres", f'DROP DATABASE IF EXISTS "{db}"; CREATE DATABASE "{db}";')
        steps = []
        if "CREATE EXTENSION uuid_ext" not in sql:
            steps.append(("create extension", "CREATE EXTENSION uuid_ext;\n", None))
        if "setup" in opts:
            steps.append(("setup " + opts["setup"], None, os.path.join(ROOT, opts["setup"])))
        steps.append((f"{doc}:{line}", sql, None))
        if "check" in opts:
            steps.append(("check " + opts["check"], None, os.path.join(ROOT, opts["check"])))
        ok = True
        for what, body, file in steps:
            r = psql(srv, db, body, file)
            if r.returncode != 0:
                print(f"FAIL block {n} ({doc} line {line}) at {what}:\n{r.stdout}{r.stderr}")
                ok = False
                break
            if body is sql:
                for marker, first, comment in stated:
                    where = f"{doc}:{line + first}"
                    want = expected_for(comment, major)
                    if want is None:
                        print(f"FAIL {where}: the result comment names no result for PostgreSQL {major}: {comment}")
                        ok = False
                        continue
                    got = r.stdout.split(marker + "\n", 1)[1].split(marker + "/\n", 1)[0].rstrip("\n")
                    if got != want:
                        print(f"FAIL {where} on PostgreSQL {major}: the document says\n  {want}\nthe server printed\n  "
                              + got.replace("\n", "\n  "))
                        ok = False
                    else:
                        checked += 1
        psql(srv, "postgres", f'DROP DATABASE IF EXISTS "{db}";')
        print(f"{'ok  ' if ok else 'FAIL'} {doc}:{line} block {n}" + (f" {opts}" if opts else ""))
        failures += not ok
    for line, code, file in python_blocks(text):
        ran = {x.strip() for x in open(os.path.join(ROOT, file)).read().splitlines()}
        missing = [c for c in code if c.strip() and c.strip() not in ran]
        if missing:
            print(f"FAIL {doc}:{line}: these lines of the Python block are not in {file}, which runs it: {missing}")
            failures += 1
        else:
            print(f"ok   {doc}:{line} Python block: every line is run by {file}")
    return failures, checked


def catalog(srv, sql):
    """Rows of `sql` in a database with the extension installed."""
    db = "doc_catalog"
    psql(srv, "postgres", f'DROP DATABASE IF EXISTS "{db}"; CREATE DATABASE "{db}";')
    r = subprocess.run([*srv.psql(db), "-c", "CREATE EXTENSION uuid_ext", "-c", sql], text=True, capture_output=True)
    psql(srv, "postgres", f'DROP DATABASE IF EXISTS "{db}";')
    if r.returncode != 0:
        fail(f"{sql}:\n{r.stderr}")
    return set(r.stdout.split())


EXTENSION_FUNCTIONS = """SELECT DISTINCT p.proname FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'uuid_ext'
  -- The types' support functions (I/O, operators, index support,
  -- aggregate steps, casts) are documented by what they support.
  WHERE NOT EXISTS (SELECT FROM pg_type t WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend))
    AND NOT EXISTS (SELECT FROM pg_operator o WHERE o.oprcode = p.oid)
    AND NOT EXISTS (SELECT FROM pg_amproc a WHERE a.amproc = p.oid)
    AND NOT EXISTS (SELECT FROM pg_aggregate g WHERE p.oid IN (g.aggtransfn, g.aggcombinefn))
    AND NOT EXISTS (SELECT FROM pg_cast c WHERE c.castfunc = p.oid)"""
EXTENSION_TYPES = """SELECT t.typname FROM pg_type t
  JOIN pg_depend d ON d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'uuid_ext'
  WHERE t.typelem = 0 OR t.typcategory <> 'A'"""
SETTINGS = "SELECT name FROM pg_settings WHERE name LIKE 'uuid\\_ext.%'"
ALL_FUNCTIONS = "SELECT DISTINCT proname FROM pg_proc"


def main(t, names):
    srv = t.shared()
    major = t.pg.major
    failures = checked = 0
    texts = {path_of(n): open(os.path.join(ROOT, path_of(n))).read() for n in names}

    for doc, text in texts.items():
        f, c = run_blocks(srv, doc, text, major)
        failures += f
        checked += c
    print(f"ok   {checked} stated results are what PostgreSQL {major} printed")

    if "README.md" in texts:
        lines = texts["README.md"].count("\n")
        if lines > README_MAX_LINES:
            print(f"FAIL README.md has {lines} lines; it is for a user to read in minutes: at most {README_MAX_LINES}")
            failures += 1
        missing = first_screen_misses(texts["README.md"])
        if missing:
            print(f"FAIL README.md's first {README_FIRST_SCREEN} lines do not name {' and '.join(missing)} on a line "
                  "that says how long it takes (`./scripts/demo` (6.0 minutes): ...): a newcomer looks there first")
            failures += 1
        else:
            print(f"ok   README.md's first {README_FIRST_SCREEN} lines name {' and '.join(README_COMMANDS)}, each "
                  "with how long it takes")
    for doc, text in texts.items():
        for bad in check_links(doc, text):
            print(f"FAIL {doc}: a link to {bad}")
            failures += 1

    reference = texts.get(os.path.join("docs", "reference.md"))
    if reference is not None:
        failures += check_reference(srv, reference)

    existing = catalog(srv, ALL_FUNCTIONS)
    # The names a reader would call in SQL: ours all start with uuid, and so
    # do core's UUID functions (besides gen_random_uuid).
    unknown = [(doc, n, name) for doc, text in texts.items() for n, name in named_functions(text)
               if re.match(r"^(uuid|gen_random_uuid)", name) and name not in existing]
    for doc, n, name in unknown:
        print(f"FAIL {doc}:{n}: `{name}(...)` is no function of the extension or of PostgreSQL {major}")
    if not unknown:
        print(f"ok   every function the documents name exists on PostgreSQL {major}")
    failures += len(unknown)
    if failures:
        fail(f"{failures} of the documents' checks failed (above)")


def check_reference(srv, reference):
    """docs/reference.md documents exactly the installed functions, and names
    every installed type and setting; returns the number of failures."""
    failures = 0
    installed = catalog(srv, EXTENSION_FUNCTIONS)
    documented = documented_functions(reference)
    missing, phantom = installed - documented, documented - installed
    if missing:
        print(f"FAIL installed but not in docs/reference.md: {sorted(missing)}")
    if phantom:
        print(f"FAIL in docs/reference.md but not installed: {sorted(phantom)}")
    if not missing and not phantom:
        print(f"ok   docs/reference.md documents exactly the {len(installed)} installed functions")
    failures += bool(missing) + bool(phantom)

    for kind, names in (("type", catalog(srv, EXTENSION_TYPES)), ("setting", catalog(srv, SETTINGS))):
        undocumented = sorted(n for n in names if f"`{n}`" not in reference)
        if undocumented:
            print(f"FAIL installed {kind}s that docs/reference.md does not name: {undocumented}")
            failures += 1
        else:
            print(f"ok   docs/reference.md names every installed {kind}: {', '.join(sorted(names))}")
    return failures
