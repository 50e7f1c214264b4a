"""When the clock lies: the clock ten years ahead for a few seconds, then corrected.

What docs/operations.md, "When the clock lies", says.

A primary (`uuid_ext.durable_wal = on`) and a streaming standby, each under
libfaketime with a clock of its own; writers insert rows with a UUIDv7 and a
UUIDv6 key and a row number; a poller follows the table with the commit
watermark as the docs say.

 1. The primary's clock jumps ten years ahead for a few seconds and comes
    back. Keys carry 2036 and go on doing so: the horizon worker's WARNING
    is in the log within seconds, naming both times and the remedy, and
    `uuid_ext_info() -> 'ahead_of_clock_ms'` says ten years. A clean
    restart does not help: keys still carry 2036, and the start-up WARNING
    names the horizon file.
 2. A transaction drew a 2036 key before the reset and stays open across
    it; a session that drew 2036 keys in backend mode waits too.
 3. `uuid_ext_sequencer_reset()` returns 2036 before and the clock after;
    the log names the role. Every new key, from new sessions, from a
    session that drew 2036 keys before (shared and backend mode), and from
    the held transaction, carries the clock; the horizon file too.
 4. The poller: the watermark falls below its cursor; it waits until
    `last_reset.open_from_before` is 0, reads everything above its cursor,
    moves its cursor to `v7_after_key` and goes on: it sees every committed
    row. A poller that keeps its cursor sees none of the rows made after
    the reset (the failure the procedure avoids).
 5. The primary, killed (SIGKILL of every process) after the reset,
    replays the WAL from its restart in 1 on (the 2036 horizon records,
    then the reset) and makes keys at the clock.
 6. The standby replays the reset: its own keys and its horizon file carry
    the clock, `last_reset.replayed` is true; promoted, it makes keys at
    the clock. A clean restart of the old primary: the clock.
 7. Point-in-time recovery from a base backup made before the clock
    jumped, through the archived WAL: the 2036 horizon records, then the
    reset; its keys carry the clock.

Starts its own servers under libfaketime (the primary archives into its
test directory's archive/); needs psycopg 3.
"""
import re
import time

import psycopg

from pg import fail, horizon_words, ok, unix_ms, uuid_int, wait_for

YEAR_MS = 365 * 86_400_000
AHEAD = "+3650d"
# The years the keys carry: this year's, and ten years on (the docs' 2026 and 2036).
NOW_YEAR = str(time.gmtime().tm_year)
AHEAD_YEAR = str(time.gmtime(time.time() + 3650 * 86_400).tm_year)
WARNING = re.compile(r"WARNING:  uuid_ext: the UUIDv(7|6) sequencer( horizon read from \"uuid_ext.horizon\")? "
                     r"is (\d+) days [0-9:.]+ ahead of the clock\n.*DETAIL:  New UUIDv\1 values carry "
                     r"(\d{4})-.*; the clock reads (\d{4})-.*\n.*HINT:  .*uuid_ext_sequencer_reset\(\)")


def connect(srv):
    return psycopg.connect(srv.conninfo(), autocommit=True)


def now_ms():
    return int(time.time() * 1000)


def key_years_ahead(u):
    """How many years ahead of this machine's clock the key's time is."""
    return (unix_ms(u) - now_ms()) / YEAR_MS


def new_keys(srv):
    """A new UUIDv7 and UUIDv6 from a new session on `srv`, as ints."""
    row = srv.q("SELECT uuid_generate_v7() || ' ' || uuid_generate_v6()").split()
    return [uuid_int(x) for x in row]


def must_be_at_clock(keys, what):
    for u in keys:
        lead = unix_ms(u) - now_ms()
        if abs(lead) > 60_000:
            fail(f"{what}: a key {u:032x} is {lead} ms off the clock")


def horizon_at_clock(srv, what):
    """The v7 horizon in `srv`'s file (a word: its ms above 16 bits) is within a minute of the clock."""
    lead = (horizon_words(srv.data)[0] >> 16) - now_ms()
    if abs(lead) > 60_000:
        fail(f"{what}: the UUIDv7 horizon is {lead} ms off the clock")


def must_be_ahead(keys, what):
    for u in keys:
        if key_years_ahead(u) < 9.9:
            fail(f"{what}: a key {u:032x} is not ten years ahead of the clock")


def warnings(srv, since=0):
    return [m for m in WARNING.finditer(srv.log_text()[since:])]


