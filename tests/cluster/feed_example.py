"""The example change feed, examples/feed/feed.py, served over HTTP under load: every committed event once, in key order.

docs/feeds.md: the example serves the feed of two tenants (GET /events, a
long poll up to the commit watermark, woken by LISTEN; its ids and cursors
the façade's faces), while writers insert in transactions of every kind:
quick commits through the service's POST /events, and in SQL transactions
held open a while before they commit, rolled back, and prepared then
committed or rolled back later from another session. A client of the
service per tenant follows its cursor; beside it a naive consumer reads
`WHERE tenant = $1 AND id > last_seen` in SQL.

At the end each tenant's client must have received every event its tenant
committed exactly once, in the order of their keys, none of another tenant
and none that did not commit; the naive consumers' losses are counted (and
must be some, else the run could not tell the two apart). Halfway through,
the façade's key is rotated (uuid_facade_key_create()): the clients go on
with the cursors they hold. Once the old key is dropped, a cursor made under
it answers 410 Gone, and one made under the new key goes on. The service and
the writers connect as a role with only the grants the example names. Before
that, bad requests get 400: a cursor that is no UUID, a tenant that is no
number, a body that is no JSON or has no tenant; 410 to a face of one
tenant as another's cursor (it stands for no event of that tenant). Runs on the shared server,
in a database of its own; needs psycopg 3.
"""
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.request

import psycopg

from pg import fail, ok, run_for, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FEED = os.path.join(ROOT, "examples", "feed", "feed.py")
DB = "feed_example"
APP = "feed_example_app"
GRANTS = f"""
CREATE ROLE {APP} LOGIN;
GRANT SELECT ON events TO {APP};
GRANT INSERT (tenant, body) ON events TO {APP};
GRANT EXECUTE ON FUNCTION uuid_v7_to_facade(uuid, text), uuid_facade_candidates(uuid, text) TO {APP};
"""
SECONDS = 6
WRITERS = 4
TENANTS = (1, 2)


class Log:
    def __init__(self):
        self.lock = threading.Lock()
        self.committed = {t: set() for t in TENANTS}
        self.aborted = set()
        self.kinds = {}
        self.errors = []
        self.rotation = (None, None)  # the old key's id, a cursor made under it

    def add(self, tenant, bodies, committed, kind):
        with self.lock:
            (self.committed[tenant] if committed else self.aborted).update(bodies)
            self.kinds[kind] = self.kinds.get(kind, 0) + len(bodies)


