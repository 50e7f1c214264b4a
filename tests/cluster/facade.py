"""The façade's keys across sessions, restarts, standbys, dumps and databases; none in the log.

What docs/facade.md#keys says, on a server that logs every statement with
its parameters and duration (`log_statement = all`,
`log_min_duration_statement = 0`):

 1. A key made with uuid_facade_key_create(); the faces of 2,000 keys are
    the same from two sessions, inside a parallel query, after a restart,
    and on a standby made with `pg_basebackup -R`.
 2. Rotation reaches sessions that hold the old key in their cache: a new
    key made on the primary changes the faces an open session on the
    primary and one on the standby make, at their next statement; the old
    faces still resolve through uuid_facade_candidates() on both.
 2b. At every isolation level: a repeatable-read (and a serializable)
    transaction that holds a transaction id, meets a rotation another
    session commits, and then makes a face: after it ends, that backend's
    next transaction makes faces with the new key, as every other does.
 3. pg_dump / pg_restore into a new database: the same keys, ids and
    dates, the same faces; a schema-only restore has no key (55000, the
    hint that says what the restore lost).
 4. A second database's own key gives other faces, and finds none of the
    first's rows from the first's faces; the first's key moved over by the
    documented \\copy route (docs/facade.md#moving-a-key) gives the same faces.
 5. Point-in-time recovery from a base backup taken before any key, with
    the archived WAL, to a restore point after the first key: its faces.
 6. The server log holds no key bytes after all of this (and holds them
    when a key is passed in SQL text, so the check can fail).

Starts its own servers (a primary and a standby); needs psycopg 3.
"""
import os
import subprocess

import psycopg

from pg import fail, ok, wait_for

# A superuser's search path in a database whose owner it need not trust
# (docs/facade.md#moving-a-key): SAFE, then PIN.
SAFE = "SET search_path = pg_catalog, pg_temp"
PIN = ("DO $$BEGIN PERFORM pg_catalog.set_config('search_path', 'pg_catalog, ' || "
       "(SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e "
       "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'uuid_ext') "
       "|| ', pg_temp', false); END$$")

N = 2_000
LOG_ALL = ["log_statement = 'all'", "log_min_duration_statement = 0", "log_parameter_max_length = -1",
           "wal_level = replica", "max_wal_senders = 4", "shared_preload_libraries = 'uuid_ext'"]
# Copies never archive: a promoted copy would put its files into the archive.
COPY_CONF = ["archive_mode = off"]


def faces(srv, db="postgres"):
    """{n: face} of every row of orders under the current key."""
    rows = srv.q("SELECT n || ' ' || uuid_v7_to_facade(id) FROM orders ORDER BY n", db=db)
    return dict(line.split() for line in rows.splitlines())


def key_hex(srv, key_id, db="postgres"):
    return srv.q(f"SELECT encode(uuid_facade_key_export({key_id}), 'hex')", db=db)


