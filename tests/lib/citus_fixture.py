"""A Citus 14 cluster for the cluster tests, and what the façade's Citus tests share.

`citus_cluster(t)` starts a coordinator and workers of the test's
PostgreSQL (through tests/lib/servers.py, each preloading `citus,uuid_ext`,
on Unix sockets with trust: Citus connects to the workers with libpq, the
socket directory as the host) and returns it; `need_citus(t)` raises Skip
where Citus 14 cannot run. `move_cluster_key` is the move of the façade's
cluster key that docs/facade.md#on-a-citus-cluster documents, with the
superuser's search path pinned (`SAFE`, `PIN`, as docs/facade.md#moving-a-key).
"""
import os
import re
import subprocess

from harness import Skip
from pg import fail

CITUS_VERSION = "14.0.1"
# The majors Citus 14 supports (its configure refuses the others).
CITUS_MAJORS = (16, 17, 18)
# The coordinator's clock against the workers' (citus_cluster(t, clock=...)).
AHEAD = "+1h"
HOUR_MS = 3_600_000


def need_citus(t):
    """Skip unless Citus 14 runs on this PostgreSQL here."""
    if t.pg.major not in CITUS_MAJORS:
        raise Skip(f"Citus {CITUS_VERSION} supports PostgreSQL 16, 17 and 18, not {t.pg.major} (its configure "
                   "refuses the others: 'Citus is not compatible with the detected PostgreSQL version')")
    control = os.path.join(t.pg.extension_dir, "citus.control")
    if not os.path.exists(control):
        raise Skip(f"Citus is not installed for {t.pg}: scripts/setup builds Citus {CITUS_VERSION} from "
                   f"../shared/vendor/citus-{CITUS_VERSION}.tar.gz for 16, 17 and 18")


def citus_cluster(t, workers=2, db="postgres", preload="citus,uuid_ext", conf=(), clock=None):
    """Starts a Citus cluster of this PostgreSQL through tests/lib/servers.py
    and returns it: (coordinator, [worker, ...]), each a running Server of
    its own (`t.server`), preloading `preload`, `conf` appended to each
    postgresql.conf, Citus created in `db` on every node (the coordinator
    registered with citus_set_coordinator_host, each worker added with
    citus_add_node, by its socket directory and port). uuid_ext is not
    created: `CREATE EXTENSION uuid_ext` on the coordinator reaches every
    node. `clock` moves the coordinator's clock (libfaketime, '+1h'). Skips
    where Citus cannot run (need_citus)."""
    need_citus(t)
    settings = [f"shared_preload_libraries = '{preload}'", "max_connections = 100", *conf]
    coordinator = t.server("coordinator", clock=bool(clock))
    coordinator.initdb(*settings)
    if clock:
        coordinator.set_clock(clock)
    coordinator.start()
    nodes = [t.server(f"worker{i}").create(*settings) for i in range(1, workers + 1)]
    citus_database(coordinator, nodes, db)
    return coordinator, nodes


def citus_database(coordinator, workers, db, before=(), add=True):
    """Makes `db` a Citus database on every node: created where it is not
    `postgres` (Citus does not propagate CREATE DATABASE), Citus in it on
    each, the coordinator registered and (with `add`) the workers added.
    `before`: statements run on the coordinator before its CREATE EXTENSION
    citus."""
    for srv in (coordinator, *workers):
        if db != "postgres":
            srv.fresh(db)
        if srv is not coordinator:
            srv.q("CREATE EXTENSION citus", db=db)
    for sql in before:
        coordinator.q(sql, db=db)
    coordinator.q("CREATE EXTENSION citus", db=db)
    coordinator.q(f"SELECT citus_set_coordinator_host('{coordinator.dir}', {coordinator.port})", db=db)
    if add:
        add_workers(coordinator, workers, db)


def add_workers(coordinator, workers, db="postgres"):
    """citus_add_node for each worker: its socket directory as the host, and its port."""
    for w in workers:
        coordinator.q(f"SELECT citus_add_node('{w.dir}', {w.port})", db=db)


def on_workers(coordinator, sql, db="postgres"):
    """What `sql` returns on each worker, by run_command_on_workers: a list, in node order."""
    out = coordinator.q(f"SELECT result FROM run_command_on_workers($q${sql}$q$) ORDER BY nodeport", db=db)
    return out.splitlines() if out else []


def task_count(srv, sql, db="postgres"):
    plan = srv.q(f"EXPLAIN (COSTS OFF) {sql}", db=db)
    m = re.search(r"Task Count: (\d+)", plan)
    if not m:
        fail(f"no Task Count in the plan of {sql}:\n{plan}")
    return int(m.group(1))


# A superuser's session, as docs/facade.md#moving-a-key pins it: pg_catalog
# first, then uuid_ext's schema, then pg_temp; nothing of a role's.
SAFE = "SET search_path = pg_catalog, pg_temp"
PIN = ("DO $$BEGIN PERFORM pg_catalog.set_config('search_path', 'pg_catalog, ' || "
       "(SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e "
       "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'uuid_ext') "
       "|| ', pg_temp', false); END$$")
# Every key of the database, without its bytes: ids, states, fingerprints, dates.
KEYS = ("SELECT string_agg(key_id || ' ' || state || ' ' || fingerprint || ' ' || created || ' ' || "
        "coalesce(retired::text, '-') || ' ' || coalesce(dropped::text, '-'), ', ' ORDER BY key_id) "
        "FROM uuid_facade_keys")


def move_cluster_key(coordinator, worker, db="postgres"):
    """The documented move: export on the coordinator, import on the worker,
    through a pipe between two psql, the bytes as COPY data only, each
    psql with the superuser's search path pinned (SAFE, PIN). Returns the
    fingerprint the worker printed."""
    export = subprocess.Popen([*coordinator.psql(db), "-q", "-c", SAFE, "-c", PIN, "-c",
                               "\\copy (SELECT uuid_facade_cluster_key_export()) TO STDOUT"],
                              stdout=subprocess.PIPE)
    r = subprocess.run([*worker.psql(db), "-q", "-c", SAFE, "-c", PIN,
                        "-c", "CREATE TEMP TABLE moving (key pg_catalog.bytea)",
                        "-c", "\\copy pg_temp.moving FROM PSTDIN",
                        "-c", "SELECT uuid_facade_cluster_key_import(key) FROM pg_temp.moving"],
                       stdin=export.stdout, capture_output=True, text=True)
    export.stdout.close()
    if export.wait() != 0 or r.returncode != 0:
        fail(f"moving the cluster key to {worker.name}: {r.stdout}{r.stderr}")
    return r.stdout.strip()
