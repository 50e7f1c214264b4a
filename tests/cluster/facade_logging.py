"""No façade key in any log or notice, with every logging and debugging setting on.

A key's bytes reach no plan, log line or notice (docs/facade.md#keys). Here a
server of its own preloads uuid_ext, auto_explain and pgaudit (each where
this PostgreSQL has it) and turns on every logging and debugging setting a
DBA can: log_statement = all, every duration and every parameter
(log_parameter_max_length and _on_error = -1), log_min_messages and
log_min_error_statement = debug5, debug_print_parse, _rewritten and _plan
(and _raw_parse where the server has it), auto_explain (duration 0, nested
statements, verbose, analyze, triggers, parameters), pgaudit (log = all,
parameters, catalog, relation, every statement, rows, to the client too),
logging to a stderr and a JSON log. Each session also sets what a role may:
client_min_messages = debug5 (or log), the debug_print settings (pretty and
not), bytea_output = escape in some.

Then three roles work the way docs/facade.md#who-may-call-what lets them:

  postgres  a superuser: makes keys, rotates, imports one with \\copy
            (docs/facade.md#moving-a-key), exports every key to a file with
            \\copy, moves one between databases, drops;
  dbo       owns the database `owned` and nothing else, installed uuid_ext
            there (the trusted path): makes keys, retires, drops, grants the
            mapping and key creation to
  app       an application role: makes a key, maps faces both ways.

Faces are mapped both ways, with the candidates and by key id, from several
backends and a parallel query (so every key is loaded into caches), before
and after keys are dropped; some statements fail with parameters. Each key's
32 bytes come only from its export file or the file it was imported from.

Everything the server logged (both logs) and every notice the clients got
(psycopg's notice handler, psql's stderr) is searched for every key as hex
(either case, with or without \\x), base64 (standard and URL-safe, at any
alignment), bytea's escape format, and byte lists as PostgreSQL's node
printer writes a by-reference Const (`:constvalue 36 [ -112 0 0 0 ... ]`:
each byte in signed or unsigned decimal, whitespace or pretty-printing's
line breaks anywhere, a text Const's bytes decoded and searched in turn);
any 12 key bytes in a row count. A finding names the setting that logged
it, the channel, the role and the key. Each setting must have logged
something (else it proves nothing), and positive controls must be found:
throw-away keys of their own database passed in SQL text as hex, HEX,
base64 and escape.

Where this PostgreSQL has no auto_explain or no pgaudit, the rest runs and
the test is reported skipped, saying why; a setting a module lacks on this
version (auto_explain's parameters before 16) is said on an ok line.
Needs psycopg 3.
"""
import base64
import glob
import json
import os
import re
import secrets
import subprocess
from collections import defaultdict

import psycopg

from harness import Skip
from keyscan import Needles, escape_form, join_splits
from pg import fail, must_fail, ok

N = 2_000  # rows whose faces are mapped

# --- the settings ------------------------------------------------------------------
# (name, value): the settings this test is about (one a server lacks is
# skipped, an ok line says why), then more, set where the server has them.
CORE = [("log_statement", "'all'"), ("log_min_duration_statement", "0"),
        ("log_parameter_max_length", "-1"), ("log_parameter_max_length_on_error", "-1"),
        ("debug_print_parse", "on"), ("debug_print_rewritten", "on"), ("debug_print_plan", "on")]
CORE_EXTRA = [("debug_print_raw_parse", "on"), ("debug_pretty_print", "on"), ("log_duration", "on"),
              ("log_min_messages", "debug5"), ("log_min_error_statement", "debug5"),
              ("log_error_verbosity", "verbose"), ("log_connections", "on"), ("log_disconnections", "on"),
              ("log_lock_waits", "on"), ("log_temp_files", "0"), ("log_autovacuum_min_duration", "0"),
              ("log_checkpoints", "on"), ("log_replication_commands", "on"),
              ("log_transaction_sample_rate", "1"), ("log_parser_stats", "on"), ("log_planner_stats", "on"),
              ("log_executor_stats", "on"), ("trace_sort", "on"), ("trace_notify", "on")]
AUTO_EXPLAIN = [("auto_explain.log_min_duration", "0"), ("auto_explain.log_nested_statements", "on"),
                ("auto_explain.log_verbose", "on"), ("auto_explain.log_analyze", "on"),
                ("auto_explain.log_parameter_max_length", "-1"), ("auto_explain.log_triggers", "on")]
