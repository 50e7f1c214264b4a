"""Durable order: restarts, SIGKILL of every server process, a clock stepped back (libfaketime).

docs/ordering.md#durable-order-restarts-and-crashes: the horizon file
carries the sequencers across restarts, a SIGKILL of every server process,
and a clock that steps back while the server is down.

The test starts its own server, preloading uuid_ext, under libfaketime (its
clock read from a file), with `fsync = on`. It stops and starts it itself
(fast, immediate, and SIGKILL of the postmaster and every child), moves its
clock, and checks that every new UUIDv7 and UUIDv6 is above every earlier
one, after draws one at a time and after draws leasing 1000 at a time
(docs/ordering.md#leases). Then it shows the check can fail: with `uuid_ext.durable_margin = 0`
the words start from the clock again and new UUIDs sort below old ones.
Last, the error paths: an unwritable file is an ERROR naming it, a damaged
file a WARNING and a clean start.
"""
import datetime
import os
import subprocess
import time

from pg import GENERATORS, fail, horizon_words, ok, unix_ms, wait_for

DAY_MS = 86_400_000


def start(srv):
    srv.start()
    if srv.q("SELECT uuid_ext_info() ->> 'sequencer'") != "shared":
        fail("not on the shared sequencer after the start")


def newest(srv, n=2_000, cache=1):
    """The greatest of n new UUIDs of each version, drawn `cache` at a time: {version: int}."""
    return {v: int(srv.q(f"SET uuid_ext.cache = {cache};\n"
                         f"SELECT max(id::text) FROM (SELECT {gen} AS id FROM generate_series(1, {n})) s")
                   .replace("-", ""), 16)
            for v, gen in GENERATORS.items()}


def v7_word(u):
    """The sequencer word a UUIDv7 carries: 48-bit ms, 12-bit fraction, 4-bit counter."""
    return ((u >> 80) << 16) | (((u >> 64) & 0xfff) << 4) | ((u >> 58) & 0xf)


def v6_word(u):
    """The 60-bit time a UUIDv6 carries."""
    return ((u >> 80) << 12) | ((u >> 64) & 0xfff)


def must_stay_above(srv, before, what):
    after = newest(srv)
    for v in GENERATORS:
        if after[v] <= before[v]:
            fail(f"{what}: a UUIDv{v} went backwards: {after[v]:032x} <= {before[v]:032x}")
    return after


def lead_h(srv, u):
    """How far a UUID's time is ahead of the server's (faked) clock, in hours."""
    server_ms = float(srv.q("SELECT extract(epoch FROM clock_timestamp())")) * 1000
    return (unix_ms(u) - server_ms) / 3.6e6


