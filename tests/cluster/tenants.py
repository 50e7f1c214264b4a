"""A database owner who is not a superuser (docs/operations.md#shared-servers-database-owners-and-tenants).

uuid_ext is a trusted extension: its install and update scripts run as the
bootstrap superuser, with the target schema first in search_path. Here two
roles, each owning a database and nothing else, check that:

  hostile   installed into a schema first in search_path that holds logging
            look-alikes of every operator, function and type the scripts name
            outside plain DDL (and more: `=`, `<`, `uuid_cmp`, ...), none is
            called, the install succeeds and every object of the extension is
            owned by the bootstrap superuser; the same for ALTER EXTENSION
            UPDATE from every earlier release. The look-alikes cover every
            `pg_catalog.` name and `OPERATOR(pg_catalog.X)` in the scripts
            (checked). The same test run on 0.4.0's released script must catch
            it (its preload block picks a planted `->>`): the test can fail.
  locked    the role cannot change the server-wide settings, nor alter,
            replace or drop the extension's objects;
  paths     nothing it can call shows the data directory: uuid_ext_info()
            names the horizon file relative to it (a role in
            pg_read_all_settings and a superuser see the full path), and the
            horizon-write ERROR names it so too while the server log keeps
            the full path;
  watermark a transaction held open in one database (and a prepared one)
            does not hold back another database's uuid_v7_watermark(), does
            hold back its own, and every database's with
            uuid_ext.watermark_scope = server; oldest_announcement_age_ms
            counts from the announcement, in the same scope.

Runs on the shared server (the library preloaded, prepared transactions
allowed) as the superuser postgres and the roles it makes; reads the
server's data directory and log. Installing 0.4.0 and updating from every
earlier release need their install scripts, which the runner puts into the
extension directory: without them the rest runs, and the test is reported
skipped, saying so. Needs psycopg 3.
"""
import os
import re
import time

import psycopg

import extension
from harness import Skip
from pg import fail, must_fail, ok

TENANTS = ("tenant_a", "tenant_b")
EARLIER = tuple(extension.releases())
BOOTSTRAP = "10"  # the bootstrap superuser's OID


def connect(srv, db="postgres", user="postgres", autocommit=True):
    return psycopg.connect(srv.conninfo(db, user), autocommit=autocommit)


def one(conn, sql, params=None):
    return conn.execute(sql, params).fetchone()[0]


def fresh_tenants(srv):
    with connect(srv) as su:
        for t in TENANTS:
            su.execute(f"DROP DATABASE IF EXISTS {t}")
            su.execute(f"DROP DATABASE IF EXISTS {t}_upd")
        for t in TENANTS:
            su.execute(f"DROP ROLE IF EXISTS {t}")
            su.execute(f"CREATE ROLE {t} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE")
            su.execute(f"CREATE DATABASE {t} OWNER {t}")
        if one(su, "SELECT rolsuper FROM pg_roles WHERE oid = 10") is not True:
            fail("the bootstrap role is not a superuser")


# --- hostile: the look-alikes --------------------------------------------

# Functions: name, argument types, result type. Each logs its call (a
# WARNING, which survives a rollback, and a row) and returns something of
# its type.
FUNCTIONS = [
    ("set_config", "text, text, bool", "text"), ("set_config", "name, name, bool", "text"),
    ("current_setting", "text", "text"), ("current_setting", "text, bool", "text"),
    ("current_setting", "name", "text"),
    ("format", "text", "text"), ("format", "text, text", "text"), ("format", "text, text, text", "text"),
    ("quote_ident", "text", "text"), ("quote_literal", "text", "text"),
    ("uuid_cmp", "uuid, uuid", "int4"), ("uuid_hash", "uuid", "int4"), ("uuid_hash_extended", "uuid, int8", "int8"),
    ("uuid_eq", "uuid, uuid", "bool"), ("uuid_lt", "uuid, uuid", "bool"),
    ("int4", "text", "int4"), ("bool", "text", "bool"), ("text", "jsonb", "text"),
    ("regnamespace", "oid", "regnamespace"), ("jsonb", "text", "jsonb"),
    ("uuid_ext_info", "text", "jsonb"), ("uuid_extract_timestamp", "text", "text"),
    # uuid_skipsupport(internal) itself cannot be planted: no role but a
    # superuser makes a function of internal.
    ("uuid_skipsupport", "text", "text"),
    ("octet_length", "bytea", "int4"), ("encode", "bytea, text", "text"), ("pg_extension_config_dump", "regclass, text", "void"),
    # uuid_v7_cluster_watermark()'s (Citus's run_command_on_all_nodes too:
    # where Citus is not, any role may plant one).
    ("array_agg", "uuid", "text"), ("string_agg", "text, text", "text"), ("run_command_on_all_nodes", "text", "text"),
    ("substr", "text, int4", "text"),
]
# Operators: name, left, right.
OPERATORS = [(op, l, r) for op in ("->>", "->", "=", "<", "<=", ">", ">=", "<>", "||", "~", "!~")
             for (l, r) in (("jsonb", "jsonb"), ("jsonb", "text"), ("jsonb", "int4"), ("int4", "int4"),
                            ("name", "name"), ("name", "text"), ("text", "text"), ("uuid", "uuid"), ("oid", "oid"))]