AUTO_EXPLAIN_EXTRA = [("auto_explain.log_buffers", "on"), ("auto_explain.log_wal", "on"),
                      ("auto_explain.log_settings", "on"), ("auto_explain.log_timing", "on"),
                      ("auto_explain.log_level", "log")]
PGAUDIT = [("pgaudit.log", "'all'"), ("pgaudit.log_parameter", "on"), ("pgaudit.log_catalog", "on"),
           ("pgaudit.log_relation", "on"), ("pgaudit.log_statement_once", "off"), ("pgaudit.log_rows", "on"),
           ("pgaudit.log_level", "log"), ("pgaudit.log_client", "on")]
PGAUDIT_EXTRA = [("pgaudit.log_statement", "on"), ("pgaudit.log_parameter_max_size", "0"),
                 ("pgaudit.role", "'auditor'")]
LOGGING = ["logging_collector = on", "log_destination = 'stderr,jsonlog'", "log_directory = 'log'",
           "log_rotation_age = 0", "log_rotation_size = 0", "log_line_prefix = '%m [%p] %u@%d '"]
# What each role sets in each of its sessions, in turn (pretty-printed plans
# and flat ones, hex and escape bytea output).
SESSION = [
    ["client_min_messages = debug5", "debug_pretty_print = on", "bytea_output = hex"],
    ["client_min_messages = log", "debug_pretty_print = off", "bytea_output = escape"],
]
SESSION_ALWAYS = ["debug_print_parse = on", "debug_print_rewritten = on", "debug_print_plan = on",
                  "log_parameter_max_length_on_error = -1", "trace_sort = on"]


# --- what the server and the clients said ------------------------------------------------
class Said:
    """One message: where it went, who caused it, and its fields."""

    def __init__(self, channel, role, db, fields):
        self.channel, self.role, self.db = channel, role or "(no role)", db or ""
        self.fields = {k: v for k, v in fields.items() if v}

    @property
    def message(self):
        return self.fields.get("message", "")


# The titles of elog_node_display's messages, and the settings that print them.
TITLES = {"parse tree": "debug_print_parse", "raw parse tree": "debug_print_raw_parse",
          "rewritten parse tree": "debug_print_rewritten", "plan": "debug_print_plan"}


def setting_of(said, field, text, pos):
    """Which setting made this message say what it says at `pos` of `field`."""
    m = said.message.strip().rstrip(":")
    if field == "statement":
        return "log_min_error_statement (STATEMENT)"
    if field == "context" and "with parameters" in text:
        return "log_parameter_max_length_on_error (CONTEXT)"
    if field == "detail" and re.match(r"\s*parameters:", text, re.I):
        return "log_parameter_max_length (DETAIL parameters)"
    if m in TITLES:
        fields = re.findall(r":(\w+)", text[:pos])
        return f"{TITLES[m]} (:{fields[-1] if fields else '?'})"
    if m.startswith("AUDIT:"):
        return "pgaudit"
    if re.match(r"duration: [\d.]+ ms\s+plan:", m):
        line = text[:pos].rsplit("\n", 1)[-1].strip()
        return f"auto_explain ({line.split(':')[0][:40]})"
    if re.match(r"(statement|execute [^:]*|bind [^:]*|parse [^:]*):", m):
        return "log_statement"
    if m.startswith("duration:"):
        return "log_min_duration_statement"
    return f"{field} of a {said.fields.get('severity', 'message')} ({m[:50]!r})"


def kind_of(said):
    """The setting a message comes from, for counting what each setting logged."""
    m = said.message.strip().rstrip(":")
    if m in TITLES:
        return TITLES[m]
    if m.startswith("AUDIT:"):
        return "pgaudit"
    if re.match(r"duration: [\d.]+ ms\s+plan:", m):
        return "auto_explain"
    if re.match(r"(statement|execute [^:]*):", m):
        return "log_statement"
    if m.startswith("duration:"):
        return "log_min_duration_statement"
    return None


