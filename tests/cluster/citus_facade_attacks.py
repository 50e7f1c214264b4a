"""uuid_ext on a Citus cluster against its own roles (docs/facade.md#on-a-citus-cluster,
docs/ordering.md#on-a-citus-cluster).

A coordinator and two workers (tests/lib/citus_fixture.py), a database
`attack` that the role `dbo` (not a superuser) owns on every node, where
`dbo` installed uuid_ext (a trusted install) and granted the key functions
to the role `app`; a superuser made the cluster key and moved it. On a
worker the database's owner decides what every name finds: each attack
plants something that records who ran it and makes `dbo` a superuser when
a superuser runs it, so a silent pass is impossible. Checked:

 move        (first) `dbo` plants, on every node, a schema named after the
             superuser with functions under the cluster key's functions'
             names, and a table public.moving: the documented move, its
             search path pinned, runs none of them
 planted     `dbo` puts functions of its own under every name the keys'
             way to the workers ever called there (0.9.0's
             uuid_facade_key_sync among them): key changes by `app`, `dbo`
             and a superuser reach every worker and run none of them; with
             uuid_ext dropped on a worker, a key change fails and runs
             none. (0.9.0's first draft ran that function as the bootstrap
             superuser, and `dbo` became one on every worker.)
 citus       `dbo` plants public.assign_distributed_transaction_id, which
             Citus calls unqualified on every worker connection of a
             distributed transaction: a superuser's key change, import and
             cluster sync run it as `dbo`, `app`'s as `app`, never as a
             superuser (the first draft of 0.10.0 sent a superuser's change
             on its own connections, and `dbo` became a superuser)
 watermark   `dbo` drops uuid_ext on the workers and plants
             public.uuid_v7_watermark(); a superuser polls
             uuid_v7_cluster_watermark() with the docs' pinned search path:
             the planted function never runs and `dbo` is a superuser on no
             node (0.9.0 called that name on each worker as the caller, and
             `dbo` became a superuser on both workers)
 settings    `app`'s SET LOCALs, which Citus (citus.propagate_set_commands
             = local) sends with their whole query string on every worker
             connection of the transaction: the keys travel on `app`'s own
             connections, so SQL in a SET's string runs as `app` and as no
             one else, before and after a key change
 watching    `app` with citus.log_remote_commands on sees the key set sent
             (wrapped keys, no key), and that key set sent again to a
             worker is refused
 no library  a worker that does not preload uuid_ext makes a key change
             fail (the key set would only make a placeholder setting
             there), and no node's keys change
 order       a coordinator preloading `uuid_ext,citus` starts (0.9.0's
             utility hook made Citus refuse to load after it: "Citus has to
             be loaded first"), and its key changes and cluster watermark
             work

Skips where Citus cannot run (citus_fixture.need_citus).
"""
import re
import subprocess

from citus_fixture import KEYS, PIN, SAFE, citus_cluster, citus_database, move_cluster_key, need_citus
from pg import fail, ok

DB = "attack"
# Records who ran it, and makes dbo a superuser when a superuser runs it;
# Citus's DDL propagation off, so that a worker's ALTER ROLE is its own.
TRAP = """
  PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
  PERFORM pg_catalog.set_config('citus.enable_alter_role_propagation', 'off', true);
  INSERT INTO public.planted_ran SELECT '{what}', current_user, r.rolsuper
    FROM pg_catalog.pg_roles r WHERE r.rolname = current_user;
  IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) THEN
    EXECUTE 'ALTER ROLE dbo SUPERUSER';
  END IF;"""


def as_role(srv, role, sql, check=True, db=DB):
    """`sql` in `db` on `srv`, connected as `role`."""
    cmd = srv.psql(db)
    cmd[cmd.index("-U") + 1] = role
    r = subprocess.run([*cmd, "-f", "-"], input=sql, text=True, capture_output=True)
    if check and r.returncode != 0:
        fail(f"{srv.name}, as {role}: {sql[:300]}\n{r.stderr}")
    return r.stdout.strip() if check else r


def nobody_superuser(nodes, what):
    for srv in nodes:
        if srv.q("SELECT rolsuper FROM pg_roles WHERE rolname = 'dbo'") != "f":
            fail(f"{what}: dbo became a superuser on {srv.name}")


