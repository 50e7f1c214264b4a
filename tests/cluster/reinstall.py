"""A server preloading the library, its horizon worker and an open session live across a reinstall.

CONTRIBUTING.md, "Installing without stopping servers": a server that
preloads uuid_ext maps uuid_ext.so in every process. A reinstall that wrote
over that file in place would change the code under them (a horizon worker
once died of SIGBUS so). The test runner's install (tests/lib/extension.py)
renames a new file into place instead, as dpkg does. Here, with a session
open and drawing keys and the horizon worker running:

- the reinstall gives the path a new file (another inode), and every server
  process still maps the old one, now unlinked: nothing wrote into it;
- the postmaster, the horizon worker and the open session are the same
  processes after it, the session's keys go on increasing, and a new
  session gets keys above all of them;
- the server log has no crash.

Starts its own server preloading the library, and reinstalls the library
with extension.install (a cargo pgrx build): it needs cargo-pgrx and a
PostgreSQL whose directories this user may write (else it is skipped).
"""
import os

import extension
from harness import Skip
from pg import HORIZON_WORKER, fail, horizon_worker, ok


def mapped(pid, path):
    """(device:inode, deleted) of `path` as process `pid` maps it, or None."""
    for line in open(f"/proc/{pid}/maps"):
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[5].strip().startswith(path):
            return int(fields[4]), fields[5].strip().endswith("(deleted)")
    return None


def draw(p, n):
    """n keys drawn in the open session `p`, as text."""
    p.stdin.write(f"SELECT uuid_generate_v7() FROM generate_series(1, {n});\n\\echo @@\n")
    p.stdin.flush()
    out = []
    while (line := p.stdout.readline().strip()) != "@@":
        if not line:
            fail("the open session ended")
        out.append(line)
    return out


def main(t):
    t.need(t.pg.writable(), f"reinstalls the library into {t.pg.pkglibdir}, which this user may not write")
    try:
        extension.check_tools()
    except extension.BuildError as e:
        raise Skip(f"reinstalls the library, which needs a build: {e}")
    srv = t.server("reinstall").create("shared_preload_libraries = 'uuid_ext'")
    lib = os.path.realpath(os.path.join(t.pg.pkglibdir, "uuid_ext.so"))
    srv.q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    postmaster = int(open(os.path.join(srv.data, "postmaster.pid")).readline())
    worker = horizon_worker(srv)
    p = srv.session()
    p.stdin.write("SELECT pg_backend_pid();\n\\echo @@\n")
    p.stdin.flush()
    backend = int(p.stdout.readline())
    p.stdout.readline()
    before = draw(p, 1000)
    inode_before = os.stat(lib).st_ino
    for pid in (postmaster, worker, backend):
        m = mapped(pid, lib)
        if m is None or m[0] != inode_before or m[1]:
            fail(f"process {pid} does not map {lib} (inode {inode_before}) before the reinstall: {m}")

    try:
        extension.install(t.pg, t.dir)
    except extension.BuildError as e:
        fail(f"the reinstall failed:\n{e}")

    inode_after = os.stat(lib).st_ino
    if inode_after == inode_before:
        fail(f"the reinstall wrote into {lib} in place (inode {inode_before} kept): a server mapping it could crash")
    for pid in (postmaster, worker, backend):
        m = mapped(pid, lib)
        if m is None or m[0] != inode_before or not m[1]:
            fail(f"process {pid} should still map the old, unlinked {lib} (inode {inode_before}): {m}")
    ok(f"the reinstall renamed a new {os.path.basename(lib)} into place (inode {inode_before} -> {inode_after}); "
       "the postmaster, the horizon worker and an open session still map the old file, unlinked")

    after = draw(p, 1000)
    keys = before + after
    if keys != sorted(keys) or len(set(keys)) != len(keys):
        fail("the open session's keys do not strictly increase across the reinstall")
    p.stdin.write("\\q\n")
    p.stdin.flush()
    p.wait()
    now_postmaster = int(open(os.path.join(srv.data, "postmaster.pid")).readline())
    now_worker = int(srv.q(HORIZON_WORKER) or 0)
    if (now_postmaster, now_worker) != (postmaster, worker):
        fail(f"the postmaster or the horizon worker restarted: {postmaster}, {worker} -> {now_postmaster}, {now_worker}")
    fresh = srv.q("SELECT uuid_generate_v7()")
    if fresh <= keys[-1]:
        fail(f"a new session's key {fresh} is not above the open session's last {keys[-1]}")
    log = srv.log_text()
    for bad in ("terminated by signal", "server process", "Bus error"):
        if bad in log:
            fail(f"the server log says {bad!r}:\n{log[-2000:]}")
    ok(f"the postmaster ({postmaster}) and the horizon worker ({worker}) live on; 2000 keys of one open session "
       "strictly increase across the reinstall, and a new session's key is above them; no crash in the log")
