"""The façade against the roles it serves (docs/facade.md#who-may-call-what).

A role `dbo`, no superuser, owns the database `shop` and installs uuid_ext
there through the trusted path, into a schema of its own (`ext`, which the
roles put in their search_path); it makes a key and grants the mapping to
the application role `app`, which may also make schemas. Then, as those
roles would:

 decoys    relations named `uuid_facade_key` where a search path other than
           the caller's looks: in a schema named after the key table's owner
           (the bootstrap superuser), in the database owner's "$user" schema,
           in public, in the application role's "$user" schema, in a schema
           the application role owns and revoked its own USAGE on (then
           first in its search_path), and in its pg_temp. Each is a view
           whose every column, and every INSTEAD OF trigger, calls a
           function that records the call, tries to make `dbo` a
           superuser and hands out a key the attacker knows. Fresh backends
           of both roles map faces, and `dbo` makes a key, under every
           decoy: the faces equal a superuser's (who sees no decoy), the new
           key is in the real table, no decoy ran, nobody became a
           superuser.
 roles     a member of pg_read_all_data reads the key table's ids and states
           but not a key's bytes; a member of pg_write_all_data can neither
           replace, add nor delete a key; the application role reads
           neither. Nor can the owner or pg_read_all_data find a key bit by
           bit by comparing rows byte for byte (`*<`) with values of the
           key's type they make; no role but a superuser makes such a value
           or keeps one in an object of its own (which would break others'
           dumps); a replication connection's SQL reads no key either.
 dump      the database owner's pg_dump of its database succeeds and holds
           no key; restored by that owner into a new database it works and
           says it has no key (55000); a superuser's session made another
           role (ALTER DATABASE ... SET role) fails rather than dump no key;
           a superuser's restore that fails on a key already there does not
           put the key in the server log.
 read-only the key functions write nothing in a read-only transaction (25006).

Starts its own server (uuid_ext preloaded); needs psycopg 3.
"""
import re
import subprocess

import psycopg

from pg import fail, must_fail, ok

N = 200
IDS = "SELECT ext.uuid_generate_v7() AS id FROM generate_series(1, {n})"
# The published test key (docs/facade.md#test-vectors): what a decoy hands out.
TEST_KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"


def connect(srv, db="shop", user="postgres", autocommit=True):
    return psycopg.connect(srv.conninfo(db, user), autocommit=autocommit)


def one(conn, sql, params=None):
    return conn.execute(sql, params).fetchone()[0]


def plant_decoy(conn, schema, temp=False):
    """A view `uuid_facade_key` in `schema` (or the session's pg_temp) with
    the key table's columns, each from a function that records its call,
    tries to make dbo a superuser and returns the test key; INSTEAD OF
    triggers record what a write would have put there (a key)."""
    where = "pg_temp" if temp else schema
    conn.execute(f"""
        CREATE VIEW {where}.uuid_facade_key AS
          SELECT 1 AS key_id, 'current'::text AS state, public.decoy_key('{schema}: read') AS key,
                 'decoy'::text AS fingerprint, now() AS created,
                 NULL::timestamptz AS retired, NULL::timestamptz AS dropped;
        CREATE TRIGGER decoy_write INSTEAD OF INSERT OR UPDATE OR DELETE ON {where}.uuid_facade_key
          FOR EACH ROW EXECUTE FUNCTION public.decoy_write('{schema}')""")


DECOY_FUNCTIONS = f"""
    CREATE TABLE public.decoy_calls (what text, by_user text, got text);
    GRANT ALL ON public.decoy_calls TO PUBLIC;
    CREATE FUNCTION public.decoy_key(what text) RETURNS bytea LANGUAGE plpgsql AS $f$
    BEGIN
      RAISE WARNING 'DECOY % called as %', what, current_user;
      INSERT INTO public.decoy_calls VALUES (what, current_user, NULL);
      BEGIN
        EXECUTE 'ALTER ROLE dbo SUPERUSER';
      EXCEPTION WHEN insufficient_privilege THEN NULL;
      END;
      RETURN '\\x{TEST_KEY}'::bytea;
    END $f$;
    CREATE FUNCTION public.decoy_write() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      RAISE WARNING 'DECOY % write called as %', TG_ARGV[0], current_user;
      INSERT INTO public.decoy_calls VALUES (TG_ARGV[0] || ': ' || TG_OP, current_user, NEW::text);
      RETURN NEW;
    END $f$;
    GRANT EXECUTE ON FUNCTION public.decoy_key(text), public.decoy_write() TO PUBLIC"""


