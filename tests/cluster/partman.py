"""pg_partman and TimescaleDB with a v7 key: every statement of docs/operations.md#pg_partman-and-timescaledb.

One server of its own, its clock under libfaketime (so that days pass),
preloading timescaledb (where it is installed) and uuid_ext.

  pg_partman   create_parent on a `uuid` key with p_time_encoder =>
               uuid_v7_lower_bound and p_time_decoder =>
               uuid_extract_timestamp_text, no wrapper: daily partitions whose
               bounds are each day's lowest v7 key; a new key lands in its
               day's partition; two days later, a key in that day's,
               run_maintenance makes the next days' partitions; a key of a day without a partition goes
               to the default one, and partition_data_time moves it into a
               new partition of its day (5.5; 5.2 refuses a uuid key there);
               retention drops the partitions older
               than it. A `uuid7` key is refused.
  TimescaleDB  a hypertable on a `uuid` key with DEFAULT uuid_generate_v7():
               by the key itself where TimescaleDB takes a uuid time
               dimension (2.31), refused where it does not (2.19); on every
               version with partition_func => public.uuid_extract_timestamp.
               Either way: one chunk per day of the keys' times, a query by v7
               bounds scans only its day's chunk, drop_chunks drops the older
               days. A `uuid7` key is refused.

Where this PostgreSQL has only one of them, that part runs and the test is
reported skipped for the other, saying why; with neither, skipped. scripts/setup
installs Debian's packages of both for 17 and 18, in the chroot.
"""
import os
import re

from harness import Skip
from pg import fail, ok, refused


def available(t, name):
    return os.path.exists(os.path.join(t.pg.extension_dir, f"{name}.control"))


def ints(version):
    return tuple(int(x) for x in re.findall(r"\d+", version))


def partitions(srv):
    """{name: (from, to)} of ev's partitions (not the default), in name order."""
    out = {}
    for line in srv.q("""SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i
                           JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'ev'::regclass""").splitlines():
        name, bound = line.split("|")
        m = re.match(r"FOR VALUES FROM \('([0-9a-f-]+)'\) TO \('([0-9a-f-]+)'\)", bound)
        if m:
            out[name] = m.groups()
        elif bound != "DEFAULT":
            fail(f"{name}: an unexpected bound {bound}")
    return dict(sorted(out.items()))


def check_days(srv, parts):
    """Each partition ev_pYYYYMMDD is bounded by its day's and the next day's lowest v7 keys."""
    for name, (lo, hi) in parts.items():
        day = re.fullmatch(r"ev_p(\d{8})", name)
        if not day:
            fail(f"a partition named {name}")
        want = srv.q(f"SELECT uuid_v7_lower_bound(d) || '|' || uuid_v7_lower_bound(d + interval '1 day') "
                     f"FROM (SELECT '{day.group(1)} UTC'::timestamptz AS d) s")
        if want != f"{lo}|{hi}":
            fail(f"{name} is bounded by {lo} and {hi}, not its day's lowest v7 keys {want}")


def where(srv, sql):
    """The partition the row of `sql` (a WHERE clause) is in."""
    return srv.q(f"SELECT tableoid::regclass FROM ev WHERE {sql}")


def today(srv):
    return srv.q("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYYMMDD')")