# Types (and cast targets): domains over the real type whose CHECK logs.
TYPES = ["jsonb", "int4", "bool", "text", "uuid", "oid", "name", "regnamespace", "int8", "bytea",
         "timestamptz", "varchar", "regrole"]
RESULT = {"bool": "true", "text": "'true'", "int4": "1", "jsonb": "'{}'::pg_catalog.jsonb",
          "uuid": "NULL", "int8": "0", "name": "'x'", "oid": "0", "regnamespace": "NULL", "void": ""}


def plant(conn, schema):
    """Plants the look-alikes into `schema` (the role owns it)."""
    conn.execute(f"""
        CREATE TABLE {schema}.hostile_calls (what text, by_user text);
        GRANT ALL ON {schema}.hostile_calls TO PUBLIC;
        CREATE FUNCTION {schema}.hostile_log(what text) RETURNS boolean LANGUAGE plpgsql AS $f$
        BEGIN
          RAISE WARNING 'HOSTILE % called as %', what, current_user;
          INSERT INTO {schema}.hostile_calls VALUES (what, current_user);
          RETURN true;
        END $f$""")
    for name, args, ret in FUNCTIONS:
        conn.execute(f"""CREATE FUNCTION {schema}.{name}({args}) RETURNS pg_catalog.{ret} LANGUAGE plpgsql AS $f$
            BEGIN PERFORM {schema}.hostile_log('function {name}({args})'); RETURN {RESULT[ret]}; END $f$""")
    for i, (op, left, right) in enumerate(OPERATORS):
        ret = "text" if op.startswith("->") else "bool"
        fn = f"{schema}.hostile_op{i}"
        conn.execute(f"""CREATE FUNCTION {fn}(pg_catalog.{left}, pg_catalog.{right}) RETURNS pg_catalog.{ret}
            LANGUAGE plpgsql AS $f$
            BEGIN PERFORM {schema}.hostile_log('operator {op}({left}, {right})'); RETURN {RESULT[ret]}; END $f$""")
        conn.execute(f"CREATE OPERATOR {schema}.{op} (LEFTARG = pg_catalog.{left}, RIGHTARG = pg_catalog.{right}, "
                     f"FUNCTION = {fn})")
    for t in TYPES:
        conn.execute(f"CREATE DOMAIN {schema}.{t} AS pg_catalog.{t} "
                     f"CHECK ({schema}.hostile_log('type {t}: ' || VALUE::pg_catalog.text))")


# Words before "(" in a DO block that are syntax, not functions.
KEYWORDS = {"select", "from", "where", "into", "if", "then", "end", "not", "and", "or", "perform", "execute",
            "raise", "notice", "using", "hint", "declare", "begin", "in", "is", "null", "operator", "as",
            "elsif", "else", "loop", "for", "return", "exists", "case", "when", "on", "join", "values"}


STRING = r"'(?:[^']|'')*'"


