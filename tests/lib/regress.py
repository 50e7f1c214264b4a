"""Golden tests with pg_regress: `sql/NAME.sql` against `expected/NAME.out`,
chosen by what the server has, never by its version number:

- a file whose first line is `-- requires: WORD ...` runs only where the
  server has every WORD (Server.features: `core:uuidv7`, `cast:uuid:bytea`,
  `extension:uuid-ossp`, ...), and none written `!WORD`;
- `expected/with-core-uuidv7/NAME.out` is the expected output where core has
  uuidv7() and its readers (18 and later), else
  `expected/with-core-readers/NAME.out` where core has only the readers (17),
  else `expected/NAME.out`.

After each test, `tests/pg_regress/left_behind.sql`: each test leaves the
database and the server's settings as it found them.
"""
import os
import re
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LEFT_BEHIND = os.path.join(ROOT, "tests", "pg_regress", "left_behind")
# The expected-output variants, most specific first, with what selects each.
VARIANTS = (("with-core-uuidv7", "core:uuidv7"), ("with-core-readers", "core:uuid_extract_timestamp"))


def names(inputdir):
    return sorted(f[:-4] for f in os.listdir(os.path.join(inputdir, "sql")) if f.endswith(".sql"))


def requires(path):
    first = open(path).readline()
    m = re.match(r"--\s*requires:(.*)", first)
    return m.group(1).split() if m else []


def expected_for(inputdir, name, features):
    """The expected file `name` is compared with on a server with `features`."""
    for variant, feature in VARIANTS:
        path = os.path.join(inputdir, "expected", variant, f"{name}.out")
        if feature in features and os.path.exists(path):
            return path
    return os.path.join(inputdir, "expected", f"{name}.out")


def run(t, srv, inputdir, only=(), accept=False, where="regress"):
    """Runs the golden tests of `inputdir` (those named in `only`, or all)
    against the running server `srv`; prints pg_regress's report, and for
    each failed test its diff, where its output is and how to accept it.
    Returns the number of failed tests. Works in t.path(where)."""
    t.need(os.access(t.pg.pg_regress, os.X_OK), f"needs pg_regress, which {t.pg} lacks ({t.pg.pg_regress}; "
           f"Debian: postgresql-server-dev-{t.pg.major})")
    features = srv.features()
    out = t.path(where)
    stage = t.path(where + "-input")
    for d in (os.path.join(stage, "sql"), os.path.join(stage, "expected")):
        os.makedirs(d, exist_ok=True)
    chosen = {}
    for name in names(inputdir):
        if only and name not in only:
            continue
        src = os.path.join(inputdir, "sql", f"{name}.sql")
        words = requires(src)
        if not all((w[1:] not in features) if w.startswith("!") else (w in features) for w in words):
            print(f"(skipped on PostgreSQL {t.pg.release}: {name} requires {' '.join(words)})")
            continue
        chosen[name] = expected_for(inputdir, name, features)
        shutil.copy(src, os.path.join(stage, "sql"))
        staged = os.path.join(stage, "expected", f"{name}.out")
        if os.path.exists(chosen[name]):
            shutil.copy(chosen[name], staged)
        else:  # a new test: it fails, and its output can be accepted
            open(staged, "w").close()
    if not chosen:
        return 0
    shutil.copy(LEFT_BEHIND + ".sql", os.path.join(stage, "sql"))
    shutil.copy(LEFT_BEHIND + ".out", os.path.join(stage, "expected"))
    with open(os.path.join(stage, "schedule"), "w") as f:
        for name in chosen:
            f.write(f"test: {name}\ntest: left_behind\n")
    os.makedirs(out, exist_ok=True)
    t.host.give(out)
    r = subprocess.run([t.pg.pg_regress, f"--bindir={t.pg.bindir}", f"--inputdir={stage}", f"--outputdir={out}",
                        f"--schedule={os.path.join(stage, 'schedule')}", f"--host={srv.dir}", f"--port={srv.port}",
                        "--user=postgres", "--dbname=uuid_ext_regress"], capture_output=True, text=True)
    print(r.stdout, end="")
    failed = []
    for name, expected in [*chosen.items(), ("left_behind", LEFT_BEHIND + ".out")]:
        result = os.path.join(out, "results", f"{name}.out")
        if not os.path.exists(result) or not os.path.exists(expected) \
                or open(result, "rb").read() != open(expected, "rb").read():
            failed.append((name, expected, result))
    if r.returncode != 0 and not failed:
        print(r.stderr)
        failed.append(("pg_regress", None, None))
    if failed:
        diffs = os.path.join(out, "regression.diffs")
        if os.path.exists(diffs):
            print(open(diffs).read()[-20000:])
    remaining = 0
    for name, expected, result in failed:
        rel = os.path.relpath(expected, ROOT) if expected else None
        if accept and name != "left_behind" and expected and os.path.exists(result):
            shutil.copyfile(result, expected)
            print(f"accepted: {rel} is now the output of PostgreSQL {t.pg.release}")
            continue
        remaining += 1
        if expected is None or name == "left_behind":
            continue
        print(f"FAIL {name}: its output is {t.run.shown(result)}; to accept it as the expected output:\n"
              f"  cp {t.run.shown(result)} {rel}\n"
              f"  (or: tests/run.py --pg-config {t.pg.pg_config} {layer_of(inputdir)} {name} --accept)")
        specific = next((v for v, feature in VARIANTS if feature in features), None)
        if specific and f"/{specific}/" not in expected:
            print(f"  (if only servers with {dict(VARIANTS)[specific]} print it: "
                  f"{os.path.join(os.path.dirname(rel), specific, name + '.out')})")
    return remaining


def layer_of(inputdir):
    return "regress" if os.path.basename(inputdir.rstrip("/")) == "pg_regress" else os.path.basename(inputdir)
