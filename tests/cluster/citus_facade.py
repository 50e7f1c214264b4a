"""The façade on a Citus cluster (docs/facade.md#on-a-citus-cluster).

A coordinator and two workers (citus.py's citus_cluster), every node
logging every statement (`log_statement = all`, every duration, every
parameter), a table distributed by its uuid7 key. Checked:

 cluster key  without one, the coordinator makes no key (55000, naming it);
              made on the coordinator, it moves to each worker through a
              pipe between two psql (no file), as docs/facade.md shows
 the same     a key made, rotated, retired, dropped and imported on the
              coordinator is the same on every node when the statement
              commits (ids, states, dates, fingerprints), and not before: a
              rolled-back rotation reaches no worker
 faces        the faces Citus computes on the workers (a distributed query)
              are the coordinator's own, before and after each change, and
              every face decodes, on the workers, to its row
 refused      a key function on a worker (55000), the workers' side of the
              command anywhere else (55000); on a worker, a command of the
              coordinator's from the worker's log sent by another role with
              a state changed (42501: its tag), an older one replayed
              (55000: it would take keys back); a worker whose cluster key
              differs (the coordinator's change fails, and no node changes)
 later node   a worker added after the keys were made gets them with one
              call on the coordinator, uuid_facade_cluster_sync(), once its
              cluster key is there
 lookup       in a table keyed by uuid7 and in one keyed by uuid: WHERE id =
              uuid_facade_to_v7(face) goes to every shard (Citus routes by a
              value it knows at planning), the documented function that
              decodes first goes to one, called with the face or prepared
              with it as $1, as a lookup by the key does; each finds the row
 logs         no node's log holds a key, in hex or base64, while every
              worker's log holds the command the keys came in (so the check
              can fail), and nothing of a key is in any file outside the
              data directories

Skips where Citus cannot run (citus.py's need_citus).
"""
import base64
import os
import re
import subprocess

from citus_fixture import KEYS, add_workers, citus_cluster, move_cluster_key, need_citus, task_count
from pg import fail, ok, refused

LOG_ALL = ["log_statement = 'all'", "log_min_duration_statement = 0", "log_parameter_max_length = -1"]
N = 1000
# The key set a worker took from the coordinator, as the worker logged it.
SENT = re.compile(r"SET LOCAL uuid_ext\.facade_sync TO '([0-9a-f]+)'")


def same_everywhere(coordinator, workers, what):
    """Every node's keys (ids, states, dates, fingerprints) are the
    coordinator's, and so is the generation of its key set."""
    here = coordinator.q(KEYS)
    generation = coordinator.q("SHOW uuid_ext.facade_generation")
    for w in workers:
        there = w.q(KEYS)
        if there != here:
            fail(f"{what}: {w.name}'s keys are not the coordinator's:\n  {there}\n  {here}")
        if w.q("SHOW uuid_ext.facade_generation") != generation:
            fail(f"{what}: {w.name}'s key set generation is not the coordinator's ({generation})")
    return here


def faces_agree(coordinator, what):
    """The faces the workers compute (a distributed query) are the ones the
    coordinator computes for the same keys; each decodes on the workers to
    its row."""
    ids = coordinator.q("SELECT string_agg(id::text, ',' ORDER BY n) FROM orders")
    on_workers_faces = coordinator.q("SELECT string_agg(uuid_v7_to_facade(id)::text, ',' ORDER BY n) FROM orders")
    here = coordinator.q(f"SELECT string_agg(uuid_v7_to_facade(i)::text, ',' ORDER BY o) "
                         f"FROM unnest('{{{ids}}}'::uuid[]) WITH ORDINALITY u(i, o)")
    if on_workers_faces != here:
        fail(f"{what}: the faces Citus computes on the workers are not the coordinator's")
    found = coordinator.q("SELECT count(*) FROM orders o WHERE uuid_facade_to_v7(uuid_v7_to_facade(o.id)) = o.id")
    if found != str(N):
        fail(f"{what}: {found} of {N} faces decode to their rows on the workers")
    return here.split(",")


