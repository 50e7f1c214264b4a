#!/usr/bin/env python3
"""The SQL benchmark: drives one running, preloaded cluster through psql.

Measures, functions alternated in every round, medians over the rounds:
  gen        cost per UUID net of an empty generate_series loop
  per_row    name-based UUIDs, uuid_inspect and the text forms over a table of
             random UUIDs, net of reading the column
  index      3 million rows inserted in one statement into a table whose uuid
             primary key defaults to each generator: insert time, primary-key
             index size and leaf density (pgstattuple); and how far the
             embedded time ran ahead
  pgbench    8 clients inserting one row per transaction into a table whose
             uuid primary key defaults to each generator: transactions per
             second, failed transactions
  concurrent 8 clients inserting 100 rows per transaction for a fixed time:
             index size per row and leaf density
  types      uuid7 against uuid with the same values: CREATE INDEX and ORDER BY
             ... LIMIT over 2 million shuffled rows, a 3-million-row insert
  durable    the durable horizon on (uuid_ext.durable_margin's default, 1 s)
             against off (0): uuid_generate_v7()'s net cost, pgbench TPS, and
             the cost of one write of the horizon file
  watermark  commit-watermark announcements on against off
             (uuid_ext.commit_watermark): the same two, and the cost of one
             uuid_v7_watermark() with the server's max_connections
  keys       the key against a bigint sequence: nextval() (default cache and
             CACHE 100) beside uuid_generate_v7(), gen_random_uuid() and core
             uuidv7() per call, in one session; and 2 million rows inserted in
             one statement, and 8 pgbench clients, into a bigint identity, a
             bigserial, a uuid with uuid_generate_v7(), a uuid7, a domain over
             uuid with a version-7 check, core uuidv7() and gen_random_uuid():
             time, primary-key size, TPS
  facade     the façade (docs/facade.md): uuid_v7_to_facade() and
             uuid_facade_to_v7() per call net of the empty loop, beside
             uuid_generate_v7() and gen_random_uuid(); and the first call in a
             fresh backend (the key table read, AES-256's key schedule)
             against the second
  feeds      a change feed's latency from a row's commit to its delivery, and
             its losses, at 3,000 rows a second: the watermark's consumer of
             docs/feeds.md against a naive cursor and a lag window of 1 s
             (bench/feed_latency.py, with the tests' Python and psycopg)
  wal        the sequencer in the WAL (uuid_ext.durable_wal) on against off:
             the same two; the bytes its records add per second of steady
             generation (pg_walinspect); and a sparse writer, one insert every
             1.2 s with synchronous commit, durable order off, on, and on with
             WAL logging
With --release-label, only uuid_generate_v7()'s net cost with the library the
server runs now (scripts/bench swaps two releases' libraries between starts).
With --versions-label, uuid_generate_v7()'s and uuid_v7_to_facade()'s net
cost, by the clock and on the backend's CPU, with the library and SQL the
server has now (scripts/bench --only versions swaps releases between
starts); with --set-local-label, on a server not preloading it, a loop of
SET LOCAL in a session that loaded that library against one that did not.
On PostgreSQL 18 and later core's uuidv7() is measured beside ours in each.
Writes the results, and the machine and versions they were measured on, to --json.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

NIL = "'00000000-0000-0000-0000-000000000000'::uuid"


class Db:
    def __init__(self, psql, dbname, node=None):
        """`node`: (socket directory, port) of another server than PGHOST's and PGPORT's."""
        self.psql, self.dbname = psql, dbname
        self.where = ["-h", node[0], "-p", str(node[1])] if node else []

    def q(self, sql):
        r = subprocess.run([self.psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", *self.where, "-d", self.dbname,
                            "-c", sql], text=True, capture_output=True)
        if r.returncode != 0:
            sys.exit(f"benchmark query failed: {sql}\n{r.stderr}")
        return r.stdout.strip()

    def script(self, sql):
        """Runs statements one by one in one session; returns the output."""
        r = subprocess.run([self.psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", *self.where, "-d", self.dbname,
                            "-f", "-"], input=sql, text=True, capture_output=True)
        if r.returncode != 0:
            sys.exit(f"benchmark script failed:\n{r.stderr}")
        return r.stdout


def pgrx_version():
    """The pgrx the extension is built with (Cargo.toml's `pgrx = "=X"`)."""
    toml = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Cargo.toml")).read()
    m = re.search(r'^pgrx = "=([^"]+)"', toml, re.M)
    return m.group(1) if m else "?"


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, text=True, capture_output=True).stdout.strip()
    except OSError:
        return "?"


def machine(db, origin):
    """Where and when this run measured, as label and value pairs."""
    # /proc/cpuinfo where lscpu says nothing (the chroot has no /sys).
    cpu = (sh("lscpu | sed -n 's/^Model name: *//p'")
           or sh("sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1") or platform.processor())
    mem = sh("awk '/MemTotal/ {printf \"%.0f GiB\", $2/1048576}' /proc/meminfo")
    osname = sh(". /etc/os-release && echo $PRETTY_NAME")
    # The benchmark's own output files do not count: a run rewrites them.
    dirty = " (with uncommitted changes)" if sh("git status --porcelain -- . ':!bench/RESULTS.md' "
                                                "':!bench/index.png' ':!bench/results-pg*.json'") else ""
    return [
        ("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        # scripts/bench names it for a run in the chroot, whose copy has no git history.
        ("commit", os.environ.get("UUID_EXT_BENCH_COMMIT") or sh("git rev-parse --short HEAD") + dirty),
        ("CPU", f"{cpu}, {os.cpu_count()} cores"),
        ("memory", mem),
        ("OS", f"{osname}, Linux {platform.release()}"),
        ("PostgreSQL", "PostgreSQL " + db.q("SHOW server_version") + f" ({origin})"),
        ("Rust", sh("rustc --version") + f", pgrx {pgrx_version()}, release build, fat LTO"),
    ]


def setup(db):
    db.q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    db.q("CREATE EXTENSION IF NOT EXISTS pgstattuple")
    db.q("""CREATE OR REPLACE FUNCTION bench_seconds(q text) RETURNS float8 LANGUAGE plpgsql AS $$
            DECLARE t0 timestamptz;
            BEGIN t0 := clock_timestamp(); EXECUTE q; RETURN extract(epoch FROM clock_timestamp() - t0); END $$""")
    # n transactions, each drawing one UUIDv7 (or none): what a transaction's
    # announcement and its withdrawal at commit cost, net of the empty ones.
    db.q("""CREATE OR REPLACE PROCEDURE bench_commits(n int, draw bool, INOUT secs float8 DEFAULT 0)
            LANGUAGE plpgsql AS $$
            DECLARE t0 timestamptz := clock_timestamp(); u uuid;
            BEGIN
              FOR i IN 1..n LOOP
                IF draw THEN u := uuid_generate_v7(); END IF;
                COMMIT;
              END LOOP;
              secs := extract(epoch FROM clock_timestamp() - t0);
            END $$""")


BACKEND = "SET uuid_ext.monotonicity = backend; "


def generation(db, rows, rounds, extra, core_v7):
    # name: (setting, expression)
    gens = {"empty loop": ("", NIL), "gen_random_uuid()": ("", "gen_random_uuid()"),
            "uuid_generate_v7()": ("", "uuid_generate_v7()"),
            "uuid_generate_v7(), backend word": (BACKEND, "uuid_generate_v7()"),
            "uuid_generate_v7('1 hour')": ("", "uuid_generate_v7(interval '1 hour')"),
            "uuid_generate_v6()": ("", "uuid_generate_v6()"),
            # PostgreSQL 18's names, ours (schema-qualified: on 18 the unqualified are core's).
            "public.uuidv7()": ("", "public.uuidv7()"), "public.uuidv4()": ("", "public.uuidv4()")}
    if core_v7:
        gens["uuidv7()"] = ("", "uuidv7()")
        gens["uuidv7('1 hour')"] = ("", "uuidv7(interval '1 hour')")
        gens["uuidv4()"] = ("", "uuidv4()")
    gens.update({k: ("", v) for k, v in extra.items()})
    samples = {name: [] for name in gens}
    names = list(gens)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]  # rotate who goes first
        for name in order:
            setting, expr = gens[name]
            sql = f"SELECT count(x) FROM (SELECT {expr} AS x FROM generate_series(1, {rows})) s"
            secs = float(db.q(f"{setting}SELECT bench_seconds($q${sql}$q$)"))
            samples[name].append(secs * 1e9 / rows)
    med = {n: statistics.median(v) for n, v in samples.items()}
    return {n: {"median_ns": med[n], "net_ns": med[n] - med["empty loop"], "runs_ns": samples[n]} for n in names}


