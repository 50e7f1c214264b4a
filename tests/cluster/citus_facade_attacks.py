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
 settings     `app`'s SET LOCALs, which Citus sends along to the workers:
              a search_path changes nothing of the command; a role the
              extension's owner may not take makes the change fail on
              every node, or reach every one, never some

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
    print_ = c.q("SELECT uuid_facade_cluster_key_create()", db=DB)
    for w in workers:
        if move_cluster_key(c, w, db=DB) != print_:
            fail(f"{w.name}'s cluster key is not the coordinator's")
    as_role(c, "app", "SELECT uuid_facade_key_create()")
    here = c.q(KEYS, db=DB)
    if any(w.q(KEYS, db=DB) != here for w in workers):
        fail("a key made by app did not reach every worker")

    # app's SET LOCALs travel with the command: a search_path changes
    # nothing of it; a role the extension's owner may not take makes it
    # fail, everywhere.
    as_role(c, "app", "BEGIN; SET citus.propagate_set_commands = local; SET LOCAL search_path = pg_temp; "
                      "SELECT public.uuid_facade_key_create(); COMMIT")
    here = c.q(KEYS, db=DB)
    if any(w.q(KEYS, db=DB) != here for w in workers):
        fail("a key made by app with its search_path sent along did not reach every worker")
    r = as_role(c, "app", "BEGIN; SET citus.propagate_set_commands = local; SET LOCAL role app; "
                          "SELECT public.uuid_facade_key_create(); COMMIT", check=False)
    after = c.q(KEYS, db=DB)
    if any(w.q(KEYS, db=DB) != after for w in workers) or (r.returncode != 0) != (after == here):
        fail(f"app's SET LOCAL role sent along left the nodes apart: {r.stderr}")
    ok("a trusted install by dbo, the cluster key moved by a superuser: app's key changes reach every worker, with "
       "its SET LOCAL search_path sent along too; with its SET LOCAL role sent along the change "
       + ("fails, on every node" if r.returncode != 0 else "reaches every worker"))

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
