"""The faults a DBA meets: a full disk, the horizon worker stopped or killed, cancels; nothing lost.

What the user sees in each (docs/operations.md, "Troubleshooting"): no
committed row and no order is lost in any of them.

 1. A full disk when the horizon must be written: the data directory on a
    48 MB tmpfs of its own (a private mount namespace: nothing of it is
    mounted on the machine, and it goes with the server), the WAL outside
    it; filled up, the call that needs the horizon fails with SQLSTATE
    53100 and the documented message; the server does not crash; once
    space is freed, generation resumes above every earlier key.
 2. The horizon worker stopped (SIGSTOP) for 3 s under a steady writer:
    calls write the horizon themselves (writes_inline grows), every key is
    above the one before.
 3. The horizon worker killed (SIGKILL): the postmaster's crash restart;
    afterwards a new worker, and new keys above every earlier one; every
    committed row is there.
 4. A statement cancelled, and a backend terminated, while their
    transactions hold commit-watermark announcements: the watermark moves
    past their keys at once.

Starts its own servers (the full disk's through servers.py's
start_in_tmpfs: as root `unshare -m`, otherwise a user namespace); needs
psycopg 3.
"""
import os
import signal
import threading
import time

import psycopg

from pg import fail, ok, uuid_int, wait_for


def connect(srv, autocommit=True):
    return psycopg.connect(srv.conninfo(), autocommit=autocommit)


def key(conn, sql="SELECT uuid_generate_v7()"):
    return uuid_int(str(conn.execute(sql).fetchone()[0]))


def info(conn, field):
    return conn.execute(f"SELECT uuid_ext_info() ->> '{field}'").fetchone()[0]


# --- 1. a full disk ------------------------------------------------------------
def full_disk(t):
    srv = t.server("full")
    srv.start_in_tmpfs("shared_preload_libraries = 'uuid_ext'", "fsync = on")
    try:
        conn = connect(srv)
        conn.execute("CREATE EXTENSION uuid_ext")
        conn.execute("CREATE TABLE t (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int)")
        conn.execute("INSERT INTO t (n) SELECT generate_series(1, 1000)")
        # Read now: with the disk full, even a read may need to write
        # (PostgreSQL 19 extends the visibility map).
        before = uuid_int(str(conn.execute("SELECT max(id::text) FROM t").fetchone()[0]))
        pid = srv.postmaster_pid()
        # Fill the file system with a file of the server's own.
        try:
            conn.execute("COPY (SELECT 1) TO PROGRAM 'cat /dev/zero > filler'")
        except psycopg.Error:
            pass
        # Past the horizon the worker could not raise (the clock moves on).
        time.sleep(2.5)
        try:
            conn.execute("INSERT INTO t (n) VALUES (0)")
            fail("an insert whose key needed the horizon succeeded on a full disk")
        except psycopg.Error as e:
            got = (e.sqlstate, e.diag.message_primary)
        want = ("53100", 'could not write the UUID sequencer horizon "uuid_ext.horizon.tmp" in the data '
                         "directory: No space left on device")
        if got != want:
            fail(f"on a full disk: {got}, not {want}")
        if srv.postmaster_pid() != pid or conn.execute("SELECT 1").fetchone()[0] != 1:
            fail("the server did not survive the full disk")
        # A reset needs the file first: it fails the same way and changes nothing.
        try:
            conn.execute("SELECT * FROM uuid_ext_sequencer_reset()")
            fail("a reset succeeded on a full disk")
        except psycopg.Error as e:
            if (e.sqlstate, e.diag.message_primary) != want:
                fail(f"a reset on a full disk: {e.sqlstate} {e.diag.message_primary}")
        if conn.execute("SELECT uuid_ext_info() -> 'last_reset'").fetchone()[0] is not None:
            fail("a reset that failed on a full disk is shown as done")
        conn.execute("COPY (SELECT 1) TO PROGRAM 'rm -f filler'")
        conn.execute("INSERT INTO t (n) SELECT generate_series(1001, 2000)")
        after = uuid_int(str(conn.execute("SELECT min(id::text) FROM t WHERE n > 1000").fetchone()[0]))
        if after <= before or conn.execute("SELECT count(*) FROM t").fetchone()[0] != 2000:
            fail("after space was freed, keys did not resume above every earlier one")
        warned = "could not write" in srv.log_text()
        conn.close()
    finally:
        srv.stop()
    ok(f"a full disk: the insert that needed the horizon fails with {want[0]} \"{want[1]}\", the server stays "
       f"up{' (the worker logged its failure too)' if warned else ''}; a reset fails the same way and changes "
       f"nothing; space freed, the next 1,000 keys are above "
       "every earlier one and no committed row is lost")


# --- 2 and 3: the worker stopped, then killed ----------------------------------
class Writer:
    """Inserts one row at a time, remembering what committed."""

    def __init__(self, srv):
        self.srv = srv
        self.conn = connect(srv)
        self.n = 0
        self.committed = []

    def write(self, count):
        for _ in range(count):
            self.n += 1
            try:
                u = self.conn.execute("INSERT INTO t (n) VALUES (%s) RETURNING id", (self.n,)).fetchone()[0]
                self.committed.append((self.n, uuid_int(str(u))))
            except psycopg.OperationalError:
                # The crash restart ended this session: a new one.
                wait_for(self.reconnect, "a new connection after the crash restart")
            time.sleep(0.05)

    def reconnect(self):
        try:
            self.conn = connect(self.srv)
            return True
        except psycopg.OperationalError:
            return False


