"""Order across a major upgrade with pg_upgrade, following the steps of docs/operations.md#pg_upgrade.

pg_upgrade makes a new data directory without the horizon file, so the
step after it copies `uuid_ext.horizon` from the old data directory into
the new one before the new server's first start.

The old server (PostgreSQL OLD) makes keys in uuid, uuid7 and uuid6 columns
(with btree, hash and BRIN indexes and defaults) and a façade key, and stops
(the rows are read back with every key's face). pg_upgrade moves
its data to a new PostgreSQL NEW cluster (data checksums as the old one has
them). Started without the copied file and with its clock a day behind, the
new server's UUIDs sort below the old keys (what the step prevents, and proof
the check can fail); with the file copied, they sort above, and the rows, the
indexes (amcheck, where the server has it) and the defaults are as before.

Which defaults carry the order: uuid_ext's functions, by their own names or
schema-qualified (`public.uuidv7()`), and a `DEFAULT uuidv7()` written where
core has no uuidv7() (15-17: it is uuid_ext's, and pg_upgrade carries it as
`public.uuidv7()`). A `DEFAULT uuidv7()` written where core has uuidv7() (18
and later) is core's `pg_catalog.uuidv7()`: its keys follow the new server's
clock, not our horizon, and with the clock behind they sort below the old
ones; the test shows that too.

Where PostgreSQL itself refuses the pair, the refusal is what is checked:
pg_upgrade from a patched minor of 2026-11-12 (15.20, 17.12) to 18.6 or
19rc1 fails restoring the schema with `unrecognized parameter "pg_attver"`
(the new server's pg_dump copies the attribute option the patched servers
store on every column, which the new server does not know), after
`pg_upgrade --check` passed. Then the way round is checked: a dump made with
the old server's pg_dump restores with --exit-on-error; one made with the
new server's pg_dump stops on pg_attver.

Not a cluster test: the pg_upgrade layer runs it (tests/run.py --pg-config
OLD --pg-config NEW pg_upgrade), with the pair of PostgreSQL installations
in `t.pair`. Starts its own servers under libfaketime, and pg_upgrade,
pg_dump and pg_restore as the servers' user.
"""
import glob
import os
import shutil

from pg import GENERATORS, fail, ok, uuid_int

# The table as it reads back: every key, and every key's façade face under
# the database's key (docs/facade.md#dumps-restores-standbys-upgrades).
READBACK = ("SELECT count(*) || ' ' || md5(string_agg(id::text || id6::text || k::text || k6::text || v18::text "
            "|| uuid_v7_to_facade(k)::text, ',' ORDER BY n)) FROM t")