def psql_messages(stderr, role, db):
    """psql's stderr as messages (a severity line, then DETAIL, CONTEXT, ... lines)."""
    out, cur, field = [], None, None
    for line in stderr.splitlines():
        m = re.match(r"^(?:psql:\S+ )?(DEBUG\d?|LOG|INFO|NOTICE|WARNING|ERROR|FATAL):  (.*)$", line)
        f = re.match(r"^(DETAIL|HINT|CONTEXT|STATEMENT|QUERY|LOCATION):  (.*)$", line)
        if m:
            cur = {"severity": m.group(1), "message": m.group(2)}
            out.append(cur)
            field = "message"
        elif f and cur is not None:
            field = {"QUERY": "internal_query"}.get(f.group(1), f.group(1).lower())
            cur[field] = f.group(2)
        elif cur is not None:
            cur[field] = cur.get(field, "") + "\n" + line
        else:
            out.append({"severity": "?", "message": line})
    return [Said("psql's stderr", role, db, d) for d in out]


class World:
    """The server, the sessions, and everything the clients were told."""

    def __init__(self, srv, t):
        self.srv, self.t = srv, t
        self.said = []  # Said of every notice and psql stderr line
        self.turn = 0
        self.raw_parse = False

    def session(self, db, user, style=None):
        """A psycopg session of `user` in `db` that sets what a role may
        (SESSION[style], else each in turn), its notices collected."""
        conn = psycopg.connect(self.srv.conninfo(db, user), autocommit=True)

        def notice(d):
            self.said.append(Said("notices", user, db, {
                "severity": d.severity, "message": d.message_primary, "detail": d.message_detail,
                "hint": d.message_hint, "context": d.context, "internal_query": d.internal_query}))
        conn.add_notice_handler(notice)
        self.turn += 1
        for s in self.settings(self.turn if style is None else style):
            conn.execute(f"SET {s}")
        return conn

    def settings(self, style):
        return SESSION[style % len(SESSION)] + SESSION_ALWAYS + \
            (["debug_print_raw_parse = on"] if self.raw_parse else [])

    def psql(self, db, *commands, style=0):
        """psql as the superuser, with the debug settings a role may set
        (PGOPTIONS); its stderr collected; returns stdout."""
        opts = " ".join(f"-c {s.replace(' = ', '=')}" for s in self.settings(style))
        args = [a for c in commands for a in ("-c", c)]
        r = subprocess.run([*self.srv.psql(db), *args], capture_output=True, text=True,
                           env=dict(os.environ, PGOPTIONS=opts))
        self.said += psql_messages(r.stderr, "postgres", db)
        if r.returncode != 0:
            fail(f"psql in {db}: {commands}:\n{r.stderr[-3000:]}")
        return r.stdout.strip()

    def export(self, db, key_id):
        """Key `key_id` of `db`, exported by the superuser with \\copy to a file: its bytes."""
        path = self.t.path(f"key-{db}-{key_id}")
        self.psql(db, f"\\copy (SELECT uuid_facade_key_export({key_id})) TO '{path}'")
        text = open(path).read().strip()
        os.unlink(path)
        if not re.fullmatch(r"\\\\x[0-9a-f]{64}", text):
            fail(f"the export of key {key_id} of {db} is not one bytea in COPY's text form: {text[:10]}...")
        return bytes.fromhex(text[3:])

    def import_key(self, db, key, style=0):
        """`key` imported by the superuser as docs/facade.md#moving-a-key
        does: a file, \\copy into a temporary table, the import from its
        column; returns its id."""
        path = self.t.path(f"import-{db}")
        with open(path, "w") as f:
            f.write("\\\\x" + key.hex() + "\n")
        out = self.psql(db, "CREATE TEMP TABLE moving (key bytea)", f"\\copy moving FROM '{path}'",
                        "SELECT uuid_facade_key_import(key) FROM moving", style=style)
        os.unlink(path)
        return int(out.splitlines()[-1])


def one(conn, sql, params=None):
    return conn.execute(sql, params).fetchone()[0]


