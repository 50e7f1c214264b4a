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
tenant as another's cursor (it stands for no event of that tenant).

`feed.py setup` in a new database makes the extension, a façade key and
the table, and says so; run again, it makes nothing; the service starts with
`serve --setup` as the role with the grants (nothing to make). The service's
role logs every statement (log_statement = all, parameters too): no event's
key is in the server's log, while a key that role passes as a parameter is.
A service started with --max-requests 2 answers a third request 503 while
two long polls wait, and 200 once they end. Runs on the shared server, in a
database of its own; needs psycopg 3.
"""
import contextlib
import http.client
import json
import os
import random
import re
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import psycopg

from pg import fail, ok, run_for, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FEED = os.path.join(ROOT, "examples", "feed", "feed.py")
sys.path.insert(0, os.path.dirname(FEED))
from feed import SETUP_SQL  # noqa: E402
DB = "feed_example"
APP = "feed_example_app"
GRANTS = f"""
CREATE ROLE {APP} LOGIN;
GRANT SELECT ON events TO {APP};
GRANT INSERT (tenant, body) ON events TO {APP};
GRANT EXECUTE ON FUNCTION uuid_v7_to_facade(uuid, text), uuid_facade_candidates(uuid, text) TO {APP};
ALTER ROLE {APP} SET log_statement = 'all';
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
    cursor = get(url, 1, None, 10)["cursor"]
    answers = {
        "a cursor that is no UUID": status(url, "GET", "/events?tenant=1&after=nope"),
        "a tenant that is no number": status(url, "GET", "/events?tenant=x"),
        "a tenant of 2^63 (numeric to psycopg: past the index, and an operator a role may plant)":
            status(url, "GET", "/events?tenant=9223372036854775808"),
        "a tenant of 2^31 in a POST": status(url, "POST", "/events", b'{"tenant": 2147483648, "body": "x"}'),
        "a tenant of 1e400 (infinity to JSON)": status(url, "POST", "/events", b'{"tenant": 1e400, "body": "x"}'),
        "a tenant of true": status(url, "POST", "/events", b'{"tenant": true, "body": "x"}'),
        "a tenant of 1.9": status(url, "POST", "/events", b'{"tenant": 1.9, "body": "x"}'),
        "a body that is no JSON": status(url, "POST", "/events", b"{", {"Content-Type": "application/json"}),
        "a body without a tenant": status(url, "POST", "/events", b'{"body": "x"}'),
        "a body nested 60,000 deep": status(url, "POST", "/events", b"[" * 60000),
    }
    wrong = {k: v for k, v in answers.items() if v != 400}
    if wrong:
        fail(f"the service did not answer 400 to {wrong}")
    gone = {
        "tenant 1's cursor as tenant 2's": status(url, "GET", f"/events?tenant=2&after={cursor}"),
        # A POST's id may stand for a key above the watermark: going on from
        # it would skip the rows of transactions still open below it.
        "an id (a POST's) as its tenant's cursor": status(url, "GET", f"/events?tenant=1&after={one}"),
    }
    if set(gone.values()) != {410} or status(url, "GET", f"/events?tenant=1&after={cursor}") != 200:
        fail(f"the service answered {gone} (not 410), or {status(url, 'GET', f'/events?tenant=1&after={cursor}')} "
             "to tenant 1's own cursor")
    ok(f"the service answers 400 to {', '.join(answers)}; 410 to {' and '.join(gone)}; 200 to a tenant's cursor")


