"""The façade on a Citus cluster against its own roles (docs/facade.md#on-a-citus-cluster).

A coordinator and two workers (citus.py's citus_cluster), a database
`attack` that the role `dbo` (not a superuser) owns on every node, where
`dbo` installed uuid_ext (a trusted install) and granted the key functions
to the role `app`; a superuser made the cluster key and moved it. Checked:

 planted      `dbo`, through Citus's run_command_on_workers, drops
              uuid_ext on the workers and puts a function of its own under
              the name of the workers' side of the coordinator's command,
              one that makes `dbo` a superuser when it runs as one and
              records who ran it; then `app`, `dbo` and a superuser change
              the keys on the coordinator: the function runs (so the check
              can fail), as `dbo` every time, and `dbo` is a superuser on no
              node. (0.9.0's first draft ran the command as the bootstrap
              superuser, and `dbo` became one on every worker.)
 watching    `app` with citus.log_remote_commands on (any role may set it)
              sees none of the commands that carry keys, and a call of its
              own of the workers' side on a worker is refused
 settings     `app`'s SET LOCALs, which Citus (citus.propagate_set_commands
              = local) sends with their whole query string on every worker
              connection of the transaction, the extension owner's that
              carries the keys among them: a key change refuses (55000)
              after one, a SET or RESET refuses after a key change, and SQL
              in a SET's query string runs on no node (it ran as `dbo` on
              every worker before this check)

 planted      (first) `dbo` plants, on every node, a schema named after the
  (move)      superuser with functions under the cluster key's functions'
              names, and a table public.moving: the documented move, its
              search path pinned, runs none of them
 not preloaded a coordinator that does not preload uuid_ext: a key change
              in the transaction that loaded the library refuses (55000)

Skips where Citus cannot run (citus.py's need_citus).
"""
import subprocess

from citus import citus_cluster, citus_database, need_citus
from citus_facade import KEYS, move_cluster_key
from pg import fail, ok

DB = "attack"


def as_role(srv, role, sql, check=True):
    """`sql` in DB on `srv`, connected as `role`."""
    cmd = srv.psql(DB)
    cmd[cmd.index("-U") + 1] = role
    r = subprocess.run([*cmd, "-f", "-"], input=sql, text=True, capture_output=True)
    if check and r.returncode != 0:
        fail(f"{srv.name}, as {role}: {sql[:300]}\n{r.stderr}")
    return r.stdout.strip() if check else r


