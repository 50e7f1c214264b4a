"""ALTER EXTENSION uuid_ext UPDATE from each earlier release (CONTRIBUTING.md#cutting-a-release).

For every earlier release, 0.1.0 to 0.8.0: installs the release from its script as released
(tests/upgrade/uuid_ext--VERSION.sql, put in the extension directory by
the runner), makes data, a column default with uuid_generate_v7() and a
view over its functions, updates, and checks that the catalog equals a fresh
install of the new version (functions with their labels, types, operators,
operator classes and families, casts, aggregates, the façade's table and
view: tests/upgrade/catalog.sql) and that the old data, default and view
work as before; then that the uuid7 type takes the old column and the new
version's functions answer (the façade maps every old key both ways; from
a release that had the façade, a key made before the update gives the same
faces after it).

Runs on the shared server; the releases are the install scripts in this
directory, `uuid_ext--VERSION.sql`.
"""
import difflib
import os

from harness import Skip
from pg import fail, ok

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG = open(os.path.join(HERE, "catalog.sql")).read()
# Every key's face under the current key, and whether each decodes back.
FACES = ("SELECT count(*) FILTER (WHERE uuid_facade_to_v7(uuid_v7_to_facade(id)) = id) || ' ' "
         "|| md5(string_agg(uuid_v7_to_facade(id)::text, ',' ORDER BY id)) FROM kept")


def main(t, releases):
    for old in releases:
        if not os.path.exists(os.path.join(t.pg.extension_dir, f"uuid_ext--{old}.sql")):
            raise Skip(f"{old}'s install script is not in {t.pg.extension_dir} (the runner could not put it there)")
    srv = t.shared()
    for old in releases:
        update_from(srv, old)


def update_from(srv, old):
    q, fresh = srv.q, srv.fresh
    new = q("SELECT default_version FROM pg_available_extensions WHERE name = 'uuid_ext'")
    fresh("upgrade_old")
    q(f"CREATE EXTENSION uuid_ext VERSION '{old}'", db="upgrade_old")
    if q("SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext'", db="upgrade_old") != old:
        fail(f"{old} did not install")
    q("""CREATE TABLE kept (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
         INSERT INTO kept (n) SELECT generate_series(1, 1000);
         INSERT INTO kept VALUES (uuid_timestamptz_to_v7('2022-02-22 19:22:22 UTC', true), 0);
         CREATE VIEW kept_2022 AS SELECT n FROM kept
           WHERE id >= uuid_v7_lower_bound('2022-01-01 UTC') AND id < uuid_v7_lower_bound('2023-01-01 UTC')""",
      db="upgrade_old")
    before = q("SELECT string_agg(n || ' ' || id || ' ' || uuid_v7_to_timestamptz(id), ',' ORDER BY id) FROM kept",
               db="upgrade_old")
    # A release with the façade: a key made before the update, and its faces.
    has_facade = q("SELECT count(*) FROM pg_proc WHERE proname = 'uuid_facade_key_create'", db="upgrade_old") != "0"
    if has_facade:
        q("SELECT uuid_facade_key_create()", db="upgrade_old")
        old_faces = q(FACES, db="upgrade_old")

    q(f"ALTER EXTENSION uuid_ext UPDATE TO '{new}'", db="upgrade_old")
    if q("SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext'", db="upgrade_old") != new:
        fail(f"the update did not reach {new}")
    fresh("upgrade_new")
    q("CREATE EXTENSION uuid_ext", db="upgrade_new")
    updated = q(CATALOG, db="upgrade_old").splitlines()
    installed = q(CATALOG, db="upgrade_new").splitlines()
    if updated != installed:
        diff = "\n".join(difflib.unified_diff(installed, updated, "fresh install", f"updated from {old}", lineterm=""))
        fail(f"the catalog after the update differs from a fresh {new} install:\n{diff}")
    ok(f"{old} updated to {new}: the catalog equals a fresh install ({len(installed)} objects and members)")
    if has_facade:
        if q(FACES, db="upgrade_old") != old_faces:
            fail(f"the façade key made under {old} gives other faces after the update")
        ok(f"the façade key made under {old} gives the same faces after the update")

    after = q("SELECT string_agg(n || ' ' || id || ' ' || uuid_v7_to_timestamptz(id), ',' ORDER BY id) FROM kept",
              db="upgrade_old")
    if after != before:
        fail("the data made before the update reads back differently")
    q("INSERT INTO kept (n) VALUES (1001)", db="upgrade_old")
    if q("SELECT n FROM kept ORDER BY id DESC LIMIT 1", db="upgrade_old") != "1001":
        fail("the column default made before the update does not make the greatest key")
    if q("SELECT string_agg(n::text, ',') FROM kept_2022", db="upgrade_old") != "0":
        fail(f"the view over {old}'s functions changed its answer")
    # The new version's own: the old column becomes a uuid7, its data checked.
    q("DROP VIEW kept_2022; ALTER TABLE kept ALTER COLUMN id TYPE uuid7", db="upgrade_old")
    if q("SELECT count(*) FROM kept WHERE id >= uuid_v7_lower_bound('2022-01-01 UTC')", db="upgrade_old") != "1002":
        fail("the updated extension's uuid7 type does not take the old column")
    # The commit watermark (0.3.0's) answers in the updated database (this cluster preloads).
    if q("SELECT uuid_v7_watermark() > max(id) FROM kept", db="upgrade_old") != "t":
        fail("uuid_v7_watermark() after the update is not above every committed key")
    # The façade (0.8.0's) on the keys made before the update: a key made
    # now gives every old key a face that decodes back, the same from
    # another session, and after a second update to the same version.
    q("SELECT uuid_facade_key_create()", db="upgrade_old")
    first = q(FACES, db="upgrade_old")
    q(f"ALTER EXTENSION uuid_ext UPDATE TO '{new}'", db="upgrade_old")
    if not first.startswith("1002 ") or q(FACES, db="upgrade_old") != first:
        fail(f"the façade after the update from {old}: {first}")
    ok(f"the data, the column default and the view made under {old} work after the update, "
       "the old uuid column converts to uuid7, uuid_v7_watermark() answers, and a façade key made after "
       "the update maps every old key both ways")
    q("DROP DATABASE upgrade_old")
    q("DROP DATABASE upgrade_new")


if __name__ == "__main__":
    main()