def post(url, tenant, body):
    req = urllib.request.Request(url + "/events", json.dumps({"tenant": tenant, "body": body}).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def get(url, tenant, after, wait):
    q = f"/events?tenant={tenant}&wait={wait}" + (f"&after={after}" if after else "")
    with urllib.request.urlopen(url + q, timeout=60) as r:
        return json.load(r)


def writer(n, dsn, url, log, stop, prepared):
    rnd = random.Random(n)
    seq = 0
    try:
        with psycopg.connect(dsn) as conn:
            while not stop.is_set():
                seq += 1
                tenant = rnd.choice(TENANTS)
                body = f"w{n}-{seq}"
                r = rnd.random()
                if r < 0.4:
                    post(url, tenant, body)
                    log.add(tenant, [body], True, "quick, through POST /events")
                    continue
                if r >= 0.85:  # to be prepared: a transaction that notifies cannot be
                    conn.execute("SET LOCAL events.notify = off")
                conn.execute("INSERT INTO events (tenant, body) VALUES (%s, %s)", (tenant, body))
                if r < 0.7:
                    time.sleep(rnd.uniform(0.05, 0.4))
                    conn.commit()
                    log.add(tenant, [body], True, "held open, then committed")
                elif r < 0.85:
                    conn.rollback()
                    log.add(tenant, [body], False, "rolled back")
                else:
                    gid = f"feed-{n}-{seq}"
                    conn.execute(f"PREPARE TRANSACTION '{gid}'")
                    prepared.append((time.time() + rnd.uniform(0.1, 0.5), gid, tenant, body, rnd.random() < 0.7))
                time.sleep(rnd.uniform(0, 0.02))
    except Exception as e:  # noqa: BLE001
        log.errors.append(f"writer {n}: {e!r}")


def resolver(dsn, log, stop, prepared):
    """Commits or rolls back the prepared transactions when they are due."""
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            while not (stop.is_set() and not prepared):
                for p in [p for p in list(prepared) if p[0] <= time.time()]:
                    prepared.remove(p)
                    _, gid, tenant, body, commit = p
                    conn.execute(f"{'COMMIT' if commit else 'ROLLBACK'} PREPARED '{gid}'")
                    log.add(tenant, [body], commit, "prepared, then " + ("committed" if commit else "rolled back"))
                time.sleep(0.01)
    except Exception as e:  # noqa: BLE001
        log.errors.append(f"resolver: {e!r}")


def rotator(admin, clients, log, stop):
    """Halfway through: a new façade key; the old one retired, its id and a
    cursor made under it kept for later."""
    try:
        if stop.wait(SECONDS / 2):
            return
        with psycopg.connect(admin, autocommit=True) as conn:
            log.rotation = (conn.execute("SELECT key_id FROM uuid_facade_keys WHERE state = 'current'").fetchone()[0],
                            clients[1].cursor)
            conn.execute("SELECT uuid_facade_key_create()")
    except Exception as e:  # noqa: BLE001
        log.errors.append(f"rotator: {e!r}")


class Client:
    """A client of the service: follows one tenant's cursor."""

    def __init__(self, url, tenant):
        self.url, self.tenant = url, tenant
        self.cursor = None
        self.got = []

    def poll(self, wait):
        page = get(self.url, self.tenant, self.cursor, wait)
        self.got += [e["body"] for e in page["events"]]
        self.cursor = page["cursor"]
        return len(page["events"])


class Naive:
    """WHERE tenant = $1 AND id > last_seen, in SQL."""

    def __init__(self, tenant):
        self.tenant = tenant
        self.last = "00000000-0000-0000-0000-000000000000"
        self.got = []

    def poll(self, conn):
        rows = conn.execute("SELECT id::text, body FROM events WHERE tenant = %s AND id > %s ORDER BY id",
                            (self.tenant, self.last)).fetchall()
        if rows:
            self.got += [r[1] for r in rows]
            self.last = rows[-1][0]


def follow(client, naive, dsn, stop, log):
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            while not stop.is_set():
                client.poll(wait=5)
                naive.poll(conn)
    except Exception as e:  # noqa: BLE001
        log.errors.append(f"tenant {client.tenant}'s consumers: {e!r}")


def status(url, method, path, body=None, headers=None):
    """The HTTP status the service answers."""
    host, port = url.split("//")[1].split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    c.request(method, path, body, headers or {})
    r = c.getresponse()
    r.read()
    c.close()
    return r.status


def bad_requests(url):
    one = post(url, 1, "tenant 1's")["id"]
    post(url, 2, "tenant 2's")
    answers = {
        "a cursor that is no UUID": status(url, "GET", "/events?tenant=1&after=nope"),
        "a tenant that is no number": status(url, "GET", "/events?tenant=x"),
        "a body that is no JSON": status(url, "POST", "/events", b"{", {"Content-Type": "application/json"}),
        "a body without a tenant": status(url, "POST", "/events", b'{"body": "x"}'),
    }
    wrong = {k: v for k, v in answers.items() if v != 400}
    if wrong:
        fail(f"the service did not answer 400 to {wrong}")
    crossed = status(url, "GET", f"/events?tenant=2&after={one}")
    if crossed != 410:
        fail(f"tenant 1's face as tenant 2's cursor: {crossed}")
    ok(f"the service answers 400 to {', '.join(answers)}; 410 to a face of one tenant as another's cursor")


def main(t):
    srv = t.shared()
    leftovers(srv)
    srv.q(f"CREATE DATABASE {DB}")
    srv.q("CREATE EXTENSION uuid_ext; SELECT uuid_facade_key_create();", db=DB)
    r = subprocess.run([sys.executable, FEED, "setup", "--dsn", srv.conninfo(db=DB)], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"feed.py setup failed:\n{r.stdout}{r.stderr}")
    srv.q(GRANTS, db=DB)
    dsn = srv.conninfo(db=DB, user=APP)
    errors = open(t.path("service.err"), "w")
    service = subprocess.Popen([sys.executable, FEED, "serve", "--dsn", dsn, "--port", "0"],
                               stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        line = service.stdout.readline()
        if not line.startswith("listening on "):
            fail(f"feed.py serve did not start: {line}{open(t.path('service.err')).read()}")
        url = line.split()[-1]
        bad_requests(url)
        srv.q("DELETE FROM events", db=DB)
        run(url, dsn, srv.conninfo(db=DB))
    finally:
        service.terminate()
        service.wait(timeout=30)
        errors.close()
    said = open(t.path("service.err")).read()
    if said.strip():
        fail(f"the service wrote to its stderr:\n{said[-3000:]}")
    leftovers(srv)


def leftovers(srv):
    """Drops what a run of this test leaves (its prepared transactions first)."""
    if srv.q(f"SELECT 1 FROM pg_database WHERE datname = '{DB}'"):
        for gid in srv.q(f"SELECT gid FROM pg_prepared_xacts WHERE database = '{DB}'", db=DB).split():
            srv.q(f"ROLLBACK PREPARED '{gid}'", db=DB)
    srv.q(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    srv.q(f"DROP ROLE IF EXISTS {APP}")


def run(url, dsn, admin):
    """The load: writers as the service's role, prepared transactions resolved
    and the naive consumers as `admin`."""
    log = Log()
    stop_writers, stop_resolver, stop_consumers = threading.Event(), threading.Event(), threading.Event()
    prepared = []
    clients = {t: Client(url, t) for t in TENANTS}
    naives = {t: Naive(t) for t in TENANTS}
    writers = [threading.Thread(target=writer, args=(n, dsn, url, log, stop_writers, prepared))
               for n in range(WRITERS)]
    res = threading.Thread(target=resolver, args=(admin, log, stop_resolver, prepared))
    rot = threading.Thread(target=rotator, args=(admin, clients, log, stop_writers))
    consumers = [threading.Thread(target=follow, args=(clients[t], naives[t], admin, stop_consumers, log))
                 for t in TENANTS]
    run_for(SECONDS, (writers + [rot], stop_writers), ([res], stop_resolver), (consumers, stop_consumers))
    if log.errors:
        fail("\n".join(log.errors))

    # Every transaction has ended: each client catches up.
    with psycopg.connect(admin, autocommit=True) as conn:
        keys = dict(conn.execute("SELECT body, id FROM events").fetchall())
        tenants = dict(conn.execute("SELECT body, tenant FROM events").fetchall())
        for t in TENANTS:
            naives[t].poll(conn)
    for t in TENANTS:
        wait_for(lambda t=t: clients[t].poll(wait=0) == 0 and set(clients[t].got) >= log.committed[t],
                 f"tenant {t}'s client to receive every event its tenant committed", timeout=60,
                 why=lambda t=t: f"{len(log.committed[t] - set(clients[t].got))} missing")
    if set(keys) != log.committed[1] | log.committed[2]:
        fail(f"the table holds {len(keys)} events, the writers committed "
             f"{len(log.committed[1]) + len(log.committed[2])}")
    lost = {}
    for t in TENANTS:
        got = clients[t].got
        if len(got) != len(set(got)):
            fail(f"tenant {t}'s client received an event twice")
        if set(got) != log.committed[t]:
            fail(f"tenant {t}'s client received {len(set(got) - log.committed[t])} events it should not have "
                 f"(of another tenant: {sum(tenants.get(b) not in (t, None) for b in got)}; not committed: "
                 f"{len(set(got) & log.aborted)})")
        if [keys[b] for b in got] != sorted(keys[b] for b in got):
            fail(f"tenant {t}'s client received its events out of key order")
        lost[t] = len(log.committed[t] - set(naives[t].got))
    kinds = ", ".join(f"{v} {k}" for k, v in sorted(log.kinds.items()))
    ok(f"{WRITERS} writers for {SECONDS} s into 2 tenants ({kinds}): each tenant's client of examples/feed/feed.py "
       f"(a long poll over HTTP, face cursors) received every event its tenant committed exactly once, in key "
       f"order, none of the other tenant and none of the {len(log.aborted)} that did not commit "
       f"({len(log.committed[1])} and {len(log.committed[2])})")
    if not sum(lost.values()):
        fail("the naive consumers (id > last_seen) lost nothing: this run cannot tell the two apart")
    ok(f"beside them, the naive consumers (WHERE tenant = $1 AND id > last_seen) lost {lost[1]} and {lost[2]} "
       "committed events")
    rotated(url, admin, clients, log)


def rotated(url, admin, clients, log):
    old_key, old_cursor = log.rotation
    if old_cursor is None:
        fail("the key was rotated before tenant 1's client held a cursor: this run shows nothing of a rotation")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("SELECT uuid_facade_key_drop(%s)", (old_key,))
    gone = status(url, "GET", f"/events?tenant=1&after={old_cursor}")
    going = status(url, "GET", f"/events?tenant=1&after={clients[1].cursor}")
    if (gone, going) != (410, 200):
        fail(f"after the old key's drop: a cursor made under it answered {gone}, one made under the new key {going}")
    ok("the façade's key rotated halfway through: the clients went on with the cursors they held (every event "
       "once); the old key dropped, a cursor made under it answers 410 Gone, one made under the new key 200")
