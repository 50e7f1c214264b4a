#!/usr/bin/env python3
"""ALTER EXTENSION uuid_ext UPDATE from 0.1.0 (SPEC §8).

Installs 0.1.0 from its script as released (tests/upgrade/uuid_ext--0.1.0.sql,
put in the extension directory by scripts/test), makes data, a column default
with uuid_generate_v7() and a view over 0.1.0's functions, updates, and checks
that the catalog equals a fresh install of the new version (functions with
their labels, types, operators, operator classes and families, casts,
aggregates: tests/upgrade/catalog.sql) and that the old data, default and
view work as before; then that the new types take the old column.

Env: PSQL, PGHOST, PGPORT, PGUSER.
"""
import difflib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))
from pg import fail, ok, q  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = open(os.path.join(HERE, "catalog.sql")).read()


def fresh(db):
    q(f"DROP DATABASE IF EXISTS {db}")
    q(f"CREATE DATABASE {db}")


def main():
    new = q("SELECT default_version FROM pg_available_extensions WHERE name = 'uuid_ext'")
    fresh("upgrade_old")
    q("CREATE EXTENSION uuid_ext VERSION '0.1.0'", db="upgrade_old")
    if q("SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext'", db="upgrade_old") != "0.1.0":
        fail("0.1.0 did not install")
    q("""CREATE TABLE kept (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
         INSERT INTO kept (n) SELECT generate_series(1, 1000);
         INSERT INTO kept VALUES (uuid_timestamptz_to_v7('2022-02-22 19:22:22 UTC', true), 0);
         CREATE VIEW kept_2022 AS SELECT n FROM kept
           WHERE id >= uuid_v7_lower_bound('2022-01-01 UTC') AND id < uuid_v7_lower_bound('2023-01-01 UTC')""",
      db="upgrade_old")
    before = q("SELECT string_agg(n || ' ' || id || ' ' || uuid_v7_to_timestamptz(id), ',' ORDER BY id) FROM kept",
               db="upgrade_old")

    q(f"ALTER EXTENSION uuid_ext UPDATE TO '{new}'", db="upgrade_old")
    if q("SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext'", db="upgrade_old") != new:
        fail(f"the update did not reach {new}")
    fresh("upgrade_new")
    q("CREATE EXTENSION uuid_ext", db="upgrade_new")
    updated = q(CATALOG, db="upgrade_old").splitlines()
    installed = q(CATALOG, db="upgrade_new").splitlines()
    if updated != installed:
        diff = "\n".join(difflib.unified_diff(installed, updated, "fresh install", "updated from 0.1.0", lineterm=""))
        fail(f"the catalog after the update differs from a fresh {new} install:\n{diff}")
    ok(f"0.1.0 updated to {new}: the catalog equals a fresh install ({len(installed)} objects and members)")

    after = q("SELECT string_agg(n || ' ' || id || ' ' || uuid_v7_to_timestamptz(id), ',' ORDER BY id) FROM kept",
              db="upgrade_old")
    if after != before:
        fail("the data made before the update reads back differently")
    q("INSERT INTO kept (n) VALUES (1001)", db="upgrade_old")
    if q("SELECT n FROM kept ORDER BY id DESC LIMIT 1", db="upgrade_old") != "1001":
        fail("the column default made before the update does not make the greatest key")
    if q("SELECT string_agg(n::text, ',') FROM kept_2022", db="upgrade_old") != "0":
        fail("the view over 0.1.0's functions changed its answer")
    # The new version's own: the old column becomes a uuid7, its data checked.
    q("DROP VIEW kept_2022; ALTER TABLE kept ALTER COLUMN id TYPE uuid7", db="upgrade_old")
    if q("SELECT count(*) FROM kept WHERE id >= uuid_v7_lower_bound('2022-01-01 UTC')", db="upgrade_old") != "1002":
        fail("the updated extension's uuid7 type does not take the old column")
    ok("the data, the column default and the view made under 0.1.0 work after the update, "
       "and the old uuid column converts to uuid7")
    q("DROP DATABASE upgrade_old")
    q("DROP DATABASE upgrade_new")


if __name__ == "__main__":
    main()