def unqualified_in_sql(code):
    """Functions, casts and operators named without a schema in `code`
    (string literals already blanked)."""
    found = [f"function {m.group(1)}" for m in re.finditer(r"(?<![\w.])([a-z_][a-z0-9_]*)\s*\(", code, re.I)
             if m.group(1).lower() not in KEYWORDS]
    found += [f"type {m.group(1)}" for m in re.finditer(r"::\s*([a-z_][a-z0-9_]*)\b(?!\s*\.)", code, re.I)]
    # Argument types in parentheses (the DDL that format() builds).
    found += [f"type {item.strip()}" for m in re.finditer(r"\(([^()']*)\)", code)
              for item in m.group(1).split(",") if re.fullmatch(r"\s*[a-z_]\w*\s*", item, re.I)]
    ops = re.sub(r"OPERATOR\(pg_catalog\.[^)]+\)", " ", code)
    ops = re.sub(r"USING\s+\w+\s*=", " ", ops, flags=re.I).replace(":=", " ")
    found += [f"operator {m.group(0)}" for m in re.finditer(r"->>|->|<=|>=|<>|!=|\|\||-|[=<>+*/%]", ops)]
    return found


def unqualified_in_do_blocks(text):
    """Every function, operator and type named without a schema in the DO
    blocks of a script, and in the SQL they build with format() (its
    placeholders stand for the extension's schema or a literal)."""
    found = []
    for block in re.findall(r"\bDO \$\$(.*?)\$\$;", text, re.S):
        b = re.sub(r"--[^\n]*", "", block)
        for args in re.findall(rf"pg_catalog\.format\(\s*((?:{STRING}\s*)+)", b):
            built = "".join(lit[1:-1].replace("''", "'") for lit in re.findall(STRING, args))
            built = re.sub(r"%(\d+\$)?[sI]", "ext", built)
            found += unqualified_in_sql(re.sub(STRING, "''", re.sub(r"%(\d+\$)?L", "''", built)))
        b = re.sub(STRING, "''", b)
        found += unqualified_in_sql(b)
        declare = re.search(r"\bDECLARE\b(.*?)\bBEGIN\b", b, re.S | re.I)
        for m in re.finditer(r"^\s*[a-z_]\w*\s+([a-z_][a-z0-9_]*)\b(?!\s*\.)", declare.group(1) if declare else "",
                             re.I | re.M):
            found.append(f"type {m.group(1)}")
    return found


def names_in_scripts(paths):
    """Every `pg_catalog.NAME` and `OPERATOR(pg_catalog.OP)` the scripts name."""
    funcs, ops = set(), set()
    for p in paths:
        text = open(p).read()
        ops |= set(re.findall(r"OPERATOR\(pg_catalog\.([^)\s]+)\)", text))
        funcs |= set(re.findall(r"pg_catalog\.([a-z_][a-z0-9_]*)\b", text))
    return funcs, ops


def check_coverage(paths):
    funcs, ops = names_in_scripts(paths)
    planted = {n for n, _, _ in FUNCTIONS} | set(TYPES) | {"pg_extension", "pg_roles"}
    # pg_catalog tables and pseudo-types cannot be planted as look-alikes
    # that matter: a relation is found by its schema-qualified name, and no
    # role can make a type `internal`.
    missing = funcs - planted - {"internal"}
    if missing:
        fail(f"the scripts name pg_catalog objects that have no look-alike here: {sorted(missing)}")
    if ops - {op for op, _, _ in OPERATORS}:
        fail(f"the scripts name operators that have no look-alike here: {sorted(ops - {o for o, _, _ in OPERATORS})}")
    unqualified = {p: unqualified_in_do_blocks(open(p).read()) for p in paths}
    if any(unqualified.values()):
        fail(f"names without a schema in the scripts' DO blocks: {unqualified}")
    return len(funcs), len(ops)


class Notices:
    def __init__(self, conn):
        self.seen = []
        conn.add_notice_handler(lambda d: self.seen.append(d.message_primary))

    def hostile(self):
        return [m for m in self.seen if m.startswith("HOSTILE")]