def planted_ran(srv, db=DB):
    return srv.q("SELECT coalesce(string_agg(what || ' as ' || who, ', '), '') FROM public.planted_ran", db=db)


def plant_table(nodes, db=DB):
    for srv in nodes:
        as_role(srv, "dbo", "SET citus.enable_ddl_propagation = off;"
                            "CREATE TABLE public.planted_ran (what text, who text, superuser boolean);"
                            "GRANT INSERT ON public.planted_ran TO PUBLIC", db=db)


def same_keys(c, workers, what):
    here = c.q(KEYS, db=DB)
    for w in workers:
        if w.q(KEYS, db=DB) != here:
            fail(f"{what}: {w.name}'s keys are not the coordinator's")
    return here


def test_move(c, workers):
    """dbo plants, on every node, what a superuser's unqualified names would
    find before uuid_ext's; the documented move pins the search path."""
    for srv in (c, *workers):
        as_role(srv, "dbo", """SET citus.enable_ddl_propagation = off;
CREATE SCHEMA postgres;
CREATE TABLE postgres.loot (what text, superuser boolean, key bytea);
GRANT ALL ON postgres.loot TO PUBLIC;
CREATE FUNCTION postgres.uuid_facade_cluster_key_export() RETURNS bytea LANGUAGE plpgsql AS $f$
DECLARE k bytea := public.uuid_facade_cluster_key_export();
BEGIN
  INSERT INTO postgres.loot SELECT 'export', r.rolsuper, k FROM pg_catalog.pg_roles r WHERE r.rolname = current_user;
  IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) THEN ALTER ROLE dbo SUPERUSER; END IF;
  RETURN k;
END $f$;
CREATE FUNCTION postgres.uuid_facade_cluster_key_import(k bytea) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
  INSERT INTO postgres.loot SELECT 'import', r.rolsuper, k FROM pg_catalog.pg_roles r WHERE r.rolname = current_user;
  IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) THEN ALTER ROLE dbo SUPERUSER; END IF;
  RETURN public.uuid_facade_cluster_key_import(k);
END $f$;
CREATE TABLE public.moving (key bytea);
GRANT ALL ON public.moving TO PUBLIC;
""")
    print_ = c.q("SELECT uuid_facade_cluster_key_create()", db=DB)
    for w in workers:
        if move_cluster_key(c, w, db=DB) != print_:
            fail(f"{w.name}'s cluster key is not the coordinator's")
    nobody_superuser((c, *workers), "the documented cluster key move")
    for srv in (c, *workers):
        took = srv.q("SELECT (SELECT count(*) FROM postgres.loot) || ' ' || (SELECT count(*) FROM public.moving)", db=DB)
        if took != "0 0":
            fail(f"the documented cluster key move ran dbo's functions or filled its table on {srv.name} "
                 f"(rows in postgres.loot, public.moving: {took})")
    ok("dbo planted a schema named after the superuser with functions under the cluster key's functions' names, "
       "and a table public.moving, on every node: the documented move (search path pinned) ran none of them, "
       "filled nothing of dbo's, and dbo is a superuser on no node")