def main(t):
    srv = t.server("durable", clock=True)
    srv.initdb("shared_preload_libraries = 'uuid_ext'", "fsync = on")
    srv.start()
    horizon = os.path.join(srv.data, "uuid_ext.horizon")
    temp = os.path.join(srv.data, "uuid_ext.horizon.tmp")
    srv.q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    info = srv.q("SELECT concat_ws(' ', uuid_ext_info() ->> 'durable', uuid_ext_info() ->> 'durable_margin_ms')")
    if info != "true 1000":
        fail(f"uuid_ext_info() says durable, margin: {info}")

    # A burst with the clock frozen: the words run ahead of it.
    frozen = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    srv.set_clock(frozen.strftime("%Y-%m-%d %H:%M:%S"))
    wait_for(lambda: srv.q("SELECT clock_timestamp() = clock_timestamp()") == "t", "the server's clock to freeze")
    burst = newest(srv, 300_000)
    frozen_ms = int(frozen.timestamp() * 1000)
    if unix_ms(burst[7]) <= frozen_ms:
        fail("the burst did not run the UUIDv7 word ahead of the frozen clock")
    ok(f"a burst of 300,000 with the clock frozen runs the UUIDv7 word {unix_ms(burst[7]) - frozen_ms} ms ahead")
    srv.kill_all()
    start(srv)
    after = must_stay_above(srv, burst, "SIGKILL of every server process after a burst, clock still frozen")
    srv.stop("immediate")
    start(srv)
    after = must_stay_above(srv, after, "immediate stop and start after a burst, clock still frozen")
    ok("after the burst: SIGKILL of every server process, then an immediate stop: new UUIDv7s and v6s stay above")
    # Leases (docs/ordering.md#leases): each block is made durable whole
    # before any key of it is given.
    leased = newest(srv, 300_000, cache=1000)
    srv.kill_all()
    start(srv)
    after = must_stay_above(srv, leased, "SIGKILL after a burst leasing 1000 keys at a time, clock still frozen")
    ok("a burst leasing 1000 keys at a time (uuid_ext.cache = 1000), then SIGKILL of every server process: new "
       "UUIDv7s and v6s stay above")
    # A lease is only ever of the shared word: a session that draws from its
    # own word, then from the shared one, in one transaction, gets a key of
    # the shared word, which no other session gets again (on the code that
    # leased the session's own word too, its second key came from that
    # block, and the next session's strict draws repeated it: the clock is
    # frozen, the words ahead of it).
    switched = int(srv.q("SET uuid_ext.cache = 100;\nBEGIN;\nSET LOCAL uuid_ext.monotonicity = backend;\n"
                         "SELECT uuid_generate_v7() \\g /dev/null\nSET LOCAL uuid_ext.monotonicity = shared;\n"
                         "SELECT uuid_generate_v7();\nCOMMIT;").splitlines()[-1].replace("-", ""), 16)
    later = [int(x.replace("-", ""), 16) for x in
             srv.q("SELECT uuid_generate_v7() FROM generate_series(1, 200)").splitlines()]
    if switched <= after[7] or min(later) <= switched:
        fail(f"leasing, a session's own word then the shared one: its key {switched:032x}; the next session's "
             f"strict keys from {min(later):032x} (the earlier keys up to {after[7]:032x})")
    ok("leasing, a session that draws from its own word and then the shared one in a transaction: its key is "
       "above every earlier key and below the next session's, the clock frozen")

    # A sparse writer: the horizon worker keeps the horizon ahead of the
    # clock, so a UUID made every 1.2 s never writes the file itself.
    srv.set_clock("+0")
    wait_for(lambda: srv.q("SELECT clock_timestamp() < clock_timestamp()") == "t", "the server's clock to run")
    newest(srv, 10)
    time.sleep(1.2)

    def writes():
        return tuple(int(srv.q(f"SELECT uuid_ext_info() #>> '{{horizon,{k}}}'"))
                     for k in ("writes_inline", "writes_by_worker"))
    inline0, worker0 = writes()
    for _ in range(4):
        time.sleep(1.2)
        for gen in GENERATORS.values():
            srv.q(f"SELECT {gen}")
    inline1, worker1 = writes()
    if inline1 != inline0 or worker1 <= worker0:
        fail(f"a sparse writer: horizon writes inline {inline0} -> {inline1}, by the worker {worker0} -> {worker1}")
    ok(f"a UUIDv7 and a UUIDv6 every 1.2 s: none writes the horizon itself; the worker wrote it {worker1 - worker0} "
       "times meanwhile")

    before = newest(srv)
    srv.stop("fast")
    w7, w6 = horizon_words(srv.data)
    if (w7, w6) != (v7_word(before[7]), v6_word(before[6])):
        fail(f"a clean shutdown did not write the exact words: file {w7:x} {w6:x}, "
             f"last given {v7_word(before[7]):x} {v6_word(before[6]):x}")
    srv.set_clock("-1d")
    start(srv)
    after = must_stay_above(srv, before, "fast stop, clock stepped back a day, start")
    ok(f"fast stop writes the exact words; clock back a day, start: above, {lead_h(srv, after[7]):.1f} h "
       "ahead of the server's clock")

    srv.stop("immediate")
    srv.set_clock("-2d")
    start(srv)
    after = must_stay_above(srv, after, "immediate stop, clock back two days, start")
    ok(f"immediate stop, clock back two days, start: above, {lead_h(srv, after[7]):.1f} h ahead of the server's clock")

    before = newest(srv)
    srv.kill_all()
    srv.set_clock("-3d")
    start(srv)
    after = must_stay_above(srv, before, "SIGKILL of every server process, clock back three days, start")
    jump = unix_ms(after[7]) - unix_ms(before[7])
    if jump > 1_000 + 5_000:
        fail(f"after the SIGKILL the UUIDv7 time jumped {jump} ms, more than the margin")
    ok(f"SIGKILL of every server process, clock back three days, start: above (UUIDv7 time {jump} ms on: the "
       "horizon is at most the 1 s margin ahead of the last UUID or the clock at the kill)")

    # The margin at 0: the old behaviour, new UUIDs follow the clock three
    # days back, below the old ones. (So the checks above can fail.)
    srv.q("ALTER SYSTEM SET uuid_ext.durable_margin = 0")
    before = newest(srv)
    srv.stop("fast")
    start(srv)
    if os.path.exists(horizon):
        fail("with uuid_ext.durable_margin = 0 the horizon file was kept")
    if srv.q("SELECT uuid_ext_info() ->> 'durable'") != "false":
        fail("uuid_ext_info() says durable with the margin at 0")
    after = newest(srv)
    for v in GENERATORS:
        if after[v] >= before[v]:
            fail(f"with the margin at 0 a UUIDv{v} did not start from the clock")
    ok(f"uuid_ext.durable_margin = 0: the words start from the clock, "
       f"{(unix_ms(before[7]) - unix_ms(after[7])) / 3.6e6:.1f} h below the UUIDs made before (what a server without the horizon does)")

    # On again (a reload), the clock back at now: the next UUID extends the
    # horizon; a file in the way is an ERROR naming it, and nothing is made.
    srv.set_clock("+0")
    srv.q("ALTER SYSTEM RESET uuid_ext.durable_margin")
    srv.q("SELECT pg_reload_conf()")
    wait_for(lambda: srv.q("SELECT uuid_ext_info() ->> 'durable'") == "true", "the setting to reload")
    before = newest(srv, 10)
    log_size = srv.log_size()
    with open(temp, "w") as f:
        f.write("in the way\n")
    os.chmod(temp, 0o400)  # root's: the server's user cannot open it
    time.sleep(1.2)  # the clock passes the horizon those UUIDs wrote
    for v, gen in GENERATORS.items():
        r = subprocess.run([*srv.psql(), "-c", r"\set VERBOSITY verbose", "-c",
                            f"SELECT {gen}"], capture_output=True, text=True)
        if r.returncode == 0 or "ERROR:  42501: could not write the UUID sequencer horizon " \
                '"uuid_ext.horizon.tmp" in the data directory: Permission denied' not in r.stderr \
                or srv.data in r.stderr:
            fail(f"UUIDv{v} with the horizon file unwritable: {r.stdout}{r.stderr}")
    log = srv.log_text()[log_size:]
    # The client is told the file's name in the data directory; the server
    # log has the full path (docs/design.md#errors).
    if f'uuid_ext: could not write "{temp}": Permission denied' not in log:
        fail(f"the server log does not name the unwritable file by its full path:\n{log}")
    if "WARNING:  uuid_ext: the horizon worker could not write" not in log or log.count("horizon worker") > 2:
        fail(f"the horizon worker did not report the unwritable file once:\n{log}")
    os.unlink(temp)
    after = must_stay_above(srv, before, "after the unwritable file was fixed")
    w7, w6 = horizon_words(srv.data)
    if not (w7 >= v7_word(after[7]) and w6 >= v6_word(after[6])):
        fail("values were handed out above the horizon on disk")
    ok("an unwritable horizon file: the horizon worker logs one WARNING and retries; ERROR 42501 naming the "
       "file in the data directory and the cause for UUIDv7 and v6 (the full path in the server log), nothing made; fixed, generation goes on below the horizon on disk")

    # A damaged file: a WARNING at start, then a clean start from the clock.
    for damage, what in ((lambda t: t[: len(t) // 2], "truncated"),
                         (lambda t: t.replace("v7 ", "v7 1", 1), "hand-edited")):
        srv.stop("fast")
        text = open(horizon).read()
        with open(horizon, "w") as f:
            f.write(damage(text))
        log_size = srv.log_size()
        start(srv)
        log = srv.log_text()[log_size:]
        if "WARNING:  uuid_ext: ignoring damaged sequencer horizon file" not in log:
            fail(f"a {what} horizon file gave no WARNING at start:\n{log}")
        newest(srv, 10)
        w7, _ = horizon_words(srv.data)
        ok(f"a {what} horizon file: a WARNING, a clean start, and a new horizon ({w7:016x})")
