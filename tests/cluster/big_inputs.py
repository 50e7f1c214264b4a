"""Values of any size where a large allocation fails: an ERROR, never a crash (docs/reference.md#errors).

Rust aborts the whole process when an allocation fails, and PostgreSQL
answers a backend that aborted by ending every session and running crash
recovery. An error message that quoted its input whole, or an argument
copied into Rust, let any role crash the server with one query wherever a
large allocation can fail (`vm.overcommit_memory = 2`, a `ulimit -v`).

Here the postmaster runs under a 1.6 GB address-space limit. Every function
of uuid_ext that takes text, bytea, a cstring or an array (found in the
catalog, so a new one is covered), the cast from text to each of its
types, and the setting `uuid_ext.facade_sync` (which any role may set), is
called with a 400 MB value in one such argument at a time, the
others small and valid so that the big one is what is read: as a role with
no grants, and as a superuser where that role may not call it (with a
façade key, so that the façade's functions read their context). Each must
answer with an ERROR (out of memory is one) or, for an argument that has no
longest valid form (the name of a name-based UUID, a façade's context), a
value; and the server must never restart: every
call's session ends with the server's answer, the postmaster's start time
is unchanged and its log shows no process terminated by a signal.

Core's `uuid` given the same text is the control: it answers with an ERROR,
and the server stays up.

Starts its own server, which does not preload uuid_ext (the inputs take the
same path when it is preloaded). Needs psycopg 3 and prlimit.
"""
import time

import psycopg

from pg import fail, ok, wait_for

# The postmaster's limit, and the size of each big value: a server whose
# backends need a few hundred MB of their own, holding the big value and a
# copy or two made by PostgreSQL on the way in, has room for the call but
# not for a copy of the value made in Rust, nor a message that quotes it.
ADDRESS_SPACE = 1_600_000_000
BIG = 400_000_000

# A call's arguments other than the big one: valid, so that the function
# reads the big one, by argument name and else by type.
SMALL_BY_NAME = {
    "format": "'base58'",
    "algorithm": "'sha256'",
    "name": "'dns'",
    "data": "'1BihbxwwQ4NZZpKRH9JDC0'",
    "id": "'017f22e2-79b0-7cc3-98c4-dc0c0c07398f'",
    "facade": "'919108f7-52d1-4320-9bac-f847db4148a8'",
}
SMALL_BY_TYPE = {
    "uuid": "'017f22e2-79b0-7cc3-98c4-dc0c0c07398f'",
    "text": "''",
    "bytea": "'\\x00'",
    "cstring": "''",
    "integer": "1",
    "bigint": "1",
    "smallint": "1",
    "boolean": "false",
    "interval": "'1 second'",
    "timestamp with time zone": "now()",
    "timestamp without time zone": "localtimestamp",
}


# Volatile, so that the planner does not fold the big value into a constant
# (and copy it) before the call.
SIZE = f"({BIG} + 0 * random())::int"
# BIG bytes of text as repeat() makes them fast: repeat() copies its unit
# once a turn, and 400 million turns of one letter took 2 s a call.
UNIT = 1000
TEXT = f"repeat(repeat('x', {UNIT}), ({BIG // UNIT} + 0 * random())::int)"


def big(type_):
    """A value of `type_` of about BIG bytes, as SQL, or None for a type
    that is not taken apart as text or bytes."""
    if type_ == "text":
        return TEXT
    if type_ == "cstring":
        return f"{TEXT}::cstring"
    if type_ == "bytea":
        # The text's bytes as they are: one copy (decode() of hex would need three times the size).
        return f"convert_to({big('text')}, 'UTF8')"
    if type_.endswith("[]"):
        element = type_[:-2]
        if element in ("text", "bytea"):
            return f"ARRAY[{big(element)}]"
        return f"array_fill({small('', element)}::{element}, ARRAY[{SIZE} / 8])"
    return None


def small(name, type_):
    if type_.endswith("[]"):
        return f"'{{}}'::{type_}"
    if name in SMALL_BY_NAME:
        return SMALL_BY_NAME[name]
    if type_ not in SMALL_BY_TYPE:
        fail(f"no small value of type {type_} for argument {name!r}: add one to SMALL_BY_TYPE")
    return SMALL_BY_TYPE[type_]


def entry_points(srv):
    """(label, SQL) of every call to make: each function of the extension
    with an argument of such a type, once per such argument, and the cast
    from text to each of its base types."""
    rows = srv.q("""
        SELECT p.oid, quote_ident(n.nspname) || '.' || quote_ident(p.proname),
               coalesce(array_to_string(p.proargnames, ',', ''), ''),
               coalesce(array_to_string(p.proargmodes, ','), ''),
               array_to_string(ARRAY(SELECT format_type(a.t, NULL)
                                       FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, i) ORDER BY a.i), ',')
          FROM pg_catalog.pg_proc p
          JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
          JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
               AND d.deptype = 'e'
          JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'uuid_ext'
         WHERE p.prokind = 'f'
         ORDER BY p.proname, p.oid""", "big").splitlines()
    calls = []
    for row in rows:
        _, fn, names, modes, types = row.split("|")
        types = types.split(",") if types else []
        names = names.split(",") if names else []
        if modes:  # names cover OUT arguments too: keep the input ones
            names = [nm for nm, m in zip(names, modes.split(",")) if m in ("i", "b", "v")]
        names += [""] * (len(types) - len(names))
        for i, type_ in enumerate(types):
            value = big(type_)
            if value is None:
                continue
            args = [value if j == i else f"{small(names[j], types[j])}::{types[j]}" for j in range(len(types))]
            label = f"{fn.split('.')[-1]}({', '.join(('400 MB ' if j == i else '') + t for j, t in enumerate(types))})"
            # A name-based UUID's name, and a façade's context, are taken
            # whatever their length.
            any_length = (names[i] == "name" and fn.split(".")[-1].startswith("uuid_generate_v")
                          or names[i] == "context")
            calls.append((label, f"SELECT {fn}({', '.join(args)}) IS NULL", any_length))
    for typ in srv.q("""
        SELECT format_type(t.oid, NULL)
          FROM pg_catalog.pg_type t
          JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_type'::regclass AND d.objid = t.oid
               AND d.deptype = 'e'
          JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'uuid_ext'
         WHERE t.typtype = 'b' AND t.typcategory <> 'A'
         ORDER BY 1""", "big").split():
        calls.append((f"400 MB text::{typ}", f"SELECT {big('text')}::{typ} IS NULL", False))
    # The setting any role may set, whose check hook reads the value (a
    # Citus worker's channel for the façade's keys; refused here).
    calls.append(("400 MB uuid_ext.facade_sync",
                  f"SELECT set_config('uuid_ext.facade_sync', {big('text')}, true) IS NULL", False))
    return calls