def test_planted(c, workers):
    """dbo plants functions under the names the keys' way ever called on a
    worker; key changes run none of them, as anyone."""
    plant_table(workers)
    for w in workers:
        as_role(w, "dbo", f"""SET citus.enable_ddl_propagation = off;
CREATE FUNCTION public.uuid_facade_key_sync(text, integer[], text[], bytea[], text[], bigint[], bigint[],
                                            bigint[], text, bytea) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN {TRAP.format(what='uuid_facade_key_sync')}
END $f$;
CREATE FUNCTION public.uuid_facade_key_sync(bytea) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN {TRAP.format(what='uuid_facade_key_sync(bytea)')}
END $f$;""")
    runs = (("app", lambda sql: as_role(c, "app", sql)), ("dbo", lambda sql: as_role(c, "dbo", sql)),
            ("a superuser", lambda sql: c.q(sql, db=DB)))
    for _, run in runs:
        run("SELECT uuid_facade_key_create()")
        same_keys(c, workers, "a key change with dbo's functions planted")
    nobody_superuser((c, *workers), "key changes with dbo's functions planted")
    ran = [planted_ran(w) for w in workers]
    if any(ran):
        fail(f"a key change ran dbo's planted functions on the workers: {ran}")
    # dbo drops uuid_ext on one worker: the key change fails there, and
    # everywhere, and runs nothing of dbo's.
    w = workers[0]
    as_role(w, "dbo", "SET citus.enable_ddl_propagation = off; DROP EXTENSION uuid_ext CASCADE")
    before = c.q(KEYS, db=DB)
    r = as_role(c, "app", "SELECT uuid_facade_key_create()", check=False)
    if r.returncode == 0:
        fail("a key change went through with uuid_ext dropped on a worker")
    if c.q(KEYS, db=DB) != before or workers[1].q(KEYS, db=DB) != before:
        fail("a key change that a worker without uuid_ext refused changed keys")
    nobody_superuser((c, *workers), "a key change with uuid_ext dropped on a worker")
    if planted_ran(w):
        fail(f"a key change ran dbo's planted functions on {w.name}: {planted_ran(w)}")
    ok("dbo planted functions under the names of 0.9.0's workers' side: key changes by app, dbo and a superuser "
       "reached every worker and ran none of them; with uuid_ext dropped on a worker, a key change failed "
       f"everywhere ({r.stderr.strip().splitlines()[-1][:120]}), ran nothing of dbo's, and dbo is a superuser "
       "on no node")
    # Put the worker back, keys and all.
    w.q("SET citus.enable_ddl_propagation = off; CREATE EXTENSION uuid_ext SCHEMA public", db=DB)
    move_cluster_key(c, w, db=DB)
    c.q("SELECT uuid_facade_cluster_sync()", db=DB)
    same_keys(c, workers, "the worker put back")


def test_citus_connections(c, workers):
    """Citus opens each worker connection of a distributed transaction with
    `SELECT assign_distributed_transaction_id(...)`, a name it does not
    qualify: dbo plants one in public on the workers (a text third argument
    wins the overload for Citus's untyped literal). A superuser's key
    change, import and cluster sync go out on dbo's connections, so the
    planted function runs as dbo; app's as app, as any of app's distributed
    statements. (The first draft of 0.10.0 sent a superuser's change on the
    superuser's own connections, and dbo became a superuser on both
    workers.)"""
    for w in workers:
        as_role(w, "dbo", f"""SET citus.enable_ddl_propagation = off;
TRUNCATE public.planted_ran;
CREATE FUNCTION public.assign_distributed_transaction_id(integer, bigint, text) RETURNS void
  LANGUAGE plpgsql AS $f$
BEGIN {TRAP.format(what='assign_distributed_transaction_id')}
  PERFORM pg_catalog.assign_distributed_transaction_id($1, $2, $3::pg_catalog.timestamptz);
END $f$;""")
    c.q("SELECT public.uuid_facade_key_create()", db=DB)
    c.fresh("elsewhere")
    c.q("CREATE EXTENSION uuid_ext; SELECT uuid_facade_key_create()", db="elsewhere")
    export = subprocess.Popen([*c.psql("elsewhere"), "-q", "-c", SAFE, "-c", PIN, "-c",
                               "\\copy (SELECT uuid_facade_key_export(1)) TO STDOUT"], stdout=subprocess.PIPE)
    r = subprocess.run([*c.psql(DB), "-q", "-c", SAFE, "-c", PIN,
                        "-c", "CREATE TEMP TABLE moving (key pg_catalog.bytea)",
                        "-c", "\\copy pg_temp.moving FROM PSTDIN",
                        "-c", "SELECT uuid_facade_key_import(key) FROM pg_temp.moving"],
                       stdin=export.stdout, capture_output=True, text=True)
    export.stdout.close()
    if export.wait() != 0 or r.returncode != 0:
        fail(f"a superuser's import on the coordinator: {r.stdout}{r.stderr}")
    c.q("SELECT public.uuid_facade_cluster_sync()", db=DB)
    as_role(c, "app", "SELECT uuid_facade_key_create()")
    same_keys(c, workers, "key changes with Citus's connection call planted")
    nobody_superuser((c, *workers), "a superuser's key changes with Citus's connection call planted")
    ran = {w.name: set(w.q("SELECT coalesce(string_agg(DISTINCT who || ' ' || superuser::text, ', '), '') "
                           "FROM public.planted_ran", db=DB).split(", ")) for w in workers}
    if any(r != {"dbo false", "app false"} for r in ran.values()):
        fail(f"who ran dbo's planted assign_distributed_transaction_id on each worker: {ran}")
    for w in workers:
        as_role(w, "dbo", "SET citus.enable_ddl_propagation = off; DROP FUNCTION "
                          "public.assign_distributed_transaction_id(integer, bigint, text)")
    ok("dbo planted public.assign_distributed_transaction_id(integer, bigint, text) on the workers, which Citus "
       "calls unqualified on each connection of a distributed transaction: a superuser's key change, its "
       "documented import and uuid_facade_cluster_sync() ran it as dbo, app's key change as app, and dbo is a "
       "superuser on no node")


