"""PostgreSQL 18's generator names through pg_dump (docs/reference.md#postgresql-18s-names-on-every-version).

On this version: a table whose column defaults call uuidv7(), uuidv7(interval)
and uuidv4() unqualified, and one that calls public.uuidv7(), is dumped with
pg_dump; the test checks what the dump writes for each default (where core
has no uuidv7(), 15-17: ours, schema-qualified; where it has, 18 and 19:
core's, unqualified) and keeps the dump in the run's dumps directory
(t.dumps, kept across the run's PostgreSQL versions).

Where core has uuidv7() it then restores every dump that directory holds
from this major or an earlier one (those the earlier versions of this run
left, and its own) into a fresh database of this server: the restore runs
with ON_ERROR_STOP, the restored defaults call what the dump named (a dump
from 15-17 keeps uuid_ext's functions, which show qualified here, since an
unqualified call would reach core's), and inserting through them makes new
keys of the right versions after the restored ones. Every PostgreSQL major
of the run up to this one must have left its dump.

Runs on the shared server, with its pg_dump and psql.
"""
import glob
import os
import re
import subprocess

from pg import fail, ok

DB = "pg18_names"
TABLE = """CREATE TABLE ev (id uuid PRIMARY KEY DEFAULT uuidv7(), back uuid DEFAULT uuidv7(interval '-1 day'),
                            tok uuid DEFAULT uuidv4(), ours uuid DEFAULT public.uuidv7(), n int)"""
COLUMNS = ("id", "back", "tok", "ours")


def core_has_uuidv7(srv):
    return srv.q("SELECT to_regprocedure('pg_catalog.uuidv7()') IS NOT NULL") == "t"


def calls(core):
    """What a default of each column calls, as pg_dump writes it from a
    server whose core has uuidv7() or not, and as such a server shows it
    restored: ours are schema-qualified wherever an unqualified call would
    reach core's."""
    return {
        "id": "uuidv7()" if core else "public.uuidv7()",
        "back": "uuidv7('-1 days'::interval)" if core else "public.uuidv7('-1 days'::interval)",
        "tok": "uuidv4()" if core else "public.uuidv4()",
        "ours": "public.uuidv7()",
    }


def defaults(srv, db):
    out = srv.q("""SELECT a.attname || '=' || pg_get_expr(ad.adbin, ad.adrelid)
               FROM pg_attrdef ad JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
               WHERE ad.adrelid = 'public.ev'::regclass ORDER BY a.attnum""", db=db)
    return dict(line.split("=", 1) for line in out.splitlines())


def dump_here(srv, dumps):
    major = srv.pg.major
    srv.fresh(DB)
    srv.q("CREATE EXTENSION uuid_ext", db=DB)
    srv.q(TABLE, db=DB)
    srv.q("INSERT INTO ev (n) SELECT generate_series(1, 100)", db=DB)
    path = os.path.join(dumps, f"pg18_names_from_pg{major}.sql")
    core = core_has_uuidv7(srv)
    with open(path[:-len(".sql")] + ".core", "w") as f:
        f.write("t" if core else "f")
    r = subprocess.run([srv.pg.tool("pg_dump"), "-d", srv.conninfo(DB), "-f", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"pg_dump failed: {r.stderr}")
    text = open(path).read()
    m = re.search(r"CREATE TABLE public\.ev \((.*?)\n\);", text, re.S)
    if not m:
        fail(f"no CREATE TABLE public.ev in the dump:\n{text[:2000]}")
    want = calls(core)
    for col in COLUMNS:
        if f"{col} uuid DEFAULT {want[col]}" not in m.group(1):
            fail(f"PostgreSQL {major}'s pg_dump wrote the default of {col} otherwise than `DEFAULT {want[col]}`:\n"
                 f"{m.group(1)}")
    ok(f"pg_dump on {major} writes the defaults as " + ", ".join(f"`{want[c]}`" for c in COLUMNS))
    srv.q(f"DROP DATABASE {DB}")


def restore_here(srv, path):
    major = srv.pg.major
    source = int(re.search(r"from_pg(\d+)\.sql$", path).group(1))
    db = f"pg18_names_restored_{source}"
    srv.fresh(db)
    r = subprocess.run([*srv.psql(db), "-f", path], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"the dump from {source} does not restore on {major}: {r.stderr}")
    want = calls(open(path[:-len(".sql")] + ".core").read() == "t")
    got = defaults(srv, db)
    if got != want:
        fail(f"restored on {major}, the dump from {source} has the defaults {got}, not {want}")
    restored_max = srv.q("SELECT greatest(id, ours) FROM ev ORDER BY 1 DESC LIMIT 1", db=db)
    # New rows through the restored defaults; every key later than the
    # restored ones (made earlier in this run), of the right version.
    srv.q("INSERT INTO ev (n) SELECT generate_series(101, 200)", db=db)
    checks = srv.q(f"""SELECT count(*), bool_and(id > '{restored_max}'), bool_and(ours > '{restored_max}'),
                          bool_and(public.uuid_extract_version(id) = 7 AND public.uuid_extract_version(back) = 7
                                   AND public.uuid_extract_version(ours) = 7 AND public.uuid_extract_version(tok) = 4)
                   FROM ev WHERE n > 100""", db=db)
    if checks != "100|t|t|t":
        fail(f"inserting through the defaults restored from {source}: {checks} (count, later, later, versions)")
    srv.q(f"DROP DATABASE {db}")
    return source


def source_major(path):
    return int(re.search(r"from_pg(\d+)\.sql$", path).group(1))


def main(t):
    srv = t.shared()
    major = t.pg.major
    dump_here(srv, t.dumps)
    if core_has_uuidv7(srv):
        # The majors this run tests: each earlier one has left its dump.
        run_majors = {p.major for p in t.pgs}
        dumps = sorted((p for p in glob.glob(os.path.join(t.dumps, "pg18_names_from_pg*.sql"))
                        if source_major(p) <= major), key=source_major)
        missing = sorted({v for v in run_majors if v <= major} - set(map(source_major, dumps)))
        if missing:
            fail(f"no dump from {missing} in {t.dumps}, though this run tests them before {major}")
        restored = [restore_here(srv, p) for p in dumps]
        ok(f"the dumps from {', '.join(map(str, restored))} restore on {major} with their defaults as dumped "
           "(where core has no uuidv7() uuid_ext's, where it has core's), and new rows get their keys through them")
