"""Every test server starts, is configured and stops here.

A server is a data directory of its own, `DIR/data`, listening only on a Unix
socket in `DIR`, its log in `DIR/server.log`. As an ordinary user the
servers run as that user; under root (PostgreSQL refuses to run as root) as
the project's user (`uuidext`, CONTRIBUTING.md). A server made with
`clock=True` reads its clock through libfaketime from the file `DIR/clock`,
which the test moves (`set_clock`): the wall clock only, or with
`clock="both"` the monotonic clock too (libfaketime's default, as a host
whose clocks are set wrong moves both); one made with `address_space=BYTES`
runs its postmaster, and so every process it starts, under that limit on
its address space (`prlimit --as`: a large allocation fails, as under
`vm.overcommit_memory = 2`); one started with `start_in_tmpfs` keeps
its data directory on a small tmpfs in a mount namespace of its own (a full
disk), which nothing outside it sees.

Tests get their servers from the runner's `Test` object (tests/lib/harness.py):
`t.server(name)` for a new one, `t.shared()` for the preloaded server the
layers of one PostgreSQL share. The command line below is for the scripts
that need a server and are no test (scripts/bench):

    python3 tests/lib/servers.py start --pg-config PATH --dir DIR --port N [--conf LINE ...]
    python3 tests/lib/servers.py stop|restart --pg-config PATH --dir DIR --port N
"""
import argparse
import fcntl
import hashlib
import os
import pwd
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from installation import Installation  # noqa: E402
from pg import GENERATORS, fail, kill_server, set_clock, uuid_int, wait_for  # noqa: E402

# libfaketime's library where Debian's libfaketime package puts it.
FAKETIME_LIBS = ("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
                 "/usr/lib/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1")
DEFAULT_USER = "uuidext"
# Data directories initdb made once per installation, copied for each server
# (initdb takes a second of CPU; a copy a tenth): a run makes hundreds.
TEMPLATES = os.environ.get("UUID_EXT_TEST_TEMPLATES", "/tmp/uuid_ext_test/initdb-templates")


class Host:
    """How this machine runs test servers: as whom, and with which libfaketime."""

    def __init__(self, user=None):
        self.root = os.geteuid() == 0
        # Under root, the project's user runs the servers; otherwise this one.
        self.user = (user or DEFAULT_USER) if self.root else None
        if self.user:
            try:
                pwd.getpwnam(self.user)
            except KeyError:
                raise SystemExit(f"running as root, the test servers run as the user {self.user}, who does not "
                                 "exist: scripts/setup makes it (or --user NAME names another)")
        self.faketime = next((p for p in FAKETIME_LIBS if os.path.exists(p)), None)

    def run(self, args, check=True, cwd=None, env=(), input=None):
        """Runs a command as the servers' user (VAR=value words in `env`);
        returns the CompletedProcess."""
        prefix = ["sudo", "-u", self.user, "-H", "--"] if self.user else []
        # A byte that is no UTF-8 (a path a test chose) stays a lone surrogate, as Python's own paths keep it.
        r = subprocess.run([*prefix, "env", *env, *args], capture_output=True, encoding="utf-8",
                           errors="surrogateescape", cwd=cwd, input=input)
        if check and r.returncode != 0:
            fail(f"{' '.join(args)} failed:\n{r.stdout}{r.stderr}")
        return r

    def make_dir(self, path):
        """A directory the servers' user owns (made if missing)."""
        os.makedirs(path, exist_ok=True)
        self.give(path)

    def give(self, path):
        """Makes `path` the servers' user's (under root; otherwise it is already ours)."""
        if self.user:
            shutil.chown(path, self.user, self.user)