def owners_of_members(conn):
    """The owners of the extension's functions, types, operators, operator
    classes and families: role OIDs and how many objects each owns."""
    return dict(conn.execute("""
        SELECT owner::oid::text, count(*) FROM (
          SELECT p.proowner AS owner, d.refobjid FROM pg_proc p
            JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
          UNION ALL SELECT t.typowner, d.refobjid FROM pg_type t
            JOIN pg_depend d ON d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e'
          UNION ALL SELECT o.oprowner, d.refobjid FROM pg_operator o
            JOIN pg_depend d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid AND d.deptype = 'e'
          UNION ALL SELECT c.opcowner, d.refobjid FROM pg_opclass c
            JOIN pg_depend d ON d.classid = 'pg_opclass'::regclass AND d.objid = c.oid AND d.deptype = 'e'
          UNION ALL SELECT f.opfowner, d.refobjid FROM pg_opfamily f
            JOIN pg_depend d ON d.classid = 'pg_opfamily'::regclass AND d.objid = f.oid AND d.deptype = 'e'
        ) m WHERE m.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'uuid_ext')
        GROUP BY 1""").fetchall())


def hostile_install(srv, db, role, version=None):
    """As `role`, plants the look-alikes in schema app (first in
    search_path) and installs uuid_ext there. Returns the problems found."""
    problems = []
    with connect(srv, db, role) as conn:
        notices = Notices(conn)
        conn.execute("DROP SCHEMA IF EXISTS app CASCADE")
        conn.execute("CREATE SCHEMA app")
        plant(conn, "app")
        conn.execute("SET search_path = app, public")
        try:
            conn.execute("CREATE EXTENSION uuid_ext" + (f" VERSION '{version}'" if version else ""))
        except psycopg.Error as e:
            problems.append(f"CREATE EXTENSION failed: {e.diag.message_primary}")
        problems += hostile_evidence(conn, notices)
    return problems


def hostile_evidence(conn, notices):
    problems = [f"a look-alike ran: {m}" for m in notices.hostile()]
    problems += [f"a look-alike left a row: {w} as {u}"
                 for w, u in conn.execute("SELECT what, by_user FROM app.hostile_calls").fetchall()]
    return problems


def check_installed(conn, role, version):
    ext = conn.execute("SELECT extversion, extowner::regrole::text, extnamespace::regnamespace::text "
                       "FROM pg_extension WHERE extname = 'uuid_ext'").fetchone()
    if ext != (version, role, "app"):
        fail(f"uuid_ext as installed by {role}: {ext}")
    owners = owners_of_members(conn)
    if set(owners) != {BOOTSTRAP}:
        fail(f"the extension's objects are owned by {owners} (role OID: count), not only the bootstrap superuser")
    # It works, for the role, in its schema.
    conn.execute("CREATE TABLE public.t (id app.uuid7 PRIMARY KEY DEFAULT app.uuid_generate_v7(), n int)")
    conn.execute("INSERT INTO public.t (n) SELECT generate_series(1, 100)")
    got = one(conn, "SELECT count(DISTINCT id)::int FROM public.t")
    if got != 100:
        fail(f"a uuid7 table of {role}'s holds {got} distinct keys, not 100")
    conn.execute("DROP TABLE public.t")
    return sum(owners.values())


def standins_missing(ext_dir):
    """The earlier releases' install scripts (the runner's stand-ins) not in `ext_dir`."""
    return [f"uuid_ext--{v}.sql" for v in EARLIER
            if not os.path.exists(os.path.join(ext_dir, f"uuid_ext--{v}.sql"))]


