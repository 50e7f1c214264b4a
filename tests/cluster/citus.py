"""Citus 14 with uuid_ext: every statement of docs/operations.md#citus, on a coordinator and two workers.

A cluster of three servers of this PostgreSQL, each preloading
`citus,uuid_ext`, on Unix sockets with trust (Citus connects to the
workers with libpq, the socket directory as the host): `citus_cluster(t)`
starts it and returns it, for any test that needs one. The coordinator's
clock runs an hour ahead of the workers' (libfaketime), so each key tells
which node made it: a key the coordinator made carries its hour, and lies
between two keys made just before and just after on the coordinator (its
server-wide order); a key a worker made carries the workers' hour.

Checked, as docs/operations.md#citus states them:

  installing  CREATE EXTENSION uuid_ext on the coordinator reaches the
              workers, made before or after citus_add_node; made before
              CREATE EXTENSION citus it does not,
              and a query fails there with the documented error, until
              CREATE EXTENSION IF NOT EXISTS uuid_ext again, or a table
              that uses it is distributed
  keys        the coordinator makes the defaults of single-row INSERTs,
              multi-row VALUES, COPY and INSERT ... SELECT from a local table,
              in its server-wide order; the workers make them for INSERT ...
              SELECT between distributed tables, for writes sent to a worker,
              and for ALTER TABLE ... ADD COLUMN ... DEFAULT, each in its own;
              each node keeps its own horizon file
  the key     a uuid7 key distributes (5,000 rows over both workers, all
              distinct); a lookup by uuid7 and by uuid goes to one shard
              (EXPLAIN: Task Count 1) and finds its row; a uuid7 table cannot
              be co-located with a uuid one; UPDATE ... SET col =
              uuid_generate_v7() is refused
  workers     the IMMUTABLE readers and the bounds run on the workers (the
              query each worker is sent names them; a constant bound is sent
              as its value); a table range-partitioned by v7 bounds and
              distributed prunes its partitions on every worker;
              create_time_partitions refuses a uuid key
  updates     ALTER EXTENSION uuid_ext UPDATE, SET SCHEMA and DROP ...
              CASCADE reach the workers; the cascade takes a uuid7
              distribution column from under Citus (the table can then be
              neither read nor dropped), undistribute_table first keeps it
  no preload  a worker that preloads only citus: uuid_ext works there,
              without the shared sequencer

Raises Skip where Citus 14 cannot run: PostgreSQL 15 and 19 (Citus 14
supports 16, 17 and 18), or a server Citus was not built for (scripts/setup
builds it from ../shared/vendor). Needs libfaketime for the clock.
"""
import os
import re

from citus_fixture import (AHEAD, HOUR_MS, add_workers, citus_cluster, citus_database, need_citus,
                           on_workers, task_count)
from pg import fail, ok, refused, uuid_int

def worker_query(srv, sql, db="postgres"):
    """The query Citus sends a worker for `sql` (the first task's, EXPLAIN VERBOSE)."""
    plan = srv.q(f"EXPLAIN (VERBOSE, COSTS OFF) {sql}", db=db)
    m = re.search(r"Query: (.*)", plan)
    if not m:
        fail(f"no worker query in the plan of {sql}:\n{plan}")
    return m.group(1)


def ms(u):
    return u >> 80


def key(srv, db="postgres"):
    """A new key of `srv`'s sequencer, as an int."""
    return uuid_int(srv.q("SELECT uuid_generate_v7()", db=db))


def keys_of(srv, sql, db="postgres"):
    """[(n, key int)] of `sql`'s 'n|uuid' rows, in n order."""
    rows = []
    for line in srv.q(sql, db=db).splitlines():
        n, u = line.split("|")
        rows.append((int(n), uuid_int(u)))
    return sorted(rows)


