#!/usr/bin/env python3
"""A change feed over HTTP that never skips a committed row (docs/feeds.md).

    python3 feed.py serve --setup [--dsn DSN] [--port N]   what is missing, then the feed
    python3 feed.py setup [--dsn DSN]   what is missing: uuid_ext, a façade key, the table
    python3 feed.py serve [--dsn DSN] [--port N] [--max-requests M]
                          [--max-connections C] [--timeout S]
                        the feed, on 127.0.0.1 (N = 0: any free port)

DSN is a libpq connection string; without one, libpq's PG* variables and
~/.pgpass say where to connect (a password on the command line shows in ps).

    GET  /events?tenant=T[&after=CURSOR][&wait=SECONDS]
         {"events": [{"id": ..., "body": ...}, ...], "cursor": ...}: the
         tenant's events after CURSOR, in the order of their keys; with none
         yet, it waits up to SECONDS (at most 30) for a commit: a long poll.
         The next call passes the answer's cursor (an id is no cursor). 410
         for a cursor whose key was dropped or whose event was deleted.
    POST /events  {"tenant": T, "body": "..."}  ->  {"id": ...}

A tenant is a 32-bit integer. M requests at a time work in the database
(20), each on a connection of its own; beyond, 503 at once. C connections
at a time (100); beyond, closed at once. A client has S seconds (10) to send
its request and to read an answer.

A page reads up to the commit watermark, so an event whose transaction
commits after a later one's is still delivered, and no event is delivered
twice. The consumer sleeps on LISTEN until a commit (a statement trigger
notifies), and reads by the watermark whatever woke it. follow() is the same
consumer for a process of its own (a worker, an outbox relay). The ids and the
cursors a client sees are the faces of the keys (the façade: docs/facade.md):
they carry neither the time an event was made nor how fast the feed grows
(the feed's order still shows which came first). Each tenant's faces are
made in a context of their own, so a face of one tenant tells another
nothing; its cursors in another (an id is no cursor: a POST's id may stand
for a key above the watermark, and a feed going on from it would skip rows).

Needs psycopg 3, and uuid_ext preloaded by the server
(shared_preload_libraries). setup makes in the database what is missing of
uuid_ext, a façade key (uuid_facade_key_create()) and the table events with
its index and trigger, and says what it made. Only the database's owner or
the extension's may make anything; a table events that is there must be the
feed's (of one of them, its columns, default, index and trigger), else setup
refuses and says why. The role that serves needs SELECT on events, INSERT on
its columns tenant and body only (a key a client writes, the feed cannot
order), and EXECUTE on uuid_v7_to_facade(uuid, text) and
uuid_facade_candidates(uuid, text).
It has no authentication: the tenant is whatever the request says. A real
service takes it from the caller's identity, and connects as a role that may
read only what that service serves. A cursor is decoded under every key the
database holds, the current one and those retired: a rotation
(uuid_facade_key_create()) leaves the cursors clients hold going on where
they were. Once the key that made a cursor is dropped
(uuid_facade_key_drop()), the cursor answers 410 Gone
(docs/feeds.md#a-public-cursor).
"""
import argparse
import json
import re
import socket
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import psycopg

START = uuid.UUID(int=0)  # a cursor before every key
MAX_WAIT = 30.0
MAX_REQUESTS = 20  # at a time (--max-requests), each with a connection of its own; more wait for none: 503
MAX_CONNECTIONS = 100  # open at a time (--max-connections), each a thread; more are closed at once
MAX_BODY = 64 * 1024
MAX_PAGE = 1024 * 1024  # bytes of bodies in an answer
SETUP_SQL = """
CREATE TABLE events (
  id uuid PRIMARY KEY DEFAULT uuid_generate_v7(),
  tenant int NOT NULL,
  body text NOT NULL
);
CREATE INDEX events_tenant_id ON events (tenant, id);
CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
  -- A transaction that notifies cannot be prepared (two-phase commit): one
  -- that will be sets events.notify = off, and its rows wake no one.
  IF coalesce(current_setting('events.notify', true), '') <> 'off' THEN
    PERFORM pg_notify('events', '');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER events_notify AFTER INSERT ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_notify();
"""


