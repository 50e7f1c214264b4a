"""Order across failover, point-in-time recovery and crashes; the commit watermark on a standby.

What docs/ordering.md#durable-order-in-the-wal-standbys-failover-point-in-time-recovery says.

Every server here preloads uuid_ext and runs under libfaketime with a clock
of its own. The primary writes its horizon and its watermark to the WAL
(`uuid_ext.durable_wal = on`) and archives its WAL to a local directory.

 1. A standby made with `pg_basebackup -R` replays writes (half of the keys
    leased 1,000 at a time, docs/ordering.md#leases-uuid_extcache); a read-only query
    on it makes UUIDs above every key it replayed; promoted with its clock a
    day behind, every new UUIDv7 and v6 is above every replayed key.
 2. Another standby replays, makes a restartpoint, has its horizon file
    raised by redo; a base backup taken from it starts a day behind: above;
    it is stopped immediately, restarts with its clock a day behind, and is
    promoted: above.
 3. The watermark test's writers run on the primary (every other one
    leasing keys) and its pollers on a standby: the watermark poller sees
    every committed row exactly once, the
    naive one misses rows in the same run.
 4. A standby without the library stops at the first record with the
    documented error; preloading the library lets it go on.
 5. Point-in-time recovery from a base backup and the archive to a named
    restore point, with the clock a day behind: above.
 6. Records, a CHECKPOINT, then SIGKILL of every server process, the clock
    two days behind: above.
 7. With `uuid_ext.durable_wal = off` the standby's uuid_v7_watermark()
    raises 55000 naming the setting, and the promotion of step 1 puts new
    keys below replayed ones (the failure the WAL records prevent), so the checks
    above can fail.

Starts its own servers under libfaketime (the primary archives into its
test directory's archive/); needs psycopg 3.
"""
import os
import re
import subprocess
import time

import watermark_load
from pg import GENERATORS, fail, horizon_words, ok, persisted, unix_ms, uuid_int, wait_for

DAY_MS = 86_400_000


def wal_rmgr_error(log):
    """The error a server without the library stops with at uuid_ext's first WAL record."""
    return re.search(r"resource manager with ID \d+ not registered", log)


def primary_conf(archive, wal):
    return ["shared_preload_libraries = 'uuid_ext'", f"uuid_ext.durable_wal = {'on' if wal else 'off'}",
            "wal_level = replica", "max_wal_senders = 10", "fsync = on", "max_prepared_transactions = 64",
            "archive_mode = on", f"archive_command = 'cp %p {archive}/%f'"]


# Copies never archive: a promoted copy would put its new timeline's files
# into the archive the restore reads.
COPY_CONF = ["archive_mode = off"]


def make_keys(srv, n, cache=1):
    """n rows, their keys drawn `cache` at a time (docs/ordering.md#leases-uuid_extcache)."""
    srv.q(f"SET uuid_ext.cache = {cache};\nINSERT INTO t (n) SELECT generate_series(1, {n})")


def maxima(srv):
    """The greatest UUIDv7 and UUIDv6 key in t: {version: int}."""
    row = srv.q("SELECT max(id::text) || ' ' || max(id6::text) FROM t").split()
    return {7: uuid_int(row[0]), 6: uuid_int(row[1])}


def must_be_above(new, old, what):
    for v in GENERATORS:
        if new[v] <= old[v]:
            fail(f"{what}: a new UUIDv{v} {new[v]:032x} is not above the replayed {old[v]:032x}")


def start_primary(t, name, wal):
    p = t.server(name, clock=True)
    p.initdb(*primary_conf(t.path("archive"), wal))
    p.start()
    p.q("CREATE EXTENSION uuid_ext")
    p.q("CREATE TABLE t (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), "
        "id6 uuid UNIQUE DEFAULT uuid_generate_v6(), n int)")
    if p.q("SELECT uuid_ext_info() ->> 'durable_wal'") != ("true" if wal else "false"):
        fail("the primary's uuid_ext_info() does not show uuid_ext.durable_wal")
    wait_for(lambda: p.q("SELECT uuid_ext_info() ->> 'horizon_worker_pid'") != "", "the horizon worker to start")
    return p


