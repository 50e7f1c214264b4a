#!/usr/bin/env python3
"""Renders the results bench/run.py wrote (one JSON file per PostgreSQL
version, each with the machine it measured on) and criterion's estimates as
bench/RESULTS.md, and draws the index plot (matplotlib)."""
import argparse
import glob
import json
import os
import statistics

KEY_LABEL = {"v7": "`uuid_generate_v7()`", "v4": "`gen_random_uuid()`", "core v7": "core `uuidv7()`"}


def criterion(dir_):
    rows = []
    for f in glob.glob(os.path.join(dir_, "**", "new", "estimates.json"), recursive=True):
        name = json.load(open(os.path.join(os.path.dirname(f), "benchmark.json")))["full_id"]
        est = json.load(open(f))
        rows.append((name, est["median"]["point_estimate"]))
    # "threads on one shared word/16" after ".../2": numbers compare as numbers.
    return sorted(rows, key=lambda r: [int(p) if p.isdigit() else p for p in r[0].split("/")])


def criterion_kept(results_md):
    """The core's rows of an earlier bench/RESULTS.md, and its target's row as
    measured (the rows there are rounded): what `--only` runs keep when this
    checkout has no criterion results of its own (a fresh clone)."""
    try:
        text = open(results_md).read()
    except FileNotFoundError:
        return [], None
    part = text.split("## The generator core alone", 1)
    if len(part) < 2:
        return [], None
    target = next((line for line in part[0].splitlines() if line.startswith("| sequencer |")), None)
    rows = []
    for line in part[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[1].replace(".", "", 1).isdigit():
            rows.append((cells[0].removesuffix(" (oversubscribed)"), float(cells[1])))
    return rows, target


def met(ok):
    return "met" if ok else "**NOT met**"


class Targets:
    def __init__(self):
        self.rows = []

    def add(self, area, what, measured, ok):
        self.rows.append(f"| {area} | {what} | {measured} | {met(ok)} |")


def keys_of(r):
    return [k for k in ("v7", "core v7", "v4") if k in r["index"]]


def generation(r, t):
    if "generation" not in r:  # a version measured with --only other sections
        return []
    g, pg = r["generation"], r["major"]
    base = g["gen_random_uuid()"]["net_ns"]
    core = g.get("uuidv7()", {}).get("net_ns")
    out = [f"### Generation cost per UUID", "",
           f"`SELECT count(x) FROM (SELECT f() AS x FROM generate_series(1, {r['gen_rows']})) s`, "
           f"timed in the server; {r['rounds']} rounds, the functions alternated in each (who goes first rotates); "
           "medians. *Net* subtracts the same loop returning a constant uuid.", "",
           "| function | per row (ns) | net (ns) | net × `gen_random_uuid()` |"
           + (" net × core `uuidv7()` |" if core else "") + " runs (ns per row) |",
           "|---|---:|---:|---:|" + ("---:|" if core else "") + "---|"]
    for name, v in g.items():
        runs = ", ".join(f"{x:.0f}" for x in v["runs_ns"])
        ratio = "" if name == "empty loop" else f"{v['net_ns'] / base:.3f}"
        core_ratio = "" if name == "empty loop" or not core else f"{v['net_ns'] / core:.3f}"
        out.append(f"| `{name}` | {v['median_ns']:.1f} | {v['net_ns']:.1f} | {ratio} |"
                   + (f" {core_ratio} |" if core else "") + f" {runs} |")
    v7 = g["uuid_generate_v7()"]["net_ns"]
    t.add("generation", f"PostgreSQL {pg}: `uuid_generate_v7()` net cost ≤ 0.15 × `gen_random_uuid()`'s",
          f"{v7:.0f} ns against {base:.0f} ns: **{v7 / base:.3f}×**", v7 / base <= 0.15)
    if core:
        t.add("against core", f"PostgreSQL {pg}: `uuid_generate_v7()` net cost ≤ 0.1 × core `uuidv7()`'s",
              f"{v7:.0f} ns against {core:.0f} ns: **{v7 / core:.3f}×**", v7 / core <= 0.1)
    if "public.uuidv4()" in g:
        v4 = g["public.uuidv4()"]["net_ns"]
        t.add("generation", f"PostgreSQL {pg}: `uuidv4()` (uuid_ext's) net cost below `gen_random_uuid()`'s",
              f"{v4:.0f} ns against {base:.0f} ns: **{v4 / base:.3f}×**", v4 < base)
    return out


def per_row(r):
    if "per_row" not in r:
        return []
    pr = r["per_row"]
    out = ["", "### Functions of their arguments", "",
           f"`SELECT count(f(u)) FROM bench_ids` over a table of {r['gen_rows']:,} random UUIDs with their text and "
           f"each compact form (an argument that is a constant would be folded at plan time); {r['rounds']} rounds, "
           "alternated; medians. *Net* subtracts `count(u)`, reading the column alone.", "",
           "| function | per row (ns) | net (ns) | runs (ns per row) |", "|---|---:|---:|---|"]
    for name, v in pr.items():
        runs = ", ".join(f"{x:.0f}" for x in v["runs_ns"])
        out.append(f"| `{name}` | {v['median_ns']:.1f} | {v['net_ns']:.1f} | {runs} |")
    return out


def index(r, t):
    if "index" not in r:  # a version measured with --only other sections
        return []
    ix, pg = r["index"], r["major"]
    ks = keys_of(r)
    n = len(ix["v7"]["runs"]["insert_s"])
    out = ["", "### Index locality: one 3-million-row insert", "",
           f"`INSERT INTO t (n) SELECT generate_series(1, {r['index_rows']})` into a fresh "
           "`t (id uuid PRIMARY KEY DEFAULT f(), n int)`, after a CHECKPOINT; "
           f"{n} rounds, the keys alternated (who goes first rotates); medians. Leaf density: `pgstatindex()` "
           "(pgstattuple); a btree's leaf pages are at most 90% full when keys arrive in order (the default "
           "fillfactor).", "",
           "| key | insert (s) | primary-key index (MiB) | bytes per row | leaf density | table (MiB) |",
           "|---|---:|---:|---:|---:|---:|"]
    for k in ks:
        d = ix[k]
        out.append(f"| {KEY_LABEL[k]} | {d['insert_s']:.2f} | {d['index_bytes'] / 2**20:.1f} | "
                   f"{d['index_bytes'] / r['index_rows']:.1f} | {d['leaf_density']:.1f}% | {d['table_bytes'] / 2**20:.1f} |")
    size = ix["v7"]["index_bytes"] / ix["v4"]["index_bytes"]
    t.add("index", f"PostgreSQL {pg}: v7's index after the insert ≤ 0.8 × v4's", f"**{size:.3f}×**", size <= 0.8)
    t.add("index", f"PostgreSQL {pg}: v7's leaf density after the insert ≥ 88%",
          f"**{ix['v7']['leaf_density']:.1f}%**", ix["v7"]["leaf_density"] >= 88)
    out += ["", f"v7's insert took {ix['v7']['insert_s'] / ix['v4']['insert_s']:.2f} × v4's time"
            + (f" and {ix['v7']['insert_s'] / ix['core v7']['insert_s']:.2f} × core `uuidv7()`'s." if "core v7" in ix else "."),
            "", "How far the embedded time ran ahead of the clock, in whole milliseconds (0 or less: never ahead "
            "of the clock's millisecond):", "",
            f"- right after each 3-million-row insert, the next UUID's time against the clock: at most "
            f"{ix['v7_lead_after_insert_ms_max']:.0f} ms;",
            f"- a burst of {r['index_rows']:,} `uuid_generate_v7()` in one backend as fast as it goes, each UUID's "
            f"time against `clock_timestamp()` read beside it: at most {ix['v7_max_lead_burst_ms']:.0f} ms."]
    return out


def types(r, t):
    if "types" not in r:
        return []
    ty, pg = r["types"], r["major"]
    out = ["", "### The uuid7 type against uuid", "",
           f"The same {ty['sort_rows']:,} UUIDv7s, shuffled, in a `uuid7` and a `uuid` column: `CREATE INDEX` on each, "
           "and `ORDER BY col LIMIT 1000` with no index; then an insert of "
           f"{ty['insert_rows']:,} rows into a fresh table whose `uuid7` (or `uuid`) primary key defaults to "
           f"`uuid_generate_v7()` (for `uuid7` through the cast that checks the version). {ty['rounds']} rounds, "
           "alternated; medians.", "",
           "| column | CREATE INDEX (s) | ORDER BY … LIMIT 1000 (s) | insert (s) |", "|---|---:|---:|---:|"]
    for k in ("uuid7", "uuid"):
        d = ty[k]
        out.append(f"| `{k}` | {d['create_index_s']:.3f} | {d['order_by_limit_s']:.3f} | {d['insert_s']:.2f} |")
    ci = ty["uuid7"]["create_index_s"] / ty["uuid"]["create_index_s"]
    ob = ty["uuid7"]["order_by_limit_s"] / ty["uuid"]["order_by_limit_s"]
    ins = ty["uuid7"]["insert_s"] / ty["uuid"]["insert_s"]
    t.add("types", f"PostgreSQL {pg}: `CREATE INDEX` on `uuid7` ≤ 1.05 × on `uuid`", f"**{ci:.3f}×**", ci <= 1.05)
    t.add("types", f"PostgreSQL {pg}: `ORDER BY … LIMIT 1000` on `uuid7` ≤ 1.05 × on `uuid`", f"**{ob:.3f}×**", ob <= 1.05)
    t.add("types", f"PostgreSQL {pg}: insert into a `uuid7` primary key ≤ 1.1 × into a `uuid` one", f"**{ins:.3f}×**",
          ins <= 1.1)
    return out


def paired(on, off, empty=None):
    """The median over rounds of on/off, each round's pair measured back to
    back (net of that round's empty loop when given): steadier here than
    the ratio of medians, since the machine's speed drifts between rounds."""
    if empty is None:
        return statistics.median(a / b for a, b in zip(on, off))
    return statistics.median((a - e) / (b - e) for a, b, e in zip(on, off, empty))


def on_off_rows(d):
    """The table rows of an on/off section: generation and pgbench, each run."""
    rows = []
    for k in ("on", "off"):
        g, b = d["generation"][k], d["pgbench"][k]
        rows.append(f"| {k} | {g['net_ns']:.1f} | {', '.join(f'{x:.0f}' for x in g['runs_ns'])} | "
                    f"{b['tps']:.0f} | {b['failed']} | {', '.join(f'{x:.0f}' for x in b['runs'])} |")
    return rows


def on_off_targets(d, t, area, pg, what, gen_max=1.1):
    g, b = d["generation"], d["pgbench"]
    gen = paired(g["on"]["runs_ns"], g["off"]["runs_ns"], d.get("empty_runs_ns"))
    tps = paired(b["on"]["runs"], b["off"]["runs"])
    failed = b["on"]["failed"] + b["off"]["failed"]
    t.add(area, f"PostgreSQL {pg}: `uuid_generate_v7()` net cost, {what} on ≤ {gen_max} × off (median of the "
          "rounds' ratios)", f"{g['on']['net_ns']:.0f} ns against {g['off']['net_ns']:.0f} ns (medians); "
          f"**{gen:.3f}×**", gen <= gen_max)
    t.add(area, f"PostgreSQL {pg}: pgbench TPS, {what} on ≥ 0.97 × off, no failed transaction (median of the rounds' ratios)",
          f"{b['on']['tps']:.0f} against {b['off']['tps']:.0f} (medians); **{tps:.3f}×**, {failed} failed",
          tps >= 0.97 and failed == 0)


def durable(r, t):
    if "durable" not in r:
        return []
    d, pg = r["durable"], r["major"]
    out = ["", "### Durable order on against off", "",
           "`uuid_ext.durable_margin` at its default (1 s: the horizon worker keeps the file up to a second ahead, "
           "writing it twice a second while UUIDs are made) against 0 (no file), switched with `ALTER SYSTEM` and a reload, alternated in each round; "
           f"the server runs with `fsync = {d['fsync']}`. Generation: {d['rows']:,} rows, {d['rounds']} rounds, in one "
           "session that reloads the setting between measurements (fresh backends differ by more than the effect "
           f"measured), net of the empty loop. pgbench: {d['clients']} clients, {d['seconds']} s, "
           f"{d['pgbench_rounds']} rounds.", "",
           "| durable | net per UUID (ns) | runs (ns per row) | pgbench TPS | failed | runs (TPS) |",
           "|---|---:|---|---:|---:|---|"]
    out += on_off_rows(d)
    w = d["write_us"]
    out += ["", f"One `uuid_generate_v7()`, the first after a quiet second: "
            f"**{w['with_write']:.0f} µs** (runs: {', '.join(f'{x:.0f}' for x in w['runs_with_write'])}); "
            f"one right after it: {w['without']:.1f} µs. Timed in the server. Before the horizon worker (0.3.0) "
            "the first call after a quiet second wrote the horizon itself, with its two fsyncs (1.2 to 1.4 ms "
            "here); the worker now writes it ahead, so the two cost the same."]
    on_off_targets(d, t, "durable order", pg, "durable")
    return out


def watermark(r, t):
    if "watermark" not in r:
        return []
    d, pg = r["watermark"], r["major"]
    out = ["", "### Commit watermark announcements on against off", "",
           "`uuid_ext.commit_watermark` on (each transaction that draws a UUIDv7 announces once) against off, "
           "switched with `ALTER SYSTEM` and a reload, alternated in each round. Generation: "
           f"{d['rows']:,} rows in one statement, {d['rounds']} rounds in one session that reloads the setting between "
           "measurements, net of the empty loop. pgbench: "
           f"{d['clients']} clients, one row per transaction (one announcement each), {d['seconds']} s, "
           f"{d['pgbench_rounds']} rounds.", "",
           "| announcements | net per UUID (ns) | runs (ns per row) | pgbench TPS | failed | runs (TPS) |",
           "|---|---:|---|---:|---:|---|"]
    out += on_off_rows(d)
    w = d["watermark_call"]
    out += ["", f"One `uuid_v7_watermark()`, net of the empty loop over {w['rows']:,} calls: "
            f"**{w['net_ns']:.0f} ns** (runs: {', '.join(f'{x:.0f}' for x in w['runs_ns'])} ns per row, gross), "
            f"with `max_connections = {w['max_connections']}` and `max_prepared_transactions = "
            f"{w['max_prepared_transactions']}`: it reads one slot per possible backend."]
    on_off_targets(d, t, "watermark", pg, "announcements")
    return out


def feeds(r, t):
    if "feeds" not in r:
        return []
    d, pg = r["feeds"], r["major"]
    out = ["", "### A change feed: from a row's commit to its delivery", "",
           f"{d['writers']} writers, paced for {d['rate_asked']:.0f} rows a second, insert for {d['seconds']:.0f} s "
           f"into the example's table (examples/feed/feed.py, its trigger notifying at each commit), in transactions "
           f"of {d['batch']} rows, one in ten held open 50 ms before its commit: {d['rows']:,} rows, "
           f"{d['rows'] / d['seconds']:,.0f} a second. Three consumers "
           "read beside them, each on a connection of its own; a row's latency runs from its COMMIT being sent to "
           "its delivery (bench/feed_latency.py).", "",
           "| consumer | delivered | lost | median (ms) | 99th percentile (ms) | max (ms) |",
           "|---|---:|---:|---:|---:|---:|"]
    names = {"watermark": "the watermark's (docs/feeds.md), woken by `LISTEN`",
             "naive": "`id > last_seen`, woken by `LISTEN`", "lag 1 s": "a lag window of 1 s, every 100 ms"}
    for k, v in d["consumers"].items():
        out.append(f"| {names.get(k, k)} | {v['delivered']:,} | {v['lost']:,} | {v['median_ms']:.1f} | "
                   f"{v['p99_ms']:.1f} | {v['max_ms']:.1f} |")
    w = d["consumers"]["watermark"]
    t.add("feeds", f"PostgreSQL {pg}: the watermark's consumer delivers every committed row",
          f"{w['delivered']:,} of {d['rows']:,}", w["lost"] == 0)
    return out


def wal(r, t):
    if "wal" not in r:
        return []
    d, pg = r["wal"], r["major"]
    out = ["", "### The sequencer in the WAL on against off", "",
           "`uuid_ext.durable_wal` on (each raise of the horizon is WAL-logged and flushed; the horizon worker logs "
           "the commit watermark when it moves) against off, switched with `ALTER SYSTEM` and a reload, "
           f"alternated in each round. Generation: {d['rows']:,} rows, {d['rounds']} rounds in one session, net of "
           f"the empty loop. pgbench: {d['clients']} clients, {d['seconds']} s, {d['pgbench_rounds']} rounds.", "",
           "| WAL logging | net per UUID (ns) | runs (ns per row) | pgbench TPS | failed | runs (TPS) |",
           "|---|---:|---|---:|---:|---|"]
    out += on_off_rows(d)
    on_off_targets(d, t, "WAL", pg, "WAL logging", gen_max=1.05)
    w = d["wal_bytes"]
    kinds = ", ".join(f"{k}: {v['records']:,} records, {v['bytes']:,} bytes" for k, v in sorted(w["records"].items()))
    out += ["", f"WAL that uuid_ext's records add, with WAL logging on, during {w['seconds']:.1f} s of pgbench "
            f"({d['clients']} clients, one UUIDv7 per transaction, {w['tps']:.0f} transactions a second, "
            f"`uuid_ext.watermark_interval = {w['interval_ms']}ms`), read with `pg_walinspect`: **{w['bytes_per_s']:.0f} "
            f"bytes a second** ({kinds}), against {w['all_wal_bytes'] / w['seconds'] / 1e6:.1f} MB a second of WAL "
            "in all."]
    sp = d["sparse"]
    arms = sp["arms"]
    out += ["", f"A sparse writer: one single-row `INSERT` every {sp['gap_s']} s with synchronous commit "
            f"(`fsync = {sp['fsync']}`), as the client sees it (psql's `\\timing`, so with the commit's WAL flush), "
            f"the three settings alternated insert by insert, {sp['samples']} inserts each:", "",
            "| durable order | median insert (ms) | inserts (ms) |", "|---|---:|---|"]
    labels = {"off": "off (`durable_margin = 0`)", "on": "on (the file, kept ahead by the worker)",
              "on, WAL": "on, with `durable_wal = on`"}
    for k, v in arms.items():
        out.append(f"| {labels.get(k, k)} | {v['median_ms']:.3f} | {', '.join(f'{x:.2f}' for x in v['runs_ms'])} |")
    for k in ("on", "on, WAL"):
        ratio = arms[k]["median_ms"] / arms["off"]["median_ms"]
        t.add("WAL", f"PostgreSQL {pg}: a sparse writer's median insert, durable order {k} ≤ 1.1 × off",
              f"{arms[k]['median_ms']:.3f} ms against {arms['off']['median_ms']:.3f} ms; **{ratio:.3f}×**",
              ratio <= 1.1)
    return out


def releases(r, t):
    """This release's library against the previous release's, swapped
    between server starts: uuid_generate_v7()'s and uuid_v7_watermark()'s
    net cost, and a transaction that draws one UUIDv7 net of an empty one."""
    rel = r.get("releases")
    if not rel or "baseline" not in rel or "current" not in rel:
        return []
    pg = r["major"]
    base, cur = rel["baseline"], rel["current"]
    b_ver, c_ver = base[0]["library_version"], cur[0]["library_version"]

    def ratio(key):
        return statistics.median(c[key] / b[key] for b, c in zip(base, cur))

    def med(runs, key):
        return statistics.median(x[key] for x in runs)

    out = ["", "### This release's library against an earlier one", "",
           f"The {b_ver} library against this release's ({c_ver}), the two swapped into the same server between "
           f"{len(base)} pairs of starts. Per start, in one session: `uuid_generate_v7()` and `uuid_v7_watermark()` "
           f"(`{base[0]['rows']:,}` rows, {base[0]['rounds']} rounds, medians net of the empty loop), and "
           f"{base[0].get('xacts', 0):,} transactions that each draw one UUIDv7 (its announcement, the UUID, the "
           f"withdrawal at commit) against as many empty ones (a procedure that commits in a loop; "
           f"{base[0].get('xact_rounds', 0)} rounds alternated, the difference of the medians).", "",
           "| start | `uuid_generate_v7()` previous / this (ns) | `uuid_v7_watermark()` previous / this (ns) | "
           "a transaction with one UUIDv7, previous / this (ns) |", "|---:|---:|---:|---:|"]
    for i, (b, c) in enumerate(zip(base, cur), 1):
        out.append(f"| {i} | {b['net_ns']:.1f} / {c['net_ns']:.1f} | {b['watermark_net_ns']:.1f} / "
                   f"{c['watermark_net_ns']:.1f} | {b['xact_net_ns']:.0f} / {c['xact_net_ns']:.0f} |")
    out.append(f"| **median ratio** | **{ratio('net_ns'):.3f}×** | **{ratio('watermark_net_ns'):.3f}×** | "
               f"**{ratio('xact_net_ns'):.3f}×** |")
    t.add("releases", f"PostgreSQL {pg}: `uuid_generate_v7()` net cost ≤ 1.05 × {b_ver}'s (median of the pairs' ratios)",
          f"{med(cur, 'net_ns'):.0f} ns against {med(base, 'net_ns'):.0f} ns; **{ratio('net_ns'):.3f}×**",
          ratio("net_ns") <= 1.05)
    t.add("watermark", f"PostgreSQL {pg}: the per-database watermark: `uuid_v7_watermark()` ≤ 1.1 × {b_ver}'s",
          f"{med(cur, 'watermark_net_ns'):.0f} ns against {med(base, 'watermark_net_ns'):.0f} ns; "
          f"**{ratio('watermark_net_ns'):.3f}×**", ratio("watermark_net_ns") <= 1.1)
    t.add("watermark", f"PostgreSQL {pg}: a transaction drawing one UUIDv7 (announced with its database and time) "
          f"≤ 1.1 × {b_ver}'s, net of an empty transaction",
          f"{med(cur, 'xact_net_ns'):.0f} ns against {med(base, 'xact_net_ns'):.0f} ns; "
          f"**{ratio('xact_net_ns'):.3f}×**", ratio("xact_net_ns") <= 1.1)
    return out


def versions(r, t):
    """This build against earlier releases' libraries and SQL, swapped
    between server starts (scripts/bench --only versions): the net cost of
    uuid_generate_v7() and uuid_v7_to_facade(id) by the clock and on the
    backend's CPU, their instructions under callgrind, and a loop of SET
    LOCAL in a session that loaded the library against one that did not."""
    runs = r.get("versions")
    if not runs or "current" not in runs:
        return []
    pg, cur = r["major"], runs["current"]
    others = [k for k in runs if k != "current"]
    fns = ("uuid_generate_v7()", "uuid_v7_to_facade(id)")
    out = ["", "### This build against earlier releases", "",
           f"Each release's library and install script against this build's ({cur[0]['library_version']}), swapped "
           f"into the same server between {len(cur)} starts of each, who goes first rotating. Per start, in a "
           f"database made anew with that release's SQL and a façade key, one session: {cur[0]['rounds']} rounds "
           f"of `{cur[0]['rows']:,}` calls, alternated with the empty loop, each timed by the clock and on the "
           "backend's CPU (Linux's `/proc/self/schedstat`: not the time it waits while the machine runs other "
           "work); the start's median net cost, then the median over the starts.", "",
           "| library | `uuid_generate_v7()`, clock / CPU (ns) | `uuid_v7_to_facade(id)`, clock / CPU (ns) | "
           "instructions a call (callgrind): `uuid_generate_v7()` / `uuid_v7_to_facade(id)` |",
           "|---|---:|---:|---:|"]
    counts = r.get("versions_instructions", {})

    def med(label, clock, fn):
        return statistics.median(x[clock][fn]["net_ns"] for x in runs[label])

    def spread(label, clock, fn):
        xs = [x[clock][fn]["net_ns"] for x in runs[label]]
        return f"{med(label, clock, fn):.0f} ({min(xs):.0f}-{max(xs):.0f})"

    def instructions(label):
        c = counts.get(label, {})
        if "per_call" not in c:
            return c.get("skipped", "not counted")
        return " / ".join(f"{c['per_call'][fn]:,.0f}" for fn in fns)

    for label in ["current"] + others:
        name = "this build" if label == "current" else label
        out.append(f"| {name} ({runs[label][0]['library_version']}) | "
                   + " | ".join(f"{spread(label, 'wall', fn)} / {spread(label, 'cpu', fn)}" for fn in fns)
                   + f" | {instructions(label)} |")
    for label in others:
        for fn in fns:
            ratio = statistics.median(c["cpu"][fn]["net_ns"] / o["cpu"][fn]["net_ns"]
                                      for c, o in zip(cur, runs[label]))
            t.add("versions", f"PostgreSQL {pg}: `{fn}` on the CPU ≤ {label}'s (median of the starts' ratios)",
                  f"{med('current', 'cpu', fn):.0f} ns against {med(label, 'cpu', fn):.0f} ns; **{ratio:.3f}×**",
                  ratio <= 1.0)
            if "per_call" in counts.get("current", {}) and "per_call" in counts.get(label, {}):
                a, b = counts["current"]["per_call"][fn], counts[label]["per_call"][fn]
                t.add("versions", f"PostgreSQL {pg}: `{fn}`'s instructions ≤ {label}'s",
                      f"{a:,.0f} against {b:,.0f}; **{a / b:.3f}×**", a <= b)
    sl = r.get("versions_set_local", {})
    if sl:
        n = next(iter(sl.values()))
        out += ["", f"On the same server without the preload, a PL/pgSQL loop of {n['n']:,} "
                "`SET LOCAL work_mem = '4MB'` in a session that loaded the library (`LOAD 'uuid_ext'`) against "
                f"one that did not, each in a new session, alternated, best of {n['best_of']}:", "",
                "| library | loaded (s) | not loaded (s) | loaded / not |", "|---|---:|---:|---:|"]
        for label in ["current"] + others:
            if label in sl:
                d = sl[label]
                name = "this build" if label == "current" else label
                out.append(f"| {name} | {d['best_s']['loaded']:.3f} | {d['best_s']['not loaded']:.3f} | "
                           f"**{d['ratio']:.3f}×** |")
        if "current" in sl:
            t.add("versions", f"PostgreSQL {pg}: a loop of SET LOCAL in a session that loaded uuid_ext ≤ 1.05 × "
                  "one that did not", f"**{sl['current']['ratio']:.3f}×**", sl["current"]["ratio"] <= 1.05)
    return out


def pgbench(r, t):
    if "pgbench" not in r:  # a version measured with --only other sections
        return []
    pb, pg = r["pgbench"], r["major"]
    names = [("v7", "`uuid_generate_v7()`, shared word"),
             ("v7, backend word", "`uuid_generate_v7()`, `uuid_ext.monotonicity = backend`"),
             ("core v7", "core `uuidv7()`"), ("v4", "`gen_random_uuid()`")]
    names = [(k, f) for k, f in names if k in pb]
    out = ["", "### Concurrent inserts, one row per transaction (pgbench)", "",
           f"`pgbench -n -c {pb['clients']} -j 2 -T {pb['seconds']}` running `INSERT INTO pgb DEFAULT VALUES` into a "
           "fresh `pgb (id uuid PRIMARY KEY DEFAULT f())`, `synchronous_commit = off` (so the generator is a larger "
           f"share of each transaction); {pb['rounds']} rounds, the generators alternated; medians.", "",
           "| key | TPS | × v4 | failed transactions | aborted clients | runs (TPS) |", "|---|---:|---:|---:|---:|---|"]
    for k, f in names:
        d = pb[k]
        runs = ", ".join(f"{x:.0f}" for x in d["runs"])
        out.append(f"| {f} | {d['tps']:.0f} | {d['tps'] / pb['v4']['tps']:.3f} | {d['failed']} | {d['aborted']} | {runs} |")
    clean = all(pb[k]["failed"] == 0 and pb[k]["aborted"] == 0 for k, _ in names)
    ratio = pb["v7"]["tps"] / pb["v4"]["tps"]
    t.add("pgbench", f"PostgreSQL {pg}: pgbench TPS of `uuid_generate_v7()` ≥ 0.95 × `gen_random_uuid()`'s, "
          "no failed transaction", f"**{ratio:.3f}×**, {'none' if clean else 'SOME'} failed or aborted",
          ratio >= 0.95 and clean)
    if "core v7" in pb:
        ratio = pb["v7"]["tps"] / pb["core v7"]["tps"]
        t.add("pgbench", f"PostgreSQL {pg}: pgbench TPS of `uuid_generate_v7()` ≥ core `uuidv7()`'s",
              f"{pb['v7']['tps']:.0f} against {pb['core v7']['tps']:.0f}: **{ratio:.3f}×**", ratio >= 1)
    out += ["", f"After each v7 run the next UUID's time against the clock, in whole milliseconds: at most "
            f"{pb['v7_lead_after_ms_max']:.0f}."]
    return out


def concurrent(r, t):
    if "concurrent" not in r:  # a version measured with --only other sections
        return []
    c, pg = r["concurrent"], r["major"]
    out = ["", f"### Concurrent inserts, {c['batch']} rows per transaction", "",
           f"`pgbench -n -c {c['clients']} -j 2 -T {c['seconds']}` running "
           f"`INSERT INTO conc (n) SELECT generate_series(1, {c['batch']})` into a fresh "
           "`conc (id uuid PRIMARY KEY DEFAULT f(), n int)`: keys made by different backends reach the index "
           f"slightly out of order. {c['rounds']} rounds, the keys alternated; medians.", "",
           "| key | rows | index bytes per row | leaf density | TPS | failed | runs (leaf density) |",
           "|---|---:|---:|---:|---:|---:|---|"]
    for k in keys_of(r):
        d = c[k]
        runs = ", ".join(f"{x:.1f}%" for x in d["runs"]["leaf_density"])
        out.append(f"| {KEY_LABEL[k]} | {d['rows']:,.0f} | {d['bytes_per_row']:.1f} | {d['leaf_density']:.1f}% | "
                   f"{d['tps']:.0f} | {d['failed']} | {runs} |")
    t.add("index", f"PostgreSQL {pg}: v7's leaf density after the concurrent run ≥ 88%",
          f"**{c['v7']['leaf_density']:.1f}%**", c["v7"]["leaf_density"] >= 88)
    return out


def key_choice(r, t):
    """The key against a bigint sequence."""
    if "keys" not in r:
        return []
    k, pg = r["keys"], r["major"]
    out = ["", "### The key against a bigint sequence", "",
           f"Per call: `SELECT count(x) FROM (SELECT f() AS x FROM generate_series(1, {k['rows']})) s` in one "
           f"session, {k['rounds']} rounds, the calls alternated; medians; *net* subtracts the loop returning a "
           "constant. The sequences are plain ones, one with the default `CACHE 1` (as an identity column or a "
           "`bigserial` has it) and one with `CACHE 100`.", "",
           "| call | per call (ns) | net (ns) | net × `nextval()` with `CACHE 100` | runs (ns per call) |",
           "|---|---:|---:|---:|---|"]
    base = k["calls"]["nextval(), CACHE 100"]["net_ns"]
    for name, v in k["calls"].items():
        ratio = "" if name == "empty loop" else f"{v['net_ns'] / base:.2f}"
        out.append(f"| `{name}` | {v['median_ns']:.1f} | {v['net_ns']:.1f} | {ratio} | "
                   + ", ".join(f"{x:.0f}" for x in v["runs_ns"]) + " |")
    v7 = k["calls"]["uuid_generate_v7()"]["net_ns"]
    t.add("keys", f"PostgreSQL {pg}: `uuid_generate_v7()` net cost ≤ 1.1 × `nextval()` on a sequence with `CACHE 100`",
          f"{v7:.0f} ns against {base:.0f} ns: **{v7 / base:.2f}×**", v7 / base <= 1.1)
    leased = k["calls"].get("uuid_generate_v7(), uuid_ext.cache = 100")
    if leased:
        t.add("keys", f"PostgreSQL {pg}: with `uuid_ext.cache = 100`, `uuid_generate_v7()` net cost ≤ `nextval()` on "
              "a sequence with `CACHE 100`",
              f"{leased['net_ns']:.0f} ns against {base:.0f} ns: **{leased['net_ns'] / base:.2f}×**",
              leased["net_ns"] <= base)
    ins = k["inserts"]
    ident = ins["bigint identity"]["insert_s"]
    out += ["", f"Inserts: `INSERT INTO keyed (n) SELECT generate_series(1, {k['insert_rows']:,})` in one statement "
            f"into a fresh logged table `keyed (<key>, n int)`, {k['insert_rounds']} rounds, the keys alternated; "
            f"medians. Then {k['clients']} pgbench clients, `INSERT INTO keyed (n) VALUES (1)` one row a "
            f"transaction, {k['seconds']} s a run, {k['insert_rounds']} runs each. The domain is "
            "`CREATE DOMAIN … AS uuid CHECK (uuid_extract_version(VALUE) = 7)`.", "",
            "| primary key | insert (s) | × identity | primary key (MiB) | table (MiB) | pgbench TPS | failed | runs (s) |",
            "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, v in ins.items():
        p = k["pgbench"][name]
        out.append(f"| {name} | {v['insert_s']:.2f} | {v['insert_s'] / ident:.2f} | {v['index_bytes'] / 2**20:.1f} | "
                   f"{v['table_bytes'] / 2**20:.1f} | {p['tps']:.0f} | {p['failed']} | "
                   + ", ".join(f"{x:.2f}" for x in v["runs"]["insert_s"]) + " |")
    v7i = ins["uuid, uuid_generate_v7()"]["insert_s"]
    t.add("keys", f"PostgreSQL {pg}: an insert with a `uuid_generate_v7()` key ≤ 1.1 × with a `bigint` identity",
          f"{v7i:.2f} s against {ident:.2f} s: **{v7i / ident:.2f}×**", v7i / ident <= 1.1)
    failed = sum(p["failed"] for p in k["pgbench"].values())
    t.add("keys", f"PostgreSQL {pg}: no failed pgbench transaction with any key", f"{failed} failed", failed == 0)
    return out


def contention(r, t):
    """Many clients at once (docs/benchmarks.md#contention)."""
    if "contention" not in r:
        return []
    c, pg = r["contention"], r["major"]
    cores = os.cpu_count()
    heads = " | ".join(f"{n} client{'s' if n > 1 else ''}" for n in c["clients"])
    out = ["", "### Contention", "",
           f"On {cores} cores. Draws: `SELECT count(f()) FROM generate_series(1, 20000)`, pgbench, {c['seconds']} s "
           "a figure, one run each; millions of draws a second.", "",
           f"| draws a second (millions) | {heads} |", "|---|" + "---:|" * len(c["clients"])]
    for k, per in c["draws"].items():
        out.append(f"| `{k}` | " + " | ".join(f"{per[str(n)]['per_s'] / 1e6:.2f}" for n in c["clients"]) + " |")
    out += ["", f"Inserts: `INSERT INTO contended (backend) SELECT pg_backend_pid() FROM generate_series(1, "
            f"{c['batch']})` a transaction into a fresh table per run; thousands of rows a second, and (in brackets) "
            "how many rows of one backend come in a row in the primary key's order (1: the backends alternate "
            "every key, all at the index's last page).", "",
            f"| inserts (thousands of rows a second) | {heads} |", "|---|" + "---:|" * len(c["clients"])]
    for k, per in c["inserts"].items():
        out.append(f"| {k} | " + " | ".join(f"{per[str(n)]['rows_per_s'] / 1e3:.0f} ({per[str(n)]['in_a_row']:.1f})"
                                             for n in c["clients"]) + " |")
    leased = c["inserts"]["v7, uuid_ext.cache = 100"]["2"]["in_a_row"]
    strict = c["inserts"]["v7"]["2"]["in_a_row"]
    t.add("contention", f"PostgreSQL {pg}: with `uuid_ext.cache = 100`, 2 clients' batch inserts come in blocks in "
          "the index (at least 10 × the keys in a row of strict order)",
          f"{leased:.1f} against {strict:.1f} in a row", leased >= 10 * strict)
    failed = sum(v["failed"] for d in (c["draws"], c["inserts"]) for per in d.values() for v in per.values())
    t.add("contention", f"PostgreSQL {pg}: no failed pgbench transaction", f"{failed} failed", failed == 0)
    return out


def facade(r, t):
    """The façade per call and a fresh backend's first call."""
    if "facade" not in r:
        return []
    f, pg = r["facade"], r["major"]
    out = ["", "### The façade", "",
           f"Per call: `SELECT count(x) FROM (SELECT f(<constant>) AS x FROM generate_series(1, {f['rows']})) s` in "
           f"one session, {f['rounds']} rounds, the calls alternated; medians; *net* subtracts the loop returning a "
           "constant (docs/facade.md#speed).", "",
           "| call | per call (ns) | net (ns) | runs (ns per call) |", "|---|---:|---:|---|"]
    for name, v in f["calls"].items():
        out.append(f"| `{name}` | {v['median_ns']:.1f} | {v['net_ns']:.1f} | "
                   + ", ".join(f"{x:.0f}" for x in v["runs_ns"]) + " |")
    fb = f["fresh_backend"]
    out += ["", f"A fresh backend ({fb['sessions']} new sessions, medians): its first `uuid_v7_to_facade()`, which "
            f"reads the key table and expands the key, took {fb['first_us']:.0f} µs; its second {fb['second_us']:.0f} "
            "µs (each a statement of its own, timed inside the session: parse and plan included)."]
    for name in ("uuid_v7_to_facade(id)", "uuid_facade_to_v7(face)"):
        net = f["calls"][name]["net_ns"]
        t.add("facade", f"PostgreSQL {pg}: `{name}` net ≤ 1 µs per call", f"**{net:.0f} ns**", net <= 1000)
    return out


def citus(r, t):
    """Loads through a Citus coordinator, per key."""
    if "citus" not in r:
        return []
    c, pg = r["citus"], r["major"]
    keys = list(next(iter(c["loads"].values())))
    out = ["", "### Loads through a Citus coordinator", "",
           f"{c['citus']}, a coordinator and {c['workers']} workers on this machine (each preloading citus and "
           f"uuid_ext), a fresh table `loaded (<key>, n int)` distributed by its key over {c['shards']} shards for "
           f"each load of {c['rows']:,} rows: `COPY loaded (n) FROM PROGRAM 'seq 1 {c['rows']}'`, and multi-row "
           f"`INSERT INTO loaded (n) VALUES (…), …` of {c['batch']:,} rows each from one session; the coordinator "
           f"makes every key. {c['rounds']} rounds, the keys and methods alternated; medians of psql's `\\timing` "
           "(summed over the INSERTs).", "",
           "| load | " + " | ".join(f"`{k}`" if k.endswith(")") else k for k in keys) + " | "
           + " | ".join(f"`{k}` × {b}" for k, b in (("uuid_generate_v7()", "bigserial"),
                                                    ("uuid_generate_v7()", "`gen_random_uuid()`")))
           + " | runs (s) |",
           "|---|" + "---:|" * (len(keys) + 2) + "---|"]
    for method, per_key in c["loads"].items():
        sec = {k: v["seconds"] for k, v in per_key.items()}
        v7 = sec["uuid_generate_v7()"]
        runs = "; ".join(f"{k}: " + ", ".join(f"{x:.2f}" for x in per_key[k]["runs_s"]) for k in keys)
        out.append(f"| {method} | " + " | ".join(f"{sec[k]:.2f} s" for k in keys)
                   + f" | {v7 / sec['bigserial']:.2f} | {v7 / sec['gen_random_uuid()']:.2f} | {runs} |")
        t.add("citus", f"PostgreSQL {pg}: {method} of {c['rows']:,} rows through a Citus coordinator, "
                       "`uuid_generate_v7()` key ≤ 1.1 × `bigserial`",
              f"{v7:.2f} s against {sec['bigserial']:.2f} s: **{v7 / sec['bigserial']:.2f}×**",
              v7 / sec["bigserial"] <= 1.1)
    lk = c.get("lookups")
    if lk:
        forms = lk["forms"]
        by_key = forms["by key"]["ms"]
        out += ["", f"Lookups through the coordinator: {lk['lookups']:,} statements in one session, each finding one "
                    f"random row of a table of {lk['rows']:,} rows distributed by its `uuid_generate_v7()` key, with "
                    "a façade key on every node; the forms alternated; medians of the time per lookup from psql's "
                    "`\\timing`.", "",
                "| lookup | per lookup | × by key | runs (ms) |", "|---|---:|---:|---|"]
        for f, v in forms.items():
            out.append(f"| {f} | {v['ms']:.3f} ms | {v['ms'] / by_key:.2f} | "
                       + ", ".join(f"{x:.3f}" for x in v["runs_ms"]) + " |")
    return out


def core_alone(rows, t, kept_target=None):
    if not rows:
        return []
    est = dict(rows)
    out = ["", "## The generator core alone", "",
           "`cargo bench -p uuid_ext_core` (criterion, median). The sequencer rows use a candidate always below "
           "the word, so every call takes the `last + 1` path (the most contended case); the shared-memory word "
           "is an atomic in an anonymous `MAP_SHARED` page, as PostgreSQL's shared memory is. "
           f"This machine has {os.cpu_count()} cores: rows with more threads than that are marked oversubscribed.", "",
           "| benchmark | ns per value |", "|---|---:|"]

    def label(n):
        th = n.rsplit("/", 1)[-1]
        return f"{n} (oversubscribed)" if th.isdigit() and int(th) > (os.cpu_count() or 1) else n
    out += [f"| {label(n)} | {ns:.1f} |" for n, ns in rows]
    local, shared = est.get("one thread/process-local word"), est.get("one thread/shared-memory word")
    if kept_target:
        t.rows.append(kept_target)
    elif local and shared:
        t.add("sequencer", "one shared word against a process-local one, single thread, ≤ 1.1×",
              f"**{shared / local:.2f}×**", shared / local <= 1.1)
    return out


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = []  # (label, {key: (bytes per row, leaf density)})
    for r in results:
        for run, name in (("index", "one insert"), ("concurrent", "8 clients")):
            if run not in r:
                continue
            d = r[run]
            groups.append((f"PostgreSQL {r['major']}\n{name}",
                           {k: ((d[k]["index_bytes"] / r["index_rows"]) if run == "index" else d[k]["bytes_per_row"],
                                d[k]["leaf_density"]) for k in keys_of(r)}))
    keys = ["v7", "core v7", "v4"]
    colors = {"v7": "#2b7bba", "core v7": "#8fb3d9", "v4": "#d9822b"}
    labels = {"v7": "uuid_generate_v7()", "core v7": "core uuidv7()", "v4": "gen_random_uuid()"}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.26
    for ax, m, title in ((axes[0], 0, "primary-key index bytes per row (smaller is better)"),
                         (axes[1], 1, "leaf density, % (higher is better; 90 is the fillfactor)")):
        for i, k in enumerate(keys):
            xs = [g for g, (_, d) in enumerate(groups) if k in d]
            ys = [groups[g][1][k][m] for g in xs]
            bars = ax.bar([x + (i - 1) * width for x in xs], ys, width, label=labels[k], color=colors[k])
            ax.bar_label(bars, fmt="%.0f" if m == 0 else "%.1f", fontsize=7, padding=1)
        ax.set_xticks(range(len(groups)), [g for g, _ in groups], fontsize=8)
        ax.set_title(title, fontsize=9)
        if m == 1:
            ax.axhline(88, color="grey", linestyle="--", linewidth=0.8)
            ax.set_ylim(0, 100)
    axes[0].legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json", nargs="+", help="bench/run.py's results, one file per PostgreSQL version")
    ap.add_argument("--criterion", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--plot", help="where to draw the index plot (PNG)")
    a = ap.parse_args()
    results = sorted((json.load(open(f)) for f in a.json), key=lambda r: r["major"])
    t = Targets()
    out = ["# Benchmark results", "",
           "Written by `scripts/bench` (see docs/benchmarks.md); do not edit by hand.", ""]
    for r in results:
        out += [f"PostgreSQL {r['major']}:", "", "| | |", "|---|---|"]
        out += [f"| {k} | {v} |" for k, v in r["machine"]]
        out.append("")
        for section, m in r.get("machine_of", {}).items():
            out += [f"PostgreSQL {r['major']}, the `{section}` section, run on its own "
                    "(`scripts/bench --only " + section + "`):", "", "| | |", "|---|---|"]
            out += [f"| {k} | {v} |" for k, v in m]
            out.append("")
    body = []
    for r in results:
        body += ["", f"## PostgreSQL {r['major']}", ""]
        body += generation(r, t) + key_choice(r, t) + facade(r, t) + per_row(r) + index(r, t) + types(r, t) + pgbench(r, t)
        body += concurrent(r, t) + contention(r, t) + durable(r, t) + watermark(r, t)
        body += wal(r, t) + feeds(r, t) + releases(r, t) + versions(r, t) + citus(r, t)
    measured = criterion(a.criterion)
    kept, kept_target = ([], None) if measured else criterion_kept(a.out)
    body += core_alone(measured or kept, t, kept_target)
    out += ["## Targets", "", "| area | target | measured | |", "|---|---|---|---|"] + t.rows
    if a.plot:
        plot(results, a.plot)
        out += ["", f"![index bytes per row and leaf density per key]({os.path.basename(a.plot)})"]
    open(a.out, "w").write("\n".join(out + body) + "\n")


if __name__ == "__main__":
    main()
