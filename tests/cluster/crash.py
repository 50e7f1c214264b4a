"""The sequencers across a clock that steps back and a crash restart (docs/ordering.md#the-sequencer).

The server runs under libfaketime, its clock read from a file. It starts a
day ahead; UUIDv7s and UUIDv6s are made; the clock steps back a day (the
words stay ahead); a backend is killed with SIGKILL while generating, so the
postmaster resets shared memory; after the restart every new UUID of each
version must still be greater than every one before, although the clock is a
day behind them. That holds only if the postmaster carried both words across
the reset.

Starts its own server, preloading uuid_ext, under libfaketime.
"""
import os
import signal
import time

from pg import GENERATORS, fail, ok, unix_ms, wait_for

DAY_MS = 86_400_000


def newest(srv, n):
    """The greatest of n new UUIDs of each version: {version: uuid}."""
    return {v: int(srv.q(f"SELECT id FROM (SELECT {gen} AS id FROM generate_series(1, {n})) s "
                         "ORDER BY id DESC LIMIT 1").replace("-", ""), 16)
            for v, gen in GENERATORS.items()}


def lead_ms(u):
    """How far a UUID's time is ahead of the real (not faked) clock."""
    return unix_ms(u) - int(time.time() * 1000)


def least_lead_h(us):
    return min(lead_ms(u) for u in us.values()) / 3_600_000


def main(t):
    srv = t.server("crash", clock=True)
    srv.initdb("shared_preload_libraries = 'uuid_ext'")
    srv.set_clock("+1d")
    srv.start()
    srv.q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    if srv.q("SELECT uuid_ext_info() ->> 'sequencer'") != "shared":
        fail("not on the shared sequencer")
    skew = float(srv.q("SELECT extract(epoch FROM now())")) - time.time()
    if not 86_000 < skew < 86_800:
        fail(f"the server's clock is not a day ahead (skew {skew:.0f} s): libfaketime did not take")

    before = newest(srv, 20_000)
    if any(lead_ms(u) < DAY_MS - 600_000 for u in before.values()):
        fail("UUIDs made a day ahead do not carry that time")

    srv.set_clock("+0")
    wait_for(lambda: abs(float(srv.q("SELECT extract(epoch FROM clock_timestamp())")) - time.time()) < 60,
             "the server's clock to step back")
    after_step = newest(srv, 1_000)
    for v in GENERATORS:
        if after_step[v] <= before[v]:
            fail(f"after the clock stepped back a day, a UUIDv{v} went backwards")
        if lead_ms(after_step[v]) < DAY_MS - 600_000:
            fail(f"after the clock stepped back, the UUIDv{v} time did not stay ahead")
    ok(f"clock stepped back a day: the next UUIDv7s and UUIDv6s stay above, "
       f"{least_lead_h(after_step):.1f} h ahead of the clock")

    # A backend generating in a tight loop, killed with SIGKILL.
    victim = srv.start_script("SELECT count(uuid_generate_v7()) FROM generate_series(1, 2000000000);")
    pid = None

    def active():
        nonlocal pid
        pid = srv.q("SELECT pid FROM pg_stat_activity WHERE state = 'active' "
                    "AND query LIKE 'SELECT count(uuid_generate_v7())%'")
        return pid != ""

    wait_for(active, "the generating backend")
    time.sleep(1.0)
    start_time = srv.q("SELECT pg_postmaster_start_time()")
    os.kill(int(pid), signal.SIGKILL)
    victim.wait()

    def back():
        return srv.q("SELECT 1", check=False).stdout.strip() == "1"

    time.sleep(0.5)
    wait_for(back, "the server to restart after the crash", timeout=120)
    log = srv.log_text()
    if "terminated by signal 9" not in log or "all server processes terminated; reinitializing" not in log:
        fail("the server log shows no crash restart")
    if srv.q("SELECT pg_postmaster_start_time()") != start_time:
        fail("the postmaster itself restarted: not a crash restart")
    if srv.q("SELECT uuid_ext_info() ->> 'sequencer'") != "shared":
        fail("the shared sequencer did not come back after the crash restart")

    after_crash = newest(srv, 1_000)
    for v in GENERATORS:
        if after_crash[v] <= after_step[v]:
            fail(f"after the crash restart a UUIDv{v} went backwards: {after_crash[v]:032x} <= "
                 f"{after_step[v]:032x} (the word was not carried across the reset)")
    ok(f"crash restart (backend killed with SIGKILL while generating): the shared sequencer is back and "
       f"new UUIDv7s and UUIDv6s stay above every earlier one, {least_lead_h(after_crash):.1f} h ahead of the clock")