def standby_of(t, p, name, clock="+0", *conf):
    s = t.server(name, clock=True)
    p.base_backup(s, "-R", "-X", "stream")
    s.configure(*COPY_CONF, *conf)
    s.set_clock(clock)
    s.start()
    return s


def main(t):
    archive = t.path("archive")
    t.host.make_dir(archive)

    p = start_primary(t, "primary", wal=True)
    # A base backup before any key, for the point-in-time restore (5).
    backup = t.server("backup", clock=True)
    p.base_backup(backup, "-X", "stream")

    # 1. A standby; writes on the primary; read-only UUIDs on the standby.
    s1 = standby_of(t, p, "standby1")
    if s1.q("SELECT uuid_ext_info() ->> 'horizon_worker_pid'") != "":
        fail("the horizon worker runs on a standby")
    s4 = standby_of(t, p, "standby4")
    make_keys(p, 50_000)
    p.q("CHECKPOINT")
    make_keys(p, 50_000, cache=1000)
    p.q("SELECT pg_create_restore_point('after_writes')")
    replayed = maxima(p)
    p.archive_current_wal(archive)
    p.wait_replayed(s1)
    p.wait_replayed(s4)
    if maxima(s1) != replayed:
        fail("standby1 has not replayed every key")
    on_standby = s1.least_new()
    must_be_above(on_standby, replayed, "UUIDs made by a read-only query on the standby")
    ok("a standby made with pg_basebackup -R replays 100,000 keys (half of them leased 1,000 at a time); UUIDs "
       "made by read-only queries on it are "
       "above every key it replayed (v7 and v6); the horizon worker does not run there")

    s1.set_clock("-1d")
    wait_for(lambda: float(s1.q("SELECT extract(epoch FROM clock_timestamp())")) < time.time() - 80_000,
             "standby1's clock to step back a day")
    s1.promote()
    wait_for(lambda: s1.q("SELECT uuid_ext_info() ->> 'horizon_worker_pid'") != "",
             "the horizon worker to start at promotion")
    after = s1.least_new()
    must_be_above(after, replayed, "promotion with the standby's clock a day behind")
    make_keys(s1, 10)
    if s1.q("SELECT string_agg(n::text, ',' ORDER BY id) FROM (SELECT * FROM t ORDER BY id DESC LIMIT 10) s") \
            != ",".join(str(i) for i in range(1, 11)):
        fail("rows inserted after the promotion do not sort after the replayed ones")
    ok(f"promoted with its clock a day behind: every new UUIDv7 and v6 is above every replayed key (v7 "
       f"{(unix_ms(after[7]) - unix_ms(replayed[7])) / 1000:.1f} s on); the horizon worker started at promotion")
    s1.stop()

    # 2. A restartpoint, an immediate stop, a restart a day behind, promotion.
    s4.q("CHECKPOINT")  # a restartpoint: recovery after a restart begins past the records above
    file_after = dict(zip((7, 6), horizon_words(s4.data)))
    for v in GENERATORS:
        if file_after[v] < persisted(replayed[v]):
            fail(f"standby4's horizon file (v{v} {file_after[v]:x}) is below the replayed keys: redo did not write it")
    # A base backup taken from the standby, started on its own a day behind.
    b = t.server("from_standby", clock=True)
    s4.base_backup(b, "-X", "stream")
    # The copy carries the standby's standby.signal: without it, it replays
    # only the WAL it holds, then starts as a primary.
    os.unlink(os.path.join(b.data, "standby.signal"))
    b.configure(*COPY_CONF)
    b.set_clock("-1d")
    b.start()
    wait_for(lambda: b.q("SELECT pg_is_in_recovery()") == "f", "the copy of the standby to finish recovery")
    must_be_above(b.least_new(), replayed, "a base backup taken from a standby, started a day behind")
    b.stop()
    s4.stop("immediate")
    s4.set_clock("-1d")
    s4.start()
    p.wait_replayed(s4)
    s4.promote()
    must_be_above(s4.least_new(), replayed, "a standby restarted after a restartpoint, then promoted")
    ok("a standby's redo writes its own horizon file, which covers every replayed key; a base backup taken from "
       "the standby, started a day behind: above; the standby after a restartpoint, an immediate stop and a "
       "restart a day behind, promoted: above every replayed key")
    s4.stop()

    # 3. The watermark poller on a standby.
    s2 = standby_of(t, p, "standby2")
    watermark_load.run(p.conninfo(), s2.conninfo(), leased=True)
    s2.stop()

    # 4. A standby without the library.
    s3 = t.server("standby3", clock=True)
    p.base_backup(s3, "-R", "-X", "stream")
    s3.configure(*COPY_CONF, "shared_preload_libraries = ''")
    s3.start(check=False)  # it may stop at a record the backup holds already
    make_keys(p, 10)
    wait_for(lambda: not s3.running(), "the standby without uuid_ext to stop")
    log = s3.log_text()
    if not wal_rmgr_error(log) or "FATAL" not in log:
        fail(f"the standby without the library did not stop with the documented error:\n{log}")
    s3.configure("shared_preload_libraries = 'uuid_ext'")
    s3.start()
    p.wait_replayed(s3)
    if maxima(s3) != maxima(p):
        fail("the standby did not catch up once the library was preloaded")
    ok(f"a standby without the library stops: \"{wal_rmgr_error(log).group(0)}\"; with "
       "shared_preload_libraries = 'uuid_ext' it starts again and catches up")
    s3.stop()

    # 5. Point-in-time recovery to the restore point, the clock a day behind.
    r = t.server("restored", clock=True)
    r.fresh_dir()
    subprocess.run(["cp", "-a", backup.data, r.data], check=True)  # owner and mode kept
    r.recover_from(archive, "recovery_target_name = 'after_writes'")
    r.set_clock("-1d")
    r.start()
    wait_for(lambda: r.q("SELECT pg_is_in_recovery()") == "f", "the restore to reach its target", 120)
    if maxima(r) != replayed:
        fail("the restore did not stop at the restore point")
    must_be_above(r.least_new(), replayed, "point-in-time recovery with the clock a day behind")
    ok("point-in-time recovery from a base backup taken before any key and the archived WAL, to a restore point, "
       "with the clock a day behind: every new key is above every restored one")
    r.stop()

    # 6. Records, a CHECKPOINT, SIGKILL of every process, the clock behind.
    make_keys(p, 50_000)
    before = maxima(p)
    p.q("CHECKPOINT")
    p.kill_all()
    p.set_clock("-2d")
    p.start()
    must_be_above(p.least_new(), before, "records, CHECKPOINT, SIGKILL of every process, clock two days behind")
    ok("records, a CHECKPOINT (recovery replays none of them), SIGKILL of every server process, the clock two "
       "days behind: above (the horizon file holds what the skipped records held)")
    p.stop()

    # 7. The same promotion with WAL logging off: the failure this fixes.
    p = start_primary(t, "primary_nowal", wal=False)
    s = standby_of(t, p, "standby_nowal")
    time.sleep(2.5)  # past the horizon the backup copied (a margin ahead)
    make_keys(p, 50_000)
    replayed = maxima(p)
    p.wait_replayed(s)
    r = s.q("\\set VERBOSITY verbose\nSELECT uuid_v7_watermark()", check=False)
    if r.returncode == 0 or "55000" not in r.stderr or "uuid_ext.durable_wal = on" not in r.stderr:
        fail(f"uuid_v7_watermark() on a standby of a primary without WAL logging: {r.stdout}{r.stderr}")
    s.set_clock("-1d")
    s.promote()
    after = s.least_new()
    below = [v for v in GENERATORS if after[v] <= replayed[v]]
    if below != [7, 6]:
        fail(f"with uuid_ext.durable_wal = off the promoted standby still stayed above (v{below})")
    ok(f"with uuid_ext.durable_wal = off the promoted standby's new UUIDv7s and v6s sort below replayed keys "
       f"(v7 {(unix_ms(replayed[7]) - unix_ms(after[7])) / 3.6e6:.1f} h below): the checks above can fail")
    s.stop()
    p.stop()