class Poller:
    """Follows table t by its UUIDv7 key, as docs/operations.md says."""

    def __init__(self, srv):
        self.conn = connect(srv)
        self.cursor = "00000000-0000-0000-0000-000000000000"
        self.seen = set()
        self.resets_followed = 0

    def rows(self, sql, *args):
        return self.conn.execute(sql, args).fetchall()

    def poll(self):
        w = self.rows("SELECT uuid_v7_watermark()")[0][0]
        if str(w) < self.cursor:
            # A reset brought the sequencer back below what this poller saw:
            # once every transaction from before it has ended, read what is
            # above the cursor and go on from the reset's first key.
            if self.rows("SELECT (uuid_ext_info() -> 'last_reset' ->> 'open_from_before')::int")[0][0] != 0:
                return
            after = self.rows("SELECT uuid_ext_info() -> 'last_reset' ->> 'v7_after_key'")[0][0]
            for n, _ in self.rows("SELECT n, id FROM t WHERE id > %s::uuid ORDER BY id", self.cursor):
                self.seen.add(n)
            self.cursor = after
            self.resets_followed += 1
            return
        got = self.rows("SELECT n, id::text FROM t WHERE id > %s::uuid AND id < %s ORDER BY id", self.cursor, w)
        for n, u in got:
            self.seen.add(n)
            self.cursor = max(self.cursor, u)


class Naive(Poller):
    """Keeps its cursor whatever the watermark does."""

    def poll(self):
        w = self.rows("SELECT uuid_v7_watermark()")[0][0]
        got = self.rows("SELECT n, id::text FROM t WHERE id > %s::uuid AND id < %s ORDER BY id", self.cursor, w)
        for n, u in got:
            self.seen.add(n)
            self.cursor = max(self.cursor, u)


def insert(conn, count=1):
    conn.execute(f"INSERT INTO t (n) SELECT nextval('t_n') FROM generate_series(1, {count})")


def main(t):
    archive = t.path("archive")
    t.host.make_dir(archive)
    p, s, b = t.server("primary", clock=True), t.server("standby", clock=True), t.server("restored", clock=True)
    try:
        run(p, s, b, archive)
    finally:
        for srv in (p, s, b):
            srv.stop_quietly()