def stop_between_rounds(conn, worker):
    """SIGSTOP to the horizon worker while it sleeps between rounds (its wait
    event `Extension`, read from pg_stat_activity while it is stopped), never
    while it holds the horizon lock: stopped there, every call that needs the
    horizon would wait for it, which is no fault a DBA meets."""
    for _ in range(500):
        os.kill(worker, signal.SIGSTOP)
        if conn.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s",
                        (worker,)).fetchone()[0] == "Extension":
            return
        os.kill(worker, signal.SIGCONT)
        time.sleep(0.01)
    fail("the horizon worker was never seen sleeping between rounds")


def in_order(srv, committed, what):
    rows = dict(connect(srv).execute("SELECT n, id::text FROM t").fetchall())
    for n, u in committed:
        if n not in rows or uuid_int(rows[n]) != u:
            fail(f"{what}: committed row {n} is missing or changed")
    keys = [u for _, u in sorted(committed)]
    if any(b <= a for a, b in zip(keys, keys[1:])):
        fail(f"{what}: keys out of order")


def worker_faults(t):
    srv = t.server("worker")
    srv.initdb("shared_preload_libraries = 'uuid_ext'", "fsync = on", "uuid_ext.durable_margin = 200")
    srv.start()
    try:
        srv.q("CREATE EXTENSION uuid_ext")
        srv.q("CREATE TABLE t (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int UNIQUE)")
        w = Writer(srv)
        w.write(10)
        c = connect(srv)
        worker = int(info(c, "horizon_worker_pid"))
        inline = int(c.execute("SELECT uuid_ext_info() -> 'horizon' ->> 'writes_inline'").fetchone()[0])
        stop_between_rounds(c, worker)
        try:
            w.write(60)
        finally:
            os.kill(worker, signal.SIGCONT)
        inline_after = int(c.execute("SELECT uuid_ext_info() -> 'horizon' ->> 'writes_inline'").fetchone()[0])
        if inline_after <= inline:
            fail("with the worker stopped, no call wrote the horizon itself")
        in_order(srv, w.committed, "the worker stopped")
        ok(f"the horizon worker stopped for 3 s under a steady writer: calls wrote the horizon "
           f"{inline_after - inline} times themselves, {len(w.committed)} keys in order")

        before = max(u for _, u in w.committed)
        log_at = len(srv.log_text())
        os.kill(worker, signal.SIGKILL)
        w.write(40)
        wait_for(lambda: (info(connect(srv), "horizon_worker_pid") or "0") not in ("0", str(worker)),
                 "a new horizon worker")
        if "terminated by signal 9" not in srv.log_text()[log_at:]:
            fail(f"no crash restart after the worker was killed:\n{srv.log_tail()}")
        after = [u for n, u in w.committed if u > 0 and n > 70]
        if not after or min(after) <= before:
            fail("after the crash restart, a key is not above every earlier one")
        in_order(srv, w.committed, "the worker killed")
        ok(f"the horizon worker killed: the postmaster's crash restart, a new worker; {len(after)} keys after it "
           f"above every earlier one, all {len(w.committed)} committed rows there and in order")
    finally:
        srv.stop_quietly()
    return srv


# --- 4. cancelled and terminated -----------------------------------------------
def watermark_past(srv):
    srv.start()
    try:
        for how in ("pg_cancel_backend", "pg_terminate_backend"):
            held = connect(srv, autocommit=False)
            pid = held.execute("SELECT pg_backend_pid()").fetchone()[0]
            k = key(held, "INSERT INTO t (n) VALUES (-1) RETURNING id")
            other = connect(srv)
            other.execute("INSERT INTO t (n) VALUES (-2)")
            w = uuid_int(str(other.execute("SELECT uuid_v7_watermark()").fetchone()[0]))
            if w > k:
                fail(f"the watermark {w:032x} is past an open transaction's key {k:032x}")
            try:
                # The statement the signal ends (a cancel), or the session.
                errors = []

                def run():
                    try:
                        held.execute("SELECT pg_sleep(30)")
                    except psycopg.Error as e:
                        errors.append(e)
                t = threading.Thread(target=run, daemon=True)
                t.start()
                wait_for(lambda: other.execute("SELECT wait_event FROM pg_stat_activity WHERE pid = %s",
                                               (pid,)).fetchone()[0] == "PgSleep", "the held session to sleep")
                other.execute(f"SELECT {how}(%s)", (pid,))
                t.join(10)
                other.execute("INSERT INTO t (n) VALUES (-3)")
                w = uuid_int(str(other.execute("SELECT uuid_v7_watermark()").fetchone()[0]))
                if w <= k:
                    fail(f"after {how}(), the watermark {w:032x} is still held at the key {k:032x}")
                if not errors:
                    fail(f"{how}() did not end the statement")
            finally:
                held.close()
                other.execute("DELETE FROM t WHERE n < 0")
                other.close()
        ok("a statement cancelled and a backend terminated while their transactions held watermark "
           "announcements: the watermark moves past their keys at once")
    finally:
        srv.stop_quietly()


def main(t):
    full_disk(t)
    srv = worker_faults(t)
    watermark_past(srv)