def main(t):
    need_citus(t)
    coordinator, workers = citus_cluster(t, conf=LOG_ALL)
    c = coordinator
    # Installed by a role of its own (trusted); the keys are changed by a
    # superuser here, and by other roles in citus_facade_attacks.
    c.q("CREATE ROLE keeper LOGIN")
    for srv in (c, *workers):
        srv.q("SET citus.enable_ddl_propagation = off; GRANT CREATE ON DATABASE postgres TO keeper")
    c.q("SET ROLE keeper; CREATE EXTENSION uuid_ext")
    c.q(f"CREATE TABLE orders (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int);"
        f"SELECT create_distributed_table('orders', 'id');"
        f"INSERT INTO orders (n) SELECT generate_series(1, {N})")

    # The cluster key.
    refused(c, "SELECT uuid_facade_key_create()", "needs this database's facade cluster key")
    print_ = c.q("SELECT uuid_facade_cluster_key_create()")
    for w in workers:
        refused(w, "SET uuid_ext.facade_sync = '00'", "has no facade cluster key")
        if move_cluster_key(c, w) != print_:
            fail(f"{w.name}'s cluster key has another fingerprint than the coordinator's")
    refused(c, "SELECT uuid_facade_cluster_key_create()", "has a facade cluster key already")
    ok(f"without a cluster key the coordinator makes no façade key (55000); the cluster key ({print_}) made on the "
       "coordinator moved to both workers through a pipe between two psql")

    # Keys made, rotated, retired, dropped and imported: the same everywhere.
    history = []
    c.q("SELECT uuid_facade_key_create()")
    same_everywhere(c, workers, "a key made")
    history.append(faces_agree(c, "a key made"))
    c.q("SELECT uuid_facade_key_create()")
    same_everywhere(c, workers, "a rotation")
    history.append(faces_agree(c, "a rotation"))
    if history[0] == history[1]:
        fail("the rotation did not change the faces")
    before = same_everywhere(c, workers, "before a rolled-back rotation")
    c.q("BEGIN; SELECT uuid_facade_key_create(); ROLLBACK")
    if same_everywhere(c, workers, "a rolled-back rotation") != before:
        fail("a rolled-back rotation changed the keys")
    c.q("SELECT uuid_facade_key_retire(1)")
    same_everywhere(c, workers, "a retired key")
    c.q("SELECT uuid_facade_key_drop(1)")
    same_everywhere(c, workers, "a dropped key")
    c.fresh("elsewhere")
    c.q("CREATE EXTENSION uuid_ext; SELECT uuid_facade_key_create()", db="elsewhere")
    export = subprocess.Popen([*c.psql("elsewhere"), "-c", "\\copy (SELECT uuid_facade_key_export(1)) TO STDOUT"],
                              stdout=subprocess.PIPE)
    r = subprocess.run([*c.psql(), "-c", "CREATE TEMP TABLE moving (key bytea)", "-c", "\\copy moving FROM PSTDIN",
                        "-c", "SELECT uuid_facade_key_import(key) FROM moving"],
                       stdin=export.stdout, capture_output=True, text=True)
    export.stdout.close()
    if export.wait() != 0 or r.returncode != 0:
        fail(f"importing a key on the coordinator: {r.stderr}")
    keys = same_everywhere(c, workers, "an imported key")
    history.append(faces_agree(c, "an imported key"))
    ok(f"a key made, rotated, retired, dropped and imported on the coordinator is the same on both workers when the "
       f"statement commits, not before (a rolled-back rotation reached none); the faces the workers compute are the "
       f"coordinator's after each change ({keys.count(',') + 1} keys)")

    # Refusals.
    for w in workers:
        refused(w, "SELECT uuid_facade_key_create()", "on a Citus worker the facade's keys come from the coordinator")
        refused(w, "SELECT uuid_facade_key_retire(2)", "on a Citus worker")
    refused(c, "SET uuid_ext.facade_sync = '00'", "is taken only on a Citus worker")
    w = workers[0]
    w.q("CREATE ROLE app")
    # The key sets the coordinator sent, as the worker logged them: each is
    # sealed for the role that changed the keys (here the superuser) and
    # taken once, newest last.
    me = c.q("SELECT current_user")
    sent = SENT.findall(w.log_text())
    if len(sent) < 3:
        fail(f"the worker's log holds {len(sent)} of the coordinator's key sets")
    keys_before = same_everywhere(c, workers, "before the key sets are sent again")
    latest = sent[-1]
    forged = latest[:-80] + ("0" if latest[-80] != "0" else "1") + latest[-79:]
    setting = "BEGIN; SET LOCAL uuid_ext.facade_sync TO '{}'; COMMIT"
    refused(w, "SET ROLE app; " + setting.format(latest), f"sealed for the role {me}, not app")
    refused(w, setting.format(forged), "does not authenticate")
    refused(w, setting.format(sent[0]), "and this worker holds generation")
    refused(w, setting.format(latest), "and this worker holds generation")
    refused(w, "SET uuid_ext.facade_sync = 'not hex'", "is not a coordinator's sealed facade keys")
    refused(w, "ALTER ROLE app SET uuid_ext.facade_sync = '00'", "is set only by SET")
    if w.q(KEYS) != keys_before:
        fail("a key set sent again changed a worker's keys")
    # The role that changes keys may send a worker the key set of a change
    # it rolled back (it could read it): the worker holds it until the
    # coordinator's next change, which replaces it.
    c.q("BEGIN; SELECT uuid_facade_key_create(); ROLLBACK")
    rolled_back = SENT.findall(w.log_text())[-1]
    w.q(setting.format(rolled_back))
    if w.q(KEYS) == keys_before:
        fail("a rolled-back key set sent again by its role did not reach the worker: the check below cannot fail")
    c.q("SELECT uuid_facade_cluster_sync()")
    same_everywhere(c, workers, "uuid_facade_cluster_sync() after a rolled-back key set was sent again")
    # A worker whose cluster key is another: the coordinator's change fails everywhere.
    keys_before = same_everywhere(c, workers, "before a worker's cluster key differs")
    # (A superuser's own SQL passes the guard.)
    w.q("DELETE FROM uuid_facade_cluster_key; SELECT uuid_facade_cluster_key_create()")
    refused(c, "SELECT uuid_facade_key_create()", "is not the coordinator's")
    if same_everywhere(c, workers[1:], "a change refused by one worker") != keys_before or w.q(KEYS) != keys_before:
        fail("a change that one worker refused changed keys somewhere")
    w.q("DELETE FROM uuid_facade_cluster_key")
    move_cluster_key(c, w)
    ok("on a worker the key functions refuse (55000); the key set's setting refuses elsewhere (55000), in "
       f"ALTER ROLE (55000) and garbage (22023); of the coordinator's {len(sent)} key sets from a worker's log, the "
       "latest is refused to another role (42501), changed in one byte (42501: the tag), and sent again, as the "
       "first one is (55000: each is taken once, newest last); a rolled-back key set sent again by its own role "
       "reaches that worker until the coordinator's next change, which puts it right; a worker with another "
       "cluster key makes the coordinator's change fail, and no node changes")

    # A worker added later.
    late = t.server("worker3").create("shared_preload_libraries = 'citus,uuid_ext'", "max_connections = 100",
                                      *LOG_ALL)
    late.q("CREATE EXTENSION citus")
    add_workers(c, [late])
    if late.q("SELECT count(*) FROM uuid_facade_keys") != "0":
        fail("a worker added later has keys before it was given any")
    refused(c, "SELECT uuid_facade_cluster_sync()", "this Citus worker has no facade cluster key")
    move_cluster_key(c, late)
    if c.q("SELECT uuid_facade_cluster_sync()") != "3":
        fail("uuid_facade_cluster_sync() did not count three workers")
    same_everywhere(c, [*workers, late], "a worker added later, after uuid_facade_cluster_sync()")
    c.q("SELECT uuid_facade_key_create()")
    same_everywhere(c, [*workers, late], "a rotation after a worker was added")
    history.append(faces_agree(c, "a rotation after a worker was added"))
    ok("a worker added after the keys were made gets them with uuid_facade_cluster_sync() on the coordinator, once "
       "its cluster key is there (before, the call fails, naming it), and every later change")

    # The lookup by face, in a table keyed by uuid7 and in one keyed by uuid.
    c.q(f"CREATE TABLE orders_u (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int);"
        f"SELECT create_distributed_table('orders_u', 'id');"
        f"INSERT INTO orders_u (n) SELECT generate_series(1, {N})")
    seen = []
    for table in ("orders", "orders_u"):
        face = c.q(f"SELECT uuid_v7_to_facade(id) FROM {table} WHERE n = 7")
        key = c.q(f"SELECT id FROM {table} WHERE n = 7")
        direct = f"SELECT n FROM {table} WHERE id = uuid_facade_to_v7('{face}')"
        c.q(f"CREATE FUNCTION {table}_by_face(face uuid) RETURNS SETOF {table} LANGUAGE plpgsql STABLE AS $$"
            f"DECLARE v uuid := uuid_facade_to_v7(face); BEGIN RETURN QUERY SELECT * FROM {table} WHERE id = v; "
            "END $$")
        counts = {}
        for what, sql in (("by key", f"SELECT n FROM {table} WHERE id = '{key}'"), ("by face", direct),
                          ("through the function", f"SELECT n FROM {table}_by_face('{face}')"),
                          ("through the function, prepared",
                           f"PREPARE p(uuid) AS SELECT n FROM {table}_by_face($1); EXECUTE p('{face}')")):
            r = c.q(f"SET citus.log_remote_commands = on; SET client_min_messages = notice; {sql}", check=False)
            if r.returncode != 0 or r.stdout.strip() != "7":
                fail(f"the lookup {what} in {table} did not find its row: {r.stdout}{r.stderr}")
            counts[what] = len(set(re.findall(rf"{table}_\d+", r.stderr)))
        if any(n != 1 for what, n in counts.items() if what != "by face"):
            fail(f"shards a lookup in {table} reaches: {counts}")
        if task_count(c, direct) != counts["by face"] or counts["by face"] < 2:
            fail(f"WHERE id = uuid_facade_to_v7(face) in {table} reaches {counts['by face']} shards: it was "
                 "expected to reach all")
        seen.append(counts["by face"])
    ok(f"shards each lookup reaches (the commands Citus sends), in a table keyed by uuid7 and in one keyed by uuid: "
       f"by the key 1, WHERE id = uuid_facade_to_v7(face) {' and '.join(map(str, seen))} (every shard: Citus routes "
       "by a value it knows when it plans), through a function that decodes first, then looks up by the value, 1, "
       "prepared with the face as $1 too; each finds its row")

    # The logs.
    secrets = []
    for k in c.q("SELECT key_id FROM uuid_facade_keys WHERE state <> 'dropped'").split():
        secrets.append(bytes.fromhex(c.q(f"SELECT encode(uuid_facade_key_export({k}), 'hex')")))
    secrets.append(bytes.fromhex(c.q("SELECT encode(uuid_facade_cluster_key_export(), 'hex')")))
    forms = lambda b: (b.hex(), b.hex().upper(), base64.b64encode(b).decode()[:40])
    for srv in (c, *workers, late):
        log = srv.log_text()
        for b in secrets:
            if any(f in log for f in forms(b)):
                fail(f"{srv.name}'s server log holds a key")
        if srv is not c and "uuid_ext.facade_sync" not in log:
            fail(f"{srv.name}'s log does not hold the key sets the keys came in: the check above could not fail")
    for root, dirs, files in os.walk(t.dir):
        dirs[:] = [d for d in dirs if d != "data"]
        for f in files:
            path = os.path.join(root, f)
            if path.endswith("server.log"):
                continue
            try:
                data = open(path, "rb").read()
            except OSError:
                continue
            if any(b in data or b.hex().encode() in data for b in secrets):
                fail(f"{path} holds a key")
    ok("no node's log holds a key or the cluster key (in hex or base64), while every worker's log holds the "
       "command the keys came in; no file outside the data directories holds one")
    for srv in (late, *workers, c):
        srv.stop()