def run(p, s, b, archive):
    # No timed checkpoint: the crash of 6 replays the WAL from the restart
    # of 1 on, with the 2036 horizon records before the reset.
    p.initdb("shared_preload_libraries = 'uuid_ext'", "uuid_ext.durable_wal = on", "wal_level = replica",
             "max_wal_senders = 4", "fsync = on", "checkpoint_timeout = '1h'", "archive_mode = on",
             f"archive_command = 'cp %p {archive}/%f'")
    p.start()
    p.q("CREATE EXTENSION uuid_ext")
    p.q("CREATE SEQUENCE t_n; CREATE TABLE t (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), "
        "id6 uuid UNIQUE DEFAULT uuid_generate_v6(), n bigint UNIQUE)")
    wait_for(lambda: p.q("SELECT uuid_ext_info() ->> 'horizon_worker_pid'") != "", "the horizon worker to start")
    p.base_backup(s, "-R", "-X", "stream")
    s.start()
    # A base backup from before the clock jumps, for the restore of 7.
    p.base_backup(b, "-X", "stream")

    writer = connect(p)
    insert(writer, 100)
    poller, naive = Poller(p), Naive(p)
    poller.poll()
    naive.poll()
    must_be_at_clock(new_keys(p), "before the clock jumped")

    # 1. Ten years ahead for a few seconds, then back.
    log_at = len(p.log_text())
    p.set_clock(AHEAD)
    t0 = time.time()
    while time.time() - t0 < 3:
        insert(writer, 10)
        time.sleep(0.1)
    backend = connect(p)
    backend.execute("SET uuid_ext.monotonicity = backend")
    backend_before = uuid_int(str(backend.execute("SELECT uuid_generate_v7()").fetchone()[0]))
    p.set_clock("+0")
    wait_for(lambda: abs(float(p.q("SELECT extract(epoch FROM clock_timestamp())")) - time.time()) < 60,
             "the primary's clock to come back")
    insert(writer, 10)
    must_be_ahead(new_keys(p) + [backend_before], "after the clock came back, before the reset")
    wait_for(lambda: {m.group(1) for m in warnings(p, log_at) if not m.group(2)} == {"7", "6"},
             "the horizon worker's WARNING for UUIDv7 and UUIDv6", timeout=30)
    waited = time.time() - t0
    m = next(m for m in warnings(p, log_at) if m.group(1) == "7")
    if not (3649 <= int(m.group(3)) <= 3650 and m.group(4) == AHEAD_YEAR and m.group(5) == NOW_YEAR):
        fail(f"the WARNING does not name ten years, {AHEAD_YEAR} and {NOW_YEAR}:\n{m.group(0)}")
    lead = p.q("SELECT uuid_ext_info() -> 'ahead_of_clock_ms' ->> 'v7'")
    if int(lead) < 3649 * 86_400_000:
        fail(f"uuid_ext_info() says the UUIDv7 sequencer is {lead} ms ahead, not ten years")
    ok(f"the clock ten years ahead for 3 s, then back: keys still carry 2036; the horizon worker's WARNING for "
       f"UUIDv7 and UUIDv6 within {waited:.1f} s of the jump names {m.group(3)} days, 2036 and 2026 and the "
       f"reset; ahead_of_clock_ms v7 = {lead}")

    # A clean restart carries the horizon: still 2036, and a WARNING at start.
    writer.close()
    backend.close()
    poller.conn.close()
    naive.conn.close()
    log_at = len(p.log_text())
    p.stop()
    p.start()
    must_be_ahead(new_keys(p), "after a clean restart, before the reset")
    if not any(m.group(2) for m in warnings(p, log_at)):
        fail(f"no WARNING at start about the horizon file:\n{p.log_tail()}")
    ok("a clean restart keeps 2036 (the horizon file carries it) and logs a WARNING at start naming the file")

    writer, backend = connect(p), connect(p)
    poller.conn, naive.conn = connect(p), connect(p)
    insert(writer, 10)
    poller.poll()
    naive.poll()
    if key_years_ahead(uuid_int(poller.cursor)) < 9.9:
        fail("the poller's cursor did not reach the 2036 keys")
    # 2. A transaction holds a 2036 key across the reset; a backend-mode
    # session drew 2036 keys.
    held = psycopg.connect(p.conninfo())
    held.execute("INSERT INTO t (n) SELECT nextval('t_n')")
    # A session that drew a 2036 key from the shared sequencer and then
    # switched to its own: it never goes below its own last value.
    backend.execute("SELECT uuid_generate_v7()")
    backend.execute("SET uuid_ext.monotonicity = backend")
    must_be_ahead([uuid_int(str(backend.execute("SELECT uuid_generate_v7()").fetchone()[0]))],
                  "a backend-mode session before the reset")
    must_be_ahead([uuid_int(str(writer.execute("SELECT uuid_generate_v7()").fetchone()[0]))],
                  "a session before the reset")

    # 3. The reset.
    log_at = len(p.log_text())
    rows = p.q("SELECT version || ' ' || extract(year FROM before) || ' ' || extract(year FROM after) "
               "FROM uuid_ext_sequencer_reset() ORDER BY version DESC").splitlines()
    if rows != [f"7 {AHEAD_YEAR} {NOW_YEAR}", f"6 {AHEAD_YEAR} {NOW_YEAR}"]:
        fail(f"uuid_ext_sequencer_reset() returned {rows}, not {AHEAD_YEAR} before and {NOW_YEAR} after for v7 and v6")
    if f'reset to the clock by role "postgres": UUIDv7 from {AHEAD_YEAR}-' not in p.log_text()[log_at:]:
        fail(f"the reset and its caller are not in the log:\n{p.log_tail()}")
    after = [uuid_int(str(writer.execute("SELECT uuid_generate_v7()").fetchone()[0])),
             uuid_int(str(writer.execute("SELECT uuid_generate_v6()").fetchone()[0])),
             uuid_int(str(backend.execute("SELECT uuid_generate_v7()").fetchone()[0])),
             uuid_int(str(held.execute("SELECT uuid_generate_v7()").fetchone()[0])), *new_keys(p)]
    must_be_at_clock(after, "after the reset")
    horizon_at_clock(p, "the primary's horizon file after the reset")
    if p.q("SELECT uuid_ext_info() -> 'ahead_of_clock_ms' ->> 'v7'") != "0":
        fail("uuid_ext_info() still says the UUIDv7 sequencer is ahead after the reset")
    ok("uuid_ext_sequencer_reset(): 2036 before, 2026 after for v7 and v6, the role in the log; new keys carry "
       "the clock from new sessions, from sessions that drew 2036 keys (shared and backend mode) and from a "
       "transaction open across the reset; the horizon file too")

    # 4. The pollers: rows after the reset, the held transaction's late commit.
    insert(writer, 50)
    poller.poll()
    if poller.resets_followed != 0:
        fail("the poller followed the reset before the held transaction ended")
    held.execute("INSERT INTO t (n) SELECT nextval('t_n')")
    held.commit()
    held.close()
    insert(writer, 50)
    for _ in range(3):
        poller.poll()
        naive.poll()
    committed = set(int(x) for x in p.q("SELECT n FROM t").split())
    if poller.resets_followed != 1 or poller.seen != committed:
        fail(f"the poller following the reset missed rows {sorted(committed - poller.seen)[:10]} "
             f"(resets followed: {poller.resets_followed})")
    missed = committed - naive.seen
    if not missed:
        fail("the naive poller saw every row: the check above could not fail")
    ok(f"a poller following the documented procedure sees all {len(committed)} committed rows, the held "
       f"transaction's 2036 and 2026 keys included; one that keeps its cursor misses {len(missed)}")

    # 5. The primary, killed (SIGKILL of every process): crash recovery
    # replays the 2036 horizon records written since the restart of 1, then
    # the reset; a clean restart after.
    for c in (writer, backend, poller.conn, naive.conn):
        c.close()
    log_at = len(p.log_text())
    p.kill_all()
    p.start()
    if "replayed a UUID sequencer reset: UUIDv7 from 2036-" not in p.log_text()[log_at:]:
        fail(f"crash recovery did not replay the reset:\n{p.log_tail()}")
    must_be_at_clock(new_keys(p), "after SIGKILL and crash recovery")
    ok("SIGKILL of every process after the reset: crash recovery replays the 2036 horizon records, then the "
       "reset; keys carry the clock, not 2036")

    # 7 (made here, while the primary runs). Point-in-time recovery from the
    # base backup made before the jump, through the whole archive.
    p.archive_current_wal(archive)
    b.recover_from(archive)
    b.start()
    wait_for(lambda: b.q("SELECT pg_is_in_recovery()") == "f", "the restore to finish")
    if "replayed a UUID sequencer reset: UUIDv7 from 2036-" not in b.log_text():
        fail(f"the restore did not replay the reset after the 2036 horizon:\n{b.log_tail()}")
    must_be_at_clock(new_keys(b), "after point-in-time recovery through the reset")
    b.stop()
    ok("point-in-time recovery from a base backup made before the clock jumped, through the archive: the "
       "2036 horizon records, then the reset; keys carry the clock")

    # 6. The standby follows, then is promoted.
    insert(connect(p), 10)
    p.wait_replayed(s)
    must_be_at_clock(new_keys(s), "on the standby after it replayed the reset")
    horizon_at_clock(s, "the standby's horizon file after the reset")
    if s.q("SELECT uuid_ext_info() -> 'last_reset' ->> 'replayed'") != "true":
        fail("the standby's uuid_ext_info() shows no replayed reset")
    if "replayed a UUID sequencer reset" not in s.log_text():
        fail(f"the standby's log does not show the replayed reset:\n{s.log_tail()}")
    r = s.q("SELECT * FROM uuid_ext_sequencer_reset()", check=False)
    if r.returncode == 0 or "cannot reset the UUID sequencer during recovery" not in r.stderr:
        fail(f"a reset on the standby was not refused: {r.stdout}{r.stderr}")
    code = s.q("\\set VERBOSITY sqlstate\nSELECT * FROM uuid_ext_sequencer_reset();", check=False).stderr.strip()
    if not code.endswith("25006"):
        fail(f"a reset on the standby failed with {code!r}, not 25006")
    p.stop()
    s.promote()
    wait_for(lambda: s.q("SELECT uuid_ext_info() ->> 'horizon_worker_pid'") != "", "the promoted worker")
    must_be_at_clock(new_keys(s), "on the promoted standby")
    if int(s.q("SELECT max(n) FROM t")) < max(committed):
        fail("the promoted standby lacks committed rows")
    s.stop()
    ok("the standby replays the reset (its keys, its horizon file, last_reset.replayed) and refuses one of its "
       "own (25006); promoted, it makes keys at the clock")
    p.start()
    must_be_at_clock(new_keys(p), "after a clean restart")
    p.stop()
    ok("a clean restart of the primary after the reset: keys carry the clock")
