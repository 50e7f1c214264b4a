#!/usr/bin/env python3
"""A change feed over HTTP that never skips a committed row (docs/feeds.md).

    python3 feed.py serve --setup [--dsn DSN] [--port N]   what is missing, then the feed
    python3 feed.py setup [--dsn DSN]   what is missing: uuid_ext, a façade key, the table
    python3 feed.py serve [--dsn DSN] [--port N] [--max-requests M]
                        the feed, on 127.0.0.1 (N = 0: any free port)

DSN is a libpq connection string; without one, libpq's PG* variables and
~/.pgpass say where to connect (a password on the command line shows in ps).

    GET  /events?tenant=T[&after=CURSOR][&wait=SECONDS]
         {"events": [{"id": ..., "body": ...}, ...], "cursor": ...}: the
         tenant's events after CURSOR, in the order of their keys; with none
         yet, it waits up to SECONDS (at most 30) for a commit: a long poll.
         The next call passes the answer's cursor. 410 for a cursor whose
         key was dropped.
    POST /events  {"tenant": T, "body": "..."}  ->  {"id": ...}

A page reads up to the commit watermark, so an event whose transaction
commits after a later one's is still delivered, and no event is delivered
twice. The consumer sleeps on LISTEN until a commit (a statement trigger
notifies), and reads by the watermark whatever woke it. follow() is the same
consumer for a process of its own (a worker, an outbox relay). The ids and the
cursors a client sees are the faces of the keys (the façade: docs/facade.md):
they carry neither the time an event was made nor how fast the feed grows
(the feed's order still shows which came first). Each tenant's faces are
made in a context of their own, so a face of one tenant tells another
nothing.

Needs psycopg 3, and uuid_ext preloaded by the server
(shared_preload_libraries). setup makes in the database what is missing of
uuid_ext, a façade key (uuid_facade_key_create()) and the table events with
its index and trigger, and says what it made; it runs as the database's
owner or the extension's. The role that serves needs SELECT on events, INSERT on
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
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import psycopg

START = uuid.UUID(int=0)  # a cursor before every key
MAX_WAIT = 30.0
MAX_REQUESTS = 20  # at a time (--max-requests), each with a connection of its own; more wait for none: 503
MAX_BODY = 64 * 1024
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


# The key a cursor (a face) stands for: the tenant's event it was made from,
# under the current key or a retired one (a rotation keeps cursors going).
CURSOR_KEY = ("(SELECT id FROM events WHERE tenant = %(tenant)s"
              " AND id = ANY (uuid_facade_candidates(%(after)s, %(ctx)s)))")


class CursorGone(Exception):
    """The cursor decodes to no event of the tenant: the key that made it was dropped."""


def page_of_faces(conn, tenant, after, limit=500):
    """next_page() over faces, in one statement after the watermark's: the
    server's log (log_statement = all) pairs no face with its key."""
    params = {"ctx": context(tenant), "tenant": tenant, "after": after, "start": START, "limit": limit}
    params["watermark"] = conn.execute("SELECT uuid_v7_watermark()").fetchone()[0]
    rows = conn.execute(
        "SELECT uuid_v7_to_facade(id, %(ctx)s), body FROM events WHERE tenant = %(tenant)s"
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
    events = [{"id": str(face), "body": body} for face, body in rows]
    return {"events": events, "cursor": events[-1]["id"] if events else (str(after) if after else None)}


def add(dsn, tenant, body):
    """The answer of POST /events."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        face = conn.execute("INSERT INTO events (tenant, body) VALUES (%s, %s) RETURNING uuid_v7_to_facade(id, %s)",
                            (tenant, body, context(tenant))).fetchone()[0]
    return {"id": str(face)}


class Handler(BaseHTTPRequestHandler):
    dsn = ""
    slots = threading.BoundedSemaphore(MAX_REQUESTS)

    def answer(self, status, doc):
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def serve(self, fn):
        """Answers fn(): 400 for a bad request, 503 when busy or the database fails."""
        if not self.slots.acquire(blocking=False):
            return self.answer(503, {"error": "busy: try again"})
        try:
            self.answer(200, fn())
        except (KeyError, ValueError, TypeError, OverflowError) as e:
            self.answer(400, {"error": f"bad request: {e}"})
        except psycopg.DataError as e:  # a cursor that is no face, a tenant out of range
            self.answer(400, {"error": e.diag.message_primary})
        except CursorGone:
            self.answer(410, {"error": "this cursor has expired: read the feed from its start again"})
        except psycopg.Error:
            self.answer(503, {"error": "the database failed: try again"})
        finally:
            self.slots.release()

    def do_GET(self):
        url = urlparse(self.path)
        if url.path != "/events":
            return self.answer(404, {"error": "not found"})
        q = {k: v[-1] for k, v in parse_qs(url.query).items()}
        self.serve(lambda: read(self.dsn, int(q["tenant"]), q.get("after"),
                                min(MAX_WAIT, max(0.0, float(q.get("wait", 0))))))

    def do_POST(self):
        if urlparse(self.path).path != "/events":
            return self.answer(404, {"error": "not found"})

        def post():
            size = int(self.headers.get("Content-Length", 0))
            if not 0 <= size <= MAX_BODY:
                raise ValueError(f"a body of 0 to {MAX_BODY} bytes")
            doc = json.loads(self.rfile.read(size) or b"{}")
            return add(self.dsn, int(doc["tenant"]), str(doc["body"]))
        self.serve(post)

    def log_message(self, *args):
        pass  # no line per request


def setup(dsn):
    """Makes what the feed needs and the database lacks; returns what it made."""
    made = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        if conn.execute("SELECT NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'uuid_ext')").fetchone()[0]:
            conn.execute("CREATE EXTENSION uuid_ext")
            made.append("the extension uuid_ext")
        try:
            conn.execute("SELECT uuid_v7_to_facade(uuid_generate_v7())")
        except psycopg.errors.ObjectNotInPrerequisiteState:  # 55000: no current key
            conn.execute("SELECT uuid_facade_key_create()")
            made.append("a façade key")
        if conn.execute("SELECT to_regclass('events') IS NULL").fetchone()[0]:
            conn.execute(SETUP_SQL)
            made.append("the table events, its index and its trigger")
    return made


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=("setup", "serve"))
    p.add_argument("--dsn", default="", help="libpq connection string (default: the PG* variables)")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--setup", action="store_true", help="serve: make what is missing first")
    p.add_argument("--max-requests", type=int, default=MAX_REQUESTS, help="serve: at a time; beyond, 503")
    a = p.parse_args()
    if a.command == "setup" or a.setup:
        made = setup(a.dsn)
        print(f"made {', '.join(made)}" if made else "nothing to make: the database has what the feed needs",
              flush=True)
        if a.command == "setup":
            return
    Handler.dsn = a.dsn
    Handler.slots = threading.BoundedSemaphore(a.max_requests)
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
