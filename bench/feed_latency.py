#!/usr/bin/env python3
"""The feeds section of the benchmark (docs/feeds.md): how late a change
feed delivers a committed row, at a few thousand rows a second.

Writers insert into the example's table (examples/feed/feed.py: the trigger
notifies at each commit) at a fixed rate, in transactions of 5 rows, one in
ten held open 50 ms before its commit; each row's commit time is taken when
its COMMIT is sent. Three consumers read the same table beside them, each on
a connection of its own:

  watermark  the example's consumer: a page up to uuid_v7_watermark(), woken
             by LISTEN (wait_for_commits(), a 1 s timeout)
  naive      WHERE id > last_seen, woken the same way
  lag 1 s    WHERE id > last_seen AND id < the bound of one second ago, every
             100 ms

For each: the rows it delivered, those it lost (committed, never delivered),
and the latency from a row's commit to its delivery: median, 99th
percentile, maximum. Connects with libpq's PG* variables; needs psycopg 3.
Writes the section's results (JSON) to stdout.

    python3 bench/feed_latency.py [--rate ROWS_PER_S] [--seconds S]
"""
import argparse
import json
import os
import statistics
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "feed"))
from feed import SETUP_SQL, START, next_page, wait_for_commits  # noqa: E402

DB = "uuid_ext_bench_feed"
BATCH = 5
WRITERS = 4


def writer(n, rate, stop, commits, errors):
    """Transactions of BATCH rows at `rate` rows a second; one in ten held 50 ms."""
    period = BATCH / rate
    seq = 0
    try:
        with psycopg.connect(dbname=DB) as conn:
            due = time.monotonic()
            while not stop.is_set():
                seq += 1
                bodies = [f"{n}-{seq}-{i}" for i in range(BATCH)]
                conn.execute("INSERT INTO events (tenant, body) SELECT 1, unnest(%s::text[])", (bodies,))
                if seq % 10 == 0:
                    time.sleep(0.05)
                t = time.monotonic()  # the COMMIT sent: no reader sees the rows before
                conn.commit()
                commits.update((b, t) for b in bodies)
                due += period
                time.sleep(max(0.0, due - time.monotonic()))
    except Exception as e:  # noqa: BLE001
        errors.append(f"writer {n}: {e!r}")


def consumer(kind, stop, seen, errors):
    try:
        with psycopg.connect(dbname=DB, autocommit=True) as conn:
            conn.execute("LISTEN events")
            cursor = START
            while not stop.is_set():
                if kind == "watermark":
                    rows = next_page(conn, 1, cursor)
                elif kind == "naive":
                    rows = conn.execute("SELECT id, body FROM events WHERE tenant = 1 AND id > %s ORDER BY id "
                                        "LIMIT 500", (cursor,)).fetchall()
                else:
                    rows = conn.execute("SELECT id, body FROM events WHERE tenant = 1 AND id > %s AND id < "
                                        "uuid_v7_lower_bound(clock_timestamp() - interval '1 second') ORDER BY id "
                                        "LIMIT 500", (cursor,)).fetchall()
                t = time.monotonic()
                for _, body in rows:
                    seen.setdefault(body, t)
                if rows:
                    cursor = rows[-1][0]
                elif kind == "lag 1 s":
                    time.sleep(0.1)
                else:
                    wait_for_commits(conn, timeout=1.0)
    except Exception as e:  # noqa: BLE001
        errors.append(f"{kind}: {e!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=3000, help="rows a second, all writers together")
    ap.add_argument("--seconds", type=float, default=20)
    a = ap.parse_args()
    with psycopg.connect(dbname="postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB}")
    with psycopg.connect(dbname=DB, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION uuid_ext")
        conn.execute(SETUP_SQL)
    commits, errors = {}, []
    kinds = ("watermark", "naive", "lag 1 s")
    seen = {k: {} for k in kinds}
    stop_writers, stop_consumers = threading.Event(), threading.Event()
    writers = [threading.Thread(target=writer, args=(n, a.rate / WRITERS, stop_writers, commits, errors))
               for n in range(WRITERS)]
    consumers = [threading.Thread(target=consumer, args=(k, stop_consumers, seen[k], errors)) for k in kinds]
    for th in consumers + writers:
        th.start()
    time.sleep(a.seconds)
    stop_writers.set()
    for th in writers:
        th.join()
    time.sleep(2.0)  # the lag window's last second, and a margin
    stop_consumers.set()
    for th in consumers:
        th.join()
    if errors:
        sys.exit("\n".join(errors))
    out = {"rows": len(commits), "seconds": a.seconds, "rate_asked": a.rate, "batch": BATCH, "writers": WRITERS,
           "consumers": {}}
    for k in kinds:
        lat = sorted((seen[k][b] - t) * 1000 for b, t in commits.items() if b in seen[k])
        out["consumers"][k] = {
            "delivered": len(lat), "lost": len(commits) - len(lat),
            "median_ms": statistics.median(lat) if lat else None,
            "p99_ms": lat[int(0.99 * (len(lat) - 1))] if lat else None,
            "max_ms": lat[-1] if lat else None,
        }
    with psycopg.connect(dbname="postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