def test_hostile_install(srv, ext_dir):
    """Returns why the parts that need the earlier releases' scripts were
    skipped, or None when they ran."""
    fresh_tenants(srv)
    version = None
    with connect(srv) as su:
        version = one(su, "SELECT default_version FROM pg_available_extensions WHERE name = 'uuid_ext'")
    scripts = [os.path.join(ext_dir, f) for f in sorted(os.listdir(ext_dir))
               if re.fullmatch(rf"uuid_ext--{re.escape(version)}\.sql|uuid_ext--[0-9.]+--[0-9.]+\.sql", f)]
    n_funcs, n_ops = check_coverage(scripts)

    problems = hostile_install(srv, "tenant_a", "tenant_a")
    if problems:
        fail("installing into a schema of look-alikes:\n  " + "\n  ".join(problems))
    with connect(srv, "tenant_a", "tenant_a") as conn:
        n = check_installed(conn, "tenant_a", version)
    ok(f"tenant_a (not a superuser, owns its database) installed uuid_ext {version} into a schema first in "
       f"search_path holding {len(FUNCTIONS)} function, {len(OPERATORS)} operator and {len(TYPES)} type look-alikes "
       f"(covering the {n_funcs} pg_catalog names and {n_ops} operators of {len(scripts)} scripts, whose DO blocks "
       f"name nothing without its schema): none ran; "
       f"its {n} objects are the bootstrap superuser's")

    missing = standins_missing(ext_dir)
    if missing:
        return (f"the earlier releases' install scripts are not in {ext_dir} ({', '.join(missing)}; the runner "
                "could not put them there): 0.4.0's script and the updates from every earlier release were not "
                "tested among the look-alikes")

    # The same tests catch 0.4.0's released script (they can fail): the
    # check finds its unqualified names, and its preload block picks the
    # planted ->>(jsonb, jsonb), whose right operand 'preloaded' is then no
    # valid jsonb.
    released = os.path.join(ext_dir, "uuid_ext--0.4.0.sql")
    unqualified = unqualified_in_do_blocks(open(released).read())
    if not unqualified:
        fail("the check finds no unqualified name in 0.4.0's released script: it cannot tell")
    problems = hostile_install(srv, "tenant_b", "tenant_b", "0.4.0")
    if not any("invalid input syntax for type json" in p or "look-alike ran" in p for p in problems):
        fail(f"0.4.0's released install script passed the hostile-schema test: the test cannot tell ({problems})")
    ok(f"the same tests on 0.4.0's released script catch it: its DO blocks name {len(set(unqualified))} things without a "
       f"schema ({', '.join(sorted(set(unqualified)))}); installed among the look-alikes: {problems[0]}")

    # ALTER EXTENSION UPDATE from every earlier release, look-alikes planted
    # after the old version was installed.
    for old in EARLIER:
        with connect(srv) as su:
            su.execute("DROP DATABASE IF EXISTS tenant_a_upd")
            su.execute("CREATE DATABASE tenant_a_upd OWNER tenant_a")
        with connect(srv, "tenant_a_upd", "tenant_a") as conn:
            notices = Notices(conn)
            conn.execute("CREATE SCHEMA app")
            conn.execute(f"CREATE EXTENSION uuid_ext SCHEMA app VERSION '{old}'")
            plant(conn, "app")
            conn.execute("SET search_path = app, public")
            try:
                conn.execute("ALTER EXTENSION uuid_ext UPDATE")
            except psycopg.Error as e:
                fail(f"ALTER EXTENSION UPDATE from {old} as tenant_a: {e.diag.message_primary}")
            problems = hostile_evidence(conn, notices)
            if problems:
                fail(f"updating from {old} with look-alikes in the extension's schema:\n  " + "\n  ".join(problems))
            check_installed(conn, "tenant_a", version)
    with connect(srv) as su:
        su.execute("DROP DATABASE tenant_a_upd")
    ok(f"tenant_a updated uuid_ext from {', '.join(EARLIER)} to {version} with the look-alikes in its schema: "
       f"none ran; every object is the bootstrap superuser's")
    return None


# --- locked: what the tenant cannot do ------------------------------------