def faces(conn, ids):
    return [str(f) for (f,) in conn.execute("SELECT ext.uuid_v7_to_facade(id) FROM unnest(%s::uuid[]) id",
                                            (ids,)).fetchall()]


def clean(srv, reference, ids, log_from, what):
    """No decoy ran, nobody became a superuser, the faces are the reference's."""
    with connect(srv) as su:
        calls = su.execute("SELECT what, by_user, got FROM public.decoy_calls").fetchall()
        supers = one(su, "SELECT string_agg(rolname, ',') FROM pg_roles WHERE rolname IN ('dbo', 'app') "
                         "AND rolsuper")
        now = faces(su, ids)
    if calls:
        fail(f"{what}: a decoy ran: {calls}")
    if supers:
        fail(f"{what}: {supers} became a superuser")
    if "DECOY" in srv.log_text()[log_from:]:
        fail(f"{what}: a decoy ran (the server log): {srv.log_text()[log_from:][-2000:]}")
    if now != reference:
        fail(f"{what}: a superuser's faces changed")


def test_decoys(srv):
    with connect(srv) as su:
        ids = [str(u) for (u,) in su.execute(IDS.format(n=N)).fetchall()]
    with connect(srv, user="dbo") as dbo:
        key = one(dbo, "SELECT ext.uuid_facade_key_create()")
        dbo.execute("GRANT EXECUTE ON FUNCTION ext.uuid_v7_to_facade(uuid, text), "
                    "ext.uuid_facade_to_v7(uuid, text), ext.uuid_facade_candidates(uuid, text) TO app")
    with connect(srv) as su:
        su.execute("SET search_path = pg_catalog")
        reference = faces(su, ids)
    log_from = srv.log_size()

    # The database owner plants where the key table owner's search path
    # looks ("$user": the bootstrap superuser's name) and in public; the
    # application role in a schema whose USAGE it revoked from itself, and
    # in its pg_temp (per session, below).
    with connect(srv, user="dbo") as dbo:
        owner = one(dbo, "SELECT c.relowner::regrole::text FROM pg_class c "
                         "WHERE c.oid = 'ext.uuid_facade_key'::regclass")
        dbo.execute(DECOY_FUNCTIONS)
        dbo.execute(f'CREATE SCHEMA "{owner}"')
        plant_decoy(dbo, f'"{owner}"')
        plant_decoy(dbo, "public")
    with connect(srv, user="app") as app:
        app.execute("CREATE SCHEMA app_hidden")
        plant_decoy(app, "app_hidden")
        app.execute("REVOKE USAGE ON SCHEMA app_hidden FROM app")

    tried = 0

    def attack(role, path):
        nonlocal tried
        with connect(srv, user=role) as conn:  # a new backend: its key cache is empty
            if role == "app":
                plant_decoy(conn, "app_temp", temp=True)
            conn.execute(f"SET search_path = {path}")
            got = faces(conn, ids)
            if got != reference:
                fail(f"{role} with search_path {path} gets other faces than a superuser: a decoy's key")
            back = [str(v) for (v,) in conn.execute("SELECT ext.uuid_facade_to_v7(f) FROM unnest(%s::uuid[]) f",
                                                    (got,)).fetchall()]
            if back != ids:
                fail(f"{role} with search_path {path} decodes the faces to other keys")
            tried += 1
        clean(srv, reference, ids, log_from, f"{role} mapping with search_path {path}")

    # The table is visible to the caller, and the owner's "$user" (or the
    # USAGE the caller lacks) makes the same path reach a decoy first; then
    # paths where the caller meets a decoy itself.
    for role, path in (("dbo", '"$user", ext, public'), ("app", '"$user", ext, public'),
                       ("app", "app_hidden, ext, public"), ("dbo", "public, ext"), ("app", "pg_temp, ext"),
                       ("app", "ext, pg_temp")):
        attack(role, path)
    # And in each role's own "$user" schema.
    with connect(srv, user="dbo") as dbo:
        dbo.execute("CREATE SCHEMA dbo")
        plant_decoy(dbo, "dbo")
    with connect(srv, user="app") as app:
        app.execute("CREATE SCHEMA app")
        plant_decoy(app, "app")
    for role in ("dbo", "app"):
        attack(role, '"$user", ext, public')

    # Making and rotating a key under the decoys: the new key goes into the
    # real table, where a superuser finds it, and nowhere else.
    with connect(srv, user="dbo") as dbo:
        dbo.execute("DROP SCHEMA dbo CASCADE")
        dbo.execute('SET search_path = "$user", ext, public')
        new = one(dbo, "SELECT ext.uuid_facade_key_create()")
        dbo.execute(f"SELECT ext.uuid_facade_key_retire({key})")
        mine = faces(dbo, ids)
    with connect(srv) as su:
        su.execute("SET search_path = pg_catalog")
        states = one(su, "SELECT string_agg(key_id || ' ' || state, ', ' ORDER BY key_id) FROM ext.uuid_facade_key")
        if states != f"{key} retired, {new} current":
            fail(f"after dbo made a key under the decoys, the key table holds: {states}")
        reference = faces(su, ids)
    if mine != reference:
        fail("the key dbo made under the decoys gives dbo other faces than a superuser")
    clean(srv, reference, ids, log_from, "making and retiring a key")
    with connect(srv) as su:
        su.execute(f'DROP SCHEMA "{owner}", app, app_hidden CASCADE; DROP VIEW public.uuid_facade_key; '
                   "DROP TABLE public.decoy_calls; DROP FUNCTION public.decoy_key(text), public.decoy_write()")
    ok(f"decoy relations named uuid_facade_key (in the schema of the key table's owner {owner}, dbo's, public, "
       f"app's, one whose USAGE app revoked from itself, app's pg_temp): {tried} fresh backends of dbo and app "
       "mapped and decoded a superuser's faces; dbo made and retired keys in the real table; no decoy ran, "
       "no role became a superuser")
    return ids