def next_page(conn, tenant, cursor, limit=500):
    """The tenant's committed rows after `cursor`, in key order; none is ever skipped."""
    # The watermark in a statement of its own, before the one that uses it.
    watermark = conn.execute("SELECT uuid_v7_watermark()").fetchone()[0]
    return conn.execute(
        "SELECT id, body FROM events WHERE tenant = %s AND id > %s AND id < %s ORDER BY id LIMIT %s",
        (tenant, cursor, watermark, limit)).fetchall()


def wait_for_commits(conn, timeout):
    """True when a commit notified "events" within `timeout` seconds (conn has run LISTEN events)."""
    woke = next(conn.notifies(timeout=timeout, stop_after=1), None) is not None
    for _ in conn.notifies(timeout=0):  # those queued meanwhile too: the next page reads them all
        pass
    return woke


def follow(conn, tenant, cursor, deliver, stop):
    """Delivers the tenant's rows after `cursor` until stop() is true; returns the last cursor."""
    if not conn.autocommit:
        raise ValueError("follow() needs a connection in autocommit: a snapshot per statement")
    conn.execute("LISTEN events")
    while not stop():
        rows = next_page(conn, tenant, cursor)
        if rows:
            deliver(rows)
            cursor = rows[-1][0]
        else:
            wait_for_commits(conn, timeout=1.0)
    return cursor


def context(tenant):
    """The façade's context of a tenant's ids: another tenant's faces differ."""
    return f"events:{tenant}"


def cursor_context(tenant):
    """The context of a tenant's cursors: an id is no cursor (a POST's id
    may stand for a key above the watermark, and would skip rows)."""
    return f"cursor:events:{tenant}"


# The key a cursor (a face) stands for: the tenant's event it was made from,
# under the current key or a retired one (a rotation keeps cursors going).
CURSOR_KEY = ("(SELECT id FROM events WHERE tenant = %(tenant)s::int4"
              " AND id = ANY (uuid_facade_candidates(%(after)s, %(cctx)s)))")


class CursorGone(Exception):
    """The cursor decodes to no event of the tenant: the key that made it was
    dropped, or the event was deleted (or it is no cursor of this tenant)."""


def page_of_faces(conn, tenant, after, limit=500):
    """next_page() over faces, in one statement after the watermark's: the
    server's log (log_statement = all) pairs no face with its key. Each row:
    the event's id (a face), its body, and the cursor that goes on after it."""
    params = {"ctx": context(tenant), "cctx": cursor_context(tenant), "tenant": tenant, "after": after,
              "start": START, "limit": limit}
    params["watermark"] = conn.execute("SELECT uuid_v7_watermark()").fetchone()[0]
    rows = conn.execute(
        "SELECT uuid_v7_to_facade(id, %(ctx)s), body, uuid_v7_to_facade(id, %(cctx)s)"
        " FROM events WHERE tenant = %(tenant)s::int4"
        f" AND id > CASE WHEN %(after)s::uuid IS NULL THEN %(start)s ELSE {CURSOR_KEY} END"
        " AND id < %(watermark)s ORDER BY id LIMIT %(limit)s", params).fetchall()
    if not rows and after is not None and not conn.execute(f"SELECT {CURSOR_KEY} IS NOT NULL", params).fetchone()[0]:
        raise CursorGone(str(after))
    return rows