def check_install(c, ws):
    """CREATE EXTENSION uuid_ext on the coordinator, after and before citus_add_node, and before citus."""
    new = c.q("SELECT default_version FROM pg_available_extensions WHERE name = 'uuid_ext'")
    c.q("CREATE EXTENSION uuid_ext")
    if on_workers(c, "SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext'") != [new] * len(ws):
        fail("CREATE EXTENSION uuid_ext on the coordinator did not reach every worker")
    citus_database(c, ws, "nodes_later", add=False)
    c.q("CREATE EXTENSION uuid_ext", db="nodes_later")
    add_workers(c, ws, "nodes_later")
    if on_workers(c, "SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext'", db="nodes_later") \
            != [new] * len(ws):
        fail("workers added after CREATE EXTENSION uuid_ext did not get it")
    ok(f"CREATE EXTENSION uuid_ext on the coordinator reaches both workers ({new}); a worker added after it "
       "(citus_add_node) gets it too")

    # Created before CREATE EXTENSION citus: the workers do not get it.
    citus_database(c, ws, "uuid_ext_first", before=("CREATE EXTENSION uuid_ext",))
    c.q("""CREATE TABLE readings (id bigserial PRIMARY KEY, at timestamptz DEFAULT now());
           SELECT create_distributed_table('readings', 'id');
           INSERT INTO readings (at) SELECT now() FROM generate_series(1, 10)""", db="uuid_ext_first")
    if on_workers(c, "SELECT count(*) FROM pg_extension WHERE extname = 'uuid_ext'", db="uuid_ext_first") \
            != ["0"] * len(ws):
        fail("uuid_ext, created before Citus, reached the workers by itself")
    query = "SELECT count(*) FROM readings WHERE uuid_v7_lower_bound(at) IS NOT NULL"
    refused(c, query, "function public.uuid_v7_lower_bound(timestamp with time zone) does not exist",
            "while executing command on", db="uuid_ext_first")
    c.q("CREATE EXTENSION IF NOT EXISTS uuid_ext", db="uuid_ext_first")
    if c.q(query, db="uuid_ext_first") != "10":
        fail("CREATE EXTENSION IF NOT EXISTS uuid_ext again did not make the workers' query work")
    ok("uuid_ext created before CREATE EXTENSION citus: the workers do not get it, and a query that runs its "
       "functions there fails ('function public.uuid_v7_lower_bound(timestamp with time zone) does not exist', "
       "CONTEXT 'while executing command on' a worker); CREATE EXTENSION IF NOT EXISTS uuid_ext on the "
       "coordinator again puts it on every worker")

    citus_database(c, ws, "uuid_ext_first2", before=("CREATE EXTENSION uuid_ext",))
    c.q("""CREATE TABLE things (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
           SELECT create_distributed_table('things', 'id')""", db="uuid_ext_first2")
    if on_workers(c, "SELECT count(*) FROM pg_extension WHERE extname = 'uuid_ext'", db="uuid_ext_first2") \
            != ["1"] * len(ws):
        fail("distributing a table with a uuid7 column did not bring uuid_ext to the workers")
    ok("the same, but a table that uses uuid_ext (a uuid7 key) distributed: create_distributed_table brings "
       "uuid_ext to the workers")
    return new