def main(t):
    old_pg, new_pg = t.pair
    OLD, NEW = old_pg.major, new_pg.major
    conf = ["shared_preload_libraries = 'uuid_ext'", "uuid_ext.durable_wal = on"]
    old = t.server("old", pg=old_pg, clock=True)
    new = t.server("new", clock=True)
    old.initdb(*conf)
    old.start()
    old.q("CREATE EXTENSION uuid_ext")
    core_v7_old = old.q("SELECT to_regprocedure('pg_catalog.uuidv7()') IS NOT NULL") == "t"
    # v18: a default written with PostgreSQL 18's name: uuid_ext's where core
    # has no uuidv7(), core's where it has. ours18: the same name, qualified.
    old.q("CREATE TABLE t (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), id6 uuid DEFAULT uuid_generate_v6(), "
          "k uuid7 UNIQUE DEFAULT uuid_generate_v7(), k6 uuid6 UNIQUE DEFAULT uuid_generate_v6(), "
          "v18 uuid DEFAULT uuidv7(), ours18 uuid DEFAULT public.uuidv7(), n int)")
    old.q("CREATE INDEX t_k_hash ON t USING hash (k); CREATE INDEX t_k6_brin ON t USING brin (k6)")
    old.q("INSERT INTO t (n) SELECT generate_series(1, 20000)")
    old.q("SELECT uuid_facade_key_create()")
    top = {7: uuid_int(old.q("SELECT max(k::text) FROM t")), 6: uuid_int(old.q("SELECT max(k6::text) FROM t"))}
    rows = old.q(READBACK)
    top_v18 = old.q("SELECT max(v18::text) FROM t")
    checksums = old.q("SHOW data_checksums")
    patched_old = patched(old)
    old.stop()

    # The new cluster's data checksums as the old one's (18 turns them on at
    # initdb by default, earlier versions off).
    if checksums == "on":
        initdb_args = ["--data-checksums"]
    else:
        initdb_args = ["--no-data-checksums"] if NEW >= 18 else []
    new.initdb(*conf, initdb_args=initdb_args)
    new.start()
    patched_new = patched(new)
    new.stop()
    # PostgreSQL refuses exactly this: a patched old server, a new one from
    # before the patch.
    refusal_expected = patched_old and not patched_new
    check, r, logs = pg_upgrade(t, old, new, t.path("pg_upgrade"))
    if refusal_expected:
        if r.returncode == 0:
            fail(f"pg_upgrade {OLD} -> {NEW} worked, from a patched minor to one from before the patch: "
                 "PostgreSQL no longer refuses it, and the docs that say so are out of date")
        if 'unrecognized parameter "pg_attver"' not in logs:
            fail(f"pg_upgrade {OLD} -> {NEW} failed otherwise than on pg_attver:\n{r.stdout[-3000:]}{logs[-3000:]}")
        if check.returncode != 0:
            fail(f"pg_upgrade --check {OLD} -> {NEW} failed; the docs say it passes:\n{check.stdout[-2000:]}")
        ok(f"pg_upgrade {OLD} -> {NEW} is refused by PostgreSQL itself: the schema restore fails on "
           f"`unrecognized parameter \"pg_attver\"` (the old server is a patched minor, the new one is not), "
           "after `pg_upgrade --check` passed")
        refused_without_uuid_ext(t, initdb_args)
        dump_and_restore(t, old, new, initdb_args, conf, rows)
        return
    if r.returncode != 0:
        fail(f"pg_upgrade failed:\n{r.stdout[-3000:]}{r.stderr}\n{logs[-3000:]}")

    # pg_upgrade carries the schema as pg_dump writes it: a default that
    # called uuid_ext's uuidv7() on the old server still does where core has
    # a uuidv7() of its own (it shows qualified there); one that called core's
    # calls core's.
    def default_of(col):
        return new.q("SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a "
                     "ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE d.adrelid = 't'::regclass "
                     f"AND a.attname = '{col}'")

    # Without the documented copy step: the new server starts from its clock.
    new.set_clock("-1d")
    new.start()
    if new.q(READBACK) != rows:
        fail("the upgraded table does not read back as it was (keys and their façade faces)")
    core_v7_new = new.q("SELECT to_regprocedure('pg_catalog.uuidv7()') IS NOT NULL") == "t"
    below = new.least_new()
    if not all(below[v] < top[v] for v in GENERATORS):
        fail("without the copied horizon file the new server's UUIDs did not sort below the old keys")
    new.stop()
    ok(f"pg_upgrade {OLD} -> {NEW}: the data and the keys' façade faces read back; without the copied horizon file, the new server "
       "(clock a day behind) makes UUIDs below the old keys")

    # The documented step: copy the file before the new server's first start.
    shutil.copy2(os.path.join(old.data, "uuid_ext.horizon"), os.path.join(new.data, "uuid_ext.horizon"))
    t.host.give(os.path.join(new.data, "uuid_ext.horizon"))
    new.start()
    above = new.least_new()
    for v in GENERATORS:
        if above[v] <= top[v]:
            fail(f"with the horizon file copied, a new UUIDv{v} {above[v]:032x} is not above the old {top[v]:032x}")
    new.q("INSERT INTO t (n) VALUES (20001)")
    for col in ("id", "id6", "k", "k6", "ours18"):
        if new.q(f"SELECT n FROM t ORDER BY {col} DESC LIMIT 1") != "20001":
            fail(f"a row inserted after the upgrade does not sort last by {col}")
    # The indexes: all five carried and valid, range scans find every row,
    # and amcheck finds nothing wrong where the server has it.
    indexes = new.q("SELECT count(*) FILTER (WHERE i.indisvalid) || ' ' || string_agg(DISTINCT a.amname, ',') "
                    "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
                    "WHERE i.indrelid = 't'::regclass")
    if indexes != "5 brin,btree,hash":
        fail(f"after the upgrade the table's indexes are {indexes}, not 5 valid btree, hash and BRIN ones")
    counts = new.q("SET enable_seqscan = off; SET enable_bitmapscan = on; "
                   "SELECT count(*) FROM t WHERE k >= uuid_v7_lower_bound('1970-01-01') "
                   "UNION ALL SELECT count(*) FROM t WHERE k6 >= uuid_v6_lower_bound('1970-01-01')")
    if counts.split() != ["20001", "20001"]:
        fail(f"index scans after the upgrade count {counts.split()}, not 20001 each")
    if new.q("SELECT count(*) FROM pg_available_extensions WHERE name = 'amcheck'") == "1":
        new.q("CREATE EXTENSION amcheck; SELECT bt_index_check(c.oid, true) FROM pg_index i "
              "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
              "WHERE i.indrelid = 't'::regclass AND a.amname = 'btree'")
    ok(f"after pg_upgrade {OLD} -> {NEW}: every default (uuid, uuid7, uuid6 columns) makes a key that sorts last; "
       "its 5 btree, hash and BRIN indexes are valid and index range scans find every row" +
       ("; amcheck finds the btree indexes sound" if "amcheck" in new.q("SELECT string_agg(extname, ',') FROM pg_extension") else ""))

    got = default_of("v18")
    want = "uuidv7()" if core_v7_old else ("public.uuidv7()" if core_v7_new else "uuidv7()")
    if got != want:
        fail(f"after pg_upgrade the default DEFAULT uuidv7() reads {got}, not {want}")
    after = new.q("SELECT v18 FROM t WHERE n = 20001")
    if not core_v7_old:
        if new.q("SELECT n FROM t ORDER BY v18 DESC LIMIT 1") != "20001":
            fail("the uuidv7() default (uuid_ext's) made after the upgrade does not sort last")
        ok(f"a column default uuidv7() made on {OLD} is uuid_ext's, `{got}` on {NEW} after pg_upgrade, "
           "and its new key sorts last")
    else:
        # Core's: the new server's clock, a day behind, and nothing of ours.
        if not uuid_int(after) < uuid_int(top_v18):
            fail(f"core's uuidv7() after the upgrade made {after}, not below the old {top_v18}: "
                 "the test's premise (a clock a day behind) does not hold")
        ok(f"a column default uuidv7() made on {OLD} is core's, `{got}` on {NEW}: with the clock a day behind "
           "its new key sorts below the old ones (our horizon does not govern it; the docs say so)")
    new.stop()
    ok("with uuid_ext.horizon copied from the old data directory before the first start, every new UUIDv7 and "
       "v6 is above every key made before the upgrade, the clock a day behind")