def main(t):
    need_citus(t)
    c, workers = citus_cluster(t)
    c.q("CREATE ROLE dbo LOGIN; CREATE ROLE app LOGIN")
    citus_database(c, workers, DB)
    for srv in (c, *workers):
        srv.q(f"SET citus.enable_ddl_propagation = off; ALTER DATABASE {DB} OWNER TO dbo")
    as_role(c, "dbo", "CREATE EXTENSION uuid_ext; GRANT EXECUTE ON FUNCTION uuid_facade_key_create(), "
                      "uuid_v7_to_facade(uuid, text) TO app")
    # dbo plants, on every node, what a superuser's unqualified names would
    # find before uuid_ext's: a schema named after the superuser ("$user"
    # comes first) with functions under the cluster key's functions' names
    # that record the key and make dbo a superuser, and a table
    # public.moving, found before a temporary one. The documented move pins
    # the search path; the old one (unpinned) ran them.
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
    for srv in (c, *workers):
        if srv.q("SELECT rolsuper FROM pg_roles WHERE rolname = 'dbo'") != "f":
            fail(f"the documented cluster key move made dbo a superuser on {srv.name}")
        took = srv.q("SELECT (SELECT count(*) FROM postgres.loot) || ' ' || (SELECT count(*) FROM public.moving)", db=DB)
        if took != "0 0":
            fail(f"the documented cluster key move ran dbo's functions or filled its table on {srv.name} "
                 f"(rows in postgres.loot, public.moving: {took})")
    ok("dbo planted a schema named after the superuser with functions under the cluster key's functions' names, "
       "and a table public.moving, on every node: the documented move (search path pinned) ran none of them, "
       "filled nothing of dbo's, and dbo is a superuser on no node")
    as_role(c, "app", "SELECT uuid_facade_key_create()")
    here = c.q(KEYS, db=DB)
    if any(w.q(KEYS, db=DB) != here for w in workers):
        fail("a key made by app did not reach every worker")

    # app's SET LOCALs: with citus.propagate_set_commands = local (any role
    # may set it) Citus sends a SET LOCAL's whole query string on every
    # worker connection of the transaction, the extension owner's one that
    # carries the keys among them; a string of two statements sends both.
    # (0.9.0 before this check: the payload ran as dbo on every worker.)
    payload = ("DO $x$ BEGIN IF current_user <> 'app' THEN "
               "PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true); "
               "CREATE TABLE public.injected AS SELECT current_user::text AS who; END IF; END $x$")
    begin = "\\set VERBOSITY verbose\nBEGIN;\nSET LOCAL citus.propagate_set_commands = local;\n"
    attempts = {
        "a SET LOCAL search_path before it": begin + "SET LOCAL search_path = pg_temp;\n"
                                                     "SELECT public.uuid_facade_key_create();\nCOMMIT;\n",
        "a SET LOCAL role before it": begin + "SET LOCAL role app;\nSELECT public.uuid_facade_key_create();\nCOMMIT;\n",
        "SQL in a SET LOCAL's query string before it": begin + f"SET LOCAL work_mem = '8MB' \\; {payload};\n"
                                                               "SELECT uuid_facade_key_create();\nCOMMIT;\n",
        "the same with a savepoint between": begin + f"SET LOCAL work_mem = '8MB' \\; {payload};\nSAVEPOINT s;\n"
                                                     "SELECT uuid_facade_key_create();\nCOMMIT;\n",
        "SQL in a SET after it, in one statement": (
            "\\set VERBOSITY verbose\nDO $d$ BEGIN\n"
            "  PERFORM pg_catalog.set_config('citus.propagate_set_commands', 'local', true);\n"
            "  PERFORM uuid_facade_key_create();\n"
            f"  EXECUTE $e$SET LOCAL work_mem = '9MB'; {payload}$e$;\nEND $d$;\n"),
        "a RESET ALL after it": begin + "SELECT uuid_facade_key_create();\nRESET ALL;\nCOMMIT;\n",
    }
    for what, sql in attempts.items():
        before = c.q(KEYS, db=DB)
        r = as_role(c, "app", sql, check=False)
        if "55000" not in r.stderr or "citus.propagate_set_commands" not in r.stderr:
            fail(f"a key change by app with {what} was not refused (55000):\n{sql}\n{r.stdout}{r.stderr[-1500:]}")
        for srv in (c, *workers):
            if srv.q(KEYS, db=DB) != before:
                fail(f"a key change by app with {what}, refused, changed the keys on {srv.name}")
            if srv.q("SELECT to_regclass('public.injected')", db=DB) != "":
                fail(f"app's SQL sent along with {what} ran on {srv.name} as "
                     + srv.q("SELECT who FROM public.injected", db=DB))
    # A key change that fails part way (a worker refuses dbo's login), caught
    # in a PL/pgSQL block: the owner's connection to a worker reached before
    # the failing one stays in the transaction, and a SET after it refuses
    # all the same. Each worker fails once, whatever order Citus takes them in.
    for down in workers:
        down.q("SET citus.enable_ddl_propagation = off; ALTER ROLE dbo NOLOGIN")
        before = c.q(KEYS, db=DB)
        r = as_role(c, "app", "\\set VERBOSITY verbose\nBEGIN;\n"
                              "DO $d$ BEGIN PERFORM uuid_facade_key_create(); "
                              "EXCEPTION WHEN OTHERS THEN NULL; END $d$;\n"
                              "SET LOCAL citus.propagate_set_commands = local;\n"
                              f"SET LOCAL work_mem = '8MB' \\; {payload};\nCOMMIT;\n", check=False)
        down.q("SET citus.enable_ddl_propagation = off; ALTER ROLE dbo LOGIN")
        if "55000" not in r.stderr or "cannot follow a facade key change" not in r.stderr:
            fail(f"a SET after a key change that failed on {down.name} was not refused (55000):\n"
                 f"{r.stdout}{r.stderr[-1500:]}")
        for srv in (c, *workers):
            if srv.q(KEYS, db=DB) != before:
                fail(f"a key change that failed on {down.name} changed the keys on {srv.name}")
            if srv.q("SELECT to_regclass('public.injected')", db=DB) != "":
                fail(f"after a key change that failed on {down.name}, app's SQL in a SET's string ran on "
                     f"{srv.name} as " + srv.q("SELECT who FROM public.injected", db=DB))
    attempts["a SET after a key change that failed on one worker, caught"] = ""
    # Citus keeps a prepared transaction's SET text until the session's next
    # transaction ends; so does uuid_ext.
    before = c.q(KEYS, db=DB)
    r = as_role(c, "app", "\\set VERBOSITY verbose\nBEGIN;\nSET LOCAL citus.propagate_set_commands = local;\n"
                          "SET LOCAL work_mem = '8MB';\nPREPARE TRANSACTION 'uuid_ext_attack';\n"
                          "SELECT uuid_facade_key_create();\n", check=False)
    c.q("ROLLBACK PREPARED 'uuid_ext_attack'", db=DB)
    if "55000" not in r.stderr or "citus.propagate_set_commands" not in r.stderr or c.q(KEYS, db=DB) != before:
        fail(f"a key change after PREPARE TRANSACTION of a transaction with a SET passed on was not refused:\n"
             f"{r.stdout}{r.stderr[-1500:]}")
    attempts["a SET in the transaction before, prepared"] = ""
    # Without SET propagation, a SET after the change is the caller's own.
    as_role(c, "app", "BEGIN; SELECT uuid_facade_key_create(); SET LOCAL work_mem = '8MB'; COMMIT")
    here = c.q(KEYS, db=DB)
    if any(w.q(KEYS, db=DB) != here for w in workers):
        fail("a key made by app, a SET LOCAL after it (not passed on), did not reach every worker")
    ok("app's key changes with SET propagation on refuse (55000), and no node's keys change: "
       + "; ".join(attempts) + "; with it off, a SET LOCAL after a key change is app's own and the key reaches "
       "every worker")

    # app asks Citus to show the commands it sends (any role may): the
    # command with the keys is not among them, and one of app's own is refused.
    r = as_role(c, "app", "BEGIN; SET LOCAL citus.log_remote_commands = on; SET LOCAL client_min_messages = notice; "
                          "SELECT uuid_facade_key_create(); ROLLBACK", check=False)
    if r.returncode != 0 or "uuid_facade_key_sync" in r.stderr:
        fail(f"what citus.log_remote_commands showed app of a key change:\n{r.stderr[-3000:]}")
    r = as_role(c, "app", "SELECT result FROM run_command_on_workers($c$SELECT public.uuid_facade_key_sync("
                          "'x', '{}', '{}', '{}', '{}', '{}', '{}', '{}', 'x', '')$c$)", check=False)
    if "is not the coordinator's" not in r.stdout + r.stderr and "does not authenticate" not in r.stdout + r.stderr:
        fail(f"app called the workers' side of the command: {r.stdout}{r.stderr}")
    ok("app, with citus.log_remote_commands on, sees none of the commands of a key change that carry keys, "
       "and a call of its own of the workers' side on a worker is refused")

    # A coordinator that does not preload uuid_ext: the transaction that
    # loads the library cannot tell what SETs came before in it, so a key
    # change there refuses; the session's next one goes through.
    c.stop()
    c.configure("shared_preload_libraries = 'citus'", "max_connections = 100")
    c.start()
    before = c.q(KEYS, db=DB)
    r = as_role(c, "app", "\\set ON_ERROR_STOP 0\n" + begin + f"SET LOCAL work_mem = '8MB' \\; {payload};\n"
                          "SELECT uuid_facade_key_create();\nCOMMIT;\n"
                          "SELECT uuid_facade_key_create();\n", check=False)
    if "55000" not in r.stderr or "loaded uuid_ext's library" not in r.stderr:
        fail(f"on a coordinator not preloading uuid_ext, a key change in the transaction that loaded it was not "
             f"refused:\n{r.stdout}{r.stderr[-1500:]}")
    for srv in (c, *workers):
        if srv.q("SELECT to_regclass('public.injected')", db=DB) != "":
            fail(f"app's SQL sent along ran on {srv.name} on a coordinator not preloading uuid_ext")
    after = c.q(KEYS, db=DB)
    if after == before or any(w.q(KEYS, db=DB) != after for w in workers):
        fail(f"the session's next key change did not reach every worker:\n{r.stdout}{r.stderr[-1500:]}\n"
             f"before: {before}\nafter: {after}\nworkers: {[w.q(KEYS, db=DB) for w in workers]}")
    ok("on a coordinator not preloading uuid_ext, a key change in the transaction that loaded the library "
       "refuses (55000), the SQL in its SET LOCAL's string runs nowhere, and the session's next key change reaches "
       "every worker")
    c.stop()
    c.configure("shared_preload_libraries = 'citus,uuid_ext'")
    c.start()

    # dbo plants its own function where the workers look for the command's.
    signature = workers[0].q("SELECT pg_get_function_identity_arguments(p.oid) FROM pg_proc p "
                             "WHERE p.proname = 'uuid_facade_key_sync'", db=DB)
    types = ", ".join(a.split(" ", 1)[1] for a in signature.split(", "))
    as_role(c, "dbo", f"""SELECT * FROM run_command_on_workers($c$
SET citus.enable_ddl_propagation = off; SET citus.enable_metadata_sync = off;
DROP EXTENSION uuid_ext CASCADE;
CREATE TABLE public.planted_ran (who text, superuser boolean);
GRANT INSERT ON public.planted_ran TO PUBLIC;
CREATE FUNCTION public.uuid_facade_key_sync({types}) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
  INSERT INTO public.planted_ran
    SELECT current_user, r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user;
  IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) THEN
    ALTER ROLE dbo SUPERUSER;
  END IF;
END $f$;
$c$)""")
    for role, run in (("app", lambda sql: as_role(c, "app", sql)), ("dbo", lambda sql: as_role(c, "dbo", sql)),
                      ("a superuser", lambda sql: c.q(sql, db=DB))):
        run("SELECT uuid_facade_key_create()")
    ran = []
    for srv in (c, *workers):
        if srv.q("SELECT rolsuper FROM pg_roles WHERE rolname = 'dbo'") != "f":
            fail(f"dbo became a superuser on {srv.name}")
        if srv is not c:
            ran.append(srv.q("SELECT string_agg(who || ' ' || superuser::text, ', ' ORDER BY who) "
                             "FROM public.planted_ran", db=DB))
    if any(r != "dbo false, dbo false, dbo false" for r in ran):
        fail(f"who ran dbo's planted function on each worker: {ran}")
    ok("dbo dropped uuid_ext on the workers and planted a function under the command's name that would make it a "
       "superuser: key changes on the coordinator by app, by dbo and by a superuser ran it on each worker as dbo "
       f"({ran[0]}), and dbo is a superuser on no node")

    for srv in (*workers, c):
        srv.stop()
