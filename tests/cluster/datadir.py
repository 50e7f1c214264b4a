"""The data directory as initdb may make it: group access, and a path that is not UTF-8.

docs/operations.md#what-a-dba-should-know:

- group access: in a cluster made with `initdb -g` (its data directory
  0750) PostgreSQL creates its files 0640, so that a backup tool running as
  the group can read them; the horizon file `uuid_ext.horizon` gets the mode
  PostgreSQL gives its own `postmaster.pid`, when the first UUIDs write it
  and when a clean stop writes it again. Without group access both are 0600.
- a path with a byte that is no UTF-8 (0xE9, Latin-1's é) in the data
  directory's name: every UUIDv7 and UUIDv6 is made, the horizon file is
  written in that directory, and after a restart new keys sort above the
  old ones.

Starts its own servers, preloading uuid_ext. The second part is skipped
where the file system refuses such a name.
"""
import os
import stat

from harness import Skip
from pg import GENERATORS, fail, horizon_words, ok, persisted, uuid_int

PRELOAD = "shared_preload_libraries = 'uuid_ext'"


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def group_access(t):
    seen = []
    for group in (False, True):
        srv = t.server("group-access" if group else "owner-only")
        srv.initdb(PRELOAD, initdb_args=("-g",) if group else ())
        srv.start()
        pid_file, horizon = (os.path.join(srv.data, f) for f in ("postmaster.pid", "uuid_ext.horizon"))
        want = 0o640 if group else 0o600
        if mode(pid_file) != want:
            fail(f"initdb{' -g' if group else ''}: PostgreSQL made postmaster.pid {mode(pid_file):o}, not {want:o}")
        srv.q("CREATE EXTENSION uuid_ext; SELECT uuid_generate_v7(), uuid_generate_v6()")
        if not os.path.exists(horizon):
            fail("the first UUIDs wrote no horizon file")
        if mode(horizon) != mode(pid_file):
            fail(f"initdb{' -g' if group else ''}: uuid_ext.horizon is {mode(horizon):o}, postmaster.pid "
                 f"{mode(pid_file):o}: the horizon file does not follow the cluster's mode")
        srv.stop()
        if mode(horizon) != want:
            fail(f"initdb{' -g' if group else ''}: rewritten at the clean stop, uuid_ext.horizon is "
                 f"{mode(horizon):o}, not {want:o}")
        seen.append(f"{'with' if group else 'without'} group access (data directory {mode(srv.data):o}) "
                    f"{want:o}")
    ok("uuid_ext.horizon has postmaster.pid's mode, when the first UUIDs write it and when a clean stop "
       f"rewrites it: {'; '.join(seen)}")


def not_utf8(t):
    # Python keeps a byte that is no UTF-8 in a str as a lone surrogate
    # (surrogateescape), and passes it to the system as the byte again.
    name = "data-caf\udce9"
    probe = t.path(name)
    try:
        os.mkdir(probe)
        os.rmdir(probe)
    except (OSError, UnicodeError) as e:
        raise Skip(f"this file system refuses a file name with the byte 0xE9, which is no UTF-8: {e}")
    srv = t.server("not-utf8")
    srv.initdb(PRELOAD, data_name=name)
    srv.start()
    # Nothing read back from the server names the path: its bytes are no UTF-8.
    srv.q("CREATE EXTENSION uuid_ext")
    before = {v: uuid_int(srv.q(f"SELECT {gen}")) for v, gen in GENERATORS.items()}
    horizon = os.path.join(srv.data, "uuid_ext.horizon")
    if not os.path.exists(horizon):
        fail("UUIDs were made, and no horizon file is in the data directory")
    on_disk = dict(zip((7, 6), horizon_words(srv.data)))
    for v in GENERATORS:
        if on_disk[v] < persisted(before[v]):
            fail(f"the horizon file's v{v} word {on_disk[v]:x} is below the UUID made {before[v]:032x}")
    srv.stop()
    srv.start()
    after = srv.least_new()
    srv.stop()
    for v in GENERATORS:
        if after[v] <= before[v]:
            fail(f"after a restart a UUIDv{v} sorts below one made before it: {after[v]:032x} <= {before[v]:032x}")
    warned = [line for line in open(srv.log, "rb").read().splitlines()
              if b"uuid_ext" in line and (b"WARNING" in line or b"ERROR" in line)]
    if warned:
        fail(f"the server log warns: {warned[:3]}")
    ok("in a data directory whose name has the byte 0xE9 (no UTF-8), UUIDv7 and UUIDv6 are made, the horizon "
       "file is written there and holds them, and after a restart new keys of both sort above the old ones")


def main(t):
    group_access(t)
    not_utf8(t)
