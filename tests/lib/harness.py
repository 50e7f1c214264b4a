"""What the runner (tests/run.py) hands each test: one `Test` object that
says which PostgreSQL, where to work, and gives it its servers.

A test is a function `main(t)`. It reports with `ok()` and `fail()` of
pg.py (a FAIL line, then SystemExit), and raises `Skip("why")` when it
cannot run here (a missing tool, not root); the runner counts each.
"""
import os
import shutil

from servers import Server, stop_leftovers


class Skip(Exception):
    """The test cannot run here; the message says why."""


class Run:
    """One run of the runner: the PostgreSQL installations under test, the
    machine, the work directory, and every server started, which it stops
    at the end."""

    def __init__(self, pgs, host, work, base_port=55400, outside="", packages=None, shared_tag=""):
        self.pgs = sorted(pgs, key=lambda p: (p.major, p.release))
        self.packages = packages  # the package layer's archives and .debs, when given
        self.host = host
        self.work = work
        self.outside = outside
        self.base_port = self._port = base_port
        self.shared_tag = shared_tag  # a runner's own shared server, beside another's (tests/run.py --jobs)
        self._servers = []
        self._shared = {}
        self.host.make_dir(work)

    def port(self):
        """A port number no other server of this run has. (Servers listen on
        Unix sockets in directories of their own; the number names the socket.)"""
        self._port += 1
        return self._port

    def shown(self, path):
        """`path` as a reader outside the chroot this run may be in finds it."""
        return self.outside + path if self.outside else path

    def started(self, srv):
        if srv not in self._servers:
            self._servers.append(srv)

    def server(self, pg, dir, name, clock=False, address_space=None):
        if clock and not self.host.faketime:
            raise Skip("needs libfaketime (Debian: apt install libfaketime), which moves the servers' clocks")
        if address_space and not shutil.which("prlimit"):
            raise Skip("needs prlimit (util-linux), which limits a server's address space")
        return Server(self.host, pg, name, dir, self.port(), clock=clock, address_space=address_space,
                      on_start=self.started)

    def shared(self, pg):
        """The server the layers of one PostgreSQL share: the library preloaded,
        prepared transactions allowed; started at the first call."""
        srv = self._shared.get(pg.pg_config)
        if srv is None or not srv.running():
            dir = os.path.join(self.work, f"shared-{pg.release}{self.shared_tag}")
            stop_leftovers(dir)
            srv = self.server(pg, dir, f"shared server {pg.release}")
            srv.create("shared_preload_libraries = 'uuid_ext'", "max_prepared_transactions = 64")
            self._shared[pg.pg_config] = srv
        return srv

    def test(self, pg, layer, name):
        return Test(self, pg, os.path.join(self.work, f"{layer}-{name}-{pg.release if pg else 'any'}"))

    def stop_all(self):
        for srv in reversed(self._servers):
            try:
                srv.stop_quietly()
            except SystemExit:
                pass
        self._servers.clear()
        self._shared.clear()


class Test:
    """One test's world: `pg` the PostgreSQL under test (an Installation),
    `dir` a fresh directory of its own, `pgs` every PostgreSQL of the run,
    `host` how servers run here."""

    def __init__(self, run, pg, dir):
        self.run = run
        self.pg = pg
        self.pgs = run.pgs
        self.host = run.host
        self.dir = dir
        stop_leftovers(dir)
        shutil.rmtree(dir, ignore_errors=True)
        self.host.make_dir(dir)

    def server(self, name, pg=None, clock=False, address_space=None):
        """A new server `name` (not yet made: `initdb`, `create`), in a
        directory of its own under this test's; `pg` another PostgreSQL of
        the run; `clock=True` under libfaketime (else Skip), the wall clock
        only, `clock="both"` the monotonic clock too; `address_space=BYTES`
        its postmaster under that limit (else Skip where prlimit is missing)."""
        return self.run.server(pg or self.pg, os.path.join(self.dir, name), name, clock=clock,
                               address_space=address_space)

    def shared(self):
        """The preloaded server this PostgreSQL's layers share."""
        return self.run.shared(self.pg)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def tidy(self):
        """Removes this test's directory (its servers stopped): a test that
        passed or was skipped leaves nothing behind, so a whole run needs the
        disk of its largest test, not of all of them (CONTRIBUTING.md)."""
        if os.environ.get("UUID_EXT_TEST_KEEP"):
            return
        stop_leftovers(self.dir)
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def dumps(self):
        """A directory kept across the run's tests and PostgreSQL versions
        (and across runs: scripts/test carries it into the chroot)."""
        d = os.path.join(self.run.work, "dumps")
        self.host.make_dir(d)
        return d

    def need(self, condition, reason):
        if not condition:
            raise Skip(reason)
