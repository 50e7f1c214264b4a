"""What the tests share that is no server: `ok` and `fail` lines, waiting,
libfaketime's clock file, killing a server outright, the fields of the
UUIDs uuid_ext makes. Servers, and psql against them, are servers.py's."""
import os
import re
import signal
import subprocess
import sys
import time


def set_clock(path, spec):
    """Writes libfaketime's clock file `path` (FAKETIME_TIMESTAMP_FILE, which
    a server under FAKETIME_NO_CACHE reads at every clock call) atomically:
    a file of its own, renamed over it, so that no server ever reads it empty
    or half-written (a newer libfaketime stops the server on a time it cannot
    parse)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(spec + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def wait_for(pred, what, timeout=120, why=None):
    """Waits until `pred()` is true, at most `timeout` seconds (a machine
    running other tests and builds beside this one is slow to do anything);
    else fails, saying what it waited for, and what `why()` says."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        if pred():
            return
        time.sleep(0.1)
    fail(f"timed out after {timeout} s waiting for {what}" + (f": {why()}" if why else ""))


def run_for(seconds, *groups):
    """Starts the threads of every group ((threads, stop event) pairs), lets
    them run `seconds`, then stops the groups in the order given, each one's
    threads ended before the next is told to stop (writers, then what
    resolves their prepared transactions, then the readers)."""
    for threads, _ in groups:
        for th in threads:
            th.start()
    time.sleep(seconds)
    for threads, stop in groups:
        stop.set()
        for th in threads:
            th.join()


HORIZON_WORKER = "SELECT pid FROM pg_stat_activity WHERE backend_type = 'uuid_ext horizon worker'"


def horizon_worker(srv, db="postgres", timeout=60):
    """The pid of `srv`'s horizon worker, once it shows in pg_stat_activity:
    the postmaster starts it after the server accepts connections, and it
    registers a moment later (on a busy machine, later than a first query)."""
    found = []
    wait_for(lambda: found.append(srv.q(HORIZON_WORKER, db=db)) or found[-1] != "",
             f"{srv.name}'s horizon worker to show in pg_stat_activity", timeout)
    return int(found[-1])


def kill_server(data):
    """SIGKILL to the postmaster of data directory `data` and every process
    it started, at once: no exit callback runs, nothing is written at the end."""
    pid = int(open(os.path.join(data, "postmaster.pid")).readline())
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    procs = [pid, *map(int, children)]
    for p in procs:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    wait_for(lambda: all(not os.path.exists(f"/proc/{p}") for p in procs), "every server process to die")


def horizon_words(data):
    """The v7 and v6 limits the horizon file in data directory `data` holds:
    the v7 word, and the v6 word's 60-bit time (see persisted())."""
    text = open(os.path.join(data, "uuid_ext.horizon")).read()
    m = re.search(r"^v7 ([0-9a-f]{16}) .*\nv6 ([0-9a-f]{16}) ", text, re.M)
    if not m:
        fail(f"the horizon file of {data} is not as expected:\n{text}")
    return int(m.group(1), 16), int(m.group(2), 16)


GREGORIAN_TO_UNIX_100NS = 0x01B21DD213814000


def version(u):
    return (u >> 76) & 0xF


def v6_time(u):
    """The 60-bit time of a UUIDv6 (bits 0-47, 52-63): 100 ns since 1582-10-15."""
    return ((u >> 80) << 12) | ((u >> 64) & 0xFFF)


def word(u):
    """The sequencer's word of a UUID uuid_ext made. UUIDv7: 48-bit ms,
    12-bit fraction, 4-bit counter (bits 0-47, 52-63, 66-69). UUIDv6: the
    60-bit time, then the 4-bit counter within its tick at the top of
    clock_seq (bits 0-47, 52-63, 66-69)."""
    if version(u) == 6:
        return (v6_time(u) << 4) | ((u >> 58) & 0xF)
    ms = u >> 80
    fraction = (u >> 64) & 0xFFF
    counter = (u >> 58) & 0xF
    return (ms << 16) | (fraction << 4) | counter


def persisted(u):
    """What the horizon file and the WAL keep for the word of a UUID:
    UUIDv7 its word, UUIDv6 its 60-bit time (horizon_words() reads them)."""
    return v6_time(u) if version(u) == 6 else word(u)


def random_bits(u):
    """The random bits: UUIDv7's 58 (70-127); UUIDv6's 10 of the clock
    sequence after its counter, and the node (70-127, the node's multicast
    bit always 1)."""
    return u & ((1 << 58) - 1)


def unix_ms(u):
    """The Unix millisecond a UUIDv7 or UUIDv6 carries."""
    if version(u) == 6:
        return (v6_time(u) - GREGORIAN_TO_UNIX_100NS) // 10_000
    return u >> 80


# The generators the cluster tests run, by version.
GENERATORS = {7: "uuid_generate_v7()", 6: "uuid_generate_v6()"}


def parse(lines):
    """'n|uuid' lines -> list of uuid ints in n order."""
    rows = []
    for line in lines.splitlines():
        n, u = line.split("|")
        rows.append((int(n), int(u.replace("-", ""), 16)))
    rows.sort()
    return [u for _, u in rows]


def uuid_int(text):
    return int(text.replace("-", ""), 16)


def ok(msg):
    print(f"ok   {msg}", flush=True)


def fail(msg):
    print(f"FAIL {msg}", flush=True)
    sys.exit(1)


def must_fail(conn, sql, sqlstate, what="", params=None):
    """Runs `sql` (with `params`; a COPY ... TO STDOUT read to its end) on the
    psycopg connection `conn`: it must fail with `sqlstate`. Returns the
    error's text."""
    import psycopg
    where = f"{what + ': ' if what else ''}{sql}{f' with {params}' if params else ''}"
    try:
        if sql.startswith("COPY"):
            with conn.cursor().copy(sql) as copy:
                for _ in copy:
                    pass
        else:
            conn.execute(sql, params)
    except psycopg.Error as e:
        if e.sqlstate != sqlstate:
            fail(f"{where} failed with {e.sqlstate} ({e.diag.message_primary}), not {sqlstate}")
        return str(e)
    fail(f"{where} succeeded, not {sqlstate}")


def refused(srv, sql, *texts, db="postgres"):
    """Runs `sql` with psql on `srv`: it must fail, with every one of `texts`
    in its error. Returns the error."""
    r = srv.q(sql, db=db, check=False)
    if r.returncode == 0:
        fail(f"{srv.name} accepted: {sql}")
    for text in texts:
        if text not in r.stderr:
            fail(f"{sql}: the error does not say {text!r}:\n{r.stderr}")
    return r.stderr.strip()
