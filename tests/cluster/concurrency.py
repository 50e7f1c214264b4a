"""Concurrent sessions and parallel workers on the shared sequencers (v7, v6).

Real concurrent sessions and parallel workers generating UUIDv7s, then
UUIDv6s, then UUIDv7s from uuid_generate_v7() and PostgreSQL 18's name
uuidv7() in alternate sessions, at the same time, on a cluster that
preloads uuid_ext (docs/ordering.md#the-sequencer, docs/design.md#randomness).

For uuid_ext.monotonicity = shared, asserts: every UUID unique, each session
strictly increasing, and the property only a shared sequencer gives: no two
UUIDs of the whole run share the sequencer's word (v7: ms, fraction,
counter; v6: the 60-bit time). With `uuid_ext.cache = 100`
(docs/ordering.md#leases) the same, and each session's keys come in runs of
its own in key order (a session's block of 100 at a time: at least 50 keys
in a row on average, where sessions drawing one key at a time alternate
every key or few). The same load with monotonicity = backend
shows that this property is what tells the two apart: it reports how many
words are shared there without asserting on the number. In both, the random
bits never repeat across sessions: the generator seeded in the postmaster
re-seeds after fork.

Runs on the shared server.
"""
import threading

from pg import GENERATORS, fail, ok, parse, random_bits, wait_for, word
from servers import finish

SESSIONS = 4
PER_SESSION = 100_000
LOCK = 7_700_001