def test_locked(srv):
    with connect(srv, "tenant_a", "tenant_a") as conn:
        for name, value in (("uuid_ext.durable_margin", "0"), ("uuid_ext.commit_watermark", "off"),
                            ("uuid_ext.durable_wal", "on"), ("uuid_ext.watermark_interval", "1000"),
                            ("uuid_ext.clock_ahead_warning", "0"), ("uuid_ext.max_lead", "0")):
            must_fail(conn, f"SET {name} = {value}", "55P02", "a server-wide setting")
            must_fail(conn, f"ALTER SYSTEM SET {name} = {value}", "42501", "a server-wide setting")
            must_fail(conn, f"ALTER DATABASE tenant_a SET {name} = {value}", "55P02", "a server-wide setting")
            must_fail(conn, f"ALTER ROLE tenant_a SET {name} = {value}", "55P02", "a server-wide setting")
        # Not the owner (42501); a member of the extension (2BP01: only
        # DROP EXTENSION drops it).
        for sql, sqlstate in (
                ("ALTER FUNCTION app.uuid_generate_v7() STABLE", "42501"),
                ("CREATE OR REPLACE FUNCTION app.uuid_generate_v7() RETURNS uuid LANGUAGE sql AS 'SELECT NULL::uuid'",
                 "42501"),
                ("ALTER OPERATOR FAMILY app.uuid7_ops USING btree DROP FUNCTION 1 (app.uuid7, app.uuid7)", "42501"),
                ("ALTER TYPE app.uuid7 OWNER TO tenant_a", "42501"),
                ("ALTER FUNCTION app.uuid_ext_info() OWNER TO tenant_a", "42501"),
                ("ALTER FUNCTION app.uuid_v7_watermark() SET uuid_ext.watermark_scope = server", "42501"),
                ("DROP FUNCTION app.uuid_v7_watermark()", "2BP01"),
                ("DROP OPERATOR app.= (app.uuid7, app.uuid7)", "2BP01"),
                ("DROP CAST (app.uuid7 AS uuid)", "42501"),
                ("ALTER EXTENSION uuid_ext SET SCHEMA public", "42501"),
                # The reset is the superuser's: EXECUTE revoked from PUBLIC.
                ("SELECT * FROM app.uuid_ext_sequencer_reset()", "42501"),
                ("GRANT EXECUTE ON FUNCTION app.uuid_ext_sequencer_reset() TO tenant_a", "42501")):
            must_fail(conn, sql, sqlstate, "an object of the extension")
        # Its own session's settings are its own.
        conn.execute("SET uuid_ext.monotonicity = backend")
        conn.execute("SET uuid_ext.watermark_scope = server")
    ok("tenant_a cannot set uuid_ext's six server-wide settings (SET, ALTER SYSTEM, ALTER DATABASE, ALTER ROLE) "
       "nor alter, replace, drop, take over or move 10 of the extension's objects, nor reset the sequencer "
       "or grant itself the reset; it sets its session's "
       "uuid_ext.monotonicity and uuid_ext.watermark_scope")


# --- facade: the database owner's keys ---------------------------------------

def test_facade(srv):
    """tenant_a installed the extension (test_hostile_install): it makes a
    façade key, grants the mapping to an application role, which uses it;
    neither reads the key table nor exports a key (docs/facade.md#who-may-call-what)."""
    with connect(srv) as su:
        su.execute("DROP ROLE IF EXISTS tenant_a_app")
        su.execute("CREATE ROLE tenant_a_app LOGIN")
        su.execute("GRANT CONNECT ON DATABASE tenant_a TO tenant_a_app")
    with connect(srv, "tenant_a", "tenant_a") as conn:
        key = one(conn, "SELECT app.uuid_facade_key_create()")
        conn.execute("GRANT USAGE ON SCHEMA app TO tenant_a_app")
        conn.execute("GRANT EXECUTE ON FUNCTION app.uuid_v7_to_facade(uuid, text), "
                     "app.uuid_facade_to_v7(uuid, text) TO tenant_a_app")
        conn.execute("GRANT SELECT ON app.uuid_facade_keys TO tenant_a_app")
        must_fail(conn, "SELECT * FROM app.uuid_facade_key", "42501", "the key table")
        must_fail(conn, f"SELECT app.uuid_facade_key_export({key})", "42501", "a key's export")
        face = one(conn, "SELECT app.uuid_v7_to_facade('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b')")
    with connect(srv, "tenant_a", "tenant_a_app") as conn:
        if str(one(conn, "SELECT app.uuid_facade_to_v7(%s)", (face,))) != "01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b":
            fail("the application role decodes tenant_a's face to another value")
        if one(conn, "SELECT count(*) FROM app.uuid_facade_keys WHERE state = 'current'") != 1:
            fail("the application role does not see the current key in uuid_facade_keys")
        must_fail(conn, "SELECT app.uuid_facade_key_create()", "42501", "making a key")
        must_fail(conn, "SELECT * FROM app.uuid_facade_key", "42501", "the key table")
        must_fail(conn, "SELECT app.uuid_facade_candidates(gen_random_uuid())", "42501", "a function not granted")
    with connect(srv, "tenant_a", "tenant_a") as conn:
        conn.execute("REVOKE ALL ON FUNCTION app.uuid_v7_to_facade(uuid, text), "
                     "app.uuid_facade_to_v7(uuid, text) FROM tenant_a_app")
        conn.execute("REVOKE ALL ON app.uuid_facade_keys FROM tenant_a_app")
    with connect(srv, "tenant_a") as su:
        su.execute("DROP OWNED BY tenant_a_app")
        su.execute("DROP ROLE tenant_a_app")
    ok("tenant_a made a facade key and granted the mapping to an application role, which maps and decodes; "
       "neither reads the key table, exports a key, nor calls what it was not granted (42501)")