def main(t):
    srv = t.shared()
    leftovers(srv)
    srv.q(f"CREATE DATABASE {DB}")
    admin = srv.conninfo(db=DB)
    made = [setup(admin) for _ in range(2)]
    if made != [MADE, NOTHING]:
        fail(f"feed.py setup in a new database, then again, said {made}, not {[MADE, NOTHING]}")
    ok(f"feed.py setup in a new database: \"{MADE}\"; again: \"{NOTHING}\"")
    srv.q(GRANTS, db=DB)
    dsn = srv.conninfo(db=DB, user=APP)
    with service(t, dsn, "--setup") as url:  # as the role with the grants: it has all it needs
        bad_requests(url)
        big_pages(url, admin)
        srv.q("DELETE FROM events", db=DB)
        log_from = srv.log_size()
        run(url, dsn, admin)
        no_key_logged(srv, log_from, dsn, admin)
    with service(t, dsn, "--max-requests", "2", "--max-connections", "6", "--timeout", "2") as url:
        busy(url, srv)
        slow_clients(url)
    refusals(srv)
    leftovers(srv)


MADE = "made the extension uuid_ext, a façade key, the table events, its index and its trigger"
NOTHING = "nothing to make: the database has what the feed needs"


def setup(dsn):
    """What `feed.py setup` says it made."""
    r = subprocess.run([sys.executable, FEED, "setup", "--dsn", dsn], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"feed.py setup failed:\n{r.stdout}{r.stderr}")
    return r.stdout.strip()