def test_roles(srv):
    with connect(srv) as su:
        su.execute("CREATE ROLE reader LOGIN IN ROLE pg_read_all_data; CREATE ROLE writer LOGIN IN ROLE "
                   "pg_write_all_data, pg_read_all_data")
        key = one(su, "SELECT key_id FROM ext.uuid_facade_key WHERE state = 'current'")
        before = one(su, "SELECT string_agg(key_id || state || fingerprint, ',' ORDER BY key_id) "
                         "FROM ext.uuid_facade_key")
    with connect(srv, user="reader") as r:
        if one(r, "SELECT count(*) FROM ext.uuid_facade_key WHERE state = 'current'") != 1:
            fail("a member of pg_read_all_data does not see the key ids and states")
        for sql in ("SELECT key FROM ext.uuid_facade_key", "SELECT * FROM ext.uuid_facade_key",
                    "SELECT t::text FROM ext.uuid_facade_key t", "SELECT key::text FROM ext.uuid_facade_key",
                    "COPY ext.uuid_facade_key TO STDOUT"):
            must_fail(r, sql, "42501", "a member of pg_read_all_data reading a key")
    with connect(srv, user="writer") as w:
        for sql in (f"UPDATE ext.uuid_facade_key SET key = '\\x{TEST_KEY}' WHERE key_id = {key}",
                    f"UPDATE ext.uuid_facade_key SET state = 'retired' WHERE key_id = {key}",
                    f"DELETE FROM ext.uuid_facade_key WHERE key_id = {key}",
                    f"INSERT INTO ext.uuid_facade_key VALUES (99, 'retired', '\\x{TEST_KEY}', 'x', now())"):
            must_fail(w, sql, "42501", "a member of pg_write_all_data changing the keys")
    with connect(srv, user="app") as app:
        for sql in ("SELECT key_id FROM ext.uuid_facade_key", "SELECT ext.uuid_facade_key_create()",
                    f"SELECT ext.uuid_facade_key_export({key})"):
            must_fail(app, sql, "42501", "the application role")
    with connect(srv, user="dbo") as dbo:
        must_fail(dbo, "SELECT key FROM ext.uuid_facade_key", "42501", "the database owner reading a key")
        must_fail(dbo, f"SELECT ext.uuid_facade_key_export({key})", "42501", "the database owner exporting a key")
        must_fail(dbo, f"INSERT INTO ext.uuid_facade_key VALUES (99, 'current', '\\x{TEST_KEY}', 'x', now())",
                  "42501", "the database owner adding a key")
    with connect(srv) as su:
        after = one(su, "SELECT string_agg(key_id || state || fingerprint, ',' ORDER BY key_id) "
                        "FROM ext.uuid_facade_key")
        su.execute("DROP ROLE reader; DROP ROLE writer")
    if after != before:
        fail(f"the keys changed: {before} -> {after}")
    ok("a member of pg_read_all_data reads the key ids and states, not a key's bytes (42501); a member of "
       "pg_write_all_data cannot replace, retire, delete or add a key; the database owner and the application "
       "role read no key and add none")


