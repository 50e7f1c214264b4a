#!/usr/bin/env python3
"""Instructions per call of uuid_ext's functions, counted by callgrind in a
single-user backend (`postgres --single`) of a stopped cluster that preloads
the library: the library installed there now, whichever release it is.

For each function, two statements `SELECT count(f) FROM generate_series(1,
N)` (N = --calls and 3 × --calls), each in a backend of its own under
`valgrind --tool=callgrind --toggle-collect=<the function's C symbol>`, so
only the instructions of the calls themselves count (pgrx's wrapper, the
result's allocation, everything they call); the difference of the two
totals over 2 × N is the cost of one call, without what a first call pays
once (a façade key's schedule, seeding the random generator). Unlike a
time, the count does not move with what else the machine runs. Under
valgrind `clock_gettime` is a system call whose kernel side is not counted,
so the clock read is missing from the counts (it is the same in every
release).

    python3 bench/instructions.py --pg-config PATH --data DIR --label NAME --json FILE

scripts/bench runs it in its `versions` section, the server stopped, once
for each library it compares, and keeps the counts in FILE under
"versions_instructions".
"""
import argparse
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "lib"))
from installation import Installation  # noqa: E402
from servers import Host  # noqa: E402

DB = "uuid_ext_instructions"
V7 = "'018f2d3c-8b4a-7c3d-9e2f-0123456789ab'::uuid"
# The functions counted: label -> (their C symbols, the call). A symbol
# LTO folds into another of the same code (uuidv7_wrapper, PostgreSQL 18's
# name of the same function) is counted under either name.
FUNCTIONS = {
    "uuid_generate_v7()": (("uuid_generate_v7_wrapper", "uuidv7_wrapper"), "uuid_generate_v7()"),
    "uuid_v7_to_facade(id)": (("uuid_v7_to_facade_wrapper",), f"uuid_v7_to_facade({V7})"),
}


def single(host, pg, data, db, sql, prefix=()):
    """Runs `sql` (one statement a line) in a single-user backend of `data`."""
    return host.run([*prefix, pg.tool("postgres"), "--single", "-D", data, db], input=sql, check=False)


def total(host, pg, data, symbols, sql, out):
    """The instructions callgrind counted inside `symbols` while `sql` ran."""
    toggles = [f"--toggle-collect={s}" for s in symbols]
    r = single(host, pg, data, DB, sql + "\n",
               ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *toggles])
    if r.returncode != 0:
        sys.exit(f"postgres --single under callgrind failed:\n{r.stdout[-2000:]}{r.stderr[-3000:]}")
    text = host.run(["cat", out]).stdout
    m = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    if not m or int(m.group(1)) == 0:
        sys.exit(f"callgrind counted nothing inside {', '.join(symbols)} (no such symbol in the library?)")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg-config", required=True)
    ap.add_argument("--data", required=True, help="the data directory of a stopped cluster preloading uuid_ext")
    ap.add_argument("--label", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--calls", type=int, default=100_000)
    a = ap.parse_args()
    results = json.load(open(a.json))
    counts = results.setdefault("versions_instructions", {})
    if not shutil.which("valgrind"):
        counts[a.label] = {"skipped": "valgrind is not installed (apt-get install valgrind)"}
        json.dump(results, open(a.json, "w"), indent=1)
        print(f"  {a.label}: instructions not counted: valgrind is not installed")
        return
    host, pg = Host(), Installation(a.pg_config)
    for sql, db in ((f"DROP DATABASE IF EXISTS {DB}", "postgres"), (f"CREATE DATABASE {DB}", "postgres"),
                    ("CREATE EXTENSION uuid_ext\nSELECT uuid_facade_key_create()", DB)):
        r = single(host, pg, a.data, db, sql + "\n")
        if r.returncode != 0 or "ERROR" in r.stdout + r.stderr:
            sys.exit(f"postgres --single: {sql}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    out = os.path.join(a.data, "..", "callgrind.out")
    per_call = {}
    for name, (symbols, call) in FUNCTIONS.items():
        n = [a.calls, 3 * a.calls]
        t = [total(host, pg, a.data, symbols, f"SELECT count({call}) FROM generate_series(1, {k})", out) for k in n]
        per_call[name] = round((t[1] - t[0]) / (n[1] - n[0]), 1)
        print(f"  {a.label}: {name}: {per_call[name]:.0f} instructions a call", flush=True)
    host.run(["rm", "-f", out])
    single(host, pg, a.data, "postgres", f"DROP DATABASE {DB}\n")
    counts[a.label] = {"per_call": per_call, "calls": a.calls,
                       "valgrind": host.run(["valgrind", "--version"]).stdout.strip()}
    json.dump(results, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
