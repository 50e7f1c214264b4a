#!/usr/bin/env python3
"""Renders bench/results.json (with the machine bench/run.py measured on) and
criterion's estimates as bench/RESULTS.md."""
import argparse
import glob
import json
import os


def criterion(dir_):
    rows = []
    for f in glob.glob(os.path.join(dir_, "**", "new", "estimates.json"), recursive=True):
        name = json.load(open(os.path.join(os.path.dirname(f), "benchmark.json")))["full_id"]
        est = json.load(open(f))
        rows.append((name, est["median"]["point_estimate"]))
    # "threads on one shared word/16" after ".../2": numbers compare as numbers.
    return sorted(rows, key=lambda r: [int(p) if p.isdigit() else p for p in r[0].split("/")])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--criterion", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    r = json.load(open(a.json))
    out = ["# Benchmark results", "",
           "Written by `scripts/bench` (see the README's Benchmarks section); do not edit by hand.", "",
           "| | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in r["machine"]]

    g = r["generation"]
    base = g["gen_random_uuid()"]["net_ns"]
    out += ["", "## Generation cost per UUID", "",
            f"`SELECT count(x) FROM (SELECT f() AS x FROM generate_series(1, {r['gen_rows']})) s`, "
            f"timed in the server; {r['rounds']} rounds, the functions alternated in each (who goes first rotates); "
            "medians. *Net* subtracts the same loop returning a constant uuid.", "",
            "| function | per row (ns) | net (ns) | net × gen_random_uuid() | runs (ns per row) |",
            "|---|---:|---:|---:|---|"]
    for name, v in g.items():
        runs = ", ".join(f"{x:.0f}" for x in v["runs_ns"])
        ratio = "" if name == "empty loop" else f"{v['net_ns'] / base:.3f}"
        out.append(f"| `{name}` | {v['median_ns']:.1f} | {v['net_ns']:.1f} | {ratio} | {runs} |")
    v7 = g["uuid_generate_v7()"]["net_ns"] / base
    out += ["", f"**Target** (issue 2): `uuid_generate_v7()` at most 0.15 × the net cost of `gen_random_uuid()`: "
            f"measured **{v7:.3f}** ({'met' if v7 <= 0.15 else 'NOT met'})."]

    ix = r["index"]
    out += ["", "## Index locality", "",
            f"`INSERT INTO t (n) SELECT generate_series(1, {r['index_rows']})` into a fresh "
            "`t (id uuid PRIMARY KEY DEFAULT f(), n int)`, after a CHECKPOINT; "
            f"{len(ix['v7']['runs']['insert_s'])} rounds, v7 and v4 alternating who goes first; medians.", "",
            "| key | insert (s) | primary-key index (MiB) | table (MiB) |", "|---|---:|---:|---:|"]
    for k, f in (("v7", "uuid_generate_v7()"), ("v4", "gen_random_uuid()")):
        d = ix[k]
        out.append(f"| {k}: `{f}` | {d['insert_s']:.2f} | {d['index_bytes'] / 2**20:.1f} | {d['table_bytes'] / 2**20:.1f} |")
    size = ix["v7"]["index_bytes"] / ix["v4"]["index_bytes"]
    out += ["", f"**Target** (issue 2): v7's index at most 0.8 × v4's: measured **{size:.3f}** "
            f"({'met' if size <= 0.8 else 'NOT met'}); v7's insert took {ix['v7']['insert_s'] / ix['v4']['insert_s']:.2f} × v4's time.",
            "", "How far the embedded time ran ahead of the clock, in whole milliseconds (0 or less: never ahead of the clock's millisecond):", "",
            f"- right after each 3-million-row insert, the next UUID's time against the clock: at most {ix['v7_lead_after_insert_ms_max']:.0f} ms;",
            f"- a burst of {r['index_rows']:,} `uuid_generate_v7()` in one backend as fast as it goes, each UUID's "
            f"time against `clock_timestamp()` read beside it: at most {ix['v7_max_lead_burst_ms']:.0f} ms."]

    pb = r["pgbench"]
    out += ["", "## Concurrent inserts (pgbench)", "",
            f"`pgbench -n -c {pb['clients']} -j 2 -T {pb['seconds']}` running `INSERT INTO pgb DEFAULT VALUES` into a fresh "
            "`pgb (id uuid PRIMARY KEY DEFAULT f())`, `synchronous_commit = off` (so the generator is a larger "
            f"share of each transaction); {pb['rounds']} rounds, the generators alternated; medians.", "",
            "| key | TPS | × v4 | failed transactions | aborted clients | runs (TPS) |", "|---|---:|---:|---:|---:|---|"]
    for k, f in (("v7", "uuid_generate_v7(), shared word"), ("v7, backend word", "uuid_generate_v7(), uuid_ext.monotonicity = backend"),
                 ("v4", "gen_random_uuid()")):
        d = pb[k]
        runs = ", ".join(f"{x:.0f}" for x in d["runs"])
        out.append(f"| {f} | {d['tps']:.0f} | {d['tps'] / pb['v4']['tps']:.3f} | {d['failed']} | {d['aborted']} | {runs} |")
    ratio = pb["v7"]["tps"] / pb["v4"]["tps"]
    clean = all(pb[k]["failed"] == 0 and pb[k]["aborted"] == 0 for k in ("v7", "v7, backend word", "v4"))
    out += ["", f"**Target** (issue 3): TPS of `uuid_generate_v7()` at least 0.95 × `gen_random_uuid()`'s, no failed "
            f"transaction: measured **{ratio:.3f}**, {'no' if clean else 'SOME'} failed or aborted "
            f"({'met' if ratio >= 0.95 and clean else 'NOT met'}). After each v7 run the next UUID's time against the "
            f"clock, in whole milliseconds: at most {pb['v7_lead_after_ms_max']:.0f}."]

    rows = criterion(a.criterion)
    if rows:
        est = dict(rows)
        out += ["", "## The generator core alone", "",
                "`cargo bench -p uuid_ext_core` (criterion, median). The sequencer rows use a candidate always below "
                "the word, so every call takes the `last + 1` path (the most contended case); the shared-memory word "
                "is an atomic in an anonymous `MAP_SHARED` page, as PostgreSQL's shared memory is. "
                f"This machine has {os.cpu_count()} cores: rows with more threads than that are marked oversubscribed.", "",
                "| benchmark | ns per value |", "|---|---:|"]
        def label(n):
            t = n.rsplit("/", 1)[-1]
            return f"{n} (oversubscribed)" if t.isdigit() and int(t) > (os.cpu_count() or 1) else n
        out += [f"| {label(n)} | {ns:.1f} |" for n, ns in rows]
        local, shared = est.get("one thread/process-local word"), est.get("one thread/shared-memory word")
        if local and shared:
            out += ["", f"**Target** (issue 3): one shared word against a process-local one, single thread, at most "
                    f"1.1×: measured **{shared / local:.2f}×** ({'met' if shared / local <= 1.1 else 'NOT met'})."]
    open(a.out, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