def bit_by_bit(kid):
    """A key found bit by bit: each step compares the stored key's row with
    a row of a value made from chosen bytes, byte for byte (record_image_lt)."""
    return f"""WITH RECURSIVE bits(i, lo) AS (SELECT 0, decode(repeat('00', 32), 'hex') UNION ALL
      SELECT i + 1, CASE WHEN (SELECT x.a *< y.b
                               FROM (SELECT ROW(key) AS a FROM ext.uuid_facade_key WHERE key_id = {kid}) x,
                                    (SELECT ROW(('\\x' || encode(set_bit(lo, (i/8)*8 + 7 - i%8, 1), 'hex'))
                                                ::ext.uuid_facade_secret) AS b) y)
                         THEN lo ELSE set_bit(lo, (i/8)*8 + 7 - i%8, 1) END
      FROM bits WHERE i < 256)
      SELECT encode(lo, 'hex') FROM bits WHERE i = 256"""


def test_values(t, srv):
    with connect(srv) as su:
        kid = one(su, "SELECT key_id FROM ext.uuid_facade_key WHERE state = 'current'")
        real = bytes(one(su, f"SELECT ext.uuid_facade_key_export({kid})")).hex()
        su.execute("CREATE ROLE reader2 LOGIN IN ROLE pg_read_all_data")
        su.execute("CREATE ROLE repl LOGIN REPLICATION IN ROLE pg_read_all_data")
        # The oracle works for a superuser, who may read the key anyway: the
        # query is right, so its failure for the others is the fix's.
        if one(su, bit_by_bit(kid)) != real:
            fail("the bit-by-bit query does not find the key even for a superuser")
    for role in ("dbo", "reader2"):
        with connect(srv, user=role) as c:
            must_fail(c, bit_by_bit(kid), "42501", f"{role} finding a key bit by bit with *<")
    with connect(srv, user="app") as app:
        app.execute("CREATE SCHEMA appx")
        # (A view with a value of the type would make its definition's output,
        # and so any other role's pg_dump of the database, fail.)
        for sql in (f"CREATE VIEW appx.v AS SELECT '\\x{TEST_KEY}'::ext.uuid_facade_secret IS NULL AS harmless",
                    "CREATE TABLE appx.t (k ext.uuid_facade_secret)",
                    f"SELECT '\\x{TEST_KEY}'::ext.uuid_facade_secret IS NULL",
                    f"SELECT ext.uuid_facade_secret_in('\\x{TEST_KEY}')"):
            must_fail(app, sql, "42501", "a role that is not a superuser making a value of the key's type")
        app.execute("DROP SCHEMA appx")
    # A replication connection (its role has REPLICATION and pg_read_all_data).
    r = subprocess.run([srv.pg.tool("psql"), "-X", "-At", "-d",
                        f"host={srv.dir} port={srv.port} user=repl dbname=shop replication=database",
                        "-c", "SELECT key FROM ext.uuid_facade_key"], capture_output=True, text=True)
    if r.returncode == 0 or "only a superuser may see" not in r.stderr or real in r.stdout:
        fail(f"a replication connection's SQL read the key table: {r.stdout}{r.stderr}")
    # Read-only transactions write no key.
    with connect(srv, user="dbo", autocommit=False) as dbo:
        dbo.execute("SET TRANSACTION READ ONLY")
        must_fail(dbo, "SELECT ext.uuid_facade_key_create()", "25006", "making a key in a read-only transaction")
    with connect(srv) as su:
        su.execute("DROP ROLE reader2; DROP ROLE repl")
    ok("neither the database owner nor pg_read_all_data finds a key bit by bit by comparing rows byte for byte "
       "(*<: no role but a superuser makes a value of the key's type, 42501), nor keeps one in a view or table of "
       "its own; a replication connection's SQL reads no key; no key is made in a read-only transaction (25006)")