@contextlib.contextmanager
def service(t, dsn, *args):
    """`feed.py serve` as the role of `dsn`: its URL; nothing on its stderr when it is stopped."""
    path = t.path("service.err")
    errors = open(path, "w")
    proc = subprocess.Popen([sys.executable, FEED, "serve", "--dsn", dsn, "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        said = [proc.stdout.readline() for _ in range(2 if "--setup" in args else 1)]
        if "--setup" in args and said[0].strip() != NOTHING:
            fail(f"feed.py serve --setup, in a database that has what the feed needs, said {said[0]!r}")
        if not said[-1].startswith("listening on "):
            fail(f"feed.py serve did not start: {''.join(said)}{open(path).read()}")
        yield said[-1].split()[-1]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        errors.close()
    if open(path).read().strip():
        fail(f"the service wrote to its stderr:\n{open(path).read()[-3000:]}")


def busy(url, srv):
    """Beyond --max-requests at a time, 503 at once; a slot freed, 200 again."""
    held = []

    def hold():
        try:
            held.append(status(url, "GET", "/events?tenant=3&wait=8"))
        except (OSError, http.client.HTTPException) as e:
            held.append(type(e).__name__)
    threads = [threading.Thread(target=hold) for _ in range(2)]
    for h in threads:
        h.start()
    # Both long polls wait, each in a session of the service's role.
    wait_for(lambda: srv.q(f"SELECT count(*) FROM pg_stat_activity WHERE usename = '{APP}'") == "2",
             "the two long polls' sessions", timeout=30)
    third = status(url, "GET", "/events?tenant=3")
    for h in threads:
        h.join()
    after = status(url, "GET", "/events?tenant=3")
    if third != 503 or held != [200, 200] or after != 200:
        fail(f"with --max-requests 2: a third request while two long polls waited was answered {third}; "
             f"the long polls {held}; a request once they ended {after}")
    ok("with --max-requests 2, a third request while two long polls wait is answered 503 at once; "
       "once they end, 200")


def slow_clients(url):
    """Clients that send a request slowly, or never: a POST whose body does
    not come holds no slot; connections beyond --max-connections are closed
    at once; a client that sends nothing is closed after --timeout."""
    host, port = url.split("//")[1].split(":")
    slow = []
    for _ in range(2):
        s = socket.create_connection((host, int(port)))
        s.sendall(b"POST /events HTTP/1.1\r\nContent-Length: 100\r\n\r\n")
        slow.append(s)
    while_posts_wait = status(url, "GET", "/events?tenant=3")
    for _ in range(4):
        s = socket.create_connection((host, int(port)))
        s.sendall(b"GET /events?tenant=3 HTTP/1.1\r\nHost: x\r\n")
        slow.append(s)
    beyond = status_or_error(url)
    answers = []
    wait_for(lambda: answers.append(status_or_error(url)) or answers[-1] == 200,
             "a request to be answered once the slow clients' 2 s ran out", timeout=20, why=lambda: answers)
    for s in slow:
        s.close()
    if while_posts_wait != 200 or beyond not in ("RemoteDisconnected", "ConnectionResetError"):
        fail(f"with 2 POSTs waiting for their bodies, a GET was answered {while_posts_wait}; with 6 connections "
             f"open (--max-connections 6), a seventh got {beyond}, not closed")
    ok("two POSTs whose bodies never come hold no slot (a GET beside them: 200); with 6 connections open "
       f"(--max-connections 6) a seventh is closed at once ({beyond}); 2 s later (--timeout 2) the slow ones "
       "are closed and a request is answered 200")
    # A client that sends its request a byte every half second: within the
    # socket's timeout at each read, not within the request's.
    s = socket.create_connection((host, int(port)))
    t0, closed = time.monotonic(), None
    for ch in b"GET /events?tenant=3 HTTP/1.1\r\nHost: x\r\n" * 4:
        readable, _, _ = select.select([s], [], [], 0.5)
        try:
            if readable and s.recv(1) == b"":
                closed = time.monotonic() - t0
                break
            s.sendall(bytes([ch]))
        except OSError:
            closed = time.monotonic() - t0
            break
    s.close()
    if closed is None or closed > 5:
        fail(f"a request sent a byte every 0.5 s was not cut off within 5 s (--timeout 2): {closed}")
    ok(f"a request sent a byte every half second is cut off after {closed:.1f} s (--timeout 2: for the whole request)")


def big_pages(url, admin):
    """A page holds at most 1 MB of bodies (one event at least); the cursor goes on from its last."""
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("INSERT INTO events (tenant, body) SELECT 4, repeat(chr(65 + n % 26), 65536) "
                     "FROM generate_series(1, 30) n")
    cursor, pages, got = None, [], []
    while len(got) < 30 and len(pages) < 40:
        q = "/events?tenant=4&wait=10" + (f"&after={cursor}" if cursor else "")
        with urllib.request.urlopen(url + q, timeout=60) as r:
            data = r.read()
        page = json.loads(data)
        pages.append(len(data))
        got += [e["body"] for e in page["events"]]
        cursor = page["cursor"]
    want = [chr(65 + n % 26) * 65536 for n in range(1, 31)]
    if got != want or max(pages) > 1024 * 1024 + 70_000:
        fail(f"tenant 4's 30 events of 64 kB came in pages of {pages} bytes, "
             f"{'in order' if got == want else 'not as written'}")
    ok(f"30 events of 64 kB come in pages of at most 1 MB of bodies ({len(pages)} pages, the largest "
       f"{max(pages):,} bytes), in order, each once")


def status_or_error(url):
    try:
        return status(url, "GET", "/events?tenant=3")
    except (ConnectionError, http.client.HTTPException) as e:
        return type(e).__name__


MALLORY = "feed_example_mallory"
OTHER_DB = "feed_example_b"


def refusals(srv):
    """setup makes nothing as a role that owns neither the database nor the
    extension, and takes no table events that is not the feed's."""
    srv.q(f"CREATE DATABASE {OTHER_DB}; CREATE ROLE {MALLORY} LOGIN")
    srv.q(f"CREATE EXTENSION uuid_ext; SELECT uuid_facade_key_create(); "
          f"GRANT CREATE ON SCHEMA public TO {APP}, {MALLORY}; "
          f"GRANT EXECUTE ON FUNCTION uuid_v7_to_facade(uuid, text) TO {APP}", db=OTHER_DB)
    admin, app = srv.conninfo(db=OTHER_DB), srv.conninfo(db=OTHER_DB, user=APP)
    said = {}

    def refused(who, dsn, why):
        r = subprocess.run([sys.executable, FEED, "setup", "--dsn", dsn], capture_output=True, text=True)
        said[who] = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.stdout.strip()
        if r.returncode == 0 or why not in r.stderr or "Traceback" in r.stderr:
            fail(f"feed.py setup {who}: exit {r.returncode}, said {r.stdout}{r.stderr} (not a refusal naming {why!r})")
    refused("as the service's role (which may CREATE in public), no table there", app,
            "only the database's owner or the extension's")
    if srv.q("SELECT to_regclass('events') IS NULL", db=OTHER_DB) != "t":
        fail("a refused setup made the table events")
    srv.q("CREATE TABLE events (id bigserial PRIMARY KEY, tenant int, body text)", db=OTHER_DB)
    refused("over a table events of another shape", admin, "its columns are id bigint")
    srv.q("DROP TABLE events", db=OTHER_DB)
    def as_mallory(sql):
        with psycopg.connect(srv.conninfo(db=OTHER_DB, user=MALLORY), autocommit=True) as conn:
            conn.execute(sql)
    as_mallory(SETUP_SQL)
    # Hers, with a function that would answer setup's check (an exact
    # match of array_remove() beats pg_catalog's polymorphic one) and
    # tells her whose rights it ran with.
    as_mallory("CREATE TABLE public.ran (who text); GRANT INSERT ON public.ran TO PUBLIC; "
               "CREATE FUNCTION public.array_remove(text[], text) RETURNS text[] LANGUAGE sql "
               "AS $$ INSERT INTO public.ran VALUES (current_user) RETURNING NULL::text[] $$")
    refused("over the feed's table made by another role, with her array_remove() on the path", admin,
            f"it belongs to {MALLORY}")
    if srv.q("SELECT count(*) FROM public.ran", db=OTHER_DB) != "0":
        fail("setup ran a function another role planted on its search_path")
    as_mallory("DROP TABLE events; DROP FUNCTION events_notify()")
    srv.q(SETUP_SQL + "ALTER TABLE events DISABLE TRIGGER events_notify", db=OTHER_DB)
    refused("over the feed's table with its trigger disabled", admin, "its triggers are not")
    ok("feed.py setup refuses, saying why, making nothing and running nothing of another role's: " + "; ".join(f"{k}: {v}" for k, v in said.items()))


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def no_key_logged(srv, log_from, dsn, admin):
    """With every statement of the service's role logged, their parameters
    too, no event's key is in the server's log (a key passed as a parameter
    is: the control)."""
    with psycopg.connect(admin, autocommit=True) as conn:
        keys = {str(k) for k, in conn.execute("SELECT id FROM events")}
    control = sorted(keys)[0]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT %s::uuid IS NOT NULL AS feed_example_control", (control,))
    with open(srv.log, "rb") as f:
        f.seek(log_from)
        text = f.read().decode("utf-8", "replace")
    pages = text.count("uuid_v7_to_facade(id")
    if control not in UUID.findall(text) or not pages:
        fail(f"the server's log shows {pages} of the service's statements, and the control key "
             f"{'in' if control in text else 'not in'} its parameters: the search proves nothing")
    leaked = (set(UUID.findall(text)) & keys) - {control}
    if leaked:
        fail(f"{len(leaked)} of the events' keys are in the server's log, e.g. {sorted(leaked)[0]}")
    ok(f"with log_statement = all for the service's role ({pages} statements of it in the server's log, with their "
       f"parameters), none of the {len(keys) - 1} events' keys is in the log; a key passed as a parameter is")


def leftovers(srv):
    """Drops what a run of this test leaves (its prepared transactions first)."""
    if srv.q(f"SELECT 1 FROM pg_database WHERE datname = '{DB}'"):
        for gid in srv.q(f"SELECT gid FROM pg_prepared_xacts WHERE database = '{DB}'", db=DB).split():
            srv.q(f"ROLLBACK PREPARED '{gid}'", db=DB)
    srv.q(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    srv.q(f"DROP DATABASE IF EXISTS {OTHER_DB} WITH (FORCE)")
    srv.q(f"DROP ROLE IF EXISTS {APP}")
    srv.q(f"DROP ROLE IF EXISTS {MALLORY}")


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