def per_row(db, rows, rounds):
    """Functions of their arguments, over a table of `rows` random UUIDs and
    their texts (an argument that is a constant would be folded at plan
    time): cost per row net of reading the column alone."""
    forms = ["hex", "base32hex", "crockford", "base58", "base64url"]
    db.q("DROP TABLE IF EXISTS bench_ids")
    db.q(f"CREATE TABLE bench_ids AS SELECT u, u::text AS t, "
         + ", ".join(f"uuid_encode(u, '{f}') AS {f}" for f in forms)
         + f" FROM (SELECT gen_random_uuid() AS u FROM generate_series(1, {rows})) s")
    db.q("VACUUM ANALYZE bench_ids")
    ns = "'6ba7b811-9dad-11d1-80b4-00c04fd430c8'::uuid"
    funcs = {"read the column": "u", "uuid_generate_v5_name(ns, text)": f"uuid_generate_v5_name({ns}, t)",
             "uuid_generate_v8_name(ns, text)": f"uuid_generate_v8_name({ns}, t)",
             "uuid_generate_v8_name(ns, text, 'sha512')": f"uuid_generate_v8_name({ns}, t, 'sha512')",
             "uuid_inspect(id)": "uuid_inspect(u)"}
    funcs.update({f"uuid_encode(id, '{f}')": f"uuid_encode(u, '{f}')" for f in forms})
    funcs.update({f"uuid_decode(text, '{f}')": f"uuid_decode({f}, '{f}')" for f in forms})
    samples = {name: [] for name in funcs}
    names = list(funcs)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            sql = f"SELECT count({funcs[name]}) FROM bench_ids"
            samples[name].append(float(db.q(f"SELECT bench_seconds($q${sql}$q$)")) * 1e9 / rows)
    db.q("DROP TABLE bench_ids")
    med = {n: statistics.median(v) for n, v in samples.items()}
    return {n: {"median_ns": med[n], "net_ns": med[n] - med["read the column"], "runs_ns": samples[n]}
            for n in names}


def keys(core_v7):
    """The primary-key generators compared: name -> (table suffix, expression)."""
    k = {"v7": ("v7", "uuid_generate_v7()"), "v4": ("v4", "gen_random_uuid()")}
    if core_v7:
        k["core v7"] = ("core_v7", "uuidv7()")
    return k


def rotated(names, r):
    return names[r % len(names):] + names[:r % len(names)]


def next_v7_lead_ms(db):
    """How far the next UUIDv7's time is ahead of the clock's millisecond: the
    sequencer's word outlives a run, so this shows whether the run left the
    embedded time ahead of the clock."""
    return float(db.q("SELECT extract(epoch FROM public.uuid_extract_timestamp(uuid_generate_v7())"
                      " - date_trunc('milliseconds', clock_timestamp())) * 1000"))


def leaf_density(db, index):
    return float(db.q(f"SELECT avg_leaf_density FROM pgstatindex('{index}')"))


def index_locality(db, rows, rounds, core_v7):
    kinds = keys(core_v7)
    res = {k: {"insert_s": [], "index_bytes": [], "table_bytes": [], "leaf_density": []} for k in kinds}
    lead_after = []
    for r in range(rounds):
        for k in rotated(list(kinds), r):
            t, gen = kinds[k]
            db.q(f"DROP TABLE IF EXISTS loc_{t}")
            db.q(f"CREATE TABLE loc_{t} (id uuid PRIMARY KEY DEFAULT {gen}, n int)")
            db.q("CHECKPOINT")
            secs = float(db.q(f"SELECT bench_seconds('INSERT INTO loc_{t} (n) SELECT generate_series(1, {rows})')"))
            if k == "v7":
                lead_after.append(next_v7_lead_ms(db))
            res[k]["insert_s"].append(secs)
            res[k]["index_bytes"].append(int(db.q(f"SELECT pg_relation_size('loc_{t}_pkey')")))
            res[k]["table_bytes"].append(int(db.q(f"SELECT pg_relation_size('loc_{t}')")))
            res[k]["leaf_density"].append(leaf_density(db, f"loc_{t}_pkey"))
            if int(db.q(f"SELECT count(*) FROM loc_{t}")) != rows:
                sys.exit(f"loc_{t} does not hold {rows} rows")
            db.q(f"DROP TABLE loc_{t}")
    out = {k: {m: statistics.median(v) for m, v in d.items()} | {"runs": d} for k, d in res.items()}
    out["v7_lead_after_insert_ms_max"] = max(lead_after)
    # The worst case: generation alone, as fast as one backend goes, each
    # UUID's embedded time against the clock read beside it.
    out["v7_max_lead_burst_ms"] = float(db.q(
        f"SELECT max(extract(epoch FROM public.uuid_extract_timestamp(id) - date_trunc('milliseconds', made)) * 1000) "
        f"FROM (SELECT uuid_generate_v7() AS id, clock_timestamp() AS made FROM generate_series(1, {rows})) s"))
    return out