def test_row_types(srv):
    """A role that may read the key table keeps no row of it (so no key's
    bytes) in a table of its own: a column of a composite is checked for
    USAGE on the composite, not on its fields. (0.9.0: dbo's stash held key
    1 after its drop, rode every later superuser dump, and broke dbo's own.)"""
    with connect(srv, user="dbo") as dbo:
        dbo.execute("CREATE SCHEMA stash")
        for sql in ("CREATE TABLE stash.t (r ext.uuid_facade_key)",
                    "CREATE TABLE stash.t AS SELECT k FROM ext.uuid_facade_key k",
                    "CREATE TABLE stash.c (r ext.uuid_facade_cluster_key)",
                    "CREATE VIEW stash.v AS SELECT k FROM ext.uuid_facade_key k",
                    "CREATE TABLE stash.a (r ext.uuid_facade_key[])"):
            must_fail(dbo, sql, "42501", "the database owner keeping a row of the key tables")
        # The view and the owner's reads of the table still work.
        one(dbo, "SELECT count(*) FROM ext.uuid_facade_keys")
        one(dbo, "SELECT count(*) FROM ext.uuid_facade_key")
        dbo.execute("DROP SCHEMA stash")
    ok("the database owner keeps no row of the key tables in a table, a view or an array column of its own "
       "(42501: no USAGE on their row types), and still reads the view and the table's ids")


def test_replica_role(srv):
    """A logical replication apply runs with session_replication_role =
    replica, as the subscription's owner (PostgreSQL 16's run_as_owner, by
    a member of pg_create_subscription): the guard fires there too. This
    does what the apply does: a superuser's session made replica, then the
    owner's role. (0.9.0's guard was an ordinary trigger: the owner's rows
    went in.)"""
    with connect(srv) as su:
        su.execute("CREATE ROLE writer IN ROLE pg_write_all_data")
    with connect(srv, autocommit=False) as su:
        before = one(su, "SELECT count(*) FROM ext.uuid_facade_key")
        su.execute("SET session_replication_role = replica")
        for role, sql in (("dbo", "INSERT INTO ext.uuid_facade_key (key_id, state, key, fingerprint, created, dropped) "
                                  "VALUES (2147483647, 'dropped', NULL, 'x', now(), now())"),
                          ("writer", "DELETE FROM ext.uuid_facade_key"),
                          ("writer", "UPDATE ext.uuid_facade_key SET state = 'retired'")):
            su.execute(f"SET LOCAL ROLE {role}")
            must_fail(su, sql, "42501", f"{role}'s write applied as a subscription applies")
            su.rollback()
            su.execute("SET session_replication_role = replica")
        su.rollback()
        if one(su, "SELECT count(*) FROM ext.uuid_facade_key") != before:
            fail("a write applied as a subscription applies changed the key table")
        su.rollback()
        su.execute("DROP ROLE writer")
        su.commit()
    ok("with session_replication_role = replica, as a subscription's apply runs, the database owner's insert and "
       "pg_write_all_data's delete and update of the key table are refused (42501)")


