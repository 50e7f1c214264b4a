#!/usr/bin/env python3
"""Order across a major upgrade with pg_upgrade (issue 15), following the
README's steps: pg_upgrade makes a new data directory without the horizon
file, so the step after it copies `uuid_ext.horizon` from the old data
directory into the new one before the new server's first start.

The old server (PostgreSQL OLD) makes keys and stops. pg_upgrade moves its
data to a new PostgreSQL NEW cluster. Started without the copied file and
with its clock a day behind, the new server's UUIDs sort below the old keys
(what the step prevents, and proof the check can fail); with the file copied,
they sort above.

Env: PGBIN_OLD, PGBIN_NEW, PG_OLD_MAJOR, PG_NEW_MAJOR, UUID_EXT_USER, FAKETIME_LIB, WORK, BASE_PORT.
"""
import os
import shutil

from pg import GENERATORS, fail, ok
from servers import Server, as_user, make_dir, uuid_int

WORK = os.environ["WORK"]
BASE_PORT = int(os.environ["BASE_PORT"])
OLD, NEW = os.environ["PG_OLD_MAJOR"], os.environ["PG_NEW_MAJOR"]


def main():
    make_dir(WORK)
    conf = ["shared_preload_libraries = 'uuid_ext'", "uuid_ext.durable_wal = on"]
    old = Server("old", os.path.join(WORK, "old"), BASE_PORT, os.environ["PGBIN_OLD"])
    new = Server("new", os.path.join(WORK, "new"), BASE_PORT + 1, os.environ["PGBIN_NEW"])
    old.initdb(*conf)
    old.start()
    old.q("CREATE EXTENSION uuid_ext")
    # v18: a default written with PostgreSQL 18's name, which is uuid_ext's before 18.
    old.q("CREATE TABLE t (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), id6 uuid DEFAULT uuid_generate_v6(), "
          "k uuid7 UNIQUE DEFAULT uuid_generate_v7(), v18 uuid DEFAULT uuidv7(), n int)")
    old.q("INSERT INTO t (n) SELECT generate_series(1, 20000)")
    top = {7: uuid_int(old.q("SELECT max(k::text) FROM t")), 6: uuid_int(old.q("SELECT max(id6::text) FROM t"))}
    rows = old.q("SELECT count(*) || ' ' || md5(string_agg(id::text || id6::text || k::text, ',' ORDER BY n)) FROM t")
    old.stop()

    # 18 turns data checksums on at initdb; the old cluster has none.
    new.initdb(*conf, initdb_args=["--no-data-checksums"] if int(NEW) >= 18 else [])
    run_dir = os.path.join(WORK, "pg_upgrade")
    make_dir(run_dir)
    r = as_user([os.path.join(new.bindir, "pg_upgrade"), "-b", old.bindir, "-B", new.bindir, "-d", old.data,
                 "-D", new.data, "-U", "postgres", "-p", str(BASE_PORT + 2), "-P", str(BASE_PORT + 3), "-s", run_dir],
                check=False, cwd=run_dir)
    if r.returncode != 0:
        fail(f"pg_upgrade failed:\n{r.stdout[-3000:]}{r.stderr}")

    # pg_upgrade carries the schema as pg_dump writes it: a default that
    # called uuid_ext's uuidv7() on the old server still does on 18, whose
    # own uuidv7() in pg_catalog would answer the unqualified name.
    default_v18 = ("SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a "
                   "ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE d.adrelid = 't'::regclass "
                   "AND a.attname = 'v18'")
    want_default = "public.uuidv7()" if int(OLD) < 18 <= int(NEW) else "uuidv7()"

    # Without the README's copy step: the new server starts from its clock.
    new.set_clock("-1d")
    new.start()
    if new.q("SELECT count(*) || ' ' || md5(string_agg(id::text || id6::text || k::text, ',' ORDER BY n)) "
             "FROM t") != rows:
        fail("the upgraded table does not read back as it was")
    below = new.least_new()
    if not all(below[v] < top[v] for v in GENERATORS):
        fail("without the copied horizon file the new server's UUIDs did not sort below the old keys")
    new.stop()
    ok(f"pg_upgrade {OLD} -> {NEW}: the data reads back; without the copied horizon file, the new server "
       "(clock a day behind) makes UUIDs below the old keys")

    # The README's step: copy the file before the new server's first start.
    shutil.copy2(os.path.join(old.data, "uuid_ext.horizon"), os.path.join(new.data, "uuid_ext.horizon"))
    shutil.chown(os.path.join(new.data, "uuid_ext.horizon"), os.environ.get("UUID_EXT_USER", "uuidext"))
    new.start()
    above = new.least_new()
    for v in GENERATORS:
        if above[v] <= top[v]:
            fail(f"with the horizon file copied, a new UUIDv{v} {above[v]:032x} is not above the old {top[v]:032x}")
    new.q("INSERT INTO t (n) VALUES (20001)")
    if new.q("SELECT n FROM t ORDER BY k DESC LIMIT 1") != "20001":
        fail("a row inserted after the upgrade does not sort last")
    got = new.q(default_v18)
    if got != want_default:
        fail(f"after pg_upgrade the default DEFAULT uuidv7() reads {got}, not {want_default}")
    if new.q("SELECT n FROM t ORDER BY v18 DESC LIMIT 1") != "20001":
        fail("the uuidv7() default made after the upgrade does not sort last")
    ok(f"a column default uuidv7() made on {OLD} is {want_default} on {NEW} after pg_upgrade, and its new key sorts last")
    new.stop()
    ok("with uuid_ext.horizon copied from the old data directory before the first start, every new UUIDv7 and "
       "v6 is above every key made before the upgrade, the clock a day behind")


if __name__ == "__main__":
    main()
