"""Polling a distributed table with the cluster's watermark (docs/ordering.md#on-a-citus-cluster).

A coordinator and two workers (citus.py's citus_cluster), a table
distributed by its uuid key whose default is uuid_generate_v7(). Writers on
the coordinator (whose keys the coordinator makes, for rows on the
workers, committed by two-phase commit when a transaction spans both) and
on a worker (whose keys that worker makes) insert rows in transactions
that stay open a while, commit or roll back; a poller on the coordinator
follows docs/ordering.md's pattern with uuid_v7_cluster_watermark(), the
lowest of every node's watermark: it sees every committed row exactly once
and none that rolled back. Every commit on a node waits 20 ms before it is
visible (commit_delay), so a row the coordinator keys for a worker becomes
visible there 20 ms after the coordinator's own commit: a watermark that
passed the key at the coordinator's commit (as releases before 0.9.0 did)
makes the poller miss such rows, and this test fails on them.

Skips where Citus cannot run (citus.py's need_citus). Needs psycopg 3.
"""
import random
import threading
import time

import psycopg

from citus_fixture import citus_cluster, need_citus
from pg import fail, ok

SECONDS = 8


def main(t):
    need_citus(t)
    # Each commit on a node waits 20 ms before its WAL flush, so before it
    # becomes visible: a COMMIT PREPARED that Citus sends a worker at the
    # coordinator's commit stays invisible that long after the coordinator's
    # own commit, a window a poller can fall into.
    coordinator, workers = citus_cluster(t, conf=["fsync = on", "commit_delay = 20000", "commit_siblings = 0"])
    c = coordinator
    c.q("CREATE EXTENSION uuid_ext")
    c.q("CREATE TABLE feed (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), body text);"
        "SELECT create_distributed_table('feed', 'id')")
    committed, rolled_back = set(), set()
    lock = threading.Lock()
    stop = threading.Event()
    errors = []

    def writer(srv, name, seed):
        rnd = random.Random(seed)
        n = 0
        try:
            with psycopg.connect(srv.conninfo()) as conn:
                while not stop.is_set():
                    bodies = [f"{name}-{n + i}" for i in range(rnd.randint(1, 3))]
                    n += len(bodies)
                    for b in bodies:
                        conn.execute("INSERT INTO feed (body) VALUES (%s)", (b,))
                    time.sleep(rnd.random() * 0.05)
                    if rnd.random() < 0.15:
                        conn.rollback()
                        done = rolled_back
                    else:
                        conn.commit()
                        done = committed
                    with lock:
                        done.update(bodies)
        except Exception as e:  # reported by the main thread
            errors.append(f"{name}: {e}")

    threads = [threading.Thread(target=writer, args=(c, f"coordinator{i}", i)) for i in range(2)]
    threads.append(threading.Thread(target=writer, args=(workers[0], "worker1", 9)))
    delivered = []
    last = "00000000-0000-0000-0000-000000000000"
    with psycopg.connect(c.conninfo(), autocommit=True) as poller:
        for th in threads:
            th.start()
        end = time.time() + SECONDS
        polls = 0
        while True:
            finishing = time.time() > end
            if finishing:
                stop.set()
                for th in threads:
                    th.join()
            watermark = poller.execute("SELECT uuid_v7_cluster_watermark()").fetchone()[0]
            rows = poller.execute("SELECT id, body FROM feed WHERE id > %s AND id < %s ORDER BY id",
                                  (last, watermark)).fetchall()
            polls += 1
            for key, body in rows:
                delivered.append(body)
                last = key
            if finishing:
                break
            time.sleep(0.01)
        # Once every writer ended, the watermark passes every row.
        rows = poller.execute("SELECT id, body FROM feed WHERE id > %s AND id < uuid_v7_cluster_watermark() "
                              "ORDER BY id", (last,)).fetchall()
        delivered += [b for _, b in rows]
    if errors:
        fail(f"a writer failed: {errors}")
    if len(delivered) != len(set(delivered)):
        fail("the poller saw a row twice")
    missed = committed - set(delivered)
    if missed:
        fail(f"the poller missed {len(missed)} committed rows: {sorted(missed)[:5]}")
    if set(delivered) & rolled_back:
        fail("the poller saw a row that rolled back")
    by_worker = sum(1 for b in committed if b.startswith("worker"))
    ok(f"writers on the coordinator and on a worker for {SECONDS} s ({len(committed)} rows committed, {by_worker} of "
       f"them by the worker, {len(rolled_back)} rolled back): a poller on the coordinator following "
       f"uuid_v7_cluster_watermark() in {polls} polls saw every committed row exactly once and none that rolled back")
    for srv in (*workers, c):
        srv.stop()
