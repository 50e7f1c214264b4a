#!/usr/bin/env python3
"""A running server across a reinstall of the library (CONTRIBUTING.md,
"Installing without stopping servers").

A server that preloads uuid_ext maps uuid_ext.so in every process. A
reinstall that wrote over that file in place would change the code under
them (a horizon worker once died of SIGBUS so). scripts/lib.sh's install_ext
renames a new file into place instead, as dpkg does. Here, with
a session open and drawing keys and the horizon worker running:

- the reinstall gives the path a new file (another inode), and every server
  process still maps the old one, now unlinked: nothing wrote into it;
- the postmaster, the horizon worker and the open session are the same
  processes after it, the session's keys go on increasing, and a new
  session gets keys above all of them;
- the server log has no crash.

Needs PSQL, PGDATA (the cluster's, running with the library preloaded),
PG_MAJOR and LIB_SH (scripts/lib.sh, whose install_ext reinstalls).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))  # tests/lib: pg, servers
from pg import fail, ok, q, session  # noqa: E402

DATA = os.environ["PGDATA"]
MAJOR = os.environ["PG_MAJOR"]
LIB_SH = os.environ["LIB_SH"]


def pkglibdir():
    pg_config = os.path.join(os.path.dirname(os.environ["PSQL"]), "pg_config")
    return subprocess.run([pg_config, "--pkglibdir"], capture_output=True, text=True, check=True).stdout.strip()


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


def main():
    lib = os.path.realpath(os.path.join(pkglibdir(), "uuid_ext.so"))
    q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    postmaster = int(open(os.path.join(DATA, "postmaster.pid")).readline())
    worker = q("SELECT pid FROM pg_stat_activity WHERE backend_type = 'uuid_ext horizon worker'")
    if not worker:
        fail("no horizon worker runs")
    worker = int(worker)
    p = session("")
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

    r = subprocess.run(["bash", "-c", 'set -euo pipefail; . "$0"; install_ext "$1"', LIB_SH, MAJOR],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"the reinstall failed:\n{r.stdout}{r.stderr}")

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
    now_postmaster = int(open(os.path.join(DATA, "postmaster.pid")).readline())
    now_worker = int(q("SELECT pid FROM pg_stat_activity WHERE backend_type = 'uuid_ext horizon worker'") or 0)
    if (now_postmaster, now_worker) != (postmaster, worker):
        fail(f"the postmaster or the horizon worker restarted: {postmaster}, {worker} -> {now_postmaster}, {now_worker}")
    fresh = q("SELECT uuid_generate_v7()")
    if fresh <= keys[-1]:
        fail(f"a new session's key {fresh} is not above the open session's last {keys[-1]}")
    log = open(os.path.join(os.path.dirname(DATA), "server.log")).read()
    for bad in ("terminated by signal", "server process", "Bus error"):
        if bad in log:
            fail(f"the server log says {bad!r}:\n{log[-2000:]}")
    ok(f"the postmaster ({postmaster}) and the horizon worker ({worker}) live on; 2000 keys of one open session "
       "strictly increase across the reinstall, and a new session's key is above them; no crash in the log")


if __name__ == "__main__":
    main()
