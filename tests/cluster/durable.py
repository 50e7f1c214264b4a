#!/usr/bin/env python3
"""Durable order (docs/ordering.md#durable-order-restarts-and-crashes): the horizon file carries the sequencers
across restarts, a SIGKILL of every server process, and a clock that steps
back while the server is down.

The server runs under libfaketime, its clock read from a file, with
`fsync = on`. This script stops and starts it itself (fast, immediate, and
SIGKILL of the postmaster and every child), moves its clock, and checks that
every new UUIDv7 and UUIDv6 is above every earlier one. Then it shows the
check can fail: with `uuid_ext.durable_margin = 0` the words start from the
clock again and new UUIDs sort below old ones. Last, the error paths: an
unwritable file is an ERROR naming it, a damaged file a WARNING and a clean
start.

Env: PSQL, PGHOST, PGPORT, PGUSER; PGBIN; PGDATA (the cluster's data
directory); SERVER_LOG; FAKETIME_FILE; UUID_EXT_USER; SERVER_ENV (the
VAR=value words the server runs with: LD_PRELOAD and libfaketime's).
"""
import datetime
import os
import subprocess
import time
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))  # tests/lib: pg, servers
import pg
from pg import GENERATORS, fail, horizon_words, kill_server, ok, q, unix_ms, wait_for

DATA = os.environ["PGDATA"]
HORIZON = os.path.join(DATA, "uuid_ext.horizon")
TEMP = os.path.join(DATA, "uuid_ext.horizon.tmp")
DAY_MS = 86_400_000


def pg_ctl(*args):
    cmd = ["sudo", "-u", os.environ["UUID_EXT_USER"], "-H", "--", "env", *os.environ["SERVER_ENV"].split(),
           os.path.join(os.environ["PGBIN"], "pg_ctl"), "-D", DATA, "-w", "-t", "60", *args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"pg_ctl {' '.join(args)} failed:\n{r.stdout}{r.stderr}\n{open(os.environ['SERVER_LOG']).read()[-3000:]}")


def start():
    pg_ctl("-l", os.environ["SERVER_LOG"], "start")
    if q("SELECT uuid_ext_info() ->> 'sequencer'") != "shared":
        fail("not on the shared sequencer after the start")


def stop(mode):
    pg_ctl("-m", mode, "stop")


def kill_all():
    kill_server(DATA)


def set_clock(spec):
    pg.set_clock(os.environ["FAKETIME_FILE"], spec)


def newest(n=2_000):
    """The greatest of n new UUIDs of each version: {version: int}."""
    return {v: int(q(f"SELECT max(id::text) FROM (SELECT {gen} AS id FROM generate_series(1, {n})) s")
                   .replace("-", ""), 16)
            for v, gen in GENERATORS.items()}


def v7_word(u):
    """The sequencer word a UUIDv7 carries: 48-bit ms, 12-bit fraction, 4-bit counter."""
    return ((u >> 80) << 16) | (((u >> 64) & 0xfff) << 4) | ((u >> 58) & 0xf)


def v6_word(u):
    """The 60-bit time a UUIDv6 carries."""
    return ((u >> 80) << 12) | ((u >> 64) & 0xfff)


def file_words():
    return horizon_words(DATA)


def must_stay_above(before, what):
    after = newest()
    for v in GENERATORS:
        if after[v] <= before[v]:
            fail(f"{what}: a UUIDv{v} went backwards: {after[v]:032x} <= {before[v]:032x}")
    return after


def lead_h(u):
    """How far a UUID's time is ahead of the server's (faked) clock, in hours."""
    server_ms = float(q("SELECT extract(epoch FROM clock_timestamp())")) * 1000
    return (unix_ms(u) - server_ms) / 3.6e6