def run_pgbench(db, pgbench_bin, clients, seconds, sql, options=""):
    """Runs pgbench with the one-statement script `sql`; returns
    (tps, failed transactions, aborted clients)."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as script:
        script.write(sql + "\n")
        script.flush()
        env = dict(os.environ, PGOPTIONS=options)
        p = subprocess.run([pgbench_bin, "-n", "-c", str(clients), "-j", "2", "-T", str(seconds),
                            "-f", script.name, db.dbname], text=True, capture_output=True, env=env)
    out = p.stdout + p.stderr
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out)
    if not m:
        sys.exit(f"pgbench gave no tps:\n{out}")
    failed = re.search(r"number of failed transactions: (\d+)", out)
    return float(m.group(1)), int(failed.group(1)) if failed else 0, out.count("aborted")


def types(db, sort_rows, insert_rows, rounds):
    """uuid7 against uuid holding the same values: CREATE INDEX over shuffled
    rows, ORDER BY ... LIMIT 1000 over them (no index), and an insert into a
    primary key defaulting to uuid_generate_v7() (the uuid7 one goes through
    the validating cast)."""
    db.q("DROP TABLE IF EXISTS shuffled")
    db.q(f"CREATE TABLE shuffled AS SELECT id::uuid7 AS id7, id FROM "
         f"(SELECT uuid_generate_v7() AS id FROM generate_series(1, {sort_rows})) s ORDER BY random()")
    db.q("VACUUM ANALYZE shuffled")
    res = {k: {"create_index_s": [], "order_by_limit_s": [], "insert_s": []} for k in ("uuid7", "uuid")}
    cols = {"uuid7": "id7", "uuid": "id"}
    for r in range(rounds):
        for k in rotated(list(res), r):
            col = cols[k]
            db.q("DROP INDEX IF EXISTS shuffled_idx")
            res[k]["create_index_s"].append(float(db.q(
                f"SELECT bench_seconds('CREATE INDEX shuffled_idx ON shuffled ({col})')")))
            db.q("DROP INDEX shuffled_idx")
            # Five in a row: one takes a tenth of a second, too short to time alone here.
            res[k]["order_by_limit_s"].append(sum(float(db.q(
                f"SELECT bench_seconds('SELECT count(*) FROM (SELECT {col} FROM shuffled ORDER BY {col} LIMIT 1000) s')"))
                for _ in range(5)) / 5)
            db.q(f"DROP TABLE IF EXISTS ins_{k}; CREATE TABLE ins_{k} (id {k} PRIMARY KEY DEFAULT uuid_generate_v7(), n int)")
            db.q("CHECKPOINT")
            res[k]["insert_s"].append(float(db.q(
                f"SELECT bench_seconds('INSERT INTO ins_{k} (n) SELECT generate_series(1, {insert_rows})')")))
            db.q(f"DROP TABLE ins_{k}")
    db.q("DROP TABLE shuffled")
    out = {k: {m: statistics.median(v) for m, v in d.items()} | {"runs": d} for k, d in res.items()}
    out["sort_rows"], out["insert_rows"], out["rounds"] = sort_rows, insert_rows, rounds
    return out


def pgbench(db, pgbench_bin, clients, seconds, rounds, core_v7):
    """8 clients, INSERT ... DEFAULT VALUES into a fresh table per run."""
    kinds = {"v7": ("", "uuid_generate_v7()"), "v7, backend word": ("-c uuid_ext.monotonicity=backend", "uuid_generate_v7()"),
             "v4": ("", "gen_random_uuid()")}
    if core_v7:
        kinds["core v7"] = ("", "uuidv7()")
    res = {k: {"tps": [], "failed": [], "aborted": []} for k in kinds}
    leads = []
    for r in range(rounds):
        for k in rotated(list(kinds), r):
            options, gen = kinds[k]
            db.q(f"DROP TABLE IF EXISTS pgb; CREATE TABLE pgb (id uuid PRIMARY KEY DEFAULT {gen})")
            db.q("CHECKPOINT")
            tps, failed, aborted = run_pgbench(db, pgbench_bin, clients, seconds,
                                               "INSERT INTO pgb DEFAULT VALUES;", options)
            res[k]["tps"].append(tps)
            res[k]["failed"].append(failed)
            res[k]["aborted"].append(aborted)
            if k == "v7":
                leads.append(next_v7_lead_ms(db))
    db.q("DROP TABLE IF EXISTS pgb")
    out = {k: {"tps": statistics.median(v["tps"]), "failed": sum(v["failed"]), "aborted": sum(v["aborted"]),
               "runs": v["tps"]} for k, v in res.items()}
    out["v7_lead_after_ms_max"] = max(leads)
    out["clients"], out["seconds"], out["rounds"] = clients, seconds, rounds
    return out


def concurrent(db, pgbench_bin, clients, seconds, rounds, batch, core_v7):
    """`clients` clients inserting `batch` rows per transaction for `seconds`
    into a fresh table per run: index bytes per row and leaf density, where
    keys made by different backends reach the index slightly out of order."""
    kinds = keys(core_v7)
    res = {k: {"rows": [], "index_bytes": [], "bytes_per_row": [], "leaf_density": [], "tps": [],
               "failed": [], "aborted": []} for k in kinds}
    for r in range(rounds):
        for k in rotated(list(kinds), r):
            _, gen = kinds[k]
            db.q(f"DROP TABLE IF EXISTS conc; CREATE TABLE conc (id uuid PRIMARY KEY DEFAULT {gen}, n int)")
            db.q("CHECKPOINT")
            tps, failed, aborted = run_pgbench(db, pgbench_bin, clients, seconds,
                                               f"INSERT INTO conc (n) SELECT generate_series(1, {batch});")
            rows = int(db.q("SELECT count(*) FROM conc"))
            size = int(db.q("SELECT pg_relation_size('conc_pkey')"))
            for m, v in (("rows", rows), ("index_bytes", size), ("bytes_per_row", size / rows),
                         ("leaf_density", leaf_density(db, "conc_pkey")), ("tps", tps), ("failed", failed),
                         ("aborted", aborted)):
                res[k][m].append(v)
    db.q("DROP TABLE IF EXISTS conc")
    out = {k: {m: (sum(v) if m in ("failed", "aborted") else statistics.median(v)) for m, v in d.items()}
           | {"runs": d} for k, d in res.items()}
    out["clients"], out["seconds"], out["rounds"], out["batch"] = clients, seconds, rounds, batch
    return out


# The primary keys a user weighs: {label: (column definition, expression per
# call or None)}. The domain is the alternative to the uuid7 type that every
# driver reads as a uuid (docs/clients.md).
KEY_CHOICES = {
    "bigint identity": ("id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY", None),
    "bigserial": ("id bigserial PRIMARY KEY", None),
    "uuid, uuid_generate_v7()": ("id uuid PRIMARY KEY DEFAULT uuid_generate_v7()", None),
    "uuid7, uuid_generate_v7()": ("id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7()", None),
    "domain over uuid, uuid_generate_v7()": ("id bench_uuid7_domain PRIMARY KEY DEFAULT uuid_generate_v7()", None),
    "uuid, core uuidv7()": ("id uuid PRIMARY KEY DEFAULT uuidv7()", "core"),
    "uuid, gen_random_uuid()": ("id uuid PRIMARY KEY DEFAULT gen_random_uuid()", None),
}


def key_choice(db, pgbench_bin, rows, insert_rows, rounds, insert_rounds, clients, seconds, core_v7):
    """The key against a bigint sequence. Per call in one session (fresh
    backends differ more than the effects), functions alternated, net of the
    empty loop; then inserts into each kind of primary key, one statement
    and pgbench clients."""
    db.q("DROP SEQUENCE IF EXISTS bench_seq, bench_seq100")
    db.q("CREATE SEQUENCE bench_seq; CREATE SEQUENCE bench_seq100 CACHE 100")
    calls = {"empty loop": NIL, "nextval(), default cache": "nextval('bench_seq')",
             "nextval(), CACHE 100": "nextval('bench_seq100')", "uuid_generate_v7()": "uuid_generate_v7()",
             "uuid_generate_v7(), uuid_ext.cache = 100": "uuid_generate_v7()",
             "gen_random_uuid()": "gen_random_uuid()"}
    if core_v7:
        calls["core uuidv7()"] = "uuidv7()"
    script, order = [], []
    for r in range(rounds):
        for k in rotated(list(calls), r):
            sql = f"SELECT count(x) FROM (SELECT {calls[k]} AS x FROM generate_series(1, {rows})) s"
            leased = "uuid_ext.cache" in k
            script.append(("SET uuid_ext.cache = 100; " if leased else "")
                          + f"SELECT 'measured', bench_seconds($q${sql}$q$);"
                          + (" RESET uuid_ext.cache;" if leased else ""))
            order.append(k)
    lines = [l for l in db.script("\n".join(script)).splitlines() if l.startswith("measured|")]
    runs = {k: [] for k in calls}
    for k, line in zip(order, lines, strict=True):
        runs[k].append(float(line.split("|")[1]) * 1e9 / rows)
    empty = statistics.median(runs["empty loop"])
    out = {"calls": {k: {"median_ns": statistics.median(v), "net_ns": statistics.median(v) - empty, "runs_ns": v}
                     for k, v in runs.items()}}
    db.q("DROP SEQUENCE bench_seq, bench_seq100")

    db.q("DROP DOMAIN IF EXISTS bench_uuid7_domain CASCADE")
    db.q("CREATE DOMAIN bench_uuid7_domain AS uuid CHECK (public.uuid_extract_version(VALUE) = 7)")
    kinds = {k: v[0] for k, v in KEY_CHOICES.items() if v[1] != "core" or core_v7}
    res = {k: {"insert_s": [], "index_bytes": [], "table_bytes": []} for k in kinds}
    for r in range(insert_rounds):
        for k in rotated(list(kinds), r):
            db.q(f"DROP TABLE IF EXISTS keyed; CREATE TABLE keyed ({kinds[k]}, n int)")
            db.q("CHECKPOINT")
            secs = float(db.q(f"SELECT bench_seconds('INSERT INTO keyed (n) SELECT generate_series(1, {insert_rows})')"))
            if int(db.q("SELECT count(*) FROM keyed")) != insert_rows:
                sys.exit(f"keyed ({k}) does not hold {insert_rows} rows")
            res[k]["insert_s"].append(secs)
            res[k]["index_bytes"].append(int(db.q("SELECT pg_relation_size('keyed_pkey')")))
            res[k]["table_bytes"].append(int(db.q("SELECT pg_relation_size('keyed')")))
    out["inserts"] = {k: {m: statistics.median(v) for m, v in d.items()} | {"runs": d} for k, d in res.items()}
    tps = {k: {"tps": [], "failed": [], "aborted": []} for k in kinds}
    for r in range(insert_rounds):
        for k in rotated(list(kinds), r):
            db.q(f"DROP TABLE IF EXISTS keyed; CREATE TABLE keyed ({kinds[k]}, n int)")
            db.q("CHECKPOINT")
            t, failed, aborted = run_pgbench(db, pgbench_bin, clients, seconds, "INSERT INTO keyed (n) VALUES (1);")
            for m, v in (("tps", t), ("failed", failed), ("aborted", aborted)):
                tps[k][m].append(v)
    db.q("DROP TABLE IF EXISTS keyed")
    db.q("DROP DOMAIN bench_uuid7_domain")
    out["pgbench"] = {k: {"tps": statistics.median(v["tps"]), "failed": sum(v["failed"]),
                          "aborted": sum(v["aborted"]), "runs": v["tps"]} for k, v in tps.items()}
    out["rows"], out["rounds"], out["insert_rows"], out["insert_rounds"] = rows, rounds, insert_rows, insert_rounds
    out["clients"], out["seconds"] = clients, seconds
    return out


# The contention section (docs/benchmarks.md#contention): client counts, and
# what each draws or inserts; `uuid_ext.cache` is set through PGOPTIONS (the
# bench's role is a superuser).
CONTENTION_CLIENTS = (1, 2, 4, 8, 16)
CONTENTION_DRAWS = {
    "uuid_generate_v7()": ("uuid_generate_v7()", ""),
    "uuid_generate_v7(), uuid_ext.cache = 100": ("uuid_generate_v7()", "-c uuid_ext.cache=100"),
    "nextval(), CACHE 1": ("nextval('contended_seq1')", ""),
    "nextval(), CACHE 100": ("nextval('contended_seq100')", ""),
    "gen_random_uuid()": ("gen_random_uuid()", ""),
}
CONTENTION_KEYS = {
    "v7": ("id uuid PRIMARY KEY DEFAULT uuid_generate_v7()", ""),
    "v7, uuid_ext.cache = 100": ("id uuid PRIMARY KEY DEFAULT uuid_generate_v7()", "-c uuid_ext.cache=100"),
    "identity CACHE 1": ("id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY", ""),
    "identity CACHE 100": ("id bigint GENERATED ALWAYS AS IDENTITY (CACHE 100) PRIMARY KEY", ""),
    "gen_random_uuid()": ("id uuid PRIMARY KEY DEFAULT gen_random_uuid()", ""),
}


def contention(db, pgbench_bin, seconds, draws_per_call=20_000, batch=100):
    """Many clients at once, at every client count of CONTENTION_CLIENTS:
    draws a second (`SELECT count(f()) FROM generate_series(1, 20000)` a
    transaction), then rows a second inserted in batches of 100 into a fresh
    table per run, and how many keys of one backend come in a row in the
    primary key's order: the places in the index concurrent backends insert
    at (1: they alternate every key; a lease or a cached sequence gives
    each backend a block). One run of `seconds` each: the figures that
    differ here differ several-fold."""
    db.q("DROP SEQUENCE IF EXISTS contended_seq1, contended_seq100; CREATE SEQUENCE contended_seq1; "
         "CREATE SEQUENCE contended_seq100 CACHE 100")
    out = {"clients": list(CONTENTION_CLIENTS), "seconds": seconds, "batch": batch, "draws": {}, "inserts": {}}
    for k, (f, options) in CONTENTION_DRAWS.items():
        out["draws"][k] = {}
        for c in CONTENTION_CLIENTS:
            tps, failed, aborted = run_pgbench(db, pgbench_bin, c, seconds,
                                               f"SELECT count({f}) FROM generate_series(1, {draws_per_call});", options)
            out["draws"][k][str(c)] = {"per_s": tps * draws_per_call, "failed": failed, "aborted": aborted}
    for k, (column, options) in CONTENTION_KEYS.items():
        out["inserts"][k] = {}
        for c in CONTENTION_CLIENTS:
            db.q(f"DROP TABLE IF EXISTS contended; CREATE TABLE contended ({column}, backend int)")
            db.q("CHECKPOINT")
            tps, failed, aborted = run_pgbench(
                db, pgbench_bin, c, seconds,
                f"INSERT INTO contended (backend) SELECT pg_backend_pid() FROM generate_series(1, {batch});", options)
            in_a_row = float(db.q("SELECT count(*)::float8 / (1 + count(*) FILTER (WHERE backend <> prev)) FROM "
                                  "(SELECT backend, lag(backend) OVER (ORDER BY id) AS prev FROM contended) s"))
            out["inserts"][k][str(c)] = {"rows_per_s": tps * batch, "in_a_row": in_a_row, "failed": failed,
                                         "aborted": aborted}
    db.q("DROP TABLE IF EXISTS contended; DROP SEQUENCE contended_seq1, contended_seq100")
    return out


def set_setting(db, name, value):
    """A reload setting for every new connection (None: its default)."""
    if value is None:
        db.q(f"ALTER SYSTEM RESET {name}")
    else:
        db.q(f"ALTER SYSTEM SET {name} = {value}")
    db.q("SELECT pg_reload_conf()")
    want = db.q(f"SELECT boot_val FROM pg_settings WHERE name = '{name}'") if value is None else str(value)
    for _ in range(100):
        if db.q(f"SELECT setting FROM pg_settings WHERE name = '{name}'") == want:
            return
        time.sleep(0.05)
    sys.exit(f"{name} did not become {want}")


def on_off(db, pgbench_bin, name, values, rows, rounds, pgbench_rounds, clients, seconds):
    """uuid_generate_v7()'s net cost and pgbench TPS with the reload setting
    `name` at each of `values` ({label: value}), alternated; the setting is
    back at its default after."""
    # Generation in one session (one backend) that reloads the setting
    # between measurements: runs in fresh backends differ by up to half here,
    # more than the effect measured.
    script, order = [], []
    for r in range(rounds):
        for k in rotated(["empty loop", *values], r):
            if k != "empty loop":
                v = values[k]
                script += [f"ALTER SYSTEM SET {name} = {v};" if v is not None else f"ALTER SYSTEM RESET {name};",
                           "SELECT pg_reload_conf();", "SELECT pg_sleep(0.2);"]
            expr = NIL if k == "empty loop" else "uuid_generate_v7()"
            sql = f"SELECT count(x) FROM (SELECT {expr} AS x FROM generate_series(1, {rows})) s"
            script.append(f"SELECT 'measured', current_setting('{name}'), bench_seconds($q${sql}$q$);")
            order.append(k)
    lines = [l for l in db.script("\n".join(script)).splitlines() if l.startswith("measured|")]
    gen = {k: [] for k in ("empty loop", *values)}
    for k, line in zip(order, lines, strict=True):
        _, setting, secs = line.split("|")
        want = values.get(k)
        if k != "empty loop" and want is not None and setting != str(want).replace("'", ""):
            sys.exit(f"{name} was {setting} in the session, not {want}")
        gen[k].append(float(secs) * 1e9 / rows)
    set_setting(db, name, None)
    empty_runs = gen.pop("empty loop")
    empty = statistics.median(empty_runs)
    out = {"generation": {k: {"median_ns": statistics.median(v), "net_ns": statistics.median(v) - empty,
                              "runs_ns": v} for k, v in gen.items()},
           "empty_runs_ns": empty_runs}
    res = {k: {"tps": [], "failed": [], "aborted": []} for k in values}
    for r in range(pgbench_rounds):
        for k in rotated(list(values), r):
            set_setting(db, name, values[k])
            db.q("DROP TABLE IF EXISTS pgb; CREATE TABLE pgb (id uuid PRIMARY KEY DEFAULT uuid_generate_v7())")
            db.q("CHECKPOINT")
            tps, failed, aborted = run_pgbench(db, pgbench_bin, clients, seconds, "INSERT INTO pgb DEFAULT VALUES;")
            for m, v in (("tps", tps), ("failed", failed), ("aborted", aborted)):
                res[k][m].append(v)
    db.q("DROP TABLE IF EXISTS pgb")
    set_setting(db, name, None)
    out["pgbench"] = {k: {"tps": statistics.median(v["tps"]), "failed": sum(v["failed"]),
                          "aborted": sum(v["aborted"]), "runs": v["tps"]} for k, v in res.items()}
    out["rows"], out["rounds"], out["pgbench_rounds"], out["clients"], out["seconds"] = \
        rows, rounds, pgbench_rounds, clients, seconds
    return out


def durable(db, pgbench_bin, rows, rounds, pgbench_rounds, clients, seconds):
    """The durable horizon on (the default margin) against off (0); and the
    first UUID after a quiet second (before the horizon worker it wrote the
    horizon) against one right after it. Needs the cluster's fsync = on to
    mean anything."""
    out = on_off(db, pgbench_bin, "uuid_ext.durable_margin", {"on": None, "off": 0},
                 rows, rounds, pgbench_rounds, clients, seconds)
    # One call after a quiet second (the clock passed where the horizon was
    # a second ago), then one right after it: in the server, microseconds.
    one = "SELECT bench_seconds('SELECT uuid_generate_v7()') * 1e6"
    writes, plain = [], []
    for _ in range(9):
        db.q("SELECT pg_sleep(1.1)")
        writes.append(float(db.q(one)))
        plain.append(float(db.q(one)))
    out["write_us"] = {"with_write": statistics.median(writes), "without": statistics.median(plain),
                       "runs_with_write": writes, "runs_without": plain}
    out["fsync"] = db.q("SHOW fsync")
    return out


def watermark(db, pgbench_bin, rows, rounds, pgbench_rounds, clients, seconds):
    """Announcements on (uuid_ext.commit_watermark) against off; and what one
    uuid_v7_watermark() costs, net of the empty loop, with the server's
    max_connections."""
    out = on_off(db, pgbench_bin, "uuid_ext.commit_watermark", {"on": "on", "off": "off"},
                 rows, rounds, pgbench_rounds, clients, seconds)
    n = 100_000
    samples = {"empty loop": [], "uuid_v7_watermark()": []}
    for r in range(rounds):
        for k in rotated(list(samples), r):
            expr = NIL if k == "empty loop" else "uuid_v7_watermark()"
            sql = f"SELECT count(x) FROM (SELECT {expr} AS x FROM generate_series(1, {n})) s"
            samples[k].append(float(db.q(f"SELECT bench_seconds($q${sql}$q$)")) * 1e9 / n)
    med = {k: statistics.median(v) for k, v in samples.items()}
    out["watermark_call"] = {"net_ns": med["uuid_v7_watermark()"] - med["empty loop"],
                             "runs_ns": samples["uuid_v7_watermark()"], "rows": n,
                             "max_connections": int(db.q("SHOW max_connections")),
                             "max_prepared_transactions": int(db.q("SHOW max_prepared_transactions"))}
    return out


def wal_bytes(db, pgbench_bin, clients, seconds):
    """With uuid_ext.durable_wal on: the WAL the extension's records add
    during a pgbench run that makes one UUIDv7 per transaction (pg_walinspect)."""
    set_setting(db, "uuid_ext.durable_wal", "on")
    db.q("DROP TABLE IF EXISTS pgb; CREATE TABLE pgb (id uuid PRIMARY KEY DEFAULT uuid_generate_v7())")
    start = db.q("SELECT pg_current_wal_insert_lsn()")
    t0 = time.time()
    tps, failed, _ = run_pgbench(db, pgbench_bin, clients, seconds, "INSERT INTO pgb DEFAULT VALUES;")
    elapsed = time.time() - t0
    time.sleep(0.5)  # the WAL writer flushes the last records (synchronous_commit is off)
    end = db.q("SELECT pg_current_wal_flush_lsn()")
    rows = db.q(f"""SELECT "resource_manager/record_type", count, combined_size
                    FROM pg_get_wal_stats('{start}', '{end}', true)
                    WHERE "resource_manager/record_type" LIKE 'uuid_ext/%'""").splitlines()
    total = int(db.q(f"SELECT pg_wal_lsn_diff('{end}', '{start}')"))
    ours = {}
    for line in rows:
        name, count, size = line.split("|")
        ours[name.split("/")[1]] = {"records": int(count), "bytes": int(size)}
    db.q("DROP TABLE IF EXISTS pgb")
    set_setting(db, "uuid_ext.durable_wal", None)
    ours_bytes = sum(v["bytes"] for v in ours.values())
    return {"seconds": elapsed, "tps": tps, "failed": failed, "records": ours, "bytes": ours_bytes,
            "bytes_per_s": ours_bytes / elapsed, "all_wal_bytes": total,
            "interval_ms": int(db.q("SELECT setting FROM pg_settings WHERE name = 'uuid_ext.watermark_interval'"))}


# A sparse writer's arms: {label: (uuid_ext.durable_margin, uuid_ext.durable_wal)}; None: the default.
SPARSE_ARMS = {"off": (0, "off"), "on": (None, "off"), "on, WAL": (None, "on")}


def sparse(db, samples, gap_s):
    """One single-row insert every `gap_s` seconds, synchronous commit, as a
    client sees it (psql's \\timing: the round trip with the commit's
    fsync), with durable order off, on, and on with WAL logging, alternated
    insert by insert."""
    db.q("DROP TABLE IF EXISTS sparse; CREATE TABLE sparse (id uuid PRIMARY KEY DEFAULT uuid_generate_v7())")
    script = ["\\timing on", "SET synchronous_commit = on;"]
    for i in range(samples):
        for arm in rotated(list(SPARSE_ARMS), i):
            margin, walset = SPARSE_ARMS[arm]
            script += ["ALTER SYSTEM RESET uuid_ext.durable_margin;" if margin is None
                       else f"ALTER SYSTEM SET uuid_ext.durable_margin = {margin};",
                       f"ALTER SYSTEM SET uuid_ext.durable_wal = {walset};",
                       "SELECT pg_reload_conf();", f"SELECT pg_sleep({gap_s});",
                       f"\\echo mark {arm}", "INSERT INTO sparse DEFAULT VALUES;"]
    out = db.script("\n".join(script))
    runs = {arm: [] for arm in SPARSE_ARMS}
    current = None
    for line in out.splitlines():
        if line.startswith("mark "):
            current = line[5:]
        elif line.startswith("Time: ") and current:
            runs[current].append(float(line.split()[1]))
            current = None
    for name in ("uuid_ext.durable_margin", "uuid_ext.durable_wal"):
        set_setting(db, name, None)
    db.q("DROP TABLE IF EXISTS sparse")
    if any(len(v) != samples for v in runs.values()):
        sys.exit(f"the sparse writer's timings did not parse: { {k: len(v) for k, v in runs.items()} }")
    return {"gap_s": gap_s, "samples": samples, "fsync": db.q("SHOW fsync"),
            "arms": {arm: {"median_ms": statistics.median(v), "runs_ms": v} for arm, v in runs.items()}}


def wal(db, pgbench_bin, rows, rounds, pgbench_rounds, clients, seconds):
    """uuid_ext.durable_wal on against off (generation, pgbench); the WAL
    bytes its records add per second of steady generation; and a sparse
    writer's insert latency with durable order on against off."""
    db.q("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
    out = on_off(db, pgbench_bin, "uuid_ext.durable_wal", {"on": "on", "off": "off"},
                 rows, rounds, pgbench_rounds, clients, seconds)
    out["wal_bytes"] = wal_bytes(db, pgbench_bin, clients, 10)
    out["sparse"] = sparse(db, 25, 1.2)
    return out


FACADE_V7 = "'01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b'::uuid"
FACADE_V4 = "'adfa3dfb-2322-4c5e-b1b9-3bfb6996e3d0'::uuid"


def facade(db, rows, rounds, fresh_sessions=31):
    """The façade per call, net of the empty loop (constant arguments: a
    STABLE function is called for every row); then the first call of a
    fresh backend, which reads the key table and expands the key, against
    the second, each timed inside the session (one new psql a sample)."""
    db.q("SELECT uuid_facade_key_create() WHERE NOT EXISTS "
         "(SELECT FROM uuid_facade_keys WHERE state = 'current')")
    calls = {"empty loop": NIL, "gen_random_uuid()": "gen_random_uuid()", "uuid_generate_v7()": "uuid_generate_v7()",
             "uuid_v7_to_facade(id)": f"uuid_v7_to_facade({FACADE_V7})",
             "uuid_facade_to_v7(face)": f"uuid_facade_to_v7({FACADE_V4})",
             "uuid_v7_to_facade(id, 'orders')": f"uuid_v7_to_facade({FACADE_V7}, 'orders')",
             "uuid_facade_candidates(face), 2 keys": f"uuid_facade_candidates({FACADE_V4})"}
    db.q("SELECT uuid_facade_key_create() WHERE (SELECT count(*) FROM uuid_facade_keys WHERE state <> 'dropped') < 2")
    runs = {k: [] for k in calls}
    for r in range(rounds):
        for name in rotated(list(calls), r):
            sql = f"SELECT count(x) FROM (SELECT {calls[name]} AS x FROM generate_series(1, {rows})) s"
            runs[name].append(float(db.q(f"SELECT bench_seconds($q${sql}$q$)")) * 1e9 / rows)
    empty = statistics.median(runs["empty loop"])
    out = {"rows": rows, "rounds": rounds,
           "calls": {k: {"median_ns": statistics.median(v), "net_ns": statistics.median(v) - empty, "runs_ns": v}
                     for k, v in runs.items()}}
    one = f"$q$SELECT uuid_v7_to_facade({FACADE_V7})$q$"
    first, second = [], []
    for _ in range(fresh_sessions):
        a, b = db.q(f"SELECT bench_seconds({one}) || ' ' || bench_seconds({one})").split()
        first.append(float(a) * 1e6)
        second.append(float(b) * 1e6)
    out["fresh_backend"] = {"first_us": statistics.median(first), "second_us": statistics.median(second),
                            "first_runs_us": first, "second_runs_us": second, "sessions": fresh_sessions}
    return out


# The keys of the citus section's distributed tables: {label: column definition}.
CITUS_KEYS = {
    "uuid_generate_v7()": "id uuid PRIMARY KEY DEFAULT uuid_generate_v7()",
    "gen_random_uuid()": "id uuid PRIMARY KEY DEFAULT gen_random_uuid()",
    "bigserial": "id bigserial PRIMARY KEY",
}


def citus(psql, nodes, rows, rounds, batch=1000):
    """Loads through a Citus coordinator: `rows` rows into a fresh table
    distributed by its key (the default shard count), by COPY (FROM PROGRAM
    'seq', the rows made on the coordinator) and by multi-row INSERTs of
    `batch` rows each from one client session, for each key of CITUS_KEYS;
    `rounds` rounds, keys and methods alternated (who goes first rotates);
    the time of each load as psql's \\timing reports it (summed over the
    INSERTs); medians. `nodes`: (socket directory, port) of the coordinator,
    then of each worker, all preloading citus and uuid_ext."""
    db = "uuid_ext_bench_citus"
    coordinator, *workers = [Db(psql, db, n) for n in nodes]
    for n in nodes:
        Db(psql, "postgres", n).q(f"DROP DATABASE IF EXISTS {db}")
        Db(psql, "postgres", n).q(f"CREATE DATABASE {db}")
    for w in workers:
        w.q("CREATE EXTENSION citus")
    coordinator.q("CREATE EXTENSION citus")
    coordinator.q(f"SELECT citus_set_coordinator_host('{nodes[0][0]}', {nodes[0][1]})")
    for d, port in nodes[1:]:
        coordinator.q(f"SELECT citus_add_node('{d}', {port})")
    # Installed by a role of its own, not a superuser: on a cluster the
    # façade's keys need that (docs/facade.md#on-a-citus-cluster).
    coordinator.q("DROP ROLE IF EXISTS bench_owner; CREATE ROLE bench_owner LOGIN")
    for node in (coordinator, *workers):
        node.q(f"SET citus.enable_ddl_propagation = off; GRANT CREATE ON DATABASE {db} TO bench_owner")
    coordinator.q("SET ROLE bench_owner; CREATE EXTENSION uuid_ext")
    version = coordinator.q("SELECT citus_version()").split(" on ")[0]
    shards = int(coordinator.q("SHOW citus.shard_count"))
    inserts = "".join(
        "INSERT INTO loaded (n) VALUES " + ",".join(f"({n})" for n in range(i, min(i + batch, rows + 1))) + ";\n"
        for i in range(1, rows + 1, batch))
    loads = {"COPY": f"COPY loaded (n) FROM PROGRAM 'seq 1 {rows}';\n", "multi-row INSERT": inserts}
    runs = {m: {k: [] for k in CITUS_KEYS} for m in loads}
    arms = [(m, k) for m in loads for k in CITUS_KEYS]
    for r in range(rounds):
        for method, key in rotated(arms, r):
            coordinator.q("DROP TABLE IF EXISTS loaded")
            coordinator.q(f"CREATE TABLE loaded ({CITUS_KEYS[key]}, n int)")
            coordinator.q("SELECT create_distributed_table('loaded', 'id')")
            for node in (coordinator, *workers):
                node.q("CHECKPOINT")
            out = coordinator.script("\\timing on\n" + loads[method])
            ms = sum(float(m.group(1)) for m in re.finditer(r"^Time: ([0-9.]+) ms", out, re.M))
            if int(coordinator.q("SELECT count(DISTINCT id) FROM loaded")) != rows:
                sys.exit(f"{method} with {key}: the distributed table does not hold {rows} distinct keys")
            runs[method][key].append(ms / 1000)
            print(f"  round {r + 1}: {method}, {key}: {ms / 1000:.2f} s", flush=True)
    coordinator.q("DROP TABLE IF EXISTS loaded")
    return {"citus": version, "workers": len(workers), "shards": shards, "rows": rows, "rounds": rounds,
            "batch": batch,
            "loads": {m: {k: {"seconds": statistics.median(v), "runs_s": v} for k, v in d.items()}
                      for m, d in runs.items()},
            "lookups": citus_lookups(coordinator, workers, rows // 10, 1000, rounds)}


def citus_lookups(coordinator, workers, rows, lookups, rounds):
    """Lookups through the coordinator in a table of `rows` rows distributed
    by its v7 key, with a façade key on every node: `lookups` statements in
    one session, each finding one random row, by its key, by its face
    through a function that decodes first (docs/facade.md#on-a-citus-cluster:
    routed to one shard), and by `WHERE id = uuid_facade_to_v7(face)` (sent
    to every shard); `rounds` rounds, the forms alternated; medians of the
    per-lookup time from psql's `\\timing`, summed over the statements."""
    # A throwaway cluster: the cluster key travels as SQL text here, where
    # docs/facade.md moves it through a pipe.
    coordinator.q("SELECT uuid_facade_cluster_key_create()")
    cluster_key = coordinator.q("SELECT encode(uuid_facade_cluster_key_export(), 'hex')")
    for w in workers:
        w.q(f"SELECT uuid_facade_cluster_key_import(decode('{cluster_key}', 'hex'))")
    coordinator.q("SELECT uuid_facade_key_create()")
    coordinator.q("DROP TABLE IF EXISTS looked")
    coordinator.q("CREATE TABLE looked (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int)")
    coordinator.q("SELECT create_distributed_table('looked', 'id')")
    coordinator.q(f"INSERT INTO looked (n) SELECT generate_series(1, {rows})")
    coordinator.q("CREATE FUNCTION looked_by_face(face uuid) RETURNS SETOF looked LANGUAGE plpgsql STABLE AS $$"
                  "DECLARE v uuid := uuid_facade_to_v7(face); "
                  "BEGIN RETURN QUERY SELECT * FROM looked WHERE id = v; END $$")
    picked = coordinator.q(f"SELECT string_agg(id || ' ' || uuid_v7_to_facade(id), ',') "
                           f"FROM (SELECT id FROM looked ORDER BY random() LIMIT {lookups}) s").split(",")
    pairs = [p.split() for p in picked]
    forms = {
        "by key": "".join(f"SELECT n FROM looked WHERE id = '{k}';\n" for k, _ in pairs),
        "by face, through looked_by_face()": "".join(f"SELECT n FROM looked_by_face('{f}');\n" for _, f in pairs),
        "by face, WHERE id = uuid_facade_to_v7(face)":
            "".join(f"SELECT n FROM looked WHERE id = uuid_facade_to_v7('{f}');\n" for _, f in pairs),
    }
    runs = {f: [] for f in forms}
    for r in range(rounds):
        for form in rotated(list(forms), r):
            out = coordinator.script("\\timing on\n" + forms[form])
            times = [float(m.group(1)) for m in re.finditer(r"^Time: ([0-9.]+) ms", out, re.M)]
            if len(times) != lookups:
                sys.exit(f"lookups {form}: {len(times)} of {lookups} statements timed")
            runs[form].append(sum(times) / lookups)
            print(f"  round {r + 1}: lookup {form}: {sum(times) / lookups:.3f} ms each", flush=True)
    coordinator.q("DROP FUNCTION looked_by_face(uuid); DROP TABLE looked")
    return {"rows": rows, "lookups": lookups,
            "forms": {f: {"ms": statistics.median(v), "runs_ms": v} for f, v in runs.items()}}


def release_generation(db, rows, rounds):
    """What the library the server runs now costs, in one session: for
    comparing two releases' libraries, swapped between server starts by
    scripts/bench. uuid_generate_v7()'s and uuid_v7_watermark()'s net cost
    per call (net of the empty loop), and a transaction that draws one
    UUIDv7 (its announcement, the UUID, its withdrawal at commit) net of an
    empty transaction."""
    calls = {"empty loop": NIL, "uuid_generate_v7()": "uuid_generate_v7()",
             "uuid_v7_watermark()": "uuid_v7_watermark()"}
    script = []
    for r in range(rounds):
        for k in rotated(list(calls), r):
            sql = f"SELECT count(x) FROM (SELECT {calls[k]} AS x FROM generate_series(1, {rows})) s"
            script.append(f"SELECT 'measured', '{k}', bench_seconds($q${sql}$q$);")
    runs = {k: [] for k in calls}
    for line in db.script("\n".join(script)).splitlines():
        if line.startswith("measured|"):
            _, k, secs = line.split("|")
            runs[k].append(float(secs) * 1e9 / rows)
    net = {k: [g - e for g, e in zip(runs[k], runs["empty loop"], strict=True)]
           for k in ("uuid_generate_v7()", "uuid_v7_watermark()")}
    n_xacts, xact_rounds = 50_000, 25
    xact = {True: [], False: []}
    script = []
    for r in range(xact_rounds):
        for draw in rotated([True, False], r):
            script.append(f"CALL bench_commits({n_xacts}, {str(draw).lower()});")
            script.append(f"\\echo measured|{draw}")
    lines = db.script("\n".join(script)).splitlines()
    for secs, tag in zip(lines[::2], lines[1::2], strict=True):
        xact[tag == "measured|True"].append(float(secs) * 1e9 / n_xacts)
    xact_net = statistics.median(xact[True]) - statistics.median(xact[False])
    return {"net_ns": statistics.median(net["uuid_generate_v7()"]), "runs_net_ns": net["uuid_generate_v7()"],
            "watermark_net_ns": statistics.median(net["uuid_v7_watermark()"]),
            "watermark_runs_net_ns": net["uuid_v7_watermark()"],
            "xact_net_ns": xact_net, "xact_runs_ns": xact[True], "xact_empty_runs_ns": xact[False],
            "xact_empty_ns": statistics.median(xact[False]), "xacts": n_xacts, "xact_rounds": xact_rounds,
            "rows": rows, "rounds": rounds,
            "library_version": json.loads(db.q("SELECT uuid_ext_info()"))["version"]}


VERSIONS_DB = "uuid_ext_versions"
# The façade's argument in the versions section: a constant (a STABLE
# function is called for every row).
VERSIONS_V7 = "'018f2d3c-8b4a-7c3d-9e2f-0123456789ab'::uuid"
# A query's time by the clock and on the CPU (the backend's own, from
# Linux's /proc/self/schedstat: what the machine's other work takes while
# the backend waits for a CPU does not count), in seconds.
BENCH_TIMES = """CREATE OR REPLACE FUNCTION bench_times(q text) RETURNS float8[] LANGUAGE plpgsql AS $$
    DECLARE t0 timestamptz; t1 timestamptz; c0 text; c1 text;
    BEGIN
      c0 := pg_read_file('/proc/self/schedstat'); t0 := clock_timestamp();
      EXECUTE q;
      t1 := clock_timestamp(); c1 := pg_read_file('/proc/self/schedstat');
      RETURN ARRAY[extract(epoch FROM t1 - t0),
                   (split_part(c1, ' ', 1)::numeric - split_part(c0, ' ', 1)::numeric) / 1e9];
    END $$"""


def version_costs(a, rounds):
    """What the library the server runs now costs, for comparing releases
    whose libraries scripts/bench swaps between server starts (its versions
    section): in a database made anew with that library's own install script
    (the releases' SQL differs) and a façade key, in one session,
    uuid_generate_v7() and uuid_v7_to_facade(id) against the empty loop,
    `rounds` rounds alternated, each timed by the clock and on the
    backend's CPU; the medians of the rounds' net costs."""
    admin = Db(a.psql, "postgres")
    admin.q(f"DROP DATABASE IF EXISTS {VERSIONS_DB}")
    admin.q(f"CREATE DATABASE {VERSIONS_DB}")
    db = Db(a.psql, VERSIONS_DB)
    db.q("CREATE EXTENSION uuid_ext")
    db.q("SELECT uuid_facade_key_create()")
    db.q(BENCH_TIMES)
    calls = {"empty loop": NIL, "uuid_generate_v7()": "uuid_generate_v7()",
             "uuid_v7_to_facade(id)": f"uuid_v7_to_facade({VERSIONS_V7})"}
    # The first call of each outside the rounds: a façade key's schedule, the seed.
    script = ["SELECT count(uuid_v7_to_facade(uuid_generate_v7())) FROM generate_series(1, 10);"]
    for r in range(rounds):
        for k in rotated(list(calls), r):
            sql = f"SELECT count(x) FROM (SELECT {calls[k]} AS x FROM generate_series(1, {a.rows})) s"
            script.append(f"SELECT 'measured', '{k}', bench_times($q${sql}$q$);")
    wall, cpu = {k: [] for k in calls}, {k: [] for k in calls}
    for line in db.script("\n".join(script)).splitlines():
        if line.startswith("measured|"):
            _, k, times = line.split("|")
            w, c = (float(x) for x in times.strip("{}").split(","))
            wall[k].append(w * 1e9 / a.rows)
            cpu[k].append(c * 1e9 / a.rows)
    out = {"rows": a.rows, "rounds": rounds, "library_version": json.loads(db.q("SELECT uuid_ext_info()"))["version"]}
    for clock, runs in (("wall", wall), ("cpu", cpu)):
        for k in ("uuid_generate_v7()", "uuid_v7_to_facade(id)"):
            net = [g - e for g, e in zip(runs[k], runs["empty loop"], strict=True)]
            out.setdefault(clock, {})[k] = {"net_ns": statistics.median(net), "runs_net_ns": net}
        out[clock]["empty loop"] = {"ns": statistics.median(runs["empty loop"]), "runs_ns": runs["empty loop"]}
    admin.q(f"DROP DATABASE {VERSIONS_DB}")
    return out


def set_local_costs(a, n=200_000, best_of=15):
    """On a server that does not preload uuid_ext: a PL/pgSQL loop of `n`
    `SET LOCAL work_mem = '4MB'` in a session that loaded the library the
    server has now (`LOAD 'uuid_ext'`) against one that did not, each in a
    new session, alternated, the best of `best_of` each: what a library
    that hooks utility statements adds to every SET (0.9.0's SET guard
    did)."""
    db = Db(a.psql, "postgres")
    if "uuid_ext" in db.q("SHOW shared_preload_libraries"):
        sys.exit("the SET LOCAL loop needs a server that does not preload uuid_ext")
    db.q(BENCH_TIMES)
    db.q("""CREATE OR REPLACE FUNCTION bench_set_local(n int) RETURNS void LANGUAGE plpgsql AS $$
            BEGIN FOR i IN 1..n LOOP SET LOCAL work_mem = '4MB'; END LOOP; END $$""")
    runs = {"loaded": [], "not loaded": []}
    for i in range(best_of):
        for arm in rotated(list(runs), i):
            load = "LOAD 'uuid_ext';\n" if arm == "loaded" else ""
            out = db.script(f"{load}SELECT bench_times($q$SELECT bench_set_local({n})$q$);")
            runs[arm].append([float(x) for x in out.strip().strip("{}").split(",")])
    db.q("DROP FUNCTION bench_set_local(int); DROP FUNCTION bench_times(text)")
    best = {arm: min(r[0] for r in v) for arm, v in runs.items()}
    return {"n": n, "best_of": best_of, "best_s": best, "runs_s": runs,
            "ratio": best["loaded"] / best["not loaded"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--psql", required=True)
    ap.add_argument("--db", default="uuid_ext_bench")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--index-rows", type=int, default=3_000_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--pgbench", required=True)
    ap.add_argument("--pgbench-seconds", type=int, default=10)
    ap.add_argument("--concurrent-seconds", type=int, default=15)
    ap.add_argument("--origin", default="", help="where this PostgreSQL comes from, for the record")
    ap.add_argument("--pg-uuidv7", action="store_true", help="pg_uuidv7 is installed: measure it too")
    ap.add_argument("--json", required=True)
    ap.add_argument("--only", help="run only these sections (comma-separated: generation, keys, facade, durable, watermark, "
                                   "wal, feeds, citus), keeping "
                                   "the others of --json as they are")
    ap.add_argument("--citus", metavar="DIR:PORT,...",
                    help="the citus section's coordinator and workers (socket directory and port of each, the "
                         "coordinator first), running and preloading citus and uuid_ext; without it the section "
                         "is left out")
    ap.add_argument("--release-label", help="measure uuid_generate_v7()'s net cost with the library the server "
                                            "runs now, and add it to --json under this label (scripts/bench swaps "
                                            "the libraries of two releases)")
    ap.add_argument("--versions-label", help="measure uuid_generate_v7() and uuid_v7_to_facade() with the library "
                                             "the server runs now, in a database of its own, and add it to --json "
                                             "under this label (scripts/bench's versions section)")
    ap.add_argument("--set-local-label", help="time a loop of SET LOCAL in a session that loaded the library the "
                                              "server has now against one that did not (on a server that does not "
                                              "preload it), and add it to --json under this label")
    a = ap.parse_args()
    if a.versions_label or a.set_local_label:
        results = json.load(open(a.json)) if os.path.exists(a.json) else {}
        if a.versions_label:
            d = version_costs(a, 11)
            results.setdefault("versions", {}).setdefault(a.versions_label, []).append(d)
            results.setdefault("machine_of", {})["versions"] = machine(Db(a.psql, "postgres"), a.origin)
            print(f"  {a.versions_label} (library {d['library_version']}), net of the empty loop, by the clock / "
                  f"on the CPU: uuid_generate_v7() {d['wall']['uuid_generate_v7()']['net_ns']:.1f} / "
                  f"{d['cpu']['uuid_generate_v7()']['net_ns']:.1f} ns, uuid_v7_to_facade(id) "
                  f"{d['wall']['uuid_v7_to_facade(id)']['net_ns']:.0f} / {d['cpu']['uuid_v7_to_facade(id)']['net_ns']:.0f} ns",
                  flush=True)
        else:
            d = set_local_costs(a)
            results.setdefault("versions_set_local", {})[a.set_local_label] = d
            print(f"  {a.set_local_label}: {d['n']:,} SET LOCAL, best of {d['best_of']}: loaded "
                  f"{d['best_s']['loaded']:.3f} s, not loaded {d['best_s']['not loaded']:.3f} s, "
                  f"{d['ratio']:.3f}×", flush=True)
        json.dump(results, open(a.json, "w"), indent=1)
        return
    db = Db(a.psql, a.db)
    setup(db)
    core_v7 = int(db.q("SHOW server_version_num")) >= 180000
    extra = {}
    if a.pg_uuidv7:
        db.q("CREATE SCHEMA IF NOT EXISTS pg_uuidv7; CREATE EXTENSION IF NOT EXISTS pg_uuidv7 SCHEMA pg_uuidv7")
        extra["pg_uuidv7.uuid_generate_v7()"] = "pg_uuidv7.uuid_generate_v7()"
    if a.release_label:
        results = json.load(open(a.json))
        d = release_generation(db, a.rows, 11)
        results.setdefault("releases", {}).setdefault(a.release_label, []).append(d)
        print(f"  {a.release_label} (library {d['library_version']}): uuid_generate_v7() net {d['net_ns']:.1f} ns, "
              f"uuid_v7_watermark() net {d['watermark_net_ns']:.1f} ns, a transaction drawing one UUIDv7 "
              f"{d['xact_net_ns']:.0f} ns over an empty one")
        json.dump(results, open(a.json, "w"), indent=1)
        return
    if a.only:
        # A version measured for the first time starts a results file of its own.
        results = (json.load(open(a.json)) if os.path.exists(a.json) else
                   {"machine": machine(db, a.origin), "major": int(db.q("SHOW server_version_num")) // 10000,
                    "core_v7": core_v7, "gen_rows": a.rows, "index_rows": a.index_rows, "rounds": a.rounds})
        for section in a.only.split(","):
            results.setdefault("machine_of", {})[section] = machine(db, a.origin)
            if section == "generation":
                results["generation"] = generation(db, a.rows, a.rounds, extra, core_v7)
                results["rounds"] = a.rounds
                continue
            results[section] = run_section(section, db, a, core_v7, extra)
        json.dump(results, open(a.json, "w"), indent=1)
        return
    results = {"machine": machine(db, a.origin), "major": int(db.q("SHOW server_version_num")) // 10000,
               "core_v7": core_v7, "gen_rows": a.rows, "index_rows": a.index_rows, "rounds": a.rounds}
    print("generation cost ...", flush=True)
    results["generation"] = generation(db, a.rows, a.rounds, extra, core_v7)
    for n, v in results["generation"].items():
        print(f"  {n:32s} {v['median_ns']:8.1f} ns/row, net {v['net_ns']:8.1f} ns")
    print("functions of their arguments ...", flush=True)
    results["per_row"] = per_row(db, a.rows, a.rounds)
    for n, v in results["per_row"].items():
        print(f"  {n:42s} {v['median_ns']:8.1f} ns/row, net {v['net_ns']:8.1f} ns")
    print("index locality ...", flush=True)
    rounds = max(5, a.rounds // 2 + 1)
    results["index"] = index_locality(db, a.index_rows, rounds, core_v7)
    for k in keys(core_v7):
        d = results["index"][k]
        print(f"  {k}: insert {d['insert_s']:.2f} s, index {d['index_bytes'] / 2**20:.1f} MiB, "
              f"leaf density {d['leaf_density']:.1f}%")
    print("uuid7 against uuid ...", flush=True)
    results["types"] = types(db, 2_000_000, a.index_rows, max(9, a.rounds))
    for k in ("uuid7", "uuid"):
        d = results["types"][k]
        print(f"  {k}: CREATE INDEX {d['create_index_s']:.2f} s, ORDER BY LIMIT {d['order_by_limit_s']:.3f} s, "
              f"insert {d['insert_s']:.2f} s")
    print("pgbench ...", flush=True)
    results["pgbench"] = pgbench(db, a.pgbench, 8, a.pgbench_seconds, rounds, core_v7)
    for k, d in results["pgbench"].items():
        if isinstance(d, dict):
            print(f"  {k}: {d['tps']:.0f} tps, failed {d['failed']}, aborted {d['aborted']}")
    print("concurrent inserts ...", flush=True)
    results["concurrent"] = concurrent(db, a.pgbench, 8, a.concurrent_seconds, rounds, 100, core_v7)
    for k in keys(core_v7):
        d = results["concurrent"][k]
        print(f"  {k}: {d['rows']:.0f} rows, {d['bytes_per_row']:.1f} index bytes per row, "
              f"leaf density {d['leaf_density']:.1f}%")
    for section in ("keys", "facade", "durable", "watermark", "wal", "feeds", "contention"):
        results[section] = run_section(section, db, a, core_v7, extra)
    if a.citus:
        results["citus"] = run_section("citus", db, a, core_v7, extra)
    json.dump(results, open(a.json, "w"), indent=1)


def run_section(name, db, a, core_v7, extra):
    """One section on its own (--only), or the sections added last."""
    # Many short pgbench runs: their TPS moves by 10-20% from run to run here,
    # and the effect compared is a few percent at most.
    # Generation: many rounds, each measuring the empty loop, on and off
    # back to back; the report takes the median of each round's ratio.
    pgbench_rounds, pgbench_seconds, generation_rounds = 11, 6, 41
    if name == "durable":
        print("durable horizon on against off ...", flush=True)
        d = durable(db, a.pgbench, a.rows, generation_rounds, 2 * pgbench_rounds, 8, pgbench_seconds)
        print(f"  the first call after a quiet second: {d['write_us']['with_write']:.0f} us, "
              f"one right after it: {d['write_us']['without']:.1f} us (fsync = {d['fsync']})")
    elif name == "watermark":
        print("commit watermark announcements on against off ...", flush=True)
        d = watermark(db, a.pgbench, a.rows, generation_rounds, pgbench_rounds, 8, pgbench_seconds)
        w = d["watermark_call"]
        print(f"  uuid_v7_watermark(): net {w['net_ns']:.0f} ns with max_connections = {w['max_connections']}")
    elif name == "wal":
        # Twice the pgbench rounds (as for durable): the effect is a few
        # writes a second against tens of thousands of transactions, well
        # inside the rounds' spread.
        print("the sequencer in the WAL on against off, its WAL bytes, a sparse writer ...", flush=True)
        d = wal(db, a.pgbench, a.rows, generation_rounds, 2 * pgbench_rounds, 8, pgbench_seconds)
        w = d["wal_bytes"]
        print(f"  WAL of uuid_ext's records: {w['bytes_per_s']:.0f} bytes/s at {w['tps']:.0f} UUIDs/s "
              f"({w['records']})")
        for arm, v in d["sparse"]["arms"].items():
            print(f"  sparse writer, durable {arm}: median insert {v['median_ms']:.3f} ms")
    elif name == "feeds":
        print("a change feed's latency ...", flush=True)
        py = os.path.join(os.environ.get("UUID_EXT_PG_ROOT", "/opt/uuid_ext"), "venv", "bin", "python")
        r = subprocess.run([py, os.path.join(os.path.dirname(os.path.abspath(__file__)), "feed_latency.py")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"bench/feed_latency.py failed:\n{r.stdout}{r.stderr}")
        d = json.loads(r.stdout)
        for k, v in d["consumers"].items():
            print(f"  {k:10s} delivered {v['delivered']}, lost {v['lost']}: median {v['median_ms']:.1f} ms, "
                  f"99th percentile {v['p99_ms']:.1f} ms")
        return d
    elif name == "facade":
        print("the façade ...", flush=True)
        d = facade(db, a.rows, 15)
        for k, v in d["calls"].items():
            print(f"  {k:38s} {v['median_ns']:8.1f} ns/call, net {v['net_ns']:8.1f} ns")
        f = d["fresh_backend"]
        print(f"  a fresh backend's first uuid_v7_to_facade(): {f['first_us']:.0f} us, its second {f['second_us']:.0f} us")
        return d
    elif name == "keys":
        print("the key against a bigint sequence ...", flush=True)
        d = key_choice(db, a.pgbench, a.rows, 2_000_000, 15, 3, 8, a.pgbench_seconds, core_v7)
        for k, v in d["calls"].items():
            print(f"  {k:28s} {v['median_ns']:8.1f} ns/call, net {v['net_ns']:8.1f} ns")
        for k, v in d["inserts"].items():
            print(f"  {k:38s} insert {v['insert_s']:.2f} s, primary key {v['index_bytes'] / 2**20:.1f} MiB; "
                  f"pgbench {d['pgbench'][k]['tps']:.0f} tps, failed {d['pgbench'][k]['failed']}")
        return d
    elif name == "contention":
        print(f"contention: {', '.join(map(str, CONTENTION_CLIENTS))} clients ...", flush=True)
        d = contention(db, a.pgbench, 4)
        for k, per in d["draws"].items():
            print(f"  draws {k:42s} " + "  ".join(f"{c}: {v['per_s'] / 1e6:.2f} M/s" for c, v in per.items()))
        for k, per in d["inserts"].items():
            print(f"  inserts {k:26s} " + "  ".join(f"{c}: {v['rows_per_s'] / 1e3:.0f} k/s ({v['in_a_row']:.1f} in a row)"
                                                     for c, v in per.items()))
        return d
    elif name == "citus":
        if not a.citus:
            sys.exit("the citus section needs --citus (scripts/bench starts the cluster where Citus is installed)")
        nodes = [(d, int(p)) for d, p in (n.rsplit(":", 1) for n in a.citus.split(","))]
        print(f"loads through a Citus coordinator ({len(nodes) - 1} workers) ...", flush=True)
        d = citus(a.psql, nodes, a.rows, 5)
        for m, per_key in d["loads"].items():
            for k, v in per_key.items():
                print(f"  {m:18s} {k:20s} {v['seconds']:.2f} s (median)")
        for f, v in d["lookups"]["forms"].items():
            print(f"  lookup {f:45s} {v['ms']:.3f} ms each (median)")
        return d
    else:
        sys.exit(f"--only knows: generation, keys, facade, durable, watermark, wal, feeds, contention, citus "
                 f"(not {name})")
    for k, g in d["generation"].items():
        print(f"  uuid_generate_v7(), {name} {k}: net {g['net_ns']:.1f} ns; "
              f"pgbench {d['pgbench'][k]['tps']:.0f} tps, failed {d['pgbench'][k]['failed']}")
    return d


if __name__ == "__main__":
    main()