# --- paths: nothing shows the data directory -------------------------------

def test_paths(srv):
    data = os.path.realpath(srv.data)
    with connect(srv, "tenant_a") as su:
        shown = one(su, "SHOW data_directory")
        if os.path.realpath(shown) != data:
            fail(f"the server's data directory is {data}, the server says {shown}")
        if one(su, "SELECT app.uuid_ext_info() -> 'horizon' ->> 'file'") != os.path.join(shown, "uuid_ext.horizon"):
            fail("a superuser's uuid_ext_info() does not show the horizon file's full path")
        su.execute("DROP ROLE IF EXISTS settings_reader")
        su.execute("CREATE ROLE settings_reader LOGIN IN ROLE pg_read_all_settings")
        su.execute("GRANT CONNECT ON DATABASE tenant_a TO settings_reader")
        su.execute("GRANT USAGE ON SCHEMA app TO settings_reader")
    with connect(srv, "tenant_a", "settings_reader") as conn:
        if one(conn, "SELECT app.uuid_ext_info() -> 'horizon' ->> 'file'") != os.path.join(shown, "uuid_ext.horizon"):
            fail("a member of pg_read_all_settings does not see the horizon file's full path")
    with connect(srv, "tenant_a", "tenant_a") as conn:
        try:
            conn.execute("SHOW data_directory")
            fail("tenant_a may read data_directory: the test's role is too strong")
        except psycopg.errors.InsufficientPrivilege:
            pass
        info = one(conn, "SELECT app.uuid_ext_info()::text")
        if shown in info or data in info:
            fail(f"uuid_ext_info() shows tenant_a the data directory: {info}")
        if one(conn, "SELECT app.uuid_ext_info() -> 'horizon' ->> 'file'") != "uuid_ext.horizon":
            fail(f"uuid_ext_info() -> 'horizon' -> 'file' for tenant_a: {info}")
    with connect(srv, "tenant_a") as su:
        su.execute("DROP OWNED BY settings_reader")
        su.execute("DROP ROLE settings_reader")

    # The horizon-write ERROR: a file in the way of the write, mode 0400,
    # this test's user's: under root the server's user is another and may
    # not open it; otherwise it is the server's own user, whom mode 0400
    # forbids writing it.
    temp = os.path.join(data, "uuid_ext.horizon.tmp")
    log_size = srv.log_size()
    with open(temp, "w") as f:
        f.write("in the way\n")
    os.chmod(temp, 0o400)
    try:
        time.sleep(1.2)  # the clock passes the horizon on disk (uuid_ext.durable_margin: 1 s)
        with connect(srv, "tenant_a", "tenant_a") as conn:
            try:
                one(conn, "SELECT app.uuid_generate_v7()")
                fail("a UUIDv7 was made with the horizon file unwritable")
            except psycopg.errors.InsufficientPrivilege as e:
                d = e.diag
                text = " ".join(filter(None, (d.message_primary, d.message_detail, d.message_hint, d.context)))
                if shown in text or data in text:
                    fail(f"the horizon ERROR shows tenant_a the data directory: {text}")
                if '"uuid_ext.horizon.tmp" in the data directory' not in d.message_primary:
                    fail(f"the horizon ERROR does not name the file: {d.message_primary}")
                message = d.message_primary
    finally:
        os.unlink(temp)
    log = srv.log_text()[log_size:]
    if f'uuid_ext: could not write "{temp}": Permission denied' not in log \
            and f'uuid_ext: could not write "{os.path.join(shown, "uuid_ext.horizon.tmp")}"' not in log:
        fail(f"the server log does not keep the full path:\n{log}")
    ok(f"tenant_a sees no data directory: uuid_ext_info() names \"uuid_ext.horizon\" (the full path for a superuser "
       f"and for pg_read_all_settings), the ERROR says \"{message}\"; the server log has the full path")


# --- watermark: per database ------------------------------------------------

