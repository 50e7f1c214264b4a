"""The library built against one minor's headers in a server of another
minor of the same major (docs/operations.md#installing).

The packages are built against the oldest minor a machine has and declare
it as their oldest: built so, the library is loaded into a server of a later
minor (15.18's build in 15.20's server, 16.2's in 16.14's), the golden tests
pass, and uuid_ext_info() names both the server and the headers. The other
way round is no promise (a later minor's headers may need a function an
earlier minor lacks: 16.14's do): the earlier server either passes the golden
tests too or refuses the library at start with an undefined symbol, nothing
worse.

Given two installations of one major (`t.pair`: older, newer), each with its
own build installed (the runner's); every file is renamed into place, and
each server gets its own build back at the end.
"""
import glob
import os
import re
import shutil

import extension
import regress
from pg import fail, ok

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ext_files(pg):
    """The extension files of pg's own build (not the earlier releases' scripts beside them)."""
    control = os.path.join(pg.extension_dir, "uuid_ext.control")
    default = re.search(r"^default_version = '([^']+)'", open(control).read(), re.M).group(1)
    return [control, os.path.join(pg.extension_dir, f"uuid_ext--{default}.sql"),
            *glob.glob(os.path.join(pg.extension_dir, "uuid_ext--*--*.sql"))]


def save(pg, dir):
    """A copy of pg's own build: its library and its extension files."""
    os.makedirs(dir)
    shutil.copy2(os.path.join(pg.pkglibdir, "uuid_ext.so"), dir)
    for f in ext_files(pg):
        shutil.copy2(f, dir)


def put(saved, pg):
    """Renames the build saved in `saved` into pg's directories."""
    for f in os.listdir(saved):
        dest = os.path.join(pg.pkglibdir if f.endswith(".so") else pg.extension_dir, f)
        extension.place(os.path.join(saved, f), dest, 0o755 if f.endswith(".so") else 0o644)


def main(t):
    old, new = t.pair
    t.need(old.writable() and new.writable(), "swaps the libraries of both servers: needs to write into both")
    mine = {old.pg_config: t.path("build-of-old"), new.pg_config: t.path("build-of-new")}
    save(old, mine[old.pg_config])
    save(new, mine[new.pg_config])
    try:
        # Swap: each server gets the other minor's build.
        put(mine[old.pg_config], new)
        put(mine[new.pg_config], old)
        for pg, other in ((new, old), (old, new)):
            srv = t.server(f"server-{pg.release}", pg=pg)
            srv.initdb("shared_preload_libraries = 'uuid_ext'", "max_prepared_transactions = 64")
            if not srv.start(check=False):
                symbol = re.search(r"could not load library .*uuid_ext\.so.*(undefined symbol: \w+)", srv.log_text())
                if pg is old and symbol:
                    ok(f"server {old.release} refuses at start the library built with the headers of "
                       f"{new.release} (no promise): {symbol.group(1)}")
                    continue
                fail(f"{pg.release} with the library built for {other.release} did not start:\n{srv.log_tail()}")
            if regress.run(t, srv, os.path.join(ROOT, "tests", "pg_regress"), where=f"regress-{pg.release}"):
                fail(f"the golden tests fail in {pg.release} with the library built for {other.release}")
            server = srv.q("SELECT current_setting('server_version')")
            headers = srv.q("CREATE EXTENSION IF NOT EXISTS uuid_ext; SELECT uuid_ext_info() ->> 'built_for'")
            srv.stop()
            if headers.split()[0] != other.release or server.split()[0] != pg.release:
                fail(f"the library in {server} was built with the headers of {headers}, not of {other.release}")
            ok(f"server {server}, library built with the headers of {headers}: the golden tests pass")
    finally:
        put(mine[new.pg_config], new)
        put(mine[old.pg_config], old)
