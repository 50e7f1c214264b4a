"""The commit watermark: a poller that follows it sees every committed row exactly once, a naive one misses some.

docs/ordering.md#polling-without-missing-rows-the-commit-watermark: a
poller that follows the pattern of docs/ordering.md sees every committed
row exactly once; a naive one misses rows in the same run.

Writers, each its own session, insert into `ev (id uuid PRIMARY KEY DEFAULT
uuid_generate_v7())` in transactions of random length: most commit quickly,
some hold their keys a while before committing, some roll back, some fail,
some are prepared and committed (or rolled back) later from another session,
and some take their keys from parallel workers (the leader itself draws none)
and insert them later in the same transaction. Meanwhile two pollers run:

  watermark  SELECT uuid_v7_watermark(); then, in the next statement,
             ... WHERE id > last_seen AND id < watermark ORDER BY id
  naive      ... WHERE id > last_seen ORDER BY id

At the end the watermark poller must have seen every committed row exactly
once, and the naive one must have missed some (else the run could not tell
the two apart).

The load is tests/lib/watermark_load.py's (the cluster test replication
runs it with the pollers on a standby). Here it runs on the shared server,
writers and pollers both, every other writer leasing blocks of 100 keys
(`uuid_ext.cache = 100`, docs/ordering.md#leases). Needs psycopg 3.

Before that, main runs `opted_out()`: a writer that may only INSERT (body)
into `feed` sets `uuid_ext.monotonicity = backend` (any role may) and holds
its row open while another writer's row commits and a poller, following
the pattern, reads past both keys' times; then it commits. Its row must
be delivered (on 0.8.0 such a session did not announce: its row, below a
watermark the poller had already consumed, never was). Then the same
writer switches mode inside a transaction that drew from the shared word
first: its second row is delivered too.
"""
import time

import psycopg

from pg import fail, ok
from watermark_load import run


class FeedPoller:
    """The documented pattern over `feed`, as a role that may only read it."""

    def __init__(self, conn):
        self.conn = conn
        self.last = "00000000-0000-0000-0000-000000000000"
        self.seen = []

    def poll(self):
        wm = self.conn.execute("SELECT uuid_v7_watermark()").fetchone()[0]
        rows = self.conn.execute("SELECT id::text, body FROM feed WHERE id > %s AND id < %s ORDER BY id",
                                 (self.last, wm)).fetchall()
        for key, body in rows:
            self.seen.append(body)
            self.last = key
        return rows


def opted_out(srv):
    """A writer in backend mode, with INSERT (body) only, is covered by the watermark."""
    srv.q("DROP TABLE IF EXISTS feed; DROP ROLE IF EXISTS feed_writer; DROP ROLE IF EXISTS feed_reader; "
          "CREATE ROLE feed_writer LOGIN; CREATE ROLE feed_reader LOGIN; "
          "CREATE TABLE feed (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), body text); "
          "GRANT INSERT (body) ON feed TO feed_writer; GRANT SELECT ON feed TO feed_reader")
    with psycopg.connect(srv.conninfo(user="feed_writer")) as w, \
            psycopg.connect(srv.conninfo(user="feed_writer"), autocommit=True) as n, \
            psycopg.connect(srv.conninfo(user="feed_reader"), autocommit=True) as r:
        poller = FeedPoller(r)
        # W: its own word, a row held open (it cannot choose the key).
        w.execute("SET uuid_ext.monotonicity = backend")
        w.commit()
        w.execute("INSERT INTO feed (body) VALUES ('hidden')")
        time.sleep(0.01)
        # N: ordinary traffic, committed.
        n.execute("INSERT INTO feed (body) VALUES ('normal traffic, committed')")
        # The poller reads meanwhile, as the docs say.
        for _ in range(5):
            poller.poll()
            time.sleep(0.01)
        w.commit()
        for _ in range(5):
            poller.poll()
            time.sleep(0.01)
        keys = dict(r.execute("SELECT body, id::text FROM feed").fetchall())
        if not keys["hidden"] < keys["normal traffic, committed"]:
            fail("the backend-mode writer's key does not sort below the other writer's: this run proves nothing")
        if "hidden" not in poller.seen:
            fail("a writer with uuid_ext.monotonicity = backend committed a row below a watermark the poller had "
                 f"already read past: it was never delivered (delivered: {poller.seen})")
        if poller.seen != ["hidden", "normal traffic, committed"]:
            fail(f"the poller delivered {poller.seen}")
        ok("a writer with INSERT (body) only and uuid_ext.monotonicity = backend, its row held open while another "
           "commits and a poller reads: its row is delivered, in key order, exactly once")
        # The mode switched inside a transaction that drew from the shared
        # word first: the second key is covered as well.
        w.execute("RESET uuid_ext.monotonicity")
        w.execute("INSERT INTO feed (body) VALUES ('first, shared')")
        w.execute("SET LOCAL uuid_ext.monotonicity = backend")
        w.execute("INSERT INTO feed (body) VALUES ('second, own word')")
        time.sleep(0.01)
        n.execute("INSERT INTO feed (body) VALUES ('more traffic')")
        for _ in range(5):
            poller.poll()
            time.sleep(0.01)
        w.commit()
        n.execute("INSERT INTO feed (body) VALUES ('last')")
        for _ in range(5):
            poller.poll()
        if poller.seen[2:] != ["first, shared", "second, own word", "more traffic", "last"]:
            fail(f"a writer that switched to its own word inside a transaction: the poller delivered {poller.seen}")
        ok("the same writer switching to its own word inside a transaction that drew from the shared one: every "
           "row delivered, in key order, exactly once")
    srv.q("DROP TABLE feed; DROP ROLE feed_writer; DROP ROLE feed_reader")


def main(t):
    srv = t.shared()
    srv.q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    opted_out(srv)
    run(srv.conninfo(), srv.conninfo(), leased=True)