def map_faces(conn, who, key_ids=(), parallel=False):
    """Faces both ways, with the candidates and by key id, with parameters
    (log_parameter_max_length) and in text; checks they round-trip."""
    rows = conn.execute("SELECT id::uuid, uuid_v7_to_facade(id) FROM orders WHERE n <= 40 ORDER BY n").fetchall()
    for v7, face in rows[:10]:
        if one(conn, "SELECT uuid_facade_to_v7(%s)", (face,)) != v7:
            fail(f"{who}: a face does not decode to its v7")
    faces = [f for _, f in rows]
    if one(conn, "SELECT count(*) FROM orders o, unnest(%s::uuid[]) f "
                 "WHERE o.id = ANY (uuid_facade_candidates(f))", (faces,)) != len(faces):
        fail(f"{who}: the candidates do not find every row")
    for key_id in key_ids:
        face = one(conn, "SELECT uuid_v7_to_facade(id) FROM orders WHERE n = 1")
        one(conn, "SELECT uuid_facade_to_v7(%s, '', %s)", (face, key_id))
    if one(conn, f"SELECT count(*) FROM orders WHERE id = uuid_facade_to_v7('{faces[0]}')") != 1:
        fail(f"{who}: a face in SQL text does not find its row")
    if parallel:
        for s in ("max_parallel_workers_per_gather = 2", "parallel_setup_cost = 0", "parallel_tuple_cost = 0",
                  "min_parallel_table_scan_size = 0", "parallel_leader_participation = off"):
            conn.execute(f"SET {s}")
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN SELECT count(*) FROM orders WHERE uuid_facade_to_v7(uuid_v7_to_facade(id)) = id"))
        got = one(conn, "SELECT count(*) FROM orders WHERE uuid_facade_to_v7(uuid_v7_to_facade(id)) = id")
        if "Gather" not in plan or got != N:
            fail(f"{who}: the faces in a parallel query: {got} of {N}\n{plan}")
        conn.execute("RESET max_parallel_workers_per_gather")


# --- the server ---------------------------------------------------------------------------
def start(t):
    """The server with every setting this PostgreSQL has; returns it, the
    settings set, what was skipped and why (an ok line each), and what
    keeps the test from passing (a Skip)."""
    libdir = t.pg.pkglibdir
    modules = [m for m in ("auto_explain", "pgaudit") if os.path.exists(os.path.join(libdir, f"{m}.so"))]
    srv = t.server("logging")
    srv.initdb(f"shared_preload_libraries = '{','.join(['uuid_ext', *modules])}'", *LOGGING)
    srv.start()
    wanted = CORE + CORE_EXTRA
    if "auto_explain" in modules:
        wanted += AUTO_EXPLAIN + AUTO_EXPLAIN_EXTRA
    if "pgaudit" in modules:
        wanted += PGAUDIT + PGAUDIT_EXTRA
    have = set(srv.q("SELECT name FROM pg_settings").split())
    srv.stop()
    settings = [(n, v) for n, v in wanted if n in have]
    notes, skips = [], []
    for n, _ in [s for s in CORE + AUTO_EXPLAIN + PGAUDIT if s in wanted and s[0] not in have]:
        why = ("PostgreSQL 15's auto_explain logs no query parameters" if n == "auto_explain.log_parameter_max_length"
               else f"this {'pgaudit' if n.startswith('pgaudit') else 'PostgreSQL'} has no such setting")
        notes.append(f"{n} skipped: {why}")
    why = {"auto_explain": "PostgreSQL's contrib has it; scripts/setup adds it to 16's wheel, which has no contrib",
           "pgaudit": "scripts/setup installs Debian's postgresql-NN-pgaudit where Debian has one: for 15, 17, 18 "
                      "and 19, not for 16"}
    for m in ("auto_explain", "pgaudit"):
        if m not in modules:
            skips.append(f"{m} is not in {libdir} ({why[m]}): its settings were not tested")
    srv.configure(*(f"{n} = {v}" for n, v in settings))
    srv.start()
    shown = dict(l.split("|", 1) for l in srv.q(
        "SELECT name || '|' || setting FROM pg_settings WHERE name IN (%s)"
        % ",".join(f"'{n}'" for n, _ in settings)).splitlines())
    for n, v in settings:
        if shown.get(n, "").lower() != v.strip("'").lower():
            fail(f"{n} is {shown.get(n)!r} on the server, not {v}")
    return srv, settings, modules, notes, skips