def call(srv, sql, user):
    """('value' | 'error' | 'lost', what): how one call in a session of its own ended."""
    try:
        with psycopg.connect(srv.conninfo("big", user), autocommit=True) as conn:
            conn.execute("SET statement_timeout = '10min'")
            try:
                conn.execute(sql)
                return "value", ""
            except psycopg.Error as e:
                if e.sqlstate is None or e.sqlstate.startswith("57P") or conn.broken:
                    return "lost", str(e).strip().splitlines()[0][:200]
                return "error", f"{e.sqlstate} {str(e).strip().splitlines()[0][:120]}"
    except psycopg.OperationalError as e:
        return "lost", str(e).strip().splitlines()[0][:200]


def crashes_in(log):
    return [line for line in log.splitlines()
            if "terminated by signal" in line or "memory allocation of" in line]


def up(srv):
    try:
        with psycopg.connect(srv.conninfo("big"), autocommit=True) as conn:
            return conn.execute("SELECT 1").fetchone()[0] == 1
    except psycopg.Error:
        return False


def one_server(t, preload):
    name = "preloaded" if preload else "not-preloaded"
    srv = t.server(name, address_space=ADDRESS_SPACE)
    # The server log: the postmaster's LOG lines (a process terminated by a
    # signal is one), not each ERROR and its statement.
    srv.create(*(["shared_preload_libraries = 'uuid_ext'"] if preload else []),
               "log_min_messages = log", "log_min_error_statement = panic", "log_checkpoints = off")
    srv.q("CREATE DATABASE big")
    # A façade key, so that the façade's functions read their context.
    srv.q("CREATE EXTENSION uuid_ext; CREATE ROLE app LOGIN; SELECT uuid_facade_key_create()", "big")
    started = srv.q("SELECT pg_postmaster_start_time()", "big")
    calls = entry_points(srv)
    if not any("uuid7" in c[0] for c in calls) or not any("uuid_decode" in c[0] for c in calls):
        fail(f"{name}: the catalog gave no uuid7 input or uuid_decode: {[c[0] for c in calls]}")

    # The control: core's uuid given the same text.
    how, what = call(srv, f"SELECT {big('text')}::uuid IS NULL", "app")
    if how != "error" or not up(srv):
        fail(f"{name}: core's uuid given 400 MB of text did not answer with an ERROR ({how}: {what}), "
             "or the server went down: the limit is not as this test needs it")
    ok(f"{name}, postmaster under a {ADDRESS_SPACE / 1e9:.1f} GB address-space limit: core's "
       f"repeat('x', {BIG})::uuid answers {what.split(' ')[0]} ({what.split(' ', 1)[1][:60]}), the server stays up")

    answers, lost, values = [], [], []
    for label, sql, any_length in calls:
        t0 = time.time()
        results = [("app", *call(srv, sql, "app"))]
        if results[0][1] == "error" and results[0][2].startswith("42501"):
            results.append(("superuser", *call(srv, sql, "postgres")))
        for who, how, what in results:
            if how == "lost" or not up(srv):
                lost.append(f"{label} as {who}: {what}")
                wait_for(lambda: up(srv), f"{name} to come back after {label}", timeout=180)
            elif how == "value" and not any_length:
                values.append(f"{label} as {who}")
            else:
                answers.append(f"{label} as {who}: {what or 'a value'} ({time.time() - t0:.1f} s)")
    print("\n".join(f"     {a}" for a in answers), flush=True)
    crashes = crashes_in(srv.log_text())
    if lost or crashes:
        fail(f"{name}: {len(lost)} of the calls with a 400 MB argument lost their session or ended the "
             "server:\n  " + "\n  ".join(lost) + "\nthe server log:\n  " + "\n  ".join(crashes[:40]))
    if values:
        fail(f"{name}: a 400 MB argument longer than any valid one was taken, not refused: " + "; ".join(values))
    if srv.q("SELECT pg_postmaster_start_time()", "big") != started:
        fail(f"{name}: the postmaster restarted")
    ok(f"{name}: {len(answers)} calls, each of uuid_ext's functions and casts with a 400 MB argument, as a role "
       "with no grants (and as a superuser where that role may not call it): each answered, no process was "
       "terminated by a signal, the postmaster never restarted")
    srv.stop()


def main(t):
    # Not preloaded: what the review crashed. The inputs take the same path
    # with the library preloaded (one_server(t, True) runs it), at twice the
    # suite's minutes.
    one_server(t, False)