def main():
    q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    info = q("SELECT concat_ws(' ', uuid_ext_info() ->> 'durable', uuid_ext_info() ->> 'durable_margin_ms')")
    if info != "true 1000":
        fail(f"uuid_ext_info() says durable, margin: {info}")

    # A burst with the clock frozen: the words run ahead of it.
    frozen = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    set_clock(frozen.strftime("%Y-%m-%d %H:%M:%S"))
    wait_for(lambda: q("SELECT clock_timestamp() = clock_timestamp()") == "t", "the server's clock to freeze")
    burst = newest(300_000)
    frozen_ms = int(frozen.timestamp() * 1000)
    if unix_ms(burst[7]) <= frozen_ms:
        fail("the burst did not run the UUIDv7 word ahead of the frozen clock")
    ok(f"a burst of 300,000 with the clock frozen runs the UUIDv7 word {unix_ms(burst[7]) - frozen_ms} ms ahead")
    kill_all()
    start()
    after = must_stay_above(burst, "SIGKILL of every server process after a burst, clock still frozen")
    stop("immediate")
    start()
    after = must_stay_above(after, "immediate stop and start after a burst, clock still frozen")
    ok("after the burst: SIGKILL of every server process, then an immediate stop: new UUIDv7s and v6s stay above")

    # A sparse writer: the horizon worker keeps the horizon ahead of the
    # clock, so a UUID made every 1.2 s never writes the file itself.
    set_clock("+0")
    wait_for(lambda: q("SELECT clock_timestamp() < clock_timestamp()") == "t", "the server's clock to run")
    newest(10)
    time.sleep(1.2)

    def writes():
        return tuple(int(q(f"SELECT uuid_ext_info() #>> '{{horizon,{k}}}'")) for k in ("writes_inline", "writes_by_worker"))
    inline0, worker0 = writes()
    for _ in range(4):
        time.sleep(1.2)
        for gen in GENERATORS.values():
            q(f"SELECT {gen}")
    inline1, worker1 = writes()
    if inline1 != inline0 or worker1 <= worker0:
        fail(f"a sparse writer: horizon writes inline {inline0} -> {inline1}, by the worker {worker0} -> {worker1}")
    ok(f"a UUIDv7 and a UUIDv6 every 1.2 s: none writes the horizon itself; the worker wrote it {worker1 - worker0} "
       "times meanwhile")

    before = newest()
    stop("fast")
    w7, w6 = file_words()
    if (w7, w6) != (v7_word(before[7]), v6_word(before[6])):
        fail(f"a clean shutdown did not write the exact words: file {w7:x} {w6:x}, "
             f"last given {v7_word(before[7]):x} {v6_word(before[6]):x}")
    set_clock("-1d")
    start()
    after = must_stay_above(before, "fast stop, clock stepped back a day, start")
    ok(f"fast stop writes the exact words; clock back a day, start: above, {lead_h(after[7]):.1f} h "
       "ahead of the server's clock")

    stop("immediate")
    set_clock("-2d")
    start()
    after = must_stay_above(after, "immediate stop, clock back two days, start")
    ok(f"immediate stop, clock back two days, start: above, {lead_h(after[7]):.1f} h ahead of the server's clock")

    before = newest()
    kill_all()
    set_clock("-3d")
    start()
    after = must_stay_above(before, "SIGKILL of every server process, clock back three days, start")
    jump = unix_ms(after[7]) - unix_ms(before[7])
    if jump > 1_000 + 5_000:
        fail(f"after the SIGKILL the UUIDv7 time jumped {jump} ms, more than the margin")
    ok(f"SIGKILL of every server process, clock back three days, start: above (UUIDv7 time {jump} ms on: the "
       "horizon is at most the 1 s margin ahead of the last UUID or the clock at the kill)")

    # The margin at 0: the old behaviour, new UUIDs follow the clock three
    # days back, below the old ones. (So the checks above can fail.)
    q("ALTER SYSTEM SET uuid_ext.durable_margin = 0")
    before = newest()
    stop("fast")
    start()
    if os.path.exists(HORIZON):
        fail("with uuid_ext.durable_margin = 0 the horizon file was kept")
    if q("SELECT uuid_ext_info() ->> 'durable'") != "false":
        fail("uuid_ext_info() says durable with the margin at 0")
    after = newest()
    for v in GENERATORS:
        if after[v] >= before[v]:
            fail(f"with the margin at 0 a UUIDv{v} did not start from the clock")
    ok(f"uuid_ext.durable_margin = 0: the words start from the clock, "
       f"{(unix_ms(before[7]) - unix_ms(after[7])) / 3.6e6:.1f} h below the UUIDs made before (what a server without the horizon does)")

    # On again (a reload), the clock back at now: the next UUID extends the
    # horizon; a file in the way is an ERROR naming it, and nothing is made.
    set_clock("+0")
    q("ALTER SYSTEM RESET uuid_ext.durable_margin")
    q("SELECT pg_reload_conf()")
    wait_for(lambda: q("SELECT uuid_ext_info() ->> 'durable'") == "true", "the setting to reload")
    before = newest(10)
    log_size = os.path.getsize(os.environ["SERVER_LOG"])
    with open(TEMP, "w") as f:
        f.write("in the way\n")
    os.chmod(TEMP, 0o400)  # root's: the server's user cannot open it
    time.sleep(1.2)  # the clock passes the horizon those UUIDs wrote
    for v, gen in GENERATORS.items():
        r = subprocess.run([os.environ["PSQL"], "-X", "-At", "-c", r"\set VERBOSITY verbose", "-c",
                            f"SELECT {gen}"], capture_output=True, text=True)
        if r.returncode == 0 or "ERROR:  42501: could not write the UUID sequencer horizon " \
                '"uuid_ext.horizon.tmp" in the data directory: Permission denied' not in r.stderr \
                or DATA in r.stderr:
            fail(f"UUIDv{v} with the horizon file unwritable: {r.stdout}{r.stderr}")
    log = open(os.environ["SERVER_LOG"]).read()[log_size:]
    # The client is told the file's name in the data directory; the server
    # log has the full path (docs/design.md#errors).
    if f'uuid_ext: could not write "{TEMP}": Permission denied' not in log:
        fail(f"the server log does not name the unwritable file by its full path:\n{log}")
    if "WARNING:  uuid_ext: the horizon worker could not write" not in log or log.count("horizon worker") > 2:
        fail(f"the horizon worker did not report the unwritable file once:\n{log}")
    os.unlink(TEMP)
    after = must_stay_above(before, "after the unwritable file was fixed")
    w7, w6 = file_words()
    if not (w7 >= v7_word(after[7]) and w6 >= v6_word(after[6])):
        fail("values were handed out above the horizon on disk")
    ok("an unwritable horizon file: the horizon worker logs one WARNING and retries; ERROR 42501 naming the "
       "file in the data directory and the cause for UUIDv7 and v6 (the full path in the server log), nothing made; fixed, generation goes on below the horizon on disk")

    # A damaged file: a WARNING at start, then a clean start from the clock.
    for damage, what in ((lambda t: t[: len(t) // 2], "truncated"),
                         (lambda t: t.replace("v7 ", "v7 1", 1), "hand-edited")):
        stop("fast")
        text = open(HORIZON).read()
        with open(HORIZON, "w") as f:
            f.write(damage(text))
        log_size = os.path.getsize(os.environ["SERVER_LOG"])
        start()
        log = open(os.environ["SERVER_LOG"]).read()[log_size:]
        if "WARNING:  uuid_ext: ignoring damaged sequencer horizon file" not in log:
            fail(f"a {what} horizon file gave no WARNING at start:\n{log}")
        newest(10)
        w7, _ = file_words()
        ok(f"a {what} horizon file: a WARNING, a clean start, and a new horizon ({w7:016x})")


if __name__ == "__main__":
    main()