def read_logs(srv):
    """Every message of the JSON log, and the stderr log's whole text."""
    said, text = [], ""
    logdir = os.path.join(srv.data, "log")
    for path in sorted(glob.glob(os.path.join(logdir, "*.json"))):
        for line in open(path, errors="replace"):
            e = json.loads(line)
            said.append(Said("server log", e.get("user") or e.get("backend_type"), e.get("dbname"), {
                "severity": e.get("error_severity"), "message": e.get("message"), "detail": e.get("detail"),
                "hint": e.get("hint"), "context": e.get("context"), "statement": e.get("statement"),
                "internal_query": e.get("internal_query")}))
    for path in sorted(glob.glob(os.path.join(logdir, "*.log"))) + [srv.log]:
        text += open(path, errors="replace").read()
    return said, text


def search(needles, said, path):
    """Every finding: (setting, channel, role, db, key name, form); each
    also written to `path` with the text around it."""
    findings = set()
    with open(path, "w") as out:
        for s in said:
            for field, text in s.fields.items():
                if field == "severity":
                    continue
                for name, form, pos in needles.scan(text):
                    finding = (setting_of(s, field, text, pos), s.channel, s.role, s.db, name, form)
                    findings.add(finding)
                    out.write(" | ".join(finding) + f" | {field}: ..."
                              + join_splits(text)[max(0, pos - 200):pos + 400].replace("\n", "\u23ce") + "...\n")
    return findings


def report(findings, names):
    """Lines that say which setting leaked which key to whom."""
    by = defaultdict(lambda: defaultdict(set))
    for setting, channel, role, db, name, form in findings:
        by[(setting, channel, role)][name].add(form)
    lines = []
    for (setting, channel, role), keys in sorted(by.items()):
        what = "; ".join(f"{names[k]} as {', '.join(sorted(forms))}" for k, forms in sorted(keys.items()))
        lines.append(f"  {setting} -> {channel}, in {role}'s session: {what}")
    return lines