def watermark_test(srv):
    with connect(srv) as su:
        su.execute("DROP DATABASE tenant_b")
        su.execute("CREATE DATABASE tenant_b OWNER tenant_b")
    a = connect(srv, "tenant_a", "tenant_a")
    b = connect(srv, "tenant_b", "tenant_b")
    b.execute("CREATE EXTENSION IF NOT EXISTS uuid_ext SCHEMA public")
    b.execute("SET search_path = public")
    # (Not app first in search_path: its look-alikes would answer this
    # test's own `->`.)
    a.execute("CREATE TABLE IF NOT EXISTS public.ev (id uuid PRIMARY KEY DEFAULT app.uuid_generate_v7())")

    def watermarks():
        wa = one(a, "SELECT app.uuid_v7_watermark()")
        wb = one(b, "SELECT uuid_v7_watermark()")
        b.execute("SET uuid_ext.watermark_scope = server")
        wb_server = one(b, "SELECT uuid_v7_watermark()")
        age_server = one(b, "SELECT uuid_ext_info() -> 'oldest_announcement_age_ms'")
        b.execute("RESET uuid_ext.watermark_scope")
        age_b = one(b, "SELECT uuid_ext_info() -> 'oldest_announcement_age_ms'")
        return wa, wb, wb_server, age_b, age_server

    # A quiet spell with no UUIDs anywhere, then a transaction that draws one
    # and stays open in tenant_a.
    time.sleep(2.0)
    holder = connect(srv, "tenant_a", "tenant_a", autocommit=False)
    held = one(holder, "INSERT INTO public.ev DEFAULT VALUES RETURNING id")
    age = one(a, "SELECT app.uuid_ext_info() -> 'oldest_announcement_age_ms'")
    if age is None or not 0 <= age < 1000:
        fail(f"just after the announcement, after 2 s without UUIDs, oldest_announcement_age_ms is {age} "
             "(it must count from the announcement, not from the value's time)")
    later = one(b, "SELECT uuid_generate_v7()")
    time.sleep(1.5)
    wa, wb, wb_server, age_b, age_server = watermarks()
    if not wa <= held:
        fail(f"tenant_a's open transaction does not hold back its own database's watermark: {wa} > {held}")
    if not wb > later:
        fail(f"tenant_a's open transaction holds back tenant_b's watermark: {wb} <= {later}")
    if not wb_server <= held:
        fail(f"with uuid_ext.watermark_scope = server, tenant_b's watermark {wb_server} passes the open {held}")
    if age_b is not None or age_server is None or age_server < 1500:
        fail(f"oldest_announcement_age_ms in tenant_b: {age_b} (its database), {age_server} (server scope)")
    age_a = one(a, "SELECT app.uuid_ext_info() -> 'oldest_announcement_age_ms'")
    ok(f"a transaction held open in tenant_a holds back tenant_a's watermark, not tenant_b's, and tenant_b's with "
       f"watermark_scope = server; oldest_announcement_age_ms {age} ms just after it announced (after 2 s without "
       f"UUIDs), {age_a} ms 1.5 s later; in tenant_b null, {age_server} ms server-wide")

    # Prepared: it outlives its session.
    holder.execute("PREPARE TRANSACTION 'tenant_a_held'")
    holder.close()
    later = one(b, "SELECT uuid_generate_v7()")
    wa, wb, wb_server, _, _ = watermarks()
    if not (wa <= held and wb > later and wb_server <= held):
        fail(f"prepared in tenant_a: tenant_a {wa}, tenant_b {wb} (after {later}), server scope {wb_server}; "
             f"held {held}")
    a.execute("COMMIT PREPARED 'tenant_a_held'")
    wa = one(a, "SELECT app.uuid_v7_watermark()")
    if not wa > held:
        fail(f"after COMMIT PREPARED tenant_a's watermark {wa} is still at most {held}")
    ok("a prepared transaction of tenant_a, its session gone, holds back tenant_a's watermark and the server-wide "
       "one, not tenant_b's; COMMIT PREPARED releases it")
    a.close()
    b.close()


def main(t):
    srv = t.shared()
    skipped = test_hostile_install(srv, t.pg.extension_dir)
    test_locked(srv)
    test_paths(srv)
    watermark_test(srv)
    test_facade(srv)
    with connect(srv) as su:
        for tenant in TENANTS:
            su.execute(f"DROP DATABASE {tenant}")
            su.execute(f"DROP ROLE {tenant}")
    if skipped:
        raise Skip(skipped)