def read(dsn, tenant, after, wait):
    """The answer of GET /events: the tenant's events after the cursor `after`."""
    with psycopg.connect(dsn, autocommit=True) as conn:  # READ COMMITTED: a snapshot per statement
        conn.execute("LISTEN events")
        after = uuid.UUID(after) if after is not None else None
        deadline = time.monotonic() + wait
        rows = page_of_faces(conn, tenant, after)
        while not rows and time.monotonic() < deadline:
            wait_for_commits(conn, timeout=min(1.0, max(0.0, deadline - time.monotonic())))
            rows = page_of_faces(conn, tenant, after)
    # At most MAX_PAGE bytes of bodies (one event at least): the answer a slow client is sent is small.
    size = 0
    for n, (_, body, _) in enumerate(rows):
        size += len(body)
        if size > MAX_PAGE and n:
            rows = rows[:n]
            break
    events = [{"id": str(face), "body": body} for face, body, _ in rows]
    return {"events": events, "cursor": str(rows[-1][2]) if rows else (str(after) if after else None)}


def add(dsn, tenant, body):
    """The answer of POST /events."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        face = conn.execute("INSERT INTO events (tenant, body) VALUES (%s::int4, %s)"
                            " RETURNING uuid_v7_to_facade(id, %s)", (tenant, body, context(tenant))).fetchone()[0]
    return {"id": str(face)}


def tenant_of(value):
    """A tenant id: an int4 (a JSON integer, or digits in a URL), else a bad
    request (a larger number would be compared as numeric, past the index)."""
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,10}", value):
        value = int(value)
    if type(value) is not int or not -2**31 <= value < 2**31:
        raise ValueError("a tenant is a 32-bit integer")
    return value


class Handler(BaseHTTPRequestHandler):
    dsn = ""
    slots = threading.BoundedSemaphore(MAX_REQUESTS)
    timeout = 10  # seconds a client may take to send its whole request, and for each write of an answer

    def handle(self):
        # One deadline for the whole request (the socket's timeout is for
        # each read: a byte at a time would hold the connection for ever).
        self.deadline = threading.Timer(self.timeout, self.cut)
        self.deadline.daemon = True
        self.deadline.start()
        try:
            super().handle()
        finally:
            self.deadline.cancel()

    def cut(self):
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def answer(self, status, doc):
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def serve(self, fn):
        """Answers fn() (which works in the database): 400 for a bad request,
        503 when busy or the database fails. The slot is held while fn() runs,
        not while the answer is written."""
        if not self.slots.acquire(blocking=False):
            return self.answer(503, {"error": "busy: try again"})
        try:
            status, doc = 200, fn()
        except (KeyError, ValueError, TypeError, OverflowError) as e:
            status, doc = 400, {"error": f"bad request: {e}"}
        except psycopg.DataError as e:  # a cursor that is no face
            status, doc = 400, {"error": e.diag.message_primary or "bad request"}
        except CursorGone:
            status, doc = 410, {"error": "this cursor has expired: read the feed from its start again"}
        except psycopg.Error:
            status, doc = 503, {"error": "the database failed: try again"}
        finally:
            self.slots.release()
        self.answer(status, doc)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path != "/events":
            return self.answer(404, {"error": "not found"})
        self.deadline.cancel()  # the request is in: a long poll may take its time
        q = {k: v[-1] for k, v in parse_qs(url.query).items()}
        try:
            tenant, after = tenant_of(q["tenant"]), q.get("after")
            wait = min(MAX_WAIT, max(0.0, float(q.get("wait", 0))))
        except (KeyError, ValueError) as e:
            return self.answer(400, {"error": f"bad request: {e}"})
        self.serve(lambda: read(self.dsn, tenant, after, wait))

    def do_POST(self):
        if urlparse(self.path).path != "/events":
            return self.answer(404, {"error": "not found"})
        # The body is read before a slot is taken: a client slow to send it holds none.
        try:
            size = int(self.headers.get("Content-Length", 0))
            if not 0 <= size <= MAX_BODY:
                raise ValueError(f"a body of 0 to {MAX_BODY} bytes")
            data = self.rfile.read(size)
            self.deadline.cancel()
            doc = json.loads(data or b"{}")
            tenant, body = tenant_of(doc["tenant"]), str(doc["body"])
        except (KeyError, ValueError, TypeError, OverflowError, RecursionError) as e:
            return self.answer(400, {"error": f"bad request: {type(e).__name__}"})
        self.serve(lambda: add(self.dsn, tenant, body))

    def log_message(self, *args):
        pass  # no line per request


class Server(ThreadingHTTPServer):
    """At most `connections` connections at a time (each a thread); beyond, closed at once."""
    daemon_threads = True

    def __init__(self, address, connections):
        super().__init__(address, Handler)
        self.connections = threading.BoundedSemaphore(connections)

    def process_request(self, request, client_address):
        if not self.connections.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread started: its place is given back
            self.connections.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release()

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], OSError):  # a client gone, or too slow: nothing to say
            super().handle_error(request, client_address)


# setup's questions about the catalog run with search_path = pg_catalog,
# pg_temp: a function or operator another role made in a schema on the
# path (public, in a database made before PostgreSQL 15) cannot answer them.

# May this role make what the feed needs: is it the database's owner or the
# extension's (or a superuser)?
MAY_SET_UP = """
SELECT pg_has_role(d.datdba, 'MEMBER')
       OR coalesce((SELECT pg_has_role(e.extowner, 'MEMBER') FROM pg_extension e WHERE e.extname = 'uuid_ext'), false)
  FROM pg_database d WHERE d.datname = current_database()"""

# The schema of uuid_ext, quoted, or NULL.
EXTENSION_SCHEMA = """
SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE e.extname = 'uuid_ext'"""

# What is wrong with the table events that is there (%s: its oid): its
# owner (a table of another role could copy every key and body), its
# columns, its id's default, its index, its trigger, rules.
EVENTS_WRONG = """
WITH t AS (
  SELECT c.oid, c.relkind, c.relhasrules, r.rolname,
         c.relowner = d.datdba OR c.relowner = e.extowner OR r.rolsuper AS trusted,
         (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                            || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY a.attnum)
            FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
         (SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'id') AS id,
         (SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant') AS tenant,
         e.oid AS ext, d.datdba, e.extowner
    FROM pg_class c
    JOIN pg_roles r ON r.oid = c.relowner
    JOIN pg_database d ON d.datname = current_database()
    JOIN pg_extension e ON e.extname = 'uuid_ext'
   WHERE c.oid = %s)
SELECT array_remove(ARRAY[
  CASE WHEN t.relkind <> 'r' THEN 'it is no table' END,
  CASE WHEN NOT t.trusted
       THEN 'it belongs to ' || t.rolname || ', neither the database''s owner nor the extension''s' END,
  CASE WHEN t.columns IS DISTINCT FROM 'id uuid not null, tenant integer not null, body text not null'
       THEN 'its columns are ' || coalesce(t.columns, 'none')
            || ', not id uuid not null, tenant integer not null, body text not null' END,
  CASE WHEN NOT EXISTS (
         SELECT FROM pg_attrdef ad
           JOIN pg_depend dp ON dp.classid = 'pg_attrdef'::regclass AND dp.objid = ad.oid
                AND dp.refclassid = 'pg_proc'::regclass
           JOIN pg_depend de ON de.classid = 'pg_proc'::regclass AND de.objid = dp.refobjid AND de.deptype = 'e'
                AND de.refobjid = t.ext
           JOIN pg_proc pr ON pr.oid = dp.refobjid AND pr.proname = 'uuid_generate_v7'
          WHERE ad.adrelid = t.oid AND ad.adnum = t.id)
       THEN 'its id''s default is not uuid_ext''s uuid_generate_v7()' END,
  CASE WHEN NOT EXISTS (SELECT FROM pg_index i WHERE i.indrelid = t.oid AND i.indisvalid AND i.indpred IS NULL
                          AND i.indexprs IS NULL AND i.indkey::text = t.tenant || ' ' || t.id)
       THEN 'it has no index on (tenant, id)' END,
  CASE WHEN (SELECT array_agg(tg.tgname || ' ' || tg.tgenabled::text || ' ' || p.proname
                              || CASE WHEN p.proowner IN (t.datdba, t.extowner)
                                        OR (SELECT rolsuper FROM pg_roles WHERE oid = p.proowner)
                                      THEN '' ELSE ' untrusted' END ORDER BY tg.tgname)
               FROM pg_trigger tg JOIN pg_proc p ON p.oid = tg.tgfoid
              WHERE tg.tgrelid = t.oid AND NOT tg.tgisinternal) IS DISTINCT FROM '{"events_notify O events_notify"}'
       THEN 'its triggers are not the one events_notify, enabled, of the owner''s function events_notify' END,
  CASE WHEN t.relhasrules THEN 'it has rules' END], NULL)
  FROM t"""


class SetupRefused(Exception):
    """What the database holds, or who asks, is not what setup may build on."""


def setup(dsn):
    """Makes what the feed needs and the database lacks; returns what it made.
    Only the database's owner or the extension's may make anything, and a
    table events that is there must be the feed's, made by one of them."""
    made = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        def catalog(sql, params=()):
            with conn.transaction():
                conn.execute("SET LOCAL search_path = pg_catalog, pg_temp")
                row = conn.execute(sql, params).fetchone()
                return row[0] if row else None

        may = catalog(MAY_SET_UP)

        def make(what, sql, qualified=False):
            if not may:
                raise SetupRefused(f"{what} is missing, and only the database's owner or the extension's may make "
                                   f"it: run feed.py setup as one of them")
            catalog(sql) if qualified else conn.execute(sql)
            made.append(what)
        ext = catalog(EXTENSION_SCHEMA)
        if ext is None:
            make("the extension uuid_ext", "CREATE EXTENSION uuid_ext")
            ext = catalog(EXTENSION_SCHEMA)
        try:
            catalog(f"SELECT {ext}.uuid_v7_to_facade({ext}.uuid_generate_v7())")
        except psycopg.errors.ObjectNotInPrerequisiteState:  # 55000: no current key
            make("a façade key", f"SELECT {ext}.uuid_facade_key_create()", qualified=True)
        # The table the service's unqualified name finds, on this session's search_path.
        table = "SELECT pg_catalog.to_regclass('events')::pg_catalog.oid"
        oid = conn.execute(table).fetchone()[0]
        if oid is None:
            make("the table events, its index and its trigger", SETUP_SQL)
            oid = conn.execute(table).fetchone()[0]
        wrong = catalog(EVENTS_WRONG, (oid,))
        if wrong:
            raise SetupRefused("the table events is not the feed's: " + "; ".join(wrong))
    return made


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=("setup", "serve"))
    p.add_argument("--dsn", default="", help="libpq connection string (default: the PG* variables)")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--setup", action="store_true", help="serve: make what is missing first")
    p.add_argument("--max-requests", type=int, default=MAX_REQUESTS, help="serve: at a time; beyond, 503")
    p.add_argument("--max-connections", type=int, default=MAX_CONNECTIONS,
                   help="serve: open at a time; beyond, closed at once")
    p.add_argument("--timeout", type=float, default=Handler.timeout,
                   help="serve: seconds a client may take to send a request or read an answer")
    a = p.parse_args()
    if a.command == "setup" or a.setup:
        try:
            made = setup(a.dsn)
        except SetupRefused as e:
            raise SystemExit(f"feed.py setup: {e}")
        except psycopg.Error as e:
            raise SystemExit(f"feed.py setup: the database refused: {e}")
        print(f"made {', '.join(made)}" if made else "nothing to make: the database has what the feed needs",
              flush=True)
        if a.command == "setup":
            return
    Handler.dsn = a.dsn
    Handler.slots = threading.BoundedSemaphore(a.max_requests)
    Handler.timeout = a.timeout
    server = Server(("127.0.0.1", a.port), a.max_connections)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