# --- the test -----------------------------------------------------------------------------
def main(t):
    srv, settings, modules, notes, skips = start(t)
    w = World(srv, t)
    w.raw_parse = any(n == "debug_print_raw_parse" for n, _ in settings)
    keys, names = {}, {}  # name -> bytes; name -> what made it

    su = w.session("postgres", "postgres")
    for sql in ("CREATE ROLE dbo LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE", "CREATE ROLE app LOGIN",
                "CREATE ROLE auditor NOLOGIN", "CREATE DATABASE owned OWNER dbo", "CREATE DATABASE sudb",
                "CREATE DATABASE control"):
        su.execute(sql)
    for db in ("owned", "sudb", "control"):
        if "pgaudit" in modules:
            with w.session(db, "postgres") as c:
                c.execute("CREATE EXTENSION pgaudit")

    # The database owner installs uuid_ext (trusted) and grants the mapping
    # and key creation to the application role.
    dbo = w.session("owned", "dbo", style=0)
    if one(dbo, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"):
        fail("dbo is a superuser: the test's role is too strong")
    dbo.execute("CREATE EXTENSION uuid_ext")
    dbo.execute("CREATE TABLE orders (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int UNIQUE)")
    dbo.execute(f"INSERT INTO orders (n) SELECT generate_series(1, {N})")
    dbo.execute("GRANT SELECT ON orders TO app")
    dbo.execute("GRANT EXECUTE ON FUNCTION uuid_v7_to_facade(uuid, text), uuid_facade_to_v7(uuid, text), "
                "uuid_facade_to_v7(uuid, text, integer), uuid_facade_candidates(uuid, text), "
                "uuid_facade_key_create() TO app")
    dbo.execute("GRANT SELECT ON uuid_facade_keys TO app")
    # A nested statement of the test's own: auto_explain and pgaudit must log it.
    dbo.execute("CREATE TABLE probe_inner (x int)")
    dbo.execute("CREATE FUNCTION probe_outer() RETURNS bigint LANGUAGE plpgsql "
                "AS $$ BEGIN RETURN (SELECT count(*) FROM probe_inner); END $$")
    dbo.execute("SELECT probe_outer()")
    sudb = w.session("sudb", "postgres", style=0)
    sudb.execute("CREATE EXTENSION uuid_ext")
    sudb.execute(f"CREATE TABLE orders (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int UNIQUE); "
                 f"INSERT INTO orders (n) SELECT generate_series(1, {N})")
    if "pgaudit" in modules:  # object auditing (pgaudit.role) of the key table too
        for db in ("owned", "sudb"):
            with w.session(db, "postgres") as c:
                c.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON uuid_facade_key TO auditor")

    # Keys: made by each role that may, imported, rotated, retired.
    made = {}  # (db, id) -> what made it
    app = w.session("owned", "app", style=1)
    made[("owned", one(dbo, "SELECT uuid_facade_key_create()"))] = "uuid_facade_key_create() by dbo"
    made[("owned", one(app, "SELECT uuid_facade_key_create()"))] = "uuid_facade_key_create() by app"
    imported = secrets.token_bytes(32)
    made[("owned", w.import_key("owned", imported))] = "uuid_facade_key_import() by postgres, from a file"
    su_owned = w.session("owned", "postgres", style=1)
    four = one(su_owned, "SELECT uuid_facade_key_create()")
    made[("owned", four)] = "uuid_facade_key_create() by postgres"
    dbo.execute("SELECT uuid_facade_key_retire(%s)", (four,))
    dbo2 = w.session("owned", "dbo", style=1)  # bytea_output = escape, flat plans
    made[("owned", one(dbo2, "SELECT uuid_facade_key_create()"))] = "uuid_facade_key_create() by dbo"
    made[("sudb", one(sudb, "SELECT uuid_facade_key_create()"))] = "uuid_facade_key_create() by postgres"
    made[("sudb", one(sudb, "SELECT uuid_facade_key_create()"))] = "uuid_facade_key_create() by postgres"

    # Faces both ways from several backends of each role.
    for i in range(3):
        with w.session("owned", "app") as c:
            map_faces(c, "app", key_ids=(1, 2), parallel=(i == 0))
            must_fail(c, "SELECT uuid_facade_to_v7(%s)", "22023", params=("01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b",))
            must_fail(c, "SELECT uuid_facade_key_export(%s)", "42501", params=(1,))
    map_faces(dbo, "dbo", key_ids=(3,))
    map_faces(su_owned, "postgres", key_ids=(4,))
    map_faces(sudb, "postgres")

    # Every key exported by the superuser to a file; one moved between databases.
    for (db, key_id), how in sorted(made.items()):
        name = f"{db} key {key_id}"
        keys[name], names[name] = w.export(db, key_id), f"{name} ({how})"
    if keys["owned key 3"] != imported:
        fail("the key exported is not the key imported")
    moved = w.import_key("sudb", keys["owned key 1"], style=1)
    names["owned key 1"] = names["owned key 1"][:-1] + f"; moved to sudb as key {moved} with \\copy)"
    if w.export("sudb", moved) != keys["owned key 1"]:
        fail("the key moved is not the key exported")

    # Dropped, then faces again in new backends (every cache read again).
    dbo.execute("SELECT uuid_facade_key_drop(1)")
    su_owned.execute("SELECT uuid_facade_key_drop(2)")
    sudb.execute("SELECT uuid_facade_key_drop(1)")
    for user in ("app", "dbo", "postgres"):
        with w.session("owned", user) as c:
            map_faces(c, user, key_ids=(3,))
    with w.session("sudb", "postgres") as c:
        map_faces(c, "postgres")
    for c in (su, dbo, dbo2, app, su_owned, sudb):
        c.close()
    ok(f"keys made by postgres, dbo (its database's owner, a trusted install) and app (granted the mapping and "
       f"key creation), imported and moved with \\copy, rotated, retired, exported, dropped; faces mapped both ways "
       f"in {w.turn} sessions and a parallel query: {len(keys)} keys to look for")

    # Positive controls: throw-away keys of their own database, in SQL text.
    controls = {f"control {form}": secrets.token_bytes(32) for form in ("hex", "HEX", "base64", "escape")}
    w.psql("control", "CREATE EXTENSION uuid_ext",
           f"SELECT uuid_facade_key_import('\\x{controls['control hex'].hex()}')")
    with w.session("control", "postgres") as c:
        c.execute(f"SELECT uuid_facade_key_import(decode('{controls['control HEX'].hex().upper()}', 'hex'))")
        c.execute("SELECT uuid_facade_key_import(decode('%s', 'base64'))"
                  % base64.b64encode(controls["control base64"]).decode())
        c.execute("SELECT uuid_facade_key_import('%s'::bytea)"
                  % escape_form(controls["control escape"]).replace("'", "''"))
    srv.stop()  # everything logged is in the files

    logged, stderr_text = read_logs(srv)
    all_keys = {**keys, **controls}
    needles = Needles(all_keys)
    found_in = t.path("findings.txt")
    findings = search(needles, logged + w.said, found_in)
    with open(t.path("client-messages.json"), "w") as f:
        json.dump([{"channel": s.channel, "role": s.role, "db": s.db, **s.fields} for s in w.said], f, indent=1)
    names.update({c: f"{c} (in SQL text)" for c in controls})

    # The controls: each found in the server log in its form, as bytes, and by the client.
    expected = {"control hex": "hex (lower case, \\x", "control HEX": "hex (upper case",
                "control base64": "base64", "control escape": "bytea escape format"}
    for c, form in expected.items():
        got = {(f[1], f[5]) for f in findings if f[4] == c}
        missing = [what for what, hit in (
            (f"{form} in the server log", any(ch == "server log" and fm.startswith(form) for ch, fm in got)),
            ("a decimal byte list in the server log",
             any(ch == "server log" and fm.startswith("decimal byte list (") for ch, fm in got)),
            ("anything in a client's notices",
             any(ch in ("notices", "psql's stderr") for ch, _ in got))) if not hit]
        if missing:
            fail(f"the throw-away key {c}, passed in SQL text, was not found as {' nor '.join(missing)}: "
                 f"the search could not fail (found: {sorted(got)})")
    in_stderr = {n for n, _, _ in needles.scan(stderr_text)}
    if not in_stderr >= set(controls):
        fail(f"the stderr log file lacks a throw-away key: {sorted(set(controls) - in_stderr)}")
    ok("positive controls: throw-away keys passed in SQL text (hex, HEX, base64, bytea escape) are found in the "
       "server log (as written and as the node printer's byte lists) and in the clients' notices")

    # Each setting logged something, the key table's statements too.
    counts, about_keys, probed = defaultdict(int), defaultdict(int), defaultdict(int)
    for s in logged:
        k = kind_of(s)
        if k:
            counts[k] += 1
            text = " ".join(s.fields.values())
            about_keys[k] += "uuid_facade_key" in text
            probed[k] += "probe_inner" in text
    needed = ["log_statement", "log_min_duration_statement", "debug_print_parse", "debug_print_rewritten",
              "debug_print_plan"] + (["debug_print_raw_parse"] if w.raw_parse else []) + \
        [m for m in ("auto_explain", "pgaudit") if m in modules]
    silent = [k for k in needed if not counts[k]]
    if silent:
        fail(f"settings that logged nothing, so prove nothing: {silent}")
    nested = [m for m in ("auto_explain", "pgaudit") if m in modules and not probed[m]]
    if nested:
        fail(f"{nested} logged no nested statement (probe_outer()'s SELECT of probe_inner)")
    params = sum(1 for s in logged if re.match(r"\s*parameters:", s.fields.get("detail", ""), re.I))
    on_error = sum(1 for s in logged if "with parameters" in s.fields.get("context", ""))
    if not params or not on_error:
        fail(f"statement parameters logged: {params}, on error: {on_error}")
    size = len(stderr_text) // 1024
    on_keys = ", ".join(f"{m} {about_keys[m]}" for m in modules)
    ok(f"every setting logged: {', '.join(f'{k} {counts[k]}' for k in needed)} messages"
       f"{f' (on the key table: {on_keys})' if on_keys else ''}, parameters in {params} and on error in {on_error}; "
       f"{len(logged)} messages in the JSON log, {size} kB of stderr log, {len(w.said)} notices to the clients")
    for note in notes:
        ok(note)

    leaks = {f for f in findings if f[4] in keys}
    unattributed = (in_stderr & set(keys)) - {f[4] for f in leaks}
    if leaks or unattributed:
        lines = report(leaks, names)
        lines += [f"  the stderr log file, in no JSON log entry: {names[n]}" for n in sorted(unattributed)]
        fail(f"key bytes reached the server log or a client ({len(leaks)} findings: setting -> where, whose "
             f"session: key as form; each with its text in {t.run.shown(found_in)}):\n" + "\n".join(lines))
    ok(f"none of the {len(keys)} keys is in the server log ({len(logged)} messages) or in the "
       f"{len(w.said)} notices, in any form, with: {', '.join(n for n, _ in settings)}")
    if skips:
        raise Skip("; ".join(skips))