def run_sessions(srv, mode, gen, n=PER_SESSION, cache=1):
    """SESSIONS sessions held at an advisory-lock barrier, then released at
    once to generate `n` UUIDs each in a tight loop, `cache` at a time;
    `gen` is the call, or a list of calls the sessions take in turn."""
    gens = gen if isinstance(gen, list) else [gen]
    holder = srv.start_script(f"SELECT pg_advisory_lock({LOCK}); SELECT pg_sleep(600);")
    wait_for(lambda: srv.q(f"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = {LOCK} "
                           "AND granted") == "1", "the barrier")
    script = (f"SET uuid_ext.monotonicity = '{mode}';\nSET uuid_ext.cache = {cache};\n"
              f"SELECT pg_advisory_lock_shared({LOCK}) \\g /dev/null\n"
              "COPY (SELECT n, {gen} FROM generate_series(1, {n}) AS n) TO STDOUT WITH (DELIMITER '|');\n")
    procs = [srv.start_script(script.format(gen=gens[i % len(gens)], n=n)) for i in range(SESSIONS)]
    wait_for(lambda: srv.q(f"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = {LOCK} "
                           "AND NOT granted") == str(SESSIONS), "every session at the barrier")
    srv.q(f"SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = {LOCK} AND granted")
    holder.wait()
    outs = [None] * SESSIONS
    threads = [threading.Thread(target=lambda i=i: outs.__setitem__(i, finish(procs[i]))) for i in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [parse(o) for o in outs]


def check_common(mode, sessions, n=PER_SESSION):
    for i, s in enumerate(sessions):
        if len(s) != n:
            fail(f"{mode}: session {i} returned {len(s)} rows")
        if any(a >= b for a, b in zip(s, s[1:])):
            fail(f"{mode}: session {i} is not strictly increasing")
    everything = [u for s in sessions for u in s]
    if len(set(everything)) != len(everything):
        fail(f"{mode}: a UUID was made twice")
    # The sessions really ran at the same time: their time spans overlap.
    spans = [(s[0] >> 80, s[-1] >> 80) for s in sessions]
    if max(lo for lo, _ in spans) > min(hi for _, hi in spans):
        fail(f"{mode}: the sessions did not overlap in time ({spans}); the test proves nothing")
    randoms = [random_bits(u) for u in everything]
    if len(set(randoms)) != len(randoms):
        fail(f"{mode}: random bits repeated across sessions: the generator did not re-seed after fork")
    ok(f"{mode}: {SESSIONS} overlapping sessions x {n}: all unique, each strictly increasing, "
       f"random bits never repeat")
    words = [word(u) for u in everything]
    return len(words) - len(set(words))


def keys_in_a_row(sessions):
    """In key order, how many keys of one session come in a row, on average."""
    tagged = sorted((u, i) for i, s in enumerate(sessions) for u in s)
    switches = sum(1 for a, b in zip(tagged, tagged[1:]) if a[1] != b[1])
    return len(tagged) / (switches + 1)


LEASED_PER_SESSION = 100_000


def leased(srv, gen, v, strict_row):
    """The shared sequencer with uuid_ext.cache = 100 (docs/ordering.md#leases)."""
    sessions = run_sessions(srv, "shared", gen, LEASED_PER_SESSION, cache=100)
    shared = check_common(f"v{v} leased", sessions, LEASED_PER_SESSION)
    if shared:
        fail(f"v{v} leased: {shared} UUIDs share the sequencer's word with another")
    row = keys_in_a_row(sessions)
    if row < 50:
        fail(f"v{v} leased: a session's keys come {row:.1f} in a row on average in key order, not in blocks")
    ok(f"v{v} leased (uuid_ext.cache = 100): no two UUIDs share the sequencer's word; in key order a session's come "
       f"{row:.0f} in a row on average ({strict_row:.1f} drawing one at a time)")


def parallel_workers(srv, mode, gen, label):
    force = "force_parallel_mode" if srv.pg.major < 16 else "debug_parallel_query"
    settings = (f"SET uuid_ext.monotonicity = '{mode}'; SET {force} = on; SET parallel_setup_cost = 0; "
                "SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; "
                "SET max_parallel_workers_per_gather = 2;\n")
    query = f"SELECT n, {gen} FROM par_src"
    plan = srv.q(settings + f"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) {query}")
    if "Workers Launched: 2" not in plan:
        fail(f"{label}: the parallel plan did not launch 2 workers:\n{plan}")
    out = srv.q(settings + f"COPY ({query}) TO STDOUT WITH (DELIMITER '|')")
    plan_after = srv.q(settings + f"EXPLAIN (COSTS OFF) {query}")
    if "Gather" not in plan_after:
        fail(f"{label}: no Gather in the plan")
    us = [int(line.split("|")[1].replace("-", ""), 16) for line in out.splitlines()]
    if len(set(us)) != len(us):
        fail(f"{label}: parallel workers made a UUID twice")
    randoms = [random_bits(u) for u in us]
    if len(set(randoms)) != len(randoms):
        fail(f"{label}: random bits repeated across parallel workers")
    ok(f"{label}: {len(us)} UUIDs from a leader and 2 parallel workers: all unique, random bits never repeat")
    words = [word(u) for u in us]
    return len(words) - len(set(words))


def main(t):
    srv = t.shared()
    srv.q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    info = srv.q("SELECT uuid_ext_info() ->> 'sequencer'")
    if info != "shared":
        fail(f"uuid_ext_info() says sequencer = {info} on a preloaded cluster")

    srv.q("DROP TABLE IF EXISTS par_src; CREATE TABLE par_src AS SELECT generate_series(1, 100000) AS n; "
          "ALTER TABLE par_src SET (parallel_workers = 2); ANALYZE par_src")
    for v, gen in GENERATORS.items():
        print(f"-- UUIDv{v}: {gen}", flush=True)
        sessions = run_sessions(srv, "shared", gen)
        shared = check_common(f"v{v} shared", sessions)
        if shared:
            fail(f"v{v} shared: {shared} UUIDs share the sequencer's word with another")
        ok(f"v{v} shared: no two UUIDs of the run share the sequencer's word")
        leased(srv, gen, v, keys_in_a_row(sessions))
        backend = check_common(f"v{v} backend", run_sessions(srv, "backend", gen))
        print(f"info v{v} backend: {backend} UUIDs share the sequencer's word with one from another session "
              "(not asserted: what the shared word prevents)", flush=True)

        shared = parallel_workers(srv, "shared", gen, f"v{v} shared")
        if shared:
            fail(f"v{v} shared: {shared} UUIDs from parallel workers share the sequencer's word")
        ok(f"v{v} shared: parallel workers never share the sequencer's word")
        backend = parallel_workers(srv, "backend", gen, f"v{v} backend")
        print(f"info v{v} backend: {backend} UUIDs from parallel workers share the sequencer's word (not asserted)",
              flush=True)
    # PostgreSQL 18's name, schema-qualified (on 18 an unqualified call is
    # core's): half the sessions call it, half uuid_generate_v7(); one word.
    mixed = ["uuid_generate_v7()", "public.uuidv7()"]
    print(f"-- UUIDv7: {' and '.join(mixed)}, in turn", flush=True)
    shared = check_common("v7 shared, two names", run_sessions(srv, "shared", mixed))
    if shared:
        fail(f"v7 shared, two names: {shared} UUIDs share the sequencer's word with another")
    ok("v7 shared, two names: uuidv7() and uuid_generate_v7() never share the sequencer's word")
    backend = check_common("v7 backend, two names", run_sessions(srv, "backend", mixed))
    print(f"info v7 backend, two names: {backend} UUIDs share the sequencer's word (not asserted)", flush=True)
    srv.q("DROP TABLE par_src")
