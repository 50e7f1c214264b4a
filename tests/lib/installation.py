"""A PostgreSQL installation, as its pg_config describes it: where its
programs, libraries and extension files are, and which release it is."""
import os
import re
import subprocess


class Installation:
    """The PostgreSQL whose pg_config is `pg_config`."""

    def __init__(self, pg_config):
        self.pg_config = os.path.abspath(pg_config)
        if not os.access(self.pg_config, os.X_OK):
            raise ValueError(f"{pg_config}: no such program")
        self.bindir = self._ask("--bindir")
        self.pkglibdir = self._ask("--pkglibdir")
        self.sharedir = self._ask("--sharedir")
        self.extension_dir = os.path.join(self.sharedir, "extension")
        # "PostgreSQL 15.20 (Debian 15.20-0+deb12u1)" -> 15.20; 19rc1, 18beta2.
        said = self._ask("--version")
        m = re.match(r"PostgreSQL (\d+)(\S*)", said)
        if not m:
            raise ValueError(f"{pg_config} --version says {said!r}")
        self.release = m.group(1) + m.group(2)
        self.major = int(m.group(1))

    def _ask(self, flag):
        r = subprocess.run([self.pg_config, flag], capture_output=True, text=True)
        if r.returncode != 0:
            raise ValueError(f"{self.pg_config} {flag} failed: {r.stderr.strip()}")
        return r.stdout.strip()

    def tool(self, name):
        """The path of one of its programs (psql, initdb, pg_ctl, pg_dump, ...)."""
        return os.path.join(self.bindir, name)

    @property
    def pg_regress(self):
        """pg_regress, as PGXS installs it beside the build files."""
        pgxs = self._ask("--pgxs")
        return os.path.normpath(os.path.join(os.path.dirname(pgxs), "..", "test", "regress", "pg_regress"))

    def has(self, *tools):
        return all(os.access(self.tool(t), os.X_OK) for t in tools)

    def writable(self):
        """True when this process may put files where the server loads them."""
        return all(os.access(d, os.W_OK) for d in (self.pkglibdir, self.extension_dir))

    def __str__(self):
        return f"PostgreSQL {self.release} ({self.pg_config})"