def test_watermark(c, workers):
    """M1: dbo plants uuid_v7_watermark() on the workers; a superuser polls
    the cluster watermark with the docs' pinned search path."""
    db = "att2"
    citus_database(c, workers, db)
    for srv in (c, *workers):
        srv.q(f"SET citus.enable_ddl_propagation = off; ALTER DATABASE {db} OWNER TO dbo")
    as_role(c, "dbo", "CREATE EXTENSION uuid_ext", db=db)
    plant_table(workers, db=db)
    for w in workers:
        as_role(w, "dbo", f"""SET citus.enable_ddl_propagation = off;
DROP EXTENSION uuid_ext;
CREATE FUNCTION public.uuid_v7_watermark() RETURNS uuid LANGUAGE plpgsql AS $f$
BEGIN {TRAP.format(what='uuid_v7_watermark')}
  RETURN 'ffffffff-ffff-7fff-bfff-ffffffffffff';
END $f$;""", db=db)
    r = subprocess.run([*c.psql(db), "-q", "-c", SAFE, "-c", PIN, "-c", "SELECT uuid_v7_cluster_watermark()"],
                       capture_output=True, text=True)
    if r.returncode != 0 or len(r.stdout.strip()) != 36:
        fail(f"a superuser's poll of the cluster watermark: {r.stdout}{r.stderr}")
    as_role(c, "app", "SELECT uuid_v7_cluster_watermark()", db=db)
    nobody_superuser((c, *workers), "a superuser's poll of the cluster watermark")
    ran = [planted_ran(w, db=db) for w in workers]
    if any(ran):
        fail(f"the cluster watermark ran dbo's planted uuid_v7_watermark() on the workers: {ran}")
    ok("dbo dropped uuid_ext on the workers and planted public.uuid_v7_watermark(), which would make it a "
       f"superuser: a superuser's poll of uuid_v7_cluster_watermark() (search path pinned) answered "
       f"{r.stdout.strip()}, an application role's too, neither ran it, and dbo is a superuser on no node")


def test_settings(c, workers):
    """app's SET LOCALs ride on app's own connections, the keys' among them."""
    payload = ("DO $x$ BEGIN IF current_user <> 'app' THEN "
               "PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true); "
               "CREATE TABLE public.injected AS SELECT current_user::text AS who; END IF; END $x$")
    begin = "BEGIN;\nSET LOCAL citus.propagate_set_commands = local;\n"
    attempts = {
        "a SET LOCAL search_path before it": begin + "SET LOCAL search_path = pg_temp;\n"
                                                     "SELECT public.uuid_facade_key_create();\nCOMMIT;\n",
        "SQL in a SET LOCAL's query string before it": begin + f"SET LOCAL work_mem = '8MB' \\; {payload};\n"
                                                               "SELECT uuid_facade_key_create();\nCOMMIT;\n",
        "SQL in a SET LOCAL's query string after it": begin + "SELECT uuid_facade_key_create();\n"
                                                              f"SET LOCAL work_mem = '9MB' \\; {payload};\nCOMMIT;\n",
        "a RESET ALL after it": begin + "SELECT uuid_facade_key_create();\nRESET ALL;\nCOMMIT;\n",
    }
    for what, sql in attempts.items():
        before = c.q(KEYS, db=DB)
        as_role(c, "app", sql)
        if same_keys(c, workers, f"a key change by app with {what}") == before:
            fail(f"a key change by app with {what} changed no key")
        for srv in (c, *workers):
            if srv.q("SELECT to_regclass('public.injected')", db=DB) != "":
                fail(f"app's SQL sent along with {what} ran on {srv.name} as "
                     + srv.q("SELECT who FROM public.injected", db=DB))
    ok("app's key changes with SET propagation on go through, and the SQL in a SET's string runs as app only, "
       "on no node as anyone else: " + "; ".join(attempts))


