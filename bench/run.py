#!/usr/bin/env python3
"""The SQL benchmark: drives one running, preloaded cluster through psql.

Measures, functions alternated in every round, medians over the rounds:
  gen     cost per UUID net of an empty generate_series loop
  index   3 million rows inserted in one statement into a table whose uuid
          primary key defaults to a v7 or a v4 generator: insert time and
          primary-key index size; and how far the embedded time ran ahead
  pgbench 8 clients inserting into a table whose uuid primary key defaults to
          each generator: transactions per second, failed transactions
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

NIL = "'00000000-0000-0000-0000-000000000000'::uuid"


class Db:
    def __init__(self, psql, dbname):
        self.psql, self.dbname = psql, dbname

    def q(self, sql):
        r = subprocess.run([self.psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", self.dbname, "-c", sql],
                           text=True, capture_output=True)
        if r.returncode != 0:
            sys.exit(f"benchmark query failed: {sql}\n{r.stderr}")
        return r.stdout.strip()


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, text=True, capture_output=True).stdout.strip()
    except OSError:
        return "?"


def machine(db):
    """Where and when this run measured, as label and value pairs."""
    cpu = sh("lscpu | sed -n 's/^Model name: *//p'") or platform.processor()
    mem = sh("awk '/MemTotal/ {printf \"%.0f GiB\", $2/1048576}' /proc/meminfo")
    osname = sh(". /etc/os-release && echo $PRETTY_NAME")
    dirty = " (with uncommitted changes)" if sh("git status --porcelain") else ""
    return [
        ("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        ("commit", sh("git rev-parse --short HEAD") + dirty),
        ("CPU", f"{cpu}, {os.cpu_count()} cores"),
        ("memory", mem),
        ("OS", f"{osname}, Linux {platform.release()}"),
        ("PostgreSQL", "PostgreSQL " + db.q("SHOW server_version") + " (Debian package, with OpenSSL)"),
        ("Rust", sh("rustc --version") + ", pgrx 0.18.1, release build, fat LTO"),
    ]


def setup(db):
    db.q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    db.q("""CREATE OR REPLACE FUNCTION bench_seconds(q text) RETURNS float8 LANGUAGE plpgsql AS $$
            DECLARE t0 timestamptz;
            BEGIN t0 := clock_timestamp(); EXECUTE q; RETURN extract(epoch FROM clock_timestamp() - t0); END $$""")


BACKEND = "SET uuid_ext.monotonicity = backend; "


def generation(db, rows, rounds, extra):
    # name: (setting, expression)
    gens = {"empty loop": ("", NIL), "gen_random_uuid()": ("", "gen_random_uuid()"),
            "uuid_generate_v7()": ("", "uuid_generate_v7()"),
            "uuid_generate_v7(), backend word": (BACKEND, "uuid_generate_v7()"),
            "uuid_generate_v7('1 hour')": ("", "uuid_generate_v7(interval '1 hour')")}
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


def index_locality(db, rows, rounds):
    kinds = {"v7": "uuid_generate_v7()", "v4": "gen_random_uuid()"}
    res = {k: {"insert_s": [], "index_bytes": [], "table_bytes": []} for k in kinds}
    lead_after = []
    for r in range(rounds):
        for k in (["v7", "v4"] if r % 2 == 0 else ["v4", "v7"]):
            db.q(f"DROP TABLE IF EXISTS loc_{k}")
            db.q(f"CREATE TABLE loc_{k} (id uuid PRIMARY KEY DEFAULT {kinds[k]}, n int)")
            db.q("CHECKPOINT")
            secs = float(db.q(f"SELECT bench_seconds('INSERT INTO loc_{k} (n) SELECT generate_series(1, {rows})')"))
            if k == "v7":
                # The sequencer's word outlives the insert: the next UUID shows
                # whether the insert left the embedded time ahead of the clock.
                lead_after.append(float(db.q(
                    "SELECT extract(epoch FROM uuid_extract_timestamp(uuid_generate_v7())"
                    " - date_trunc('milliseconds', clock_timestamp())) * 1000")))
            res[k]["insert_s"].append(secs)
            res[k]["index_bytes"].append(int(db.q(f"SELECT pg_relation_size('loc_{k}_pkey')")))
            res[k]["table_bytes"].append(int(db.q(f"SELECT pg_relation_size('loc_{k}')")))
        rows_check = db.q(f"SELECT count(*) FROM loc_v7")
        assert int(rows_check) == rows
    for k in kinds:
        db.q(f"DROP TABLE IF EXISTS loc_{k}")
    out = {k: {m: statistics.median(v) for m, v in d.items()} | {"runs": d} for k, d in res.items()}
    out["v7_lead_after_insert_ms_max"] = max(lead_after)
    # The worst case: generation alone, as fast as one backend goes, each
    # UUID's embedded time against the clock read beside it.
    out["v7_max_lead_burst_ms"] = float(db.q(
        f"SELECT max(extract(epoch FROM uuid_extract_timestamp(id) - date_trunc('milliseconds', made)) * 1000) "
        f"FROM (SELECT uuid_generate_v7() AS id, clock_timestamp() AS made FROM generate_series(1, {rows})) s"))
    return out


def pgbench(db, pgbench_bin, clients, seconds, rounds):
    """8 clients, INSERT ... DEFAULT VALUES into a fresh table per run."""
    kinds = {"v7": ("", "uuid_generate_v7()"), "v7, backend word": ("-c uuid_ext.monotonicity=backend", "uuid_generate_v7()"),
             "v4": ("", "gen_random_uuid()")}
    res = {k: {"tps": [], "failed": [], "aborted": []} for k in kinds}
    leads = []
    script = tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False)
    script.write("INSERT INTO pgb DEFAULT VALUES;\n")
    script.close()
    names = list(kinds)
    for r in range(rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            options, gen = kinds[k]
            db.q(f"DROP TABLE IF EXISTS pgb; CREATE TABLE pgb (id uuid PRIMARY KEY DEFAULT {gen})")
            db.q("CHECKPOINT")
            env = dict(os.environ, PGOPTIONS=options)
            p = subprocess.run([pgbench_bin, "-n", "-c", str(clients), "-j", "2", "-T", str(seconds),
                                "-f", script.name, db.dbname], text=True, capture_output=True, env=env)
            out = p.stdout + p.stderr
            m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out)
            if not m:
                sys.exit(f"pgbench gave no tps:\n{out}")
            failed = re.search(r"number of failed transactions: (\d+)", out)
            res[k]["tps"].append(float(m.group(1)))
            res[k]["failed"].append(int(failed.group(1)) if failed else 0)
            res[k]["aborted"].append(out.count("aborted"))
            if k == "v7":
                leads.append(float(db.q("SELECT extract(epoch FROM uuid_extract_timestamp(uuid_generate_v7())"
                                        " - date_trunc('milliseconds', clock_timestamp())) * 1000")))
    db.q("DROP TABLE IF EXISTS pgb")
    os.unlink(script.name)
    out = {k: {"tps": statistics.median(v["tps"]), "failed": sum(v["failed"]), "aborted": sum(v["aborted"]),
               "runs": v["tps"]} for k, v in res.items()}
    out["v7_lead_after_ms_max"] = max(leads)
    out["clients"], out["seconds"], out["rounds"] = clients, seconds, rounds
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--psql", required=True)
    ap.add_argument("--db", default="uuid_ext_bench")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--index-rows", type=int, default=3_000_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--pgbench", required=True)
    ap.add_argument("--pgbench-seconds", type=int, default=10)
    ap.add_argument("--pg-uuidv7", action="store_true", help="pg_uuidv7 is installed: measure it too")
    ap.add_argument("--json", required=True)
    a = ap.parse_args()
    db = Db(a.psql, a.db)
    setup(db)
    extra = {}
    if a.pg_uuidv7:
        db.q("CREATE SCHEMA IF NOT EXISTS pg_uuidv7; CREATE EXTENSION IF NOT EXISTS pg_uuidv7 SCHEMA pg_uuidv7")
        extra["pg_uuidv7.uuid_generate_v7()"] = "pg_uuidv7.uuid_generate_v7()"
    results = {"machine": machine(db), "gen_rows": a.rows, "index_rows": a.index_rows, "rounds": a.rounds}
    print("generation cost ...", flush=True)
    results["generation"] = generation(db, a.rows, a.rounds, extra)
    for n, v in results["generation"].items():
        print(f"  {n:32s} {v['median_ns']:8.1f} ns/row, net {v['net_ns']:8.1f} ns")
    print("index locality ...", flush=True)
    results["index"] = index_locality(db, a.index_rows, max(5, a.rounds // 2 + 1))
    print(json.dumps({k: v for k, v in results["index"].items() if k not in ("v7", "v4")}))
    for k in ("v7", "v4"):
        d = results["index"][k]
        print(f"  {k}: insert {d['insert_s']:.2f} s, index {d['index_bytes'] / 2**20:.1f} MiB")
    print("pgbench ...", flush=True)
    results["pgbench"] = pgbench(db, a.pgbench, 8, a.pgbench_seconds, max(5, a.rounds // 2 + 1))
    for k in ("v7", "v7, backend word", "v4"):
        d = results["pgbench"][k]
        print(f"  {k}: {d['tps']:.0f} tps, failed {d['failed']}, aborted {d['aborted']}")
    json.dump(results, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