def check_keys(c, ws):
    """Who makes each key: the coordinator (its clock an hour ahead) or a worker."""
    c.q("""CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int, how text);
           SELECT create_distributed_table('orders', 'id');
           CREATE TABLE local_source (n int);
           INSERT INTO local_source SELECT generate_series(40, 59)""")
    statements = {
        "single-row INSERTs": [f"INSERT INTO orders (n, how) VALUES ({n}, 'single')" for n in range(1, 6)],
        "a multi-row VALUES": ["INSERT INTO orders (n, how) VALUES "
                               + ", ".join(f"({n}, 'multi')" for n in range(10, 30))],
        "COPY": ["COPY orders (n, how) FROM STDIN WITH (FORMAT csv);\n"
                 + "".join(f"{n},copy\n" for n in range(30, 40)) + "\\.\n"],
        "INSERT ... SELECT from a local table": [
            "INSERT INTO orders (n, how) SELECT n, 'local' FROM local_source ORDER BY n"],
    }
    for (what, sqls), how in zip(statements.items(), ("single", "multi", "copy", "local"), strict=True):
        workers_ms = ms(key(ws[0]))
        before = key(c)
        for sql in sqls:  # each a session of its own
            c.q(sql)
        after = key(c)
        rows = keys_of(c, f"SELECT n, id FROM orders WHERE how = '{how}'")
        ids = [u for _, u in rows]
        if not rows or not all(before < u < after for u in ids):
            fail(f"{what}: keys outside the coordinator's keys made just before and after: the coordinator "
                 "did not make them")
        if not all(ms(u) > workers_ms + HOUR_MS // 2 for u in ids):
            fail(f"{what}: keys without the coordinator's clock (an hour ahead of the workers')")
        if ids != sorted(ids):
            fail(f"{what}: the keys are not in the order of the rows")
    ok("the coordinator makes the defaults of single-row INSERTs, a multi-row VALUES, COPY and INSERT ... "
       "SELECT from a local table: every key lies between two keys made on the coordinator (other sessions) "
       "just before and just after, carries its clock (an hour ahead of the workers'), and the rows of one "
       "statement are in their order")

    # INSERT ... SELECT between distributed tables: made on the workers.
    c.q("""CREATE TABLE copies (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
           SELECT create_distributed_table('copies', 'id')""")
    plan = c.q("EXPLAIN (COSTS OFF) INSERT INTO copies (n) SELECT n FROM orders")
    coordinator_now = ms(key(c))
    worker_now = [ms(key(w)) for w in ws]
    c.q("INSERT INTO copies (n) SELECT n FROM orders")
    copied = [u for _, u in keys_of(c, "SELECT n, id FROM copies")]
    if len(copied) != int(c.q("SELECT count(*) FROM orders")):
        fail("INSERT ... SELECT between distributed tables lost rows")
    if not all(min(worker_now) <= ms(u) < coordinator_now - HOUR_MS // 2 for u in copied):
        fail("INSERT ... SELECT between distributed tables: keys not made on the workers' clock")
    method = re.search(r"INSERT/SELECT method: (\w+)", plan)
    ok("INSERT ... SELECT between distributed tables: the workers make the keys (they carry the workers' "
       f"clock, an hour behind the coordinator's; Citus's method: {method.group(1) if method else 'pushdown'})")

    # A write sent to a worker: that worker's sequencer.
    w = ws[0]
    before = key(w)
    w.q("INSERT INTO orders (n, how) VALUES (100, 'worker')")
    after = key(w)
    sent = keys_of(c, "SELECT n, id FROM orders WHERE how = 'worker'")
    if len(sent) != 1 or not before < sent[0][1] < after:
        fail("an INSERT sent to a worker: its key is not between that worker's keys made just before and after")
    ok("an INSERT sent to a worker (Citus 14 gives every node the metadata): that worker makes the key, in its "
       "own server-wide order")

    # ALTER TABLE ... ADD COLUMN ... DEFAULT: each worker fills its shards.
    befores = [key(w) for w in ws]
    c.q("ALTER TABLE orders ADD COLUMN later uuid DEFAULT uuid_generate_v7()")
    afters = [key(w) for w in ws]
    placements = c.q("SELECT shardid, nodeport FROM citus_shards WHERE table_name = 'orders'::regclass")
    filled = 0
    for i, w in enumerate(ws):
        shards = [s for s, port in (line.split("|") for line in placements.splitlines()) if int(port) == w.port]
        union = " UNION ALL ".join(f"SELECT n, later FROM orders_{s}" for s in shards)
        values = [u for _, u in keys_of(w, union)] if shards else []
        if not all(befores[i] < u < afters[i] for u in values):
            fail(f"ADD COLUMN ... DEFAULT uuid_generate_v7(): values on {w.name} not made by its sequencer")
        filled += len(values)
    if filled != int(c.q("SELECT count(*) FROM orders")) or filled == 0:
        fail(f"ADD COLUMN ... DEFAULT: {filled} values found on the workers' shards")
    ok(f"ALTER TABLE ... ADD COLUMN ... DEFAULT uuid_generate_v7(): each worker fills the {filled} rows of its "
       "shards, every value between that worker's keys made just before and after (each worker its own order)")

    # What keeps each node's order across restarts is its own too.
    for srv in (c, *ws):
        if srv.q("SELECT uuid_ext_info() ->> 'durable'") != "true" or \
                not os.path.exists(os.path.join(srv.data, "uuid_ext.horizon")):
            fail(f"{srv.name} keeps no horizon of its own")
    ok("each node keeps its own durable order: uuid_ext_info() says durable on each, and each writes the "
       "horizon file in its own data directory")


def check_distribution(c, ws):
    """A uuid7 distribution column, lookups, co-location, UPDATE."""
    c.q("""CREATE TABLE items (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
           SELECT create_distributed_table('items', 'id');
           INSERT INTO items (n) SELECT generate_series(1, 5000)""")
    if c.q("SELECT count(DISTINCT id) FROM items") != "5000":
        fail("5,000 rows into a table distributed by a uuid7 key are not 5,000 distinct keys")
    held = []
    for w in ws:
        shards = c.q(f"SELECT shardid FROM citus_shards WHERE table_name = 'items'::regclass "
                     f"AND nodeport = {w.port}").split()
        held.append(int(w.q("SELECT count(*) FROM (" + " UNION ALL ".join(
            f"SELECT 1 FROM items_{s}" for s in shards) + ") s")) if shards else 0)
    if sum(held) != 5000 or min(held) == 0:
        fail(f"the 5,000 rows are not spread over both workers: {held}")
    ok(f"create_distributed_table on a uuid7 primary key (its hash operator class): 5,000 rows, all distinct, "
       f"spread over both workers ({held[0]} and {held[1]})")

    one, n = c.q("SELECT id, n FROM items ORDER BY n LIMIT 1 OFFSET 1234").split("|")
    for cast in ("uuid7", "uuid"):
        where = f"SELECT n FROM items WHERE id = '{one}'::{cast}"
        if task_count(c, where) != 1:
            fail(f"a lookup by a {cast} value is not routed to one shard:\n{c.q('EXPLAIN ' + where)}")
        if c.q(where) != n:
            fail(f"the lookup by a {cast} value did not find its row")
    ok("a lookup by a uuid7 literal and by a uuid value (the cross-type =) goes to one shard (EXPLAIN: Task "
       "Count: 1) and finds its row")

    c.q("CREATE TABLE plain_keys (id uuid PRIMARY KEY)")
    refused(c, "SELECT create_distributed_table('plain_keys', 'id', colocate_with => 'items')",
            "cannot colocate tables", "Distribution column types don't match")
    ok("a uuid table cannot be co-located with the uuid7 one ('Distribution column types don't match')")

    c.q("ALTER TABLE items ADD COLUMN ref uuid")
    for col in ("id", "ref"):
        refused(c, f"UPDATE items SET {col} = uuid_generate_v7() WHERE n = 1",
                "functions used in UPDATE queries on distributed tables must not be VOLATILE")
    ok("UPDATE ... SET id = uuid_generate_v7() on a distributed table is refused ('functions used in UPDATE "
       "queries on distributed tables must not be VOLATILE'), for the key and for any other column")


def check_pushdown(c, ws):
    """The readers and bounds in the query each worker runs; partitions pruned there."""
    c.q("""CREATE TABLE events (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), at timestamptz DEFAULT now());
           SELECT create_distributed_table('events', 'id');
           INSERT INTO events (at) SELECT now() FROM generate_series(1, 100)""")
    sent = worker_query(c, "SELECT public.uuid_extract_timestamp(id), uuid_extract_version(id), "
                           "uuid_extract_timestamp_text(id::text) FROM events")
    for f in ("uuid_extract_timestamp(", "uuid_extract_version(", "uuid_extract_timestamp_text("):
        if f not in sent:
            fail(f"{f.rstrip('(')} is not in the query sent to the workers: {sent}")
    for arg in ("at", "now() - interval '1 hour'"):
        sent = worker_query(c, f"SELECT count(*) FROM events WHERE id >= uuid_v7_lower_bound({arg})")
        if "uuid_v7_lower_bound(" not in sent:
            fail(f"uuid_v7_lower_bound({arg}) is not in the query sent to the workers: {sent}")
    sent = worker_query(c, "SELECT count(*) FROM events WHERE id >= uuid_v7_lower_bound('2026-01-01 UTC')")
    bound = c.q("SELECT uuid_v7_lower_bound('2026-01-01 UTC')")
    if "uuid_v7_lower_bound(" in sent or bound not in sent:
        fail(f"a bound of a constant time is not sent as its value: {sent}")
    if c.q("SELECT count(*) FROM events WHERE id >= uuid_v7_lower_bound(at - interval '1 day') "
           "AND public.uuid_extract_timestamp(id) IS NOT NULL") != "100":
        fail("the readers and bounds on the workers gave a wrong count")
    ok("the IMMUTABLE readers (uuid_extract_timestamp, _version, _timestamp_text) and uuid_v7_lower_bound of a "
       "column or of now() are in the query each worker runs; the bound of a constant time is computed once, "
       "on the coordinator, and sent as its value")

    # Range partitions with v7 bounds, distributed: pruned on the workers.
    months = ["2025-01", "2025-02", "2025-03"]
    c.q("CREATE TABLE log (id uuid NOT NULL, n int) PARTITION BY RANGE (id);" + "".join(
        f"CREATE TABLE log_{m.replace('-', '_')} PARTITION OF log FOR VALUES FROM "
        f"(uuid_v7_lower_bound('{m}-01 UTC')) TO (uuid_v7_lower_bound('{m}-01 UTC'::timestamptz + interval '1 month'));"
        for m in months) + "SELECT create_distributed_table('log', 'id');" + "".join(
        f"INSERT INTO log SELECT uuid_timestamptz_to_v7('{m}-10 UTC'::timestamptz + g * interval '1 minute'), g "
        "FROM generate_series(1, 30) g;" for m in months))
    feb = ("SELECT count(*) FROM log WHERE id >= uuid_v7_lower_bound('2025-02-01 UTC') "
           "AND id < uuid_v7_lower_bound('2025-03-01 UTC')")
    plan = c.q(f"SET citus.explain_all_tasks = on; EXPLAIN (COSTS OFF) {feb}")
    scanned = set(re.findall(r"on (log_\d{4}_\d{2})_\d+", plan))
    tasks = len(re.findall(r"->  Task\b", plan))
    if scanned != {"log_2025_02"} or tasks != task_count(c, feb) or tasks < len(ws):
        fail(f"the partitions were not pruned on every worker (scanned {sorted(scanned)}):\n{plan}")
    if c.q(feb) != "30":
        fail("the pruned query counted wrong")
    ok(f"a table range-partitioned on its v7 key by uuid_v7_lower_bound bounds distributes, and a month's query "
       f"scans only that month's partition in each of its {tasks} tasks, on both workers")
    refused(c, "SELECT create_time_partitions('log', '1 month', now() + interval '6 months')",
            "type of the partition column of the table log must be date, timestamp or timestamptz")
    ok("create_time_partitions refuses a uuid key ('must be date, timestamp or timestamptz')")


def release_before(c, new):
    """The newest earlier release whose install script is in the extension directory (the runner puts them)."""
    versions = c.q("SELECT version FROM pg_available_extension_versions WHERE name = 'uuid_ext'").split()
    older = [v for v in versions if tuple(map(int, v.split("."))) < tuple(map(int, new.split(".")))]
    if not older:
        fail("no earlier release of uuid_ext to update from (the runner puts their install scripts in place)")
    return max(older, key=lambda v: tuple(map(int, v.split("."))))


def check_extension_ddl(c, ws, new):
    """ALTER EXTENSION ... UPDATE, SET SCHEMA, DROP ... CASCADE, from the coordinator."""
    db = "updates"
    citus_database(c, ws, db)
    old = release_before(c, new)
    c.q(f"CREATE EXTENSION uuid_ext VERSION '{old}'", db=db)
    version = "SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext'"
    if on_workers(c, version, db=db) != [old] * len(ws):
        fail(f"CREATE EXTENSION uuid_ext VERSION '{old}' did not reach the workers")
    c.q("""CREATE TABLE kept (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), at timestamptz DEFAULT now());
           SELECT create_distributed_table('kept', 'id');
           INSERT INTO kept (at) SELECT now() FROM generate_series(1, 20)""", db=db)
    c.q("ALTER EXTENSION uuid_ext UPDATE", db=db)
    if on_workers(c, version, db=db) != [new] * len(ws):
        fail("ALTER EXTENSION uuid_ext UPDATE did not reach the workers")
    ok(f"ALTER EXTENSION uuid_ext UPDATE on the coordinator updates every worker ({old} to {new})")

    c.q("CREATE SCHEMA ids; ALTER EXTENSION uuid_ext SET SCHEMA ids", db=db)
    if on_workers(c, "SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'uuid_ext'", db=db) \
            != ["ids"] * len(ws):
        fail("ALTER EXTENSION uuid_ext SET SCHEMA did not reach the workers")
    if c.q("SELECT count(*) FROM kept WHERE id >= ids.uuid_v7_lower_bound(at - interval '1 hour')", db=db) != "20":
        fail("after SET SCHEMA a query running the functions on the workers failed")
    ok("ALTER EXTENSION uuid_ext SET SCHEMA ids on the coordinator moves it on every worker, and the workers' "
       "queries find its functions there")

    c.q("""CREATE TABLE by_uuid7 (id ids.uuid7 PRIMARY KEY DEFAULT ids.uuid_generate_v7(), n int);
           SELECT create_distributed_table('by_uuid7', 'id');
           INSERT INTO by_uuid7 (n) SELECT generate_series(1, 10);
           CREATE TABLE kept7 (id ids.uuid7 PRIMARY KEY DEFAULT ids.uuid_generate_v7(), n int);
           SELECT create_distributed_table('kept7', 'id');
           INSERT INTO kept7 (n) SELECT generate_series(1, 10);
           SELECT undistribute_table('kept7')""", db=db)
    c.q("DROP EXTENSION uuid_ext CASCADE", db=db)
    if on_workers(c, "SELECT count(*) FROM pg_extension WHERE extname = 'uuid_ext'", db=db) != ["0"] * len(ws):
        fail("DROP EXTENSION uuid_ext CASCADE did not reach the workers")
    if c.q("SELECT count(*) FROM kept7", db=db) != "10":
        fail("the undistributed table lost rows when uuid_ext was dropped")
    refused(c, "SELECT count(*) FROM by_uuid7", "cache lookup failed for type", db=db)
    refused(c, "DROP TABLE by_uuid7", "cache lookup failed for type", db=db)
    ok("DROP EXTENSION uuid_ext CASCADE on the coordinator drops it on every worker; it drops every uuid7 column "
       "with it: a table distributed by one can then be neither read nor dropped ('cache lookup failed for type "
       "...'), one undistributed first (undistribute_table) stays, without the column")


def check_no_preload(t, c, ws):
    """A worker that preloads Citus only."""
    w = ws[-1]
    w.stop()
    w.configure("shared_preload_libraries = 'citus'")
    w.start()
    info = w.q("SELECT uuid_ext_info() ->> 'preloaded', uuid_ext_info() ->> 'sequencer'")
    if info != "false|backend":
        fail(f"the worker without the preload says {info}")
    citus_database(c, ws, "no_preload")
    c.q("CREATE EXTENSION uuid_ext", db="no_preload")
    c.q("""CREATE TABLE src (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
           SELECT create_distributed_table('src', 'id');
           INSERT INTO src (n) SELECT generate_series(1, 200);
           CREATE TABLE dst (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
           SELECT create_distributed_table('dst', 'id');
           INSERT INTO dst (n) SELECT n FROM src;
           ALTER TABLE src ADD COLUMN later uuid DEFAULT uuid_generate_v7()""", db="no_preload")
    if c.q("SELECT count(DISTINCT id) FROM dst", db="no_preload") != "200" or \
            c.q("SELECT count(DISTINCT later) FROM src", db="no_preload") != "200":
        fail("keys made on a worker without the preload are missing or repeat")
    if on_workers(c, "SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext'", db="no_preload")[-1] == "":
        fail("CREATE EXTENSION uuid_ext did not reach the worker without the preload")
    ok("a worker that preloads only citus: CREATE EXTENSION uuid_ext reaches it, and it makes keys (INSERT ... "
       "SELECT between distributed tables, ADD COLUMN ... DEFAULT), distinct, from each session's own order "
       "(uuid_ext_info(): preloaded false, sequencer backend)")


def main(t):
    need_citus(t)
    c, ws = citus_cluster(t, clock=AHEAD)
    version = c.q("SELECT extversion FROM pg_extension WHERE extname = 'citus'")
    ok(f"Citus {c.q('SELECT citus_version()').split()[1].rstrip(',')} ({version}) on PostgreSQL {t.pg.release}: "
       "a coordinator and two workers on Unix sockets, citus_add_node with each socket directory")
    new = check_install(c, ws)
    check_keys(c, ws)
    check_distribution(c, ws)
    check_pushdown(c, ws)
    check_extension_ddl(c, ws, new)
    check_no_preload(t, c, ws)