def test_dump(t, srv):
    dump = t.path("dbo.dump")
    r = t.host.run([srv.pg.tool("pg_dump"), "-Fc", "-d", srv.conninfo("shop", "dbo"), "-f", dump], check=False)
    if r.returncode != 0:
        fail(f"the database owner's pg_dump failed:\n{r.stderr}")
    text = t.host.run([srv.pg.tool("pg_restore"), "-f", "-", "--data-only", "-t", "uuid_facade_key", dump]).stdout
    with connect(srv) as su:
        hexes = [bytes(k).hex() for (k,) in su.execute(
            "SELECT ext.uuid_facade_key_export(key_id) FROM ext.uuid_facade_key WHERE state <> 'dropped'").fetchall()]
        su.execute("CREATE DATABASE shop_copy OWNER dbo")
    raw = open(dump, "rb").read().hex()
    if any(h in raw or h in text for h in hexes):
        fail("the database owner's dump holds a key")
    if re.search(r"^\d+\t(current|retired)\t", text, re.M):
        fail(f"the database owner's dump holds rows of the key table:\n{text}")
    r = t.host.run([srv.pg.tool("pg_restore"), "--exit-on-error", "-d", srv.conninfo("shop_copy", "dbo"), dump],
                   check=False)
    if r.returncode != 0:
        fail(f"the database owner's restore of its own dump failed:\n{r.stderr}")
    with connect(srv, "shop_copy", "dbo") as dbo:
        if one(dbo, "SELECT count(*) FROM ext.uuid_facade_keys") != 0:
            fail("the database owner's dump restored keys")
        message = must_fail(dbo, "SELECT ext.uuid_v7_to_facade(ext.uuid_generate_v7())", "55000",
                            "a face in the owner's restored copy")
    with connect(srv) as su:
        su.execute("DROP DATABASE shop_copy")
    ok("the database owner's pg_dump succeeds and holds no key (nor any row of the key table); restored by the "
       f"owner into a new database it works and has no key: \"{message.splitlines()[0]}\"")

    # The owner makes every session in its database another role: a
    # superuser's dump then fails rather than silently hold no key.
    with connect(srv, user="dbo") as dbo:
        dbo.execute("ALTER DATABASE shop SET role = 'dbo'")
    r = t.host.run([srv.pg.tool("pg_dump"), "-Fc", "-d", srv.conninfo("shop"), "-f", t.path("su.dump")],
                   check=False)
    with connect(srv, user="dbo") as dbo:
        dbo.execute("ALTER DATABASE shop RESET role")
    if r.returncode == 0:
        text = t.host.run([srv.pg.tool("pg_restore"), "-f", "-", "--data-only", "-t", "uuid_facade_key",
                           t.path("su.dump")]).stdout
        if not re.search(r"^\d+\tcurrent\t", text, re.M):
            fail("a superuser's dump of a database whose owner set its sessions' role holds no key, silently")
    # A superuser's dump restored by a superuser into a database that has
    # a key of the same id: the restore fails, and the log holds no key.
    r = t.host.run([srv.pg.tool("pg_dump"), "-Fc", "-d", srv.conninfo("shop"), "-f", t.path("su.dump")])
    with connect(srv) as su:
        hexes = [bytes(k).hex() for (k,) in su.execute(
            "SELECT ext.uuid_facade_key_export(key_id) FROM ext.uuid_facade_key WHERE state <> 'dropped'").fetchall()]
        su.execute("CREATE DATABASE shop_clash")
    with connect(srv, "shop_clash") as su:
        su.execute("CREATE SCHEMA ext; CREATE EXTENSION uuid_ext SCHEMA ext")
        for _ in range(3):
            su.execute("SELECT ext.uuid_facade_key_create()")
    log_from = srv.log_size()
    t.host.run([srv.pg.tool("pg_restore"), "--data-only", "-t", "uuid_facade_key", "-d",
                srv.conninfo("shop_clash"), t.path("su.dump")], check=False)
    logged = srv.log_text()[log_from:]
    if "uuid_facade_key" not in logged and "duplicate key" not in logged:
        fail(f"the clashing restore did not fail as it should:\n{logged}")
    if any(h in logged for h in hexes):
        fail(f"a superuser's restore that failed put a key in the server log:\n{logged}")
    with connect(srv) as su:
        su.execute("DROP DATABASE shop_clash")
    ok("a superuser's dump of a database whose owner set its sessions' role to itself fails rather than hold no "
       "key; a superuser's restore that fails on a key id the database has puts no key in the server log")


def main(t):
    srv = t.server("attacks")
    srv.initdb("shared_preload_libraries = 'uuid_ext'")
    srv.start()
    with connect(srv, "postgres") as su:
        su.execute("CREATE ROLE dbo LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE; CREATE ROLE app LOGIN")
        su.execute("CREATE DATABASE shop OWNER dbo")
        if one(su, "SELECT rolsuper FROM pg_roles WHERE oid = 10") is not True:
            fail("the bootstrap role is not a superuser")
    with connect(srv, user="dbo") as dbo:
        dbo.execute("CREATE SCHEMA ext; CREATE EXTENSION uuid_ext SCHEMA ext")
        if one(dbo, "SELECT c.relowner FROM pg_class c WHERE c.oid = 'ext.uuid_facade_key'::regclass") != 10:
            fail("a trusted install's key table is not the bootstrap superuser's")
        dbo.execute("GRANT CREATE ON DATABASE shop TO app; GRANT USAGE ON SCHEMA ext TO app")
    test_decoys(srv)
    test_roles(srv)
    test_values(t, srv)
    test_row_types(srv)
    test_replica_role(srv)
    test_dump(t, srv)
    srv.stop()