def test_watching(c, workers):
    """app asks Citus to show the commands it sends (any role may)."""
    r = as_role(c, "app", "BEGIN; SET LOCAL citus.log_remote_commands = on; SET LOCAL client_min_messages = notice; "
                          "SELECT uuid_facade_key_create(); COMMIT", check=False)
    sets = re.findall(r"uuid_ext\.facade_sync TO '([0-9a-f]+)'", r.stderr)
    if r.returncode != 0 or not sets:
        fail(f"what citus.log_remote_commands showed app of a key change:\n{r.stderr[-3000:]}")
    # (Qualified: dbo's schema named after the superuser, test_move's, would
    # catch a superuser's unqualified call.)
    keys = [c.q(f"SELECT encode(public.uuid_facade_key_export({k}), 'hex')", db=DB)
            for k in c.q("SELECT key_id FROM public.uuid_facade_keys WHERE state <> 'dropped'", db=DB).split()]
    keys.append(c.q("SELECT encode(public.uuid_facade_cluster_key_export(), 'hex')", db=DB))
    if any(k in r.stderr for k in keys):
        fail("citus.log_remote_commands showed app a key's bytes")
    sealed = sets[-1]
    r = as_role(workers[0], "app", f"BEGIN; SET LOCAL uuid_ext.facade_sync TO '{sealed}'; COMMIT", check=False)
    if "this worker holds generation" not in r.stderr:
        fail(f"app sent a worker the key set it watched go by: {r.stdout}{r.stderr}")
    same_keys(c, workers, "app sent a worker a key set it watched")
    ok("app, with citus.log_remote_commands on, sees the key set a key change sends (wrapped keys, no key's "
       "bytes), and that key set sent again to a worker is refused (55000)")


def test_no_library(c, workers):
    """A worker that does not load uuid_ext's library."""
    w = workers[1]
    w.stop()
    w.configure("shared_preload_libraries = 'citus'")
    w.start()
    before = c.q(KEYS, db=DB)
    r = as_role(c, "app", "SELECT uuid_facade_key_create()", check=False)
    if r.returncode == 0 or "uuid_ext.facade_generation" not in r.stderr:
        fail(f"a key change with a worker not loading uuid_ext: {r.stdout}{r.stderr}")
    if c.q(KEYS, db=DB) != before or workers[0].q(KEYS, db=DB) != before:
        fail("a key change that a worker without uuid_ext's library failed changed keys")
    w.stop()
    w.configure("shared_preload_libraries = 'citus,uuid_ext'")
    w.start()
    ok("a worker that does not preload uuid_ext makes a key change fail (unrecognized configuration parameter "
       "\"uuid_ext.facade_generation\"), and no node's keys change")


def test_order(c, workers):
    """uuid_ext before citus in shared_preload_libraries."""
    c.stop()
    c.configure("shared_preload_libraries = 'uuid_ext,citus'")
    c.start()
    as_role(c, "app", "SELECT uuid_facade_key_create()")
    same_keys(c, workers, "a key change on a coordinator preloading uuid_ext,citus")
    c.q("SELECT uuid_v7_cluster_watermark()", db=DB)
    c.stop()
    c.configure("shared_preload_libraries = 'citus,uuid_ext'")
    c.start()
    ok("a coordinator preloading uuid_ext,citus starts; its key changes reach the workers and its cluster "
       "watermark answers")


def main(t):
    need_citus(t)
    c, workers = citus_cluster(t)
    c.q("CREATE ROLE dbo LOGIN; CREATE ROLE app LOGIN")
    citus_database(c, workers, DB)
    for srv in (c, *workers):
        srv.q(f"SET citus.enable_ddl_propagation = off; ALTER DATABASE {DB} OWNER TO dbo")
    as_role(c, "dbo", "CREATE EXTENSION uuid_ext; GRANT EXECUTE ON FUNCTION uuid_facade_key_create(), "
                      "uuid_v7_to_facade(uuid, text) TO app")
    test_move(c, workers)
    test_planted(c, workers)
    test_citus_connections(c, workers)
    test_settings(c, workers)
    test_watching(c, workers)
    test_no_library(c, workers)
    test_order(c, workers)
    test_watermark(c, workers)
    for srv in (*workers, c):
        srv.stop()
