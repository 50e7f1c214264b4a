"""A load on the commit watermark (docs/ordering.md#polling-without-missing-rows-the-commit-watermark):
writers of every kind into `ev`, a poller that follows the watermark and a
naive one, and what each saw. The cluster tests `watermark` (on one server)
and `replication` (the pollers on a standby) run it.

`run(writers_conninfo, pollers_conninfo)` writes to one server and may poll
another. Needs psycopg 3; the writers' server needs max_prepared_transactions > 0.
"""
import random
import threading
import time

import psycopg

from pg import fail, ok, run_for

SECONDS = 8
WRITERS = 6


def connect(conninfo, autocommit=False):
    """A connection to `conninfo` (a libpq conninfo string, the server named in it)."""
    return psycopg.connect(conninfo, autocommit=autocommit)


class Record:
    def __init__(self):
        self.lock = threading.Lock()
        self.committed = set()
        self.aborted = set()
        self.kinds = {}
        self.errors = []

    def add(self, ids, committed, kind):
        with self.lock:
            (self.committed if committed else self.aborted).update(ids)
            self.kinds[kind] = self.kinds.get(kind, 0) + 1


def writer(conninfo, n, rec, stop, prepared_queue, leased=False):
    rnd = random.Random(n)
    try:
        with connect(conninfo) as conn:
            if leased and n % 2:
                # Every other writer leases blocks of the sequencer (docs/ordering.md#leases).
                conn.execute("SET uuid_ext.cache = 100")
                conn.commit()
            g = 0
            while not stop.is_set():
                g += 1
                r = rnd.random()
                if r < 0.12:
                    # Keys from parallel workers only; inserted later by the leader.
                    conn.execute("SET LOCAL parallel_setup_cost = 0")
                    conn.execute("SET LOCAL parallel_tuple_cost = 0")
                    conn.execute("SET LOCAL min_parallel_table_scan_size = 0")
                    conn.execute("SET LOCAL max_parallel_workers_per_gather = 2")
                    conn.execute("SET LOCAL parallel_leader_participation = off")
                    ids = conn.execute("SELECT array_agg(id) FROM (SELECT uuid_generate_v7() AS id FROM big "
                                       "WHERE g % 20000 = 0) s").fetchone()[0]
                    time.sleep(rnd.uniform(0.0, 0.2))
                    conn.execute("INSERT INTO ev (id, note) SELECT unnest(%s::uuid[]), 'parallel'", (ids,))
                    conn.commit()
                    rec.add(ids, True, "parallel workers")
                    continue
                rows = rnd.randint(1, 3)
                ids = [row[0] for row in conn.execute(
                    "INSERT INTO ev (note) SELECT 'w' FROM generate_series(1, %s) RETURNING id", (rows,))]
                if r < 0.50:
                    time.sleep(rnd.uniform(0.0, 0.01))
                    conn.commit()
                    rec.add(ids, True, "quick commit")
                elif r < 0.65:
                    time.sleep(rnd.uniform(0.05, 0.4))
                    conn.commit()
                    rec.add(ids, True, "held, then committed")
                elif r < 0.75:
                    time.sleep(rnd.uniform(0.0, 0.1))
                    conn.rollback()
                    rec.add(ids, False, "rolled back")
                elif r < 0.82:
                    try:
                        conn.execute("SELECT 1 / 0")
                    except psycopg.errors.DivisionByZero:
                        pass
                    conn.rollback()
                    rec.add(ids, False, "failed")
                elif len(prepared_queue) >= 30:  # max_prepared_transactions is 64
                    conn.commit()
                    rec.add(ids, True, "quick commit")
                else:
                    gid = f"w{n}-{g}"
                    conn.execute(f"PREPARE TRANSACTION '{gid}'")
                    conn.commit()  # the session is idle now; nothing to commit
                    commit = rnd.random() < 0.8
                    prepared_queue.append((time.time() + rnd.uniform(0.05, 0.5), gid, ids, commit))
    except Exception as e:  # noqa: BLE001
        rec.errors.append(f"writer {n}: {e!r}")


def resolver(conninfo, rec, stop, prepared_queue):
    """Commits (or rolls back) prepared transactions from another session."""
    try:
        with connect(conninfo, autocommit=True) as conn:
            while not (stop.is_set() and not prepared_queue):
                due = [p for p in list(prepared_queue) if p[0] <= time.time()]
                for p in due:
                    prepared_queue.remove(p)
                    _, gid, ids, commit = p
                    conn.execute(f"{'COMMIT' if commit else 'ROLLBACK'} PREPARED '{gid}'")
                    rec.add(ids, commit, "prepared, then committed" if commit else "prepared, then rolled back")
                time.sleep(0.01)
    except Exception as e:  # noqa: BLE001
        rec.errors.append(f"resolver: {e!r}")


class Poller:
    def __init__(self, with_watermark, standby):
        self.with_watermark = with_watermark
        # Polling another server than the one written to: a standby.
        self.standby = standby
        self.seen = []
        self.last = "00000000-0000-0000-0000-000000000000"

    def poll(self, conn):
        if self.standby:
            # A read-only query that makes a UUID on the standby.
            conn.execute("SELECT uuid_generate_v7()")
        if self.with_watermark:
            wm = conn.execute("SELECT uuid_v7_watermark()").fetchone()[0]
            rows = conn.execute("SELECT id FROM ev WHERE id > %s AND id < %s ORDER BY id", (self.last, wm)).fetchall()
        else:
            rows = conn.execute("SELECT id FROM ev WHERE id > %s ORDER BY id", (self.last,)).fetchall()
        if rows:
            self.seen += [r[0] for r in rows]
            self.last = rows[-1][0]
        return len(rows)


