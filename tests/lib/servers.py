"""Servers a cluster test starts, stops, copies and kills itself: each one a
data directory run by the unprivileged user, on a Unix socket in its own
directory, its clock read by libfaketime from a file of its own.

Env: PGBIN (the bin directory of the PostgreSQL under test), UUID_EXT_USER,
FAKETIME_LIB (libfaketime's library).
"""
import os
import re
import shutil
import subprocess

from pg import GENERATORS, fail, kill_server, set_clock, wait_for

USER = os.environ.get("UUID_EXT_USER", "uuidext")


def as_user(args, check=True, cwd=None, env=None):
    """Runs a command as the server's user; returns the CompletedProcess."""
    r = subprocess.run(["sudo", "-u", USER, "-H", "--", "env", *(env or []), *args],
                       capture_output=True, text=True, cwd=cwd)
    if check and r.returncode != 0:
        fail(f"{' '.join(args)} failed:\n{r.stdout}{r.stderr}")
    return r


def make_dir(path):
    os.makedirs(path, exist_ok=True)
    shutil.chown(path, USER)


class Server:
    """One server: `dir/data` its data directory, `dir` its socket
    directory and log, `dir/clock` its libfaketime file."""

    def __init__(self, name, dir, port, bindir=None):
        self.name = name
        self.dir = dir
        self.data = os.path.join(dir, "data")
        self.port = port
        self.bindir = bindir or os.environ["PGBIN"]
        self.log = os.path.join(dir, "server.log")
        self.clock = os.path.join(dir, "clock")

    # --- making one ---------------------------------------------------------
    def fresh_dir(self):
        self.stop_quietly()
        shutil.rmtree(self.dir, ignore_errors=True)
        make_dir(self.dir)
        self.set_clock("+0")

    def initdb(self, *conf, initdb_args=()):
        self.fresh_dir()
        as_user([os.path.join(self.bindir, "initdb"), "-D", self.data, "-U", "postgres", "-A", "trust",
                 "-E", "UTF8", "--locale=C", "--no-sync", *initdb_args])
        self.configure(*conf)

    def configure(self, *conf):
        """Appends settings; the connection ones are always this server's."""
        lines = [f"port = {self.port}", "listen_addresses = ''", f"unix_socket_directories = '{self.dir}'",
                 "max_connections = 40", "log_min_messages = warning", *conf]
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("\n" + "\n".join(lines) + "\n")

    def set_clock(self, spec):
        set_clock(self.clock, spec)

    def env(self):
        return [f"LD_PRELOAD={os.environ['FAKETIME_LIB']}", f"FAKETIME_TIMESTAMP_FILE={self.clock}",
                "FAKETIME_NO_CACHE=1", "FAKETIME_DONT_FAKE_MONOTONIC=1"]

    # --- running it ---------------------------------------------------------
    def pg_ctl(self, *args):
        return as_user([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-w", "-t", "90", *args],
                       check=False, env=self.env())

    def start(self, check=True):
        r = self.pg_ctl("-l", self.log, "start")
        if check and r.returncode != 0:
            fail(f"{self.name} did not start:\n{r.stdout}{r.stderr}\n{self.log_tail()}")
        return r.returncode == 0

    def stop(self, mode="fast"):
        r = self.pg_ctl("-m", mode, "stop")
        if r.returncode != 0:
            fail(f"{self.name}: pg_ctl stop -m {mode} failed:\n{r.stdout}{r.stderr}")

    def stop_quietly(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self.pg_ctl("-m", "immediate", "stop")

    def running(self):
        return self.pg_ctl("status").returncode == 0

    def kill_all(self):
        """SIGKILL to the postmaster and every process it started, at once."""
        kill_server(self.data)

    def promote(self):
        r = self.pg_ctl("promote")
        if r.returncode != 0:
            fail(f"{self.name}: promote failed:\n{r.stdout}{r.stderr}\n{self.log_tail()}")
        wait_for(lambda: self.q("SELECT pg_is_in_recovery()") == "f", f"{self.name} to leave recovery")

    def log_text(self):
        try:
            return open(self.log).read()
        except FileNotFoundError:
            return "(no log)"

    def log_tail(self, n=3000):
        return self.log_text()[-n:]

    # --- talking to it ------------------------------------------------------
    def conninfo(self, db="postgres"):
        return f"host={self.dir} port={self.port} user=postgres dbname={db}"

    def q(self, sql, db="postgres", check=True):
        r = subprocess.run([os.path.join(self.bindir, "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                            "-h", self.dir, "-p", str(self.port), "-U", "postgres", "-d", db, "-f", "-"],
                           input=sql, text=True, capture_output=True)
        if check and r.returncode != 0:
            fail(f"{self.name}: query failed: {sql}\n{r.stderr}")
        return r.stdout.strip() if check else r

    def least_new(self, n=1_000):
        """The least of n new UUIDs of each version this server makes: {version: int}."""
        return {v: uuid_int(self.q(f"SELECT min(id::text) FROM (SELECT {gen} AS id FROM generate_series(1, {n})) s"))
                for v, gen in GENERATORS.items()}

    def base_backup(self, target, *args):
        """pg_basebackup of this server into `target` (a Server), as its user."""
        target.fresh_dir()
        as_user([os.path.join(self.bindir, "pg_basebackup"), "-h", self.dir, "-p", str(self.port),
                 "-U", "postgres", "-D", target.data, "--no-sync", "--checkpoint=fast", *args])
        # The copy carries this server's port and socket: the later lines win.
        target.configure()

    def wait_replayed(self, standby, timeout=60):
        """Until `standby` has replayed everything this server wrote so far."""
        lsn = self.q("SELECT pg_current_wal_lsn()")
        wait_for(lambda: standby.q(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn") == "t",
                 f"{standby.name} to replay up to {lsn}", timeout)


def uuid_int(text):
    return int(text.replace("-", ""), 16)


def version_max(server, table, column):
    """The greatest value of a uuid column, as an int (0 when empty)."""
    v = server.q(f"SELECT max({column}::text) FROM {table}")
    return uuid_int(v) if v else 0


def wal_rmgr_error(log):
    return re.search(r"resource manager with ID \d+ not registered", log)