def patched(server):
    """Whether a running server is a security release of 2026-11-12 or later
    (they have the setting composite_type_mismatch)."""
    return server.q("SELECT count(*) FROM pg_settings WHERE name = 'composite_type_mismatch'") == "1"


def pg_upgrade(t, old, new, run_dir):
    """`pg_upgrade --check`, then pg_upgrade, from old to new (both stopped),
    as the servers' user: (the check's result, the run's, the text of the run's logs)."""
    t.host.make_dir(run_dir)
    upgrade = [new.pg.tool("pg_upgrade"), "-b", old.bindir, "-B", new.bindir, "-d", old.data,
               "-D", new.data, "-U", "postgres", "-p", str(t.run.port()), "-P", str(t.run.port()), "-s", run_dir]
    check = t.host.run([*upgrade, "--check"], check=False, cwd=run_dir)
    r = t.host.run(upgrade, check=False, cwd=run_dir)
    logs = "".join(open(f, errors="replace").read()
                   for f in glob.glob(os.path.join(new.data, "pg_upgrade_output.d", "**", "*.log"), recursive=True))
    return check, r, logs


def refused_without_uuid_ext(t, initdb_args):
    """The same refusal for a cluster that never had uuid_ext: PostgreSQL's."""
    old_pg, new_pg = t.pair
    OLD, NEW = old_pg.major, new_pg.major
    old = t.server("plain_old", pg=old_pg)
    new = t.server("plain_new")
    old.initdb(initdb_args=["--data-checksums"] if "--data-checksums" in initdb_args else [])
    old.start()
    old.q("CREATE TABLE plain (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int)")
    old.stop()
    new.initdb(initdb_args=initdb_args)
    _, r, logs = pg_upgrade(t, old, new, t.path("plain_upgrade"))
    if r.returncode == 0 or 'unrecognized parameter "pg_attver"' not in logs:
        fail(f"without uuid_ext, pg_upgrade {OLD} -> {NEW} was not refused on pg_attver:\n{r.stdout[-2000:]}")
    ok(f"a cluster that never had uuid_ext meets the same refusal from {OLD} to {NEW}")


def dump_and_restore(t, old, new, initdb_args, conf, rows):
    """The way round pg_upgrade's refusal: a dump made with the old server's
    pg_dump restores into the new server with --exit-on-error; one made with
    the new server's pg_dump (which copies pg_attver) does not."""
    old_pg, new_pg = t.pair
    OLD, NEW = old_pg.major, new_pg.major
    new.initdb(*conf, initdb_args=initdb_args)
    old.start()
    new.start()
    dumps = {}
    for who, server in (("old", old), ("new", new)):
        path = t.path(f"dump-by-{who}.pgdump")
        r = t.host.run([server.pg.tool("pg_dump"), "-h", old.dir, "-p", str(old.port), "-U", "postgres",
                        "-Fc", "-f", path, "postgres"], check=False)
        if r.returncode != 0:
            fail(f"pg_dump of the old server by the {who} server's pg_dump failed:\n{r.stderr}")
        dumps[who] = path
    old.stop()
    results = {}
    for who, path in dumps.items():
        db = f"restored_{who}"
        new.q(f"CREATE DATABASE {db}")
        r = t.host.run([new.pg.tool("pg_restore"), "-h", new.dir, "-p", str(new.port), "-U", "postgres",
                        "--exit-on-error", "-d", db, path], check=False)
        results[who] = (r.returncode, r.stderr)
    if results["old"][0] != 0:
        fail(f"the old server's dump does not restore into {NEW}:\n{results['old'][1]}")
    got = new.q(READBACK, db="restored_old")
    if got != rows:
        fail("the table restored from the old server's dump does not read back as it was")
    if results["new"][0] == 0 or 'pg_attver' not in results["new"][1]:
        fail(f"the dump made with {NEW}'s pg_dump restored, or failed otherwise than on pg_attver: "
             f"{results['new']}")
    new.stop()
    ok(f"dump and restore instead: {OLD}'s pg_dump makes a dump that restores into {NEW} with --exit-on-error "
       f"and reads back; {NEW}'s pg_dump of the same server makes one that stops on pg_attver")