def poll_loop(conninfo, poller, stop, rec):
    try:
        with connect(conninfo, autocommit=True) as conn:  # READ COMMITTED: a snapshot per statement
            while not stop.is_set():
                try:
                    poller.poll(conn)
                except psycopg.errors.ObjectNotInPrerequisiteState:
                    pass  # a standby that has replayed no watermark yet: try again
                time.sleep(0.005)
    except Exception as e:  # noqa: BLE001
        rec.errors.append(f"poller: {e!r}")


def run(writers, pollers, leased=False):
    """The test, writing through `writers` and polling through `pollers`
    (libpq conninfo strings); with `leased`, every other writer sets
    uuid_ext.cache = 100."""
    standby = writers != pollers
    with connect(writers, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS uuid_ext")
        conn.execute("DROP TABLE IF EXISTS ev, big")
        conn.execute("CREATE TABLE ev (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), note text)")
        conn.execute("CREATE TABLE big AS SELECT g FROM generate_series(1, 200000) g")
        conn.execute("VACUUM ANALYZE big")
        if int(conn.execute("SHOW max_prepared_transactions").fetchone()[0]) < 1:
            fail("the cluster has max_prepared_transactions = 0")
        # The parallel writers' plan does use workers, and only workers draw.
        with conn.transaction():
            for s in ("parallel_setup_cost = 0", "parallel_tuple_cost = 0", "min_parallel_table_scan_size = 0",
                      "max_parallel_workers_per_gather = 2", "parallel_leader_participation = off"):
                conn.execute(f"SET LOCAL {s}")
            plan = "\n".join(r[0] for r in conn.execute(
                "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT array_agg(id) FROM "
                "(SELECT uuid_generate_v7() AS id FROM big WHERE g % 20000 = 0) s"))
        if "Workers Launched: 2" not in plan:
            fail(f"the parallel writers' query launches no workers:\n{plan}")
    if standby:
        wait_for_standby(pollers, lambda c: c.execute("SELECT to_regclass('ev') IS NOT NULL").fetchone()[0],
                         "the table to reach the standby")

    rec = Record()
    stop_writers, stop_resolver, stop_pollers = threading.Event(), threading.Event(), threading.Event()
    prepared_queue = []
    good, naive = Poller(True, standby), Poller(False, standby)
    threads = [threading.Thread(target=writer, args=(writers, n, rec, stop_writers, prepared_queue, leased))
               for n in range(WRITERS)]
    res = threading.Thread(target=resolver, args=(writers, rec, stop_resolver, prepared_queue))
    polls = [threading.Thread(target=poll_loop, args=(pollers, p, stop_pollers, rec)) for p in (good, naive)]
    run_for(SECONDS, (threads, stop_writers), ([res], stop_resolver), (polls, stop_pollers))
    if rec.errors:
        fail("\n".join(rec.errors))

    # Every transaction has ended: one last poll each catches up.
    with connect(writers, autocommit=True) as conn:
        in_table = {r[0] for r in conn.execute("SELECT id FROM ev")}
        leftover = conn.execute("SELECT count(*) FROM pg_prepared_xacts").fetchone()[0]
        top = conn.execute("SELECT max(id::text) FROM ev").fetchone()[0]
    if standby:
        # The primary's worker logs the watermark once it passes the last
        # key; the standby replays it.
        wait_for_standby(pollers, lambda c: c.execute("SELECT uuid_v7_watermark() > %s::uuid", (top,)).fetchone()[0],
                         "the standby's watermark to pass the last committed key")
    with connect(pollers, autocommit=True) as conn:
        good.poll(conn)
        naive.poll(conn)
    if leftover:
        fail(f"{leftover} prepared transactions left")
    if in_table != rec.committed:
        fail(f"the table holds {len(in_table)} rows, the writers committed {len(rec.committed)}")
    if len(good.seen) != len(set(good.seen)):
        fail("the watermark poller saw a row twice")
    missed = rec.committed - set(good.seen)
    if missed:
        fail(f"the watermark poller missed {len(missed)} committed rows of {len(rec.committed)}")
    if set(good.seen) & rec.aborted:
        fail("the watermark poller saw a row of a transaction that did not commit")
    naive_missed = len(rec.committed - set(naive.seen))
    kinds = ", ".join(f"{v} {k}" for k, v in sorted(rec.kinds.items()))
    where = " on a standby" if standby else ""
    leases = f", {WRITERS // 2} of them leasing 100 keys at a time" if leased else ""
    ok(f"{WRITERS} writers{leases} for {SECONDS} s ({kinds}): the watermark poller{where} saw all {len(rec.committed)} "
       f"committed rows exactly once and none of the {len(rec.aborted)} that did not commit")
    if naive_missed == 0:
        fail("the naive poller (id > last_seen, no watermark) missed nothing: this run cannot tell the two apart")
    ok(f"the naive poller{where} (id > last_seen, no watermark) missed {naive_missed} committed rows "
       "in the same run")


def wait_for_standby(pollers, pred, what, timeout=60):
    t0 = time.time()
    with connect(pollers, autocommit=True) as conn:
        while time.time() - t0 < timeout:
            try:
                if pred(conn):
                    return
            except psycopg.errors.ObjectNotInPrerequisiteState:
                pass  # no watermark replayed yet
            time.sleep(0.05)
    fail(f"timed out waiting for {what}")