class Server:
    """One server of PostgreSQL `pg` in `dir`, on `port`."""

    def __init__(self, host, pg, name, dir, port, clock=False, address_space=None, on_start=None):
        self.host, self.pg, self.name, self.dir, self.port = host, pg, name, dir, port
        self.address_space = address_space
        self.bindir = pg.bindir
        self.data = os.path.join(dir, "data")
        self.log = os.path.join(dir, "server.log")
        self.clock = os.path.join(dir, "clock")
        self.faked = clock
        self.in_tmpfs = False
        # Called once when the server first starts (the run's list of servers to stop).
        self._on_start = on_start

    # --- making one ---------------------------------------------------------
    def fresh_dir(self):
        self.stop_quietly()
        shutil.rmtree(self.dir, ignore_errors=True)
        self.host.make_dir(self.dir)
        if self.faked:
            self.set_clock("+0")

    def initdb(self, *conf, initdb_args=(), data_name=None):
        """A new data directory with `conf` appended to postgresql.conf;
        `data_name` its name in the server's directory (default data)."""
        self.fresh_dir()
        if data_name:
            self.data = os.path.join(self.dir, data_name)
        if initdb_args or data_name:  # what initdb itself makes is under test
            self.host.run([*self.initdb_command(self.data), *initdb_args])
        else:
            self.host.run(["cp", "-a", self.template(), self.data])
        # Test servers need no durability unless a test asks for it (fsync = on later wins).
        self.configure("fsync = off", *conf)
        return self

    def initdb_command(self, data):
        return [self.pg.tool("initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
                "--no-sync"]

    def template(self):
        """The data directory initdb makes for this installation with the
        options of initdb_command(), made once (a run's tests share it, one
        at a time under a lock) and kept while the server binary is the same."""
        postgres = os.path.realpath(self.pg.tool("postgres"))
        st = os.stat(postgres)
        key = hashlib.sha256(f"{postgres} {st.st_size} {st.st_mtime_ns}".encode()).hexdigest()[:16]
        self.host.make_dir(TEMPLATES)
        made = os.path.join(TEMPLATES, key)
        with open(made + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.exists(os.path.join(made, "PG_VERSION")):
                shutil.rmtree(made + ".new", ignore_errors=True)
                self.host.run(self.initdb_command(made + ".new"))
                os.rename(made + ".new", made)  # whole, or not there
        return made

    def create(self, *conf):
        """initdb, then start."""
        self.initdb(*conf)
        self.start()
        return self

    def configure(self, *conf):
        """Appends settings; the connection ones are always this server's."""
        lines = [f"port = {self.port}", "listen_addresses = ''", f"unix_socket_directories = '{self.dir}'",
                 "max_connections = 40", "log_min_messages = warning", *conf]
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("\n" + "\n".join(lines) + "\n")

    def set_clock(self, spec):
        """Moves this server's clock: `+1d`, `-2h`, `+0` (libfaketime's offsets)."""
        if not self.faked:
            fail(f"{self.name} was not made with clock=True: its clock cannot move")
        set_clock(self.clock, spec)

    def env(self):
        """The server's environment: libfaketime's, for a server with a clock."""
        if not self.faked:
            return []
        # No shared memory and no faked file times: libfaketime otherwise
        # locks one semaphore, shared by every process the server starts, for
        # each stat(); a process killed while it holds it (the tests kill
        # servers) leaves the next one waiting forever: an archive_command's
        # cp did, on 19rc1. Each process reads the clock file itself instead.
        env = [f"LD_PRELOAD={self.host.faketime}", f"FAKETIME_TIMESTAMP_FILE={self.clock}", "FAKETIME_NO_CACHE=1",
               "FAKETIME_DISABLE_SHM=1", "NO_FAKE_STAT=1"]
        return env if self.faked == "both" else [*env, "FAKETIME_DONT_FAKE_MONOTONIC=1"]

    # --- running it ---------------------------------------------------------
    def pg_ctl(self, *args):
        # pg_ctl starts the postmaster as its child: the limit passes on.
        limit = ["prlimit", f"--as={self.address_space}", "--"] if self.address_space else []
        return self.host.run([*limit, self.pg.tool("pg_ctl"), "-D", self.data, "-w", "-t", "90", *args],
                             check=False, env=self.env())

    def start(self, check=True):
        r = self.pg_ctl("-l", self.log, "start")
        if r.returncode == 0 and self._on_start:
            self._on_start(self)
        if check and r.returncode != 0:
            fail(f"{self.name} did not start:\n{r.stdout}{r.stderr}\n{self.log_tail()}")
        return r.returncode == 0

    def stop(self, mode="fast"):
        if self.in_tmpfs:
            return self.stop_tmpfs()
        r = self.pg_ctl("-m", mode, "stop")
        if r.returncode != 0:
            fail(f"{self.name}: pg_ctl stop -m {mode} failed:\n{r.stdout}{r.stderr}\n{self.log_tail()}")

    def stop_quietly(self):
        """Stops it if it runs, whatever state it is in."""
        if self.in_tmpfs:
            self.stop_tmpfs()
        elif os.path.exists(os.path.join(self.data, "postmaster.pid")):
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

    def postmaster_pid(self):
        """From the socket's lock file (the data directory may be out of sight)."""
        with open(os.path.join(self.dir, f".s.PGSQL.{self.port}.lock")) as f:
            return int(f.readline())

    # --- a full disk: the data directory on a tmpfs of its own ----------------
    def start_in_tmpfs(self, *conf, size="48m"):
        """initdb and start with the data directory on a `size` tmpfs mounted
        in a mount namespace of its own (the WAL outside it, in DIR/wal),
        alive as long as the server: from outside, the directory is empty.
        Under root `unshare -m`; as another user a user namespace that maps
        it to root for the mount, and back to itself for the server."""
        self.fresh_dir()
        self.host.make_dir(self.data)
        wal = os.path.join(self.dir, "wal")
        settings = "\n".join([f"port = {self.port}", "listen_addresses = ''",
                              f"unix_socket_directories = '{self.dir}'", "max_connections = 20", *conf])
        # What runs as the servers' user once the tmpfs is mounted, from a file
        # (no quoting through three shells).
        script = os.path.join(self.dir, "start-in-tmpfs.sh")
        with open(script, "w") as f:
            f.write(f"set -e\n{self.pg.tool('initdb')} -D {self.data} -X {wal} -U postgres -A trust -E UTF8 "
                    "--locale=C --no-sync >/dev/null\n"
                    f"cat >> {self.data}/postgresql.conf <<'CONF'\n{settings}\nCONF\n"
                    f"{self.pg.tool('pg_ctl')} -D {self.data} -l {self.log} -w -t 60 start >/dev/null\n")
        os.chmod(script, 0o644)
        mount = f"mount -t tmpfs -o size={size},mode=0700 uuid_ext_full {self.data}"
        if self.host.user:
            outer = f"set -e; {mount}; chown {self.host.user} {self.data}; exec sudo -u {self.host.user} -H sh {script}"
            attempts = [["unshare", "-m", "--propagation", p, "sh", "-c", outer] for p in ("private", "unchanged")]
        else:
            inner = f"exec unshare --map-user={os.getuid()} --map-group={os.getgid()} sh {script}"
            attempts = [["unshare", "--map-root-user", "--mount", "sh", "-c", f"set -e; {mount}; {inner}"]]
        for cmd in attempts:
            # Private, so the mount never reaches the machine's namespace. In a
            # chroot whose root is no mount point propagation cannot be changed
            # (EINVAL): there the namespace the chroot runs in is private already.
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode == 0 or "propagation" not in r.stderr:
                break
        if r.returncode != 0:
            fail(f"the tmpfs server did not start:\n{r.stdout}{r.stderr}\n{self.log_tail()}")
        self.in_tmpfs = True
        if self._on_start:
            self._on_start(self)

    def stop_tmpfs(self):
        """Fast shutdown by signal (pg_ctl cannot see the data directory)."""
        try:
            pid = self.postmaster_pid()
        except FileNotFoundError:
            return
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:
            return
        wait_for(lambda: not os.path.exists(f"/proc/{pid}"), f"{self.name} to stop")

    # --- its log ------------------------------------------------------------
    def log_text(self):
        try:
            return open(self.log).read()
        except FileNotFoundError:
            return "(no log)"

    def log_tail(self, n=3000):
        return self.log_text()[-n:]

    def log_size(self):
        return os.path.getsize(self.log)

    # --- talking to it ------------------------------------------------------
    def conninfo(self, db="postgres", user="postgres"):
        return f"host={self.dir} port={self.port} user={user} dbname={db}"

    def libpq_env(self):
        """libpq's variables naming this server, for client programs (drivers in other languages)."""
        return {"PGHOST": self.dir, "PGPORT": str(self.port), "PGUSER": "postgres"}

    def psql(self, db="postgres"):
        """psql's command line for database `db`: quiet, unaligned, stop at the first error."""
        return [self.pg.tool("psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                "-h", self.dir, "-p", str(self.port), "-U", "postgres", "-d", db]

    def q(self, sql, db="postgres", check=True):
        """Runs SQL (any length, sent on stdin) in one session; returns what it
        printed (unaligned, tuples only), or with check=False the CompletedProcess."""
        r = subprocess.run([*self.psql(db), "-f", "-"], input=sql, text=True, capture_output=True)
        if check and r.returncode != 0:
            fail(f"{self.name}: query failed: {sql[:2000]}\n{r.stderr}")
        return r.stdout.strip() if check else r

    def fresh(self, db):
        """An empty database `db`, dropped first if it exists."""
        self.q(f"DROP DATABASE IF EXISTS {db}")
        self.q(f"CREATE DATABASE {db}")

    def session(self, db="postgres"):
        """A psql session reading its statements from its stdin: the Popen."""
        return subprocess.Popen(self.psql(db), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def start_script(self, script, db="postgres"):
        """A psql session running `script` in the background: the Popen (see finish)."""
        p = self.session(db)
        p.stdin.write(script)
        p.stdin.close()
        return p

    def least_new(self, n=1_000):
        """The least of n new UUIDs of each version this server makes: {version: int}."""
        return {v: uuid_int(self.q(f"SELECT min(id::text) FROM (SELECT {gen} AS id FROM generate_series(1, {n})) s"))
                for v, gen in GENERATORS.items()}

    def features(self):
        """What the server has that a golden test may depend on, as words:
        `core:NAME` for each of core's UUID functions in pg_catalog,
        `cast:uuid:bytea` where core casts uuid to bytea (19 on),
        `interval:infinity` where intervals may be infinite (17 on), and
        `extension:NAME` for each extension it can install."""
        infinite = self.q("SELECT 'infinity'::interval", check=False).returncode == 0
        return ({"interval:infinity"} if infinite else set()) | set(self.q("""
            SELECT 'core:' || proname FROM pg_catalog.pg_proc
             WHERE pronamespace = 'pg_catalog'::regnamespace
               AND proname IN ('uuid_extract_timestamp', 'uuid_extract_version', 'uuidv7', 'uuidv4')
            UNION SELECT 'cast:uuid:bytea' FROM pg_catalog.pg_cast
             WHERE castsource = 'pg_catalog.uuid'::regtype AND casttarget = 'pg_catalog.bytea'::regtype
            UNION SELECT 'extension:' || name FROM pg_catalog.pg_available_extensions""").split())

    # --- copies and standbys ----------------------------------------------------
    def base_backup(self, target, *args):
        """pg_basebackup of this server into `target` (a Server), as the servers' user."""
        target.fresh_dir()
        self.host.run([self.pg.tool("pg_basebackup"), "-h", self.dir, "-p", str(self.port), "-U", "postgres",
                       "-D", target.data, "--no-sync", "--checkpoint=fast", *args])
        # The copy carries this server's port and socket: the later lines win.
        target.configure()

    def archive_current_wal(self, archive):
        """Switches to a new WAL segment and waits until the one before is in
        `archive` (this server's archive_command copies there)."""
        segment = self.q("SELECT pg_walfile_name(pg_current_wal_lsn())")
        self.q("SELECT pg_switch_wal()")
        wait_for(lambda: os.path.exists(os.path.join(archive, segment)), f"{segment} to be archived",
                 timeout=300, why=lambda: self.q("SELECT row_to_json(a) FROM pg_stat_archiver a", check=False).stdout)

    def recover_from(self, archive, *conf):
        """Makes this copy (a base backup, not running) recover through the
        WAL in `archive` at its next start, then be promoted; `conf` adds a
        recovery target. It archives nothing itself: a promoted copy would
        put its new timeline's files into the archive it reads."""
        self.configure("archive_mode = off", f"restore_command = 'cp {archive}/%f %p'",
                       "recovery_target_action = 'promote'", *conf)
        open(os.path.join(self.data, "recovery.signal"), "w").close()

    def wait_replayed(self, standby, timeout=60):
        """Until `standby` has replayed everything this server wrote so far."""
        lsn = self.q("SELECT pg_current_wal_lsn()")
        wait_for(lambda: standby.q(f"SELECT pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn") == "t",
                 f"{standby.name} to replay up to {lsn}", timeout)


def stop_leftovers(dir):
    """Stops the servers an earlier, interrupted run left running under `dir`
    (their postmaster.pid, or a socket's lock file where the data directory
    is out of sight), before the directory is emptied."""
    pids = set()
    for root, dirs, files in os.walk(dir):
        for f in files:
            if f == "postmaster.pid" or (f.startswith(".s.PGSQL.") and f.endswith(".lock")):
                try:
                    pids.add(int(open(os.path.join(root, f)).readline()))
                except (OSError, ValueError):
                    pass
    for pid in pids:
        try:
            if not open(f"/proc/{pid}/comm").read().startswith(("postgres", "postmaster")):
                continue
            os.kill(pid, signal.SIGQUIT)
        except (OSError, ProcessLookupError):
            continue
        wait_for(lambda: not os.path.exists(f"/proc/{pid}"), f"the left-over server {pid} to stop")


def finish(p):
    """What a session of start_script printed, once it ends; FAIL if it failed."""
    out = p.stdout.read()
    err = p.stderr.read()
    if p.wait() != 0:
        fail(f"session failed:\n{err}")
    return out


def version_max(server, table, column):
    """The greatest value of a uuid column, as an int (0 when empty)."""
    v = server.q(f"SELECT max({column}::text) FROM {table}")
    return uuid_int(v) if v else 0


def main():
    """The command line of scripts that need a server and are no test."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    start = sub.add_parser("start", help="initdb DIR/data and start it")
    start.add_argument("--pg-config", required=True)
    start.add_argument("--dir", required=True)
    start.add_argument("--port", type=int, required=True)
    start.add_argument("--conf", action="append", default=[], help="a postgresql.conf line")
    for name in ("stop", "restart"):
        p = sub.add_parser(name)
        p.add_argument("--pg-config", required=True)
        p.add_argument("--dir", required=True)
        p.add_argument("--port", type=int, required=True)
    a = ap.parse_args()
    srv = Server(Host(), Installation(a.pg_config), os.path.basename(a.dir), os.path.abspath(a.dir), a.port)
    running = os.path.exists(os.path.join(srv.data, "postmaster.pid")) and srv.running()
    if a.cmd == "start":
        srv.initdb(*a.conf)
        srv.start()
    elif a.cmd == "restart":
        if running:
            srv.stop()
        srv.start()
    elif running:
        srv.stop()


if __name__ == "__main__":
    main()