def partman(srv):
    srv.q("CREATE SCHEMA partman; CREATE EXTENSION pg_partman SCHEMA partman")
    version = srv.q("SELECT extversion FROM pg_extension WHERE extname = 'pg_partman'")
    srv.q("""CREATE TABLE ev (id uuid NOT NULL DEFAULT uuid_generate_v7(), n int) PARTITION BY RANGE (id);
             SELECT partman.create_parent('public.ev', 'id', '1 day', p_premake => 2,
                 p_time_encoder => 'public.uuid_v7_lower_bound',
                 p_time_decoder => 'public.uuid_extract_timestamp_text')""")
    parts = partitions(srv)
    check_days(srv, parts)
    srv.q("INSERT INTO ev (n) VALUES (1)")
    if where(srv, "n = 1") != f"ev_p{today(srv)}":
        fail(f"a new key went to {where(srv, 'n = 1')}, not today's partition ev_p{today(srv)}")
    ok(f"pg_partman {version}: create_parent on a uuid key, p_time_encoder => uuid_v7_lower_bound, p_time_decoder "
       f"=> uuid_extract_timestamp_text (no wrapper): {len(parts)} daily partitions, each bounded by its day's "
       "lowest v7 key and the next day's; a new key lands in today's")

    # Two days later: a key in the newest premade day; maintenance keeps two
    # days made ahead of the newest key (partman makes none ahead of empty days).
    srv.set_clock("+2d")
    srv.q("INSERT INTO ev (n) VALUES (2)")
    if where(srv, "n = 2") != f"ev_p{today(srv)}":
        fail(f"two days later a new key went to {where(srv, 'n = 2')}, not ev_p{today(srv)}")
    srv.q("SELECT partman.run_maintenance('public.ev')")
    later = partitions(srv)
    check_days(srv, later)
    newest = srv.q("SELECT to_char((now() + interval '2 days') AT TIME ZONE 'UTC', 'YYYYMMDD')")
    if f"ev_p{newest}" not in later or len(later) <= len(parts):
        fail(f"two days later run_maintenance did not make the partitions up to {newest}: {list(later)}")
    ok(f"two days later (the server's clock moved) a new key lands in that day's partition, and run_maintenance "
       f"makes the next two days' partitions, up to ev_p{newest}")

    srv.q("INSERT INTO ev (id, n) VALUES (uuid_timestamptz_to_v7(now() - interval '10 days'), 3)")
    if where(srv, "n = 3") != "ev_default":
        fail(f"a key of a day without a partition went to {where(srv, 'n = 3')}")
    old_day = srv.q("SELECT to_char((now() - interval '10 days') AT TIME ZONE 'UTC', 'YYYYMMDD')")
    r = srv.q("SELECT partman.partition_data_time('public.ev')", check=False)
    if r.returncode != 0:
        # pg_partman before 5.5 (5.2.4 here) takes no encoded key there.
        if ints(version) >= (5, 5) or "Cannot run on partition set without time based control column" not in r.stderr:
            fail(f"partition_data_time failed:\n{r.stderr}")
        ok(f"a key of ten days ago goes to the default partition; pg_partman {version}'s partition_data_time "
           "refuses a uuid key ('Cannot run on partition set without time based control column ...')")
    else:
        if r.stdout.strip() != "1" or where(srv, "n = 3") != f"ev_p{old_day}":
            fail(f"partition_data_time moved {r.stdout.strip()} rows; the old key is in {where(srv, 'n = 3')}")
        check_days(srv, partitions(srv))
        ok(f"a key of ten days ago goes to the default partition; partition_data_time moves it into a new "
           f"ev_p{old_day}")

    before = partitions(srv)
    srv.q("""UPDATE partman.part_config SET retention = '2 days', retention_keep_table = false
              WHERE parent_table = 'public.ev';
             SELECT partman.run_maintenance('public.ev')""")
    kept = partitions(srv)
    limit = srv.q("SELECT uuid_v7_lower_bound(now() - interval '2 days')")
    dropped = sorted(set(before) - set(kept))
    if not dropped or any(hi <= limit for _, hi in kept.values()) or f"ev_p{old_day}" in kept:
        fail(f"retention of 2 days dropped {dropped}, kept {list(kept)}")
    if srv.q("SELECT count(*) FROM ev WHERE tableoid <> 'ev_default'::regclass") != "2":
        fail("retention dropped rows of the kept days")
    ok(f"retention = '2 days': run_maintenance drops the {len(dropped)} partitions older than two days "
       f"({dropped[0]} to {dropped[-1]}), the rest stay")

    srv.q("CREATE TABLE ev7 (id uuid7 NOT NULL DEFAULT uuid_generate_v7(), n int) PARTITION BY RANGE (id)")
    error = refused(srv, "SELECT partman.create_parent('public.ev7', 'id', '1 day', "
                         "p_time_encoder => 'public.uuid_v7_lower_bound', "
                         "p_time_decoder => 'public.uuid_extract_timestamp_text')")
    first = next((line for line in error.splitlines() if "ERROR" in line), error)
    ok(f"a uuid7 key is refused: {first.split('ERROR:', 1)[-1].strip()}")
    return version


