#!/usr/bin/env python3
"""The sequencer across a clock that steps back and a crash restart (SPEC §4).

The server runs under libfaketime, its clock read from a file. It starts a
day ahead; UUIDs are made; the clock steps back a day (the word stays
ahead); a backend is killed with SIGKILL while generating, so the postmaster
resets shared memory; after the restart every new UUID must still be greater
than every UUID before, although the clock is a day behind them. That holds
only if the postmaster carried the word across the reset.

Env: PSQL, PGHOST, PGPORT, PGUSER; FAKETIME_FILE (the file the server reads
its clock offset from); SERVER_LOG.
"""
import os
import signal
import time
from pg import fail, ok, q, start, wait_for

DAY_MS = 86_400_000


def newest(n):
    return int(q(f"SELECT id FROM (SELECT uuid_generate_v7() AS id FROM generate_series(1, {n})) s "
                 "ORDER BY id DESC LIMIT 1").replace("-", ""), 16)


def lead_ms(u):
    """How far a UUIDv7's time is ahead of the real (not faked) clock."""
    return (u >> 80) - int(time.time() * 1000)


def main():
    fake = os.environ["FAKETIME_FILE"]
    q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    if q("SELECT uuid_ext_info() ->> 'sequencer'") != "shared":
        fail("not on the shared sequencer")
    skew = float(q("SELECT extract(epoch FROM now())")) - time.time()
    if not 86_000 < skew < 86_800:
        fail(f"the server's clock is not a day ahead (skew {skew:.0f} s): libfaketime did not take")

    before = newest(20_000)
    if lead_ms(before) < DAY_MS - 600_000:
        fail("UUIDs made a day ahead do not carry that time")

    with open(fake, "w") as f:
        f.write("+0\n")
    wait_for(lambda: abs(float(q("SELECT extract(epoch FROM clock_timestamp())")) - time.time()) < 60,
             "the server's clock to step back")
    after_step = newest(1_000)
    if after_step <= before:
        fail("after the clock stepped back a day, a UUID went backwards")
    if lead_ms(after_step) < DAY_MS - 600_000:
        fail("after the clock stepped back, the embedded time did not stay ahead")
    ok(f"clock stepped back a day: the next UUIDs stay above, {lead_ms(after_step) / 3_600_000:.1f} h ahead of the clock")

    # A backend generating in a tight loop, killed with SIGKILL.
    victim = start("SELECT count(uuid_generate_v7()) FROM generate_series(1, 2000000000);")
    pid = None

    def active():
        nonlocal pid
        pid = q("SELECT pid FROM pg_stat_activity WHERE state = 'active' "
                "AND query LIKE 'SELECT count(uuid_generate_v7())%'")
        return pid != ""

    wait_for(active, "the generating backend")
    time.sleep(1.0)
    start_time = q("SELECT pg_postmaster_start_time()")
    os.kill(int(pid), signal.SIGKILL)
    victim.wait()

    def back():
        return q("SELECT 1", check=False) == "1"

    time.sleep(0.5)
    wait_for(back, "the server to restart after the crash", timeout=120)
    log = open(os.environ["SERVER_LOG"]).read()
    if "terminated by signal 9" not in log or "all server processes terminated; reinitializing" not in log:
        fail("the server log shows no crash restart")
    if q("SELECT pg_postmaster_start_time()") != start_time:
        fail("the postmaster itself restarted: not a crash restart")
    if q("SELECT uuid_ext_info() ->> 'sequencer'") != "shared":
        fail("the shared sequencer did not come back after the crash restart")

    after_crash = newest(1_000)
    if after_crash <= after_step:
        fail(f"after the crash restart a UUID went backwards: {after_crash:032x} <= {after_step:032x} "
             "(the word was not carried across the reset)")
    ok(f"crash restart (backend killed with SIGKILL while generating): the shared sequencer is back and "
       f"new UUIDs stay above every earlier one, {lead_ms(after_crash) / 3_600_000:.1f} h ahead of the clock")


if __name__ == "__main__":
    main()
