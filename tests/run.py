#!/usr/bin/env python3
"""The test runner: every layer of uuid_ext's tests against the PostgreSQL
each pg_config names, as whoever runs it (CONTRIBUTING.md, "Running the tests").

    tests/run.py [--pg-config PATH ...] [LAYER[,LAYER...] [NAME ...]] [--accept]

It builds uuid_ext for each PostgreSQL and renames it into that server's
directories (or, with --installed, uses the one there), starts every server
it needs (tests/lib/servers.py) as this user (under root, as the project's
user), runs the tests, stops the servers, and prints what passed, failed and
was skipped, with the reason. It installs nothing from the network. Exit
status: 0 when nothing failed, 1 when something did, 2 for a bad command line
(an unknown layer or name lists the valid ones).

Layers (NAMEs come from the files):
  core          the generator core: cargo fmt --check, clippy, its tests (NAME: a test's name
                or part of it, as cargo test takes it); clippy checks the benchmarks' code too;
                the test library's own tests (tests/lib/test_*.py)
  pg_test       the #[pg_test]s of src/pg_tests.rs, in backends that preload the library
  regress       the golden tests tests/pg_regress/sql/NAME.sql (--accept takes a failed one's
                output as its expected output)
  not_preloaded the golden tests of tests/not_preloaded, on a server without the preload
  upgrade       ALTER EXTENSION uuid_ext UPDATE from each earlier release (NAME: the release)
  docs          the examples and stated results of README.md, CONTRIBUTING.md and docs/*.md
                (NAME: README, CONTRIBUTING, reference, ...)
  clients       the drivers and ORMs of docs/clients.md (psycopg asyncpg sqlalchemy django node jdbc)
  cluster       tests/cluster/NAME.py: many sessions, clocks, crashes, standbys, faults
                (--jobs N of them at a time, each in a runner of its own; --except NAME)
  package       the release archive installed into a server; the .deb with apt (root, Debian)
  demo          scripts/demo.sql on a new server
  minors        with two --pg-configs of one major: the library built against each minor's
                headers in the other's server (NAME: the major)
  pg_upgrade    with --pg-configs of two or more majors: pg_upgrade between the pairs
                scripts/majors names (its column upgrade) (NAME: OLD-NEW, as 15-18)
Without a LAYER: all of them.
"""
import argparse
import glob
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "lib"))
sys.path.insert(0, os.path.join(HERE, "cluster"))
import extension  # noqa: E402
import majors  # noqa: E402
import regress  # noqa: E402
from harness import Run, Skip  # noqa: E402
from installation import Installation  # noqa: E402
from servers import Host  # noqa: E402

CLIENTS = ("psycopg", "asyncpg", "sqlalchemy", "django", "node", "jdbc")
# The layers, in the order a full run takes them.
LAYERS = ("core", "pg_test", "regress", "not_preloaded", "upgrade", "docs", "clients", "cluster", "package",
          "demo", "minors", "pg_upgrade")
# What each layer's tests need of the PostgreSQL under test.
NEEDS_BUILD = {"regress", "not_preloaded", "upgrade", "docs", "clients", "cluster", "demo", "minors", "pg_upgrade"}
NEEDS_STANDINS = {"regress", "upgrade", "docs", "cluster", "package", "minors"}
PACKAGE_TESTS = ("archive", "golden", "floor", "deb", "apt", "pgxn", "image", "licences")


def step(text):
    print(f"\n==== [{time.strftime('%H:%M:%S')}] {text}", flush=True)


# --- the names each layer takes ----------------------------------------------------
def pg_test_names():
    src = open(os.path.join(ROOT, "src", "pg_tests.rs")).read()
    return re.findall(r"#\[pg_test[^\]]*\]\s*(?:#\[[^\]]*\]\s*)*fn (\w+)", src)


def cluster_names():
    return sorted(os.path.basename(f)[:-3] for f in glob.glob(os.path.join(HERE, "cluster", "*.py"))
                  if os.path.basename(f) != "major_upgrade.py")