def hypertable(srv, table, by):
    """Makes `table` (a uuid key) a hypertable by `by`; its rows of five days; the checks."""
    srv.q(f"SELECT create_hypertable('{table}', {by})")
    srv.q(f"INSERT INTO {table} (id, v) SELECT uuid_timestamptz_to_v7('2026-03-01 12:00 UTC'::timestamptz "
          f"+ d * interval '1 day'), d FROM generate_series(0, 4) d; INSERT INTO {table} (v) VALUES (99)")
    chunks = int(srv.q(f"SELECT count(*) FROM show_chunks('{table}')"))
    if chunks != 6:
        fail(f"{table}: {chunks} chunks for keys of six days")
    day = (f"SELECT v FROM {table} WHERE id >= uuid_v7_lower_bound('2026-03-03 UTC') "
           "AND id < uuid_v7_lower_bound('2026-03-04 UTC')")
    plan = srv.q(f"EXPLAIN (COSTS OFF) {day}")
    scanned = set(re.findall(r"_hyper_\d+_\d+_chunk", plan))
    if len(scanned) != 1 or srv.q(day) != "2":
        fail(f"{table}: a day's query by v7 bounds scanned {sorted(scanned)}:\n{plan}")
    dropped = srv.q(f"SELECT count(*) FROM drop_chunks('{table}', older_than => '2026-03-03 UTC'::timestamptz)")
    if dropped != "2" or srv.q(f"SELECT string_agg(v::text, ',' ORDER BY v) FROM {table}") != "2,3,4,99":
        fail(f"{table}: drop_chunks older than 3 March dropped {dropped} chunks")


def timescaledb(srv):
    srv.q("CREATE EXTENSION timescaledb")
    version = srv.q("SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'")
    srv.q("CREATE TABLE m (id uuid NOT NULL DEFAULT uuid_generate_v7(), v int)")
    r = srv.q("SELECT create_hypertable('m', by_range('id', INTERVAL '1 day'))", check=False)
    if r.returncode == 0:
        srv.q("DROP TABLE m; CREATE TABLE m (id uuid NOT NULL DEFAULT uuid_generate_v7(), v int)")
        hypertable(srv, "m", "by_range('id', INTERVAL '1 day')")
        if ints(version) < (2, 31):
            fail(f"TimescaleDB {version} takes a uuid dimension: the docs say 2.31.0 does, 2.19.3 does not")
        ok(f"TimescaleDB {version}: a hypertable by its uuid key itself (by_range('id', INTERVAL '1 day')): a chunk "
           "for each day of the keys' times, a day's query by v7 bounds scans one chunk, drop_chunks older than a "
           "day drops the days before it")
    else:
        if "invalid type for dimension" not in r.stderr or ints(version) >= (2, 31):
            fail(f"TimescaleDB {version} refused a uuid dimension:\n{r.stderr}")
        ok(f"TimescaleDB {version}: a uuid key as the time dimension itself is refused ('invalid type for "
           "dimension \"id\"')")
    srv.q("CREATE TABLE mf (id uuid NOT NULL DEFAULT uuid_generate_v7(), v int)")
    hypertable(srv, "mf", "by_range('id', INTERVAL '1 day', partition_func => 'public.uuid_extract_timestamp')")
    ok(f"TimescaleDB {version}: with partition_func => 'public.uuid_extract_timestamp' (IMMUTABLE): a chunk for "
       "each day, a day's query by v7 bounds scans one chunk, drop_chunks drops the older days")
    srv.q("CREATE TABLE m7 (id uuid7 NOT NULL DEFAULT uuid_generate_v7(), v int)")
    refused(srv, "SELECT create_hypertable('m7', by_range('id', INTERVAL '1 day'))", "invalid type for dimension")
    ok("a uuid7 key is refused as the time dimension ('invalid type for dimension')")
    return version


def main(t):
    has_partman, has_ts = available(t, "pg_partman"), available(t, "timescaledb")
    where_ = "scripts/setup installs Debian's postgresql-17-* and -18-* in the chroot"
    if not has_partman and not has_ts:
        raise Skip(f"neither pg_partman nor TimescaleDB is installed for {t.pg} ({where_})")
    srv = t.server("tools", clock=True)
    preload = "timescaledb,uuid_ext" if has_ts else "uuid_ext"
    srv.create(f"shared_preload_libraries = '{preload}'", "timescaledb.telemetry_level = off" if has_ts else "")
    srv.q("CREATE EXTENSION uuid_ext")
    if has_partman:
        partman(srv)
    if has_ts:
        timescaledb(srv)
    if not has_partman:
        raise Skip(f"pg_partman is not installed for {t.pg} ({where_}); TimescaleDB's part passed")
    if not has_ts:
        raise Skip(f"TimescaleDB is not installed for {t.pg} ({where_}); pg_partman's part passed")