def main(t):
    archive = t.path("archive")
    t.host.make_dir(archive)
    p = t.server("primary")
    p.initdb(*LOG_ALL, "archive_mode = on", f"archive_command = 'cp %p {archive}/%f'")
    p.start()
    p.q("CREATE EXTENSION uuid_ext")
    p.q(f"CREATE TABLE orders (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int UNIQUE);"
        f"INSERT INTO orders (n) SELECT generate_series(1, {N})")
    backup = t.server("backup")
    p.base_backup(backup, "-X", "stream")
    if p.q("SELECT uuid_facade_key_create()") != "1":
        fail("the first key is not key 1")
    first = faces(p)
    p.q("SELECT pg_create_restore_point('after_key')")
    p.archive_current_wal(archive)
    if len(set(first.values())) != N:
        fail("two rows share a face")

    # 1. Sessions, a parallel query, a restart.
    with psycopg.connect(p.conninfo(), autocommit=True) as a, psycopg.connect(p.conninfo(), autocommit=True) as b:
        fa = dict(a.execute("SELECT n::text, uuid_v7_to_facade(id)::text FROM orders").fetchall())
        fb = dict(b.execute("SELECT n::text, uuid_v7_to_facade(id)::text FROM orders").fetchall())
    if fa != first or fb != first:
        fail("two sessions give different faces under one key")
    parallel = p.q("""SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
                      SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
                      SET parallel_leader_participation = off;
                      EXPLAIN (COSTS OFF) SELECT count(*) FROM orders WHERE uuid_facade_to_v7(uuid_v7_to_facade(id)) = id;
                      SELECT count(*) FROM orders WHERE uuid_facade_to_v7(uuid_v7_to_facade(id)) = id""")
    if "Gather" not in parallel or not parallel.endswith(f"\n{N}"):
        fail(f"the faces inside a parallel query:\n{parallel}")
    p.stop()
    p.start()
    if faces(p) != first:
        fail("the faces changed across a restart")
    ok(f"{N} keys: the same faces from two sessions, in a parallel query (workers), after a restart")

    s = t.server("standby")
    p.base_backup(s, "-R", "-X", "stream")
    s.configure(*COPY_CONF)
    s.start()
    p.wait_replayed(s)
    if faces(s) != first:
        fail("the standby gives other faces than the primary")
    ok("a standby made with pg_basebackup -R gives the primary's faces")

    # 2. Rotation reaches open sessions, here and on the standby.
    with psycopg.connect(p.conninfo(), autocommit=True) as on_p, \
            psycopg.connect(s.conninfo(), autocommit=True) as on_s:
        probe = "SELECT uuid_v7_to_facade(id)::text FROM orders WHERE n = 1"
        if on_p.execute(probe).fetchone()[0] != first["1"] or on_s.execute(probe).fetchone()[0] != first["1"]:
            fail("an open session's face before the rotation")
        p.q("SELECT uuid_facade_key_create()")
        second = faces(p)
        if any(second[n] == first[n] for n in first):
            fail("a new key gave a face the old key gave")
        if on_p.execute(probe).fetchone()[0] != second["1"]:
            fail("a session that had the old key cached still makes faces with it after the rotation")
        p.wait_replayed(s)
        wait_for(lambda: on_s.execute(probe).fetchone()[0] == second["1"],
                 "the standby's open session to make faces with the new key", 30)
        for conn, where in ((on_p, "primary"), (on_s, "standby")):
            found = conn.execute("SELECT count(*) FROM orders o, unnest(%s::uuid[]) f "
                                 "WHERE o.id = ANY (uuid_facade_candidates(f))", (list(first.values()),)).fetchone()[0]
            if found != N:
                fail(f"on the {where}, {found} of {N} old faces resolve through the candidates after the rotation")
    ok("a rotation on the primary reaches open sessions on the primary and, through the WAL, on the standby; "
       "the old faces resolve through uuid_facade_candidates() on both")
    s.stop()

    # 2b. Isolation levels.
    for level in ("REPEATABLE READ", "SERIALIZABLE"):
        with psycopg.connect(p.conninfo()) as b:
            b.execute(f"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {level}")
            b.execute(probe)  # the key cached
            b.commit()
            b.execute("SELECT pg_current_xact_id()")  # a snapshot and a transaction id
            p.q("SELECT uuid_facade_key_create()")
            # orders, not yet locked in this transaction: its lock takes in the
            # rotation's invalidation, and the face reads the key table again.
            b.execute(probe)
            b.commit()
            after = b.execute(probe).fetchone()[0]
            b.commit()
        now = faces(p)
        if after != now["1"]:
            fail(f"a {level} transaction that met a rotation left its backend making faces with the old key")
    second = now
    ok("a repeatable-read and a serializable transaction holding a transaction id met a rotation: their "
       "backends' next transactions make faces with the new key")

    # 3. pg_dump and pg_restore.
    dump = t.path("db.dump")
    t.host.run([p.pg.tool("pg_dump"), "-Fc", "-d", p.conninfo(), "-f", dump])
    p.fresh("restored")
    t.host.run([p.pg.tool("pg_restore"), "--exit-on-error", "-d", p.conninfo("restored"), dump])
    keys = "SELECT string_agg(key_id || state || fingerprint || created, ',' ORDER BY key_id) FROM uuid_facade_keys"
    if p.q(keys, db="restored") != p.q(keys) or faces(p, "restored") != second:
        fail("the restored database has other keys or faces")
    p.fresh("schema_only")
    t.host.run([p.pg.tool("pg_restore"), "--exit-on-error", "--schema-only", "-d", p.conninfo("schema_only"), dump])
    r = p.q("SELECT uuid_v7_to_facade(uuid_generate_v7())", db="schema_only", check=False)
    if r.returncode == 0 or "needs a current facade key" not in r.stderr or "restore that table" not in r.stderr:
        fail(f"a schema-only restore: {r.stdout}{r.stderr}")
    ok("pg_dump/pg_restore carries the keys (ids, states, dates, fingerprints) and the faces; a schema-only "
       "restore has none and says what it lost")

    # 4. Another database: its own key, then the first's moved over.
    p.fresh("other")
    p.q("CREATE EXTENSION uuid_ext; CREATE TABLE orders (id uuid7 PRIMARY KEY, n int UNIQUE)", db="other")
    rows = p.q("SELECT string_agg(format('(%L, %s)', id, n), ',') FROM orders")
    p.q(f"INSERT INTO orders VALUES {rows}", db="other")
    p.q("SELECT uuid_facade_key_create()", db="other")
    theirs = faces(p, "other")
    if any(theirs[n] == second[n] for n in second):
        fail("a second database's key gives a face the first's gives")
    found = p.q(f"SELECT count(*) FROM orders WHERE id = ANY (SELECT uuid_facade_to_v7(f) FROM "
                f"unnest('{{{','.join(second.values())}}}'::uuid[]) f)", db="other")
    if found != "0":
        fail(f"the second database finds {found} rows from the first's faces")
    key_file = t.path("key")
    current = p.q("SELECT key_id FROM uuid_facade_keys WHERE state = 'current'")
    subprocess.run([*p.psql("postgres"), "-q", "-c", SAFE, "-c", PIN, "-c",
                    f"\\copy (SELECT uuid_facade_key_export({current})) TO '{key_file}'"],
                   check=True)
    subprocess.run([*p.psql("other"), "-q", "-c", SAFE, "-c", PIN,
                    "-c", "CREATE TEMP TABLE moving (key pg_catalog.bytea)",
                    "-c", f"\\copy pg_temp.moving FROM '{key_file}'",
                    "-c", "SELECT uuid_facade_key_import(key) FROM pg_temp.moving"], check=True, capture_output=True)
    os.unlink(key_file)
    if faces(p, "other") != second:
        fail("the key moved into another database gives other faces there")
    ok("a second database's own key gives other faces and finds none of the first's rows; the first's key "
       "moved over with \\copy gives the same faces there")

    # 5. Point-in-time recovery to the restore point after the first key.
    backup.recover_from(archive, "recovery_target_name = 'after_key'")
    backup.start()
    wait_for(lambda: backup.q("SELECT pg_is_in_recovery()") == "f", "the restore to reach its target", 120)
    if backup.q("SELECT string_agg(key_id || state, ',') FROM uuid_facade_keys") != "1current" \
            or faces(backup) != first:
        fail("point-in-time recovery to a restore point after the first key has other keys or faces")
    backup.stop()
    ok("point-in-time recovery from a base backup taken before any key, to a restore point after the first: "
       "that key, and its faces")

    # 6. The log.
    secrets = [key_hex(p, k) for k in p.q("SELECT key_id FROM uuid_facade_keys").split()]
    secrets.append(key_hex(p, 1, db="other"))
    log = p.log_text()
    leaked = [k for k in secrets if k in log]
    if leaked:
        fail(f"the server log holds {len(leaked)} key(s) in hex")
    if "log_statement" not in p.q("SELECT string_agg(name, ',') FROM pg_settings "
                                  "WHERE name = 'log_statement' AND setting = 'all'"):
        fail("the server does not log every statement")
    p.q(f"SELECT uuid_facade_key_import('\\x{secrets[-1]}')", db="restored")
    if secrets[-1] not in p.log_text():
        fail("a key passed in SQL text did not reach the log: the check above could not fail")
    ok("with log_statement = all and every duration logged, no key reached the server log (a key passed in SQL "
       "text does, so the check can fail)")
    p.stop()