def doc_names():
    return ["README", "CONTRIBUTING", "SECURITY"] + sorted(os.path.basename(f)[:-3]
                                               for f in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def releases():
    return extension.releases()


def pairs_of_majors(pgs):
    """pg_upgrade's pairs among the installations given: those scripts/majors
    names (the column upgrade: the majors pg_upgrade starts from)."""
    by_major = {p.major: p for p in pgs}
    return [(by_major[old], by_major[new]) for old, new in majors.upgrade_pairs(by_major)]


def minor_pairs(pgs):
    """minors' pairs: (newer, older) minor of each major given twice."""
    by_major = {}
    for p in pgs:
        by_major.setdefault(p.major, []).append(p)
    out = []
    for major, ps in sorted(by_major.items()):
        if len(ps) >= 2:
            ps.sort(key=lambda p: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", p.release)])
            out.append((ps[-1], ps[0]))
    return out


def names_of(layer, pgs):
    """The names a layer takes; None where any name does (core: cargo test's filter)."""
    return {
        "core": None,
        "pg_test": pg_test_names(),
        "regress": regress.names(os.path.join(HERE, "pg_regress")),
        "not_preloaded": regress.names(os.path.join(HERE, "not_preloaded")),
        "upgrade": releases(),
        "docs": doc_names(),
        "clients": list(CLIENTS),
        "cluster": cluster_names(),
        "package": list(PACKAGE_TESTS),
        "demo": ["demo"],
        "minors": sorted({str(p.major) for p in pgs}),
        "pg_upgrade": [f"{a.major}-{b.major}" for a, b in pairs_of_majors(pgs)] if len(pgs) > 1 else [],
    }[layer]


# --- running tests -------------------------------------------------------------------
class Results:
    def __init__(self):
        self.passed, self.failed, self.skipped = [], [], []

    def record(self, what, outcome, reason=""):
        {"passed": self.passed, "failed": self.failed, "skipped": self.skipped}[outcome].append((what, reason))
        if outcome == "skipped":
            print(f"skip {what}: {reason}", flush=True)
        elif outcome == "failed" and reason:
            print(f"FAIL {what}: {reason}", flush=True)

    def save(self, path):
        with open(path, "w") as f:
            json.dump({"passed": self.passed, "failed": self.failed, "skipped": self.skipped}, f)

    def merge(self, saved):
        for outcome in ("passed", "failed", "skipped"):
            getattr(self, outcome).extend(tuple(x) for x in saved[outcome])

    def report(self):
        print(f"\n==== {len(self.passed)} passed, {len(self.failed)} failed, {len(self.skipped)} skipped")
        for what, reason in self.skipped:
            print(f"  skipped {what}: {reason}")
        for what, reason in self.failed:
            print(f"  FAILED  {what}" + (f": {reason}" if reason else ""))


def call(run, results, what, fn, *args, tidy=None):
    """Runs one test function; FAIL lines and SystemExit(1) are a failure,
    Skip a skip. Stops every server it started and left running (not the shared ones).
    `tidy`: the Test whose directory goes if this passed or was skipped (a
    failure's stays for a look)."""
    started = len(run._servers)
    outcome = "failed"
    try:
        fn(*args)
        outcome = "passed"
    except Skip as e:
        outcome = "skipped"
        results.record(what, "skipped", str(e))
    except SystemExit as e:
        if e.code in (0, None):
            outcome = "passed"
        else:
            results.record(what, "failed", e.code if isinstance(e.code, str) else "")
    except Exception:
        traceback.print_exc()
        results.record(what, "failed", "an exception (above)")
    finally:
        shared = set(map(id, run._shared.values()))
        for srv in run._servers[started:]:
            if id(srv) not in shared:
                try:
                    srv.stop_quietly()
                except SystemExit:
                    pass
        run._servers[started:] = [s for s in run._servers[started:] if id(s) in shared]
    if outcome == "passed":
        results.record(what, "passed")
    if tidy is not None and outcome != "failed":
        tidy.tidy()


# The third-party Python packages the tests import (tests/requirements.txt).
REQUIRED = {re.split(r"[\[=<>]", line.split("#")[0].strip())[0].lower()
            for line in open(os.path.join(HERE, "requirements.txt")) if line.split("#")[0].strip()}


def load(path):
    """A test file as a module of its own (its main(t) is the test)."""
    name = "uuid_ext_test_" + os.path.relpath(path, HERE).replace("/", "_")[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as e:
        # Only a package of tests/requirements.txt makes a skip; a module of ours missing is a failure.
        if e.name.split(".")[0].lower() not in REQUIRED:
            raise
        raise Skip(f"needs the Python package {e.name} (pip install -r tests/requirements.txt)")
    return module


def python_test(path):
    return lambda t: load(path).main(t)


# --- the layers ------------------------------------------------------------------------
def layer_core(names, results):
    """cargo's checks of the generator core; with names, only those tests."""
    def cargo(what, *args):
        step(f"core: cargo {' '.join(args)}")
        r = subprocess.run(["cargo", *args], cwd=ROOT)
        results.record(what, "passed" if r.returncode == 0 else "failed")
    if not shutil.which("cargo"):
        results.record("core", "skipped", "cargo is not on PATH (Rust 1.96 or newer)")
        return
    if names:
        r = subprocess.run(["cargo", "test", "-q", "-p", "uuid_ext_core", "--", "--list"], cwd=ROOT,
                           capture_output=True, text=True)
        listed = sorted({line.rsplit(":", 1)[0] for line in r.stdout.splitlines() if line.endswith(": test")})
        for n in names:
            if not any(n in x for x in listed):
                usage_error(f"no core test matches {n}; the core's tests:\n  " + "\n  ".join(listed))
        for n in names:
            cargo(f"core {n}", "test", "-q", "-p", "uuid_ext_core", n)
        return
    cargo("core format", "fmt", "--all", "--", "--check")
    cargo("core clippy", "clippy", "-q", "-p", "uuid_ext_core", "--all-targets", "--", "-D", "warnings")
    # clippy's --all-targets has checked the benchmarks' code; building them
    # (a release build with fat LTO, six minutes) is scripts/bench's.
    cargo("core tests", "test", "-q", "-p", "uuid_ext_core")
    step("core: the test library's own tests (python3 -m unittest, tests/lib/test_*.py)")
    r = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", os.path.join(HERE, "lib"),
                        "-p", "test_*.py"], cwd=ROOT)
    results.record("the test library's own tests", "passed" if r.returncode == 0 else "failed")


def layer_pg_test(run, pg, names, results, opts):
    what = f"pg_test on {pg.release}"
    if opts.installed:
        return results.record(what, "skipped", "pgrx's test command installs a build of its own, and --installed "
                                               "says to use the one there")
    t = run.test(pg, "pg_test", "pgrx")
    if not pg.writable():
        return results.record(what, "skipped", f"pgrx's test command installs the library into {pg.pkglibdir}, "
                                               "which this user may not write")
    try:
        extension.check_tools()
    except extension.BuildError as e:
        return results.record(what, "skipped", str(e))
    step(f"{pg}: the #[pg_test]s (pgrx's test server, the library preloaded){' ' + ' '.join(names) if names else ''}")
    cmd = ["cargo", "pgrx", "test", f"pg{pg.major}", *names, "--pgdata", t.path("data")]
    if run.host.user:
        cmd += ["--runas", run.host.user]
    r = subprocess.run(cmd, cwd=ROOT, env=extension.cargo_env(pg, t.dir))
    results.record(what, "passed" if r.returncode == 0 else "failed")


def golden(run, pg, names, results, opts, layer, srv_of):
    what = f"{layer} on {pg.release}"
    t = run.test(pg, layer, "golden")
    step(f"{pg}: golden tests of tests/{'pg_regress' if layer == 'regress' else layer}"
         f"{': ' + ' '.join(names) if names else ''}")

    def body():
        srv = srv_of(t)
        failed = regress.run(t, srv, os.path.join(HERE, "pg_regress" if layer == "regress" else layer),
                             names, opts.accept)
        if failed:
            sys.exit(1)
    call(run, results, what, body, tidy=t)


def layer_regress(run, pg, names, results, opts):
    golden(run, pg, names, results, opts, "regress", lambda t: t.shared())


def layer_not_preloaded(run, pg, names, results, opts):
    golden(run, pg, names, results, opts, "not_preloaded",
           lambda t: t.server("plain").create("uuid_ext.durable_wal = on"))


def layer_upgrade(run, pg, names, results, opts):
    step(f"{pg}: ALTER EXTENSION uuid_ext UPDATE from {', '.join(names or releases())}")
    t = run.test(pg, "upgrade", "all")
    call(run, results, f"upgrade on {pg.release}", lambda: load(os.path.join(HERE, "upgrade", "upgrade.py"))
         .main(t, names or releases()), tidy=t)


def layer_docs(run, pg, names, results, opts):
    step(f"{pg}: the examples and stated results of {', '.join(names) if names else 'every document'}")
    t = run.test(pg, "docs", "all")
    call(run, results, f"docs on {pg.release}", lambda: load(os.path.join(HERE, "docs", "check.py"))
         .main(t, names or doc_names()), tidy=t)


def layer_clients(run, pg, names, results, opts):
    step(f"{pg}: the drivers and ORMs of docs/clients.md: {' '.join(names or CLIENTS)}")
    t = run.test(pg, "clients", "all")
    call(run, results, "clients: the snippets of docs/clients.md are lines of the tests",
         lambda: subprocess.run([sys.executable, os.path.join(HERE, "clients", "doc_snippets.py")], check=True))
    for name in names or CLIENTS:
        parts = []
        call(run, results, f"clients {name} on {pg.release}", client, t, name, parts)
        # The parts a client could not run here (its `skip` lines).
        for part in parts:
            what, _, why = part.partition(": ")
            results.record(f"clients {what} on {pg.release}", "skipped", why)


def client(t, name, skipped):
    """One client program against the shared server, told where it is by
    libpq's variables (PGHOST, PGPORT, PGUSER), as every driver reads them."""
    d = os.path.join(HERE, "clients")
    jar = "/usr/share/java/postgresql.jar"
    if name in ("psycopg", "asyncpg", "sqlalchemy", "django"):
        module = {"psycopg": "psycopg", "asyncpg": "asyncpg", "sqlalchemy": "sqlalchemy", "django": "django"}[name]
        if importlib.util.find_spec(module) is None or importlib.util.find_spec("psycopg") is None:
            raise Skip(f"needs the Python package {module} in {sys.executable} "
                       "(pip install -r tests/requirements.txt)")
        programs = [[sys.executable, os.path.join(d, f"{name}_client.py")]]
    elif name == "node":
        t.need(shutil.which("node"), "needs Node.js (node), which runs node-postgres and Knex")
        t.need(os.path.isdir(os.path.join(d, "node", "node_modules", "pg")),
               "needs tests/clients/node/node_modules (npm ci in tests/clients/node)")
        programs = [["node", os.path.join(d, "node", "pg_client.js")], ["node", os.path.join(d, "node", "knex_client.js")]]
    else:
        t.need(shutil.which("javac") and shutil.which("java"), "needs a JDK (javac, java) for pgJDBC")
        t.need(os.path.exists(jar), f"needs pgJDBC at {jar} (Debian: libpostgresql-jdbc-java)")
        classes = t.path("jdbc")
        subprocess.run(["javac", "-d", classes, "-cp", jar, os.path.join(d, "jdbc", "JdbcClient.java")], check=True)
        programs = [["java", "-cp", f"{classes}:{jar}", "JdbcClient"]]
    srv = t.shared()
    env = dict(os.environ, **srv.libpq_env())
    for prog in programs:
        r = subprocess.run(prog, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=600)
        print(r.stdout, end="", flush=True)
        skipped += re.findall(r"^skip (.*)$", r.stdout, re.M)
        if r.returncode != 0 or re.search(r"^FAIL", r.stdout, re.M):
            sys.exit(1)


# The cluster tests that take longest, started first when several run at a
# time (the rest follow in name order).
LONGEST_FIRST = ("big_inputs", "facade_logging", "replication", "facade_attacks", "concurrency", "lead", "clock",
                 "durable", "citus_facade_attacks", "tenants")


def layer_cluster(run, pg, names, results, opts):
    todo = [n for n in names or cluster_names() if n not in opts.excepted]
    if opts.jobs > 1 and len(todo) > 1:
        return cluster_in_jobs(run, pg, todo, results, opts)
    for name in todo:
        step(f"{pg}: cluster test {name}: {first_line(os.path.join(HERE, 'cluster', name + '.py'))}")
        t = run.test(pg, "cluster", name)
        call(run, results, f"cluster {name} on {pg.release}", python_test(os.path.join(HERE, "cluster", name + ".py")), t,
             tidy=t)


def cluster_in_jobs(run, pg, todo, results, opts):
    """The cluster tests `todo`, opts.jobs at a time: each in a runner of its
    own (tests/run.py --installed, with its own ports and shared server), its
    output printed whole when it ends, its results counted here. Most of
    their time is spent waiting on servers, clocks and sleeps."""
    todo = sorted(todo, key=lambda n: (LONGEST_FIRST.index(n) if n in LONGEST_FIRST else len(LONGEST_FIRST), n))
    step(f"{pg}: cluster tests, {opts.jobs} at a time: {' '.join(todo)}")
    running = {}  # name -> (process, output file, report file, started, slot)
    free_slots = list(range(opts.jobs))
    while todo or running:
        while todo and free_slots:
            name, slot = todo.pop(0), free_slots.pop(0)
            out = os.path.join(run.work, f"cluster-{name}-{pg.release}.out")
            report = out[:-4] + ".report.json"
            for f in (out, report):
                if os.path.exists(f):
                    os.unlink(f)
            cmd = [sys.executable, os.path.abspath(__file__), "--installed", "--pg-config", pg.pg_config,
                   "--work", run.work, "--base-port", str(run.base_port + 1000 * (slot + 1)),
                   f"--shared-tag=-job{slot + 1}", "--report", report, "--jobs", "1"]
            if opts.user:
                cmd += ["--user", opts.user]
            if opts.outside:
                cmd += ["--outside", opts.outside]
            cmd += ["cluster", name]
            with open(out, "w") as f:
                proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            running[name] = (proc, out, report, time.time(), slot)
        time.sleep(0.5)
        for name, (proc, out, report, started, slot) in list(running.items()):
            if proc.poll() is None:
                continue
            del running[name]
            free_slots.append(slot)
            step(f"{pg}: cluster test {name} ended after {time.time() - started:.0f} s; its output:")
            with open(out) as f:
                sys.stdout.write(f.read())
            sys.stdout.flush()
            os.unlink(out)
            what = f"cluster {name} on {pg.release}"
            try:
                with open(report) as f:
                    got = json.load(f)
                os.unlink(report)
            except (OSError, ValueError):
                got = None
            if proc.returncode == 2 or got is None:
                results.record(what, "failed", f"its runner ended with status {proc.returncode} and no report")
                continue
            results.merge(got)  # its skips and failures were printed with its output
            if proc.returncode != 0 and not got["failed"]:
                results.record(what, "failed", f"its runner ended with status {proc.returncode}")


def first_line(path):
    """The first line of a test file's docstring."""
    m = re.search(r'"""(.*)', open(path).read())
    return m.group(1).strip() if m else ""


def layer_package(run, pg, names, results, opts):
    step(f"{pg}: the packages of {run.packages or 'scripts/package'}: {' '.join(names or PACKAGE_TESTS)}")
    t = run.test(pg, "package", "all")
    module = os.path.join(HERE, "package", "package.py")
    for name in names or PACKAGE_TESTS:
        call(run, results, f"package {name} on {pg.release}", lambda n=name: getattr(load(module), n)(t))


def layer_demo(run, pg, names, results, opts):
    step(f"{pg}: the demo (scripts/demo.sql) on a new server preloading the library")
    t = run.test(pg, "demo", "demo")

    def demo():
        srv = t.server("demo").create("shared_preload_libraries = 'uuid_ext'")
        r = subprocess.run([*srv.psql(), "--echo-queries", "-f", os.path.join(ROOT, "scripts", "demo.sql")],
                           text=True, capture_output=True)
        print(r.stdout + r.stderr, end="")
        if r.returncode != 0:
            sys.exit(1)
    call(run, results, f"demo on {pg.release}", demo, tidy=t)


def layer_minors(run, names, results, opts):
    pairs = [(new, old) for new, old in minor_pairs(run.pgs) if not names or str(new.major) in names]
    if not pairs:
        return results.record("minors", "skipped", "needs two --pg-config of one major (two of its minors)")
    module = os.path.join(HERE, "package", "minors.py")
    for new, old in pairs:
        step(f"PostgreSQL {new.major}: the library built against {old.release}'s headers in {new.release}'s "
             "server, and the other way round")
        t = run.test(new, "minors", str(new.major))
        t.pair = (old, new)
        call(run, results, f"minors {old.release} and {new.release}", lambda t=t: load(module).main(t), tidy=t)


def upgrade_pairs(pgs, names, opts):
    """pg_upgrade's pairs among `pgs`: those named, and only those into a
    major of --upgrade-to where it is given."""
    if len({p.major for p in pgs}) < 2:
        return []
    return [(a, b) for a, b in pairs_of_majors(pgs) if (not names or f"{a.major}-{b.major}" in names)
            and (not opts.upgrade_to or str(b.major) in opts.upgrade_to.split())]


def layer_pg_upgrade(run, names, results, opts):
    pairs = upgrade_pairs(run.pgs, names, opts)
    if not pairs:
        return results.record("pg_upgrade", "skipped", "needs --pg-config of two majors scripts/majors pairs")
    module = os.path.join(HERE, "cluster", "major_upgrade.py")
    for old, new in pairs:
        step(f"pg_upgrade from {old} to {new} with the steps of docs/operations.md")
        t = run.test(new, "pg_upgrade", f"{old.major}-{new.major}")
        t.pair = (old, new)
        call(run, results, f"pg_upgrade {old.release} -> {new.release}", lambda t=t: load(module).main(t),
             tidy=t)


PER_SERVER = {"pg_test": layer_pg_test, "regress": layer_regress, "not_preloaded": layer_not_preloaded,
              "upgrade": layer_upgrade, "docs": layer_docs, "clients": layer_clients, "cluster": layer_cluster,
              "package": layer_package, "demo": layer_demo}
CROSS = {"minors": layer_minors, "pg_upgrade": layer_pg_upgrade}


def interrupted(signum, frame):
    """SIGTERM as Ctrl-C: past every test, to main's finally, which stops the servers."""
    raise KeyboardInterrupt


# --- the command line --------------------------------------------------------------------
def usage_error(msg):
    print(msg, file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(usage="tests/run.py [--pg-config PATH ...] [LAYER[,LAYER...] [NAME ...]]",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pg-config", action="append", default=[], metavar="PATH",
                    help="a PostgreSQL to test against (repeat for several)")
    ap.add_argument("--installed", action="store_true",
                    help="use the uuid_ext installed in each PostgreSQL; build nothing")
    ap.add_argument("--packages", metavar="DIR",
                    help="the package layer tests the archives and .debs in DIR (scripts/package's), not its own")
    ap.add_argument("--accept", action="store_true",
                    help="take the output of a failed golden test as its expected output")
    ap.add_argument("--work", help="where the tests work (default /tmp/uuid_ext_test, or -USER when not root)")
    ap.add_argument("--user", help="under root, the user who runs the servers (default uuidext)")
    ap.add_argument("--upgrade-to", metavar="MAJORS",
                    help="pg_upgrade only into these majors (\"18 19\"): one major's part of a run")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("UUID_EXT_TEST_JOBS", "2")),
                    help="how many cluster tests run at a time, each in a runner of its own "
                         "(default 2, or UUID_EXT_TEST_JOBS)")
    ap.add_argument("--except", dest="excepted", action="append", default=[], metavar="NAME",
                    help="a cluster test not to run (repeat for several)")
    ap.add_argument("--outside", default="", help=argparse.SUPPRESS)  # the chroot's path, for printed paths
    # A runner started by another for one cluster test: its ports, its shared server's directory, its results.
    ap.add_argument("--base-port", type=int, default=int(os.environ.get("UUID_EXT_TEST_BASE_PORT", "55400")),
                    help=argparse.SUPPRESS)
    ap.add_argument("--shared-tag", default="", help=argparse.SUPPRESS)
    ap.add_argument("--report", help=argparse.SUPPRESS)
    ap.add_argument("layer", nargs="?", default=",".join(LAYERS))
    ap.add_argument("names", nargs="*")
    opts = ap.parse_args()

    layers = opts.layer.split(",")
    for layer in layers:
        if layer not in LAYERS:
            usage_error(f"unknown layer {layer}: one of {' '.join(LAYERS)}")
    if opts.names and len(layers) > 1:
        usage_error("names go with one layer")
    for n in opts.excepted:
        if n not in cluster_names():
            usage_error(f"--except {n}: no cluster test {n}: one of {' '.join(cluster_names())}")
    if opts.jobs < 1:
        usage_error("--jobs takes 1 or more")
    try:
        pgs = [Installation(p) for p in opts.pg_config]
    except ValueError as e:
        usage_error(str(e))
    if not pgs and set(layers) - {"core"}:
        usage_error("give the PostgreSQL to test with --pg-config PATH (its pg_config)")
    if opts.names and layers[0] != "core":
        known = names_of(layers[0], pgs)
        for n in opts.names:
            if n not in known:
                usage_error(f"no {layers[0]} test {n}: one of {' '.join(known) or '(none with these --pg-configs)'}")

    signal.signal(signal.SIGTERM, interrupted)
    host = Host(opts.user)
    user = os.environ.get("USER") or str(os.getuid())
    work = os.path.abspath(opts.work or ("/tmp/uuid_ext_test" if host.root else f"/tmp/uuid_ext_test-{user}"))
    run = Run(pgs, host, work, base_port=opts.base_port, outside=opts.outside,
              packages=opts.packages and os.path.abspath(opts.packages), shared_tag=opts.shared_tag)
    results = Results()
    standins = []
    try:
        if "core" in layers:
            layer_core(opts.names, results)
        per = [layer for layer in layers if layer in PER_SERVER]
        cross = [layer for layer in layers if layer in CROSS]
        # Cross layers need each PostgreSQL of their pairs built for.
        involved = set()
        if "minors" in cross:
            involved |= {p for pair in minor_pairs(run.pgs) for p in pair}
        if "pg_upgrade" in cross:
            involved |= {p for pair in upgrade_pairs(run.pgs, opts.names, opts) for p in pair}
        for pg in run.pgs:
            if not per and pg not in involved:
                continue
            # pgrx's test command installs a build with the #[pg_test]s in
            # it: first, so that the runner's own build replaces it.
            if "pg_test" in per:
                layer_pg_test(run, pg, opts.names, results, opts)
            ready = prepare(run, pg, set(per) | set(cross), opts, results, standins)
            for layer in per:
                if layer == "pg_test":
                    continue
                if ready:
                    PER_SERVER[layer](run, pg, opts.names, results, opts)
                else:
                    results.record(f"{layer} on {pg.release}", "failed", "uuid_ext did not build (above)")
            shared = run._shared.pop(pg.pg_config, None)
            if shared:
                shared.stop_quietly()
        for layer in cross:
            CROSS[layer](run, opts.names, results, opts)
    finally:
        run.stop_all()
        for added in standins:
            extension.remove_standins(added)
    results.report()
    if opts.report:
        results.save(opts.report)
    sys.exit(1 if results.failed else 0)


def prepare(run, pg, layers, opts, results, standins):
    """Builds and installs uuid_ext for pg where the layers need it, and puts
    the stand-ins beside it; False when the build failed."""
    build = bool(layers & NEEDS_BUILD)
    if build and not opts.installed:
        step(f"{pg}: build uuid_ext and install it (each file renamed into place)")
        try:
            extension.install(pg, run.work)
        except extension.BuildError as e:
            print(e, flush=True)
            if not pg.writable():
                usage_error(str(e))
            return False
    elif build and not os.path.exists(os.path.join(pg.pkglibdir, "uuid_ext.so")):
        usage_error(f"--installed, but {pg} has no uuid_ext.so in {pg.pkglibdir}")
    if layers & NEEDS_STANDINS:
        added = extension.add_standins(pg)
        if added is None:
            print(f"(the earlier releases' install scripts cannot go into {pg.extension_dir}: "
                  "the tests that need them are skipped)")
        else:
            standins.append(added)
    return True


if __name__ == "__main__":
    main()
