"""Builds uuid_ext for a PostgreSQL installation and puts it where that
server loads it, and puts the test stand-ins beside it.

The build is pgrx's (`cargo pgrx package`, pointed at the installation's
pg_config), into a directory of its own; each file is then renamed into the
server's directories, never written over: a server that preloads the library
maps it in every process, and a library rewritten in place under it kills
them with SIGBUS (CONTRIBUTING.md, "Installing without stopping servers").

    python3 tests/lib/extension.py --pg-config PATH [--release]   (scripts/bench)
"""
import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from installation import Installation  # noqa: E402


class BuildError(Exception):
    pass


def pgrx_version():
    """The cargo-pgrx release Cargo.toml pins pgrx to."""
    text = open(os.path.join(ROOT, "Cargo.toml")).read()
    return re.search(r'^pgrx = "=([^"]+)"', text, re.M).group(1)


def cargo_env(pg, scratch):
    """The environment of a cargo pgrx command for `pg`: pgrx compiles against
    PGRX_PG_CONFIG_PATH's headers (else those of $PGRX_HOME/config.toml,
    whatever --pg-config says); PGRX_HOME must exist, so without
    ~/.pgrx (no `cargo pgrx init`) an empty one in `scratch` serves."""
    env = dict(os.environ, PGRX_PG_CONFIG_PATH=pg.pg_config, CARGO_TARGET_DIR=target_dir(pg))
    # The cc crate reruns pgrx's bindings build whenever this date changes
    # (each commit): every build would start again from pgrx-pg-sys.
    env.pop("SOURCE_DATE_EPOCH", None)
    if "PGRX_HOME" not in env and not os.path.isdir(os.path.expanduser("~/.pgrx")):
        env["PGRX_HOME"] = os.path.join(scratch, "pgrx-home")
        os.makedirs(env["PGRX_HOME"], exist_ok=True)
    return env


def target_dir(pg):
    """Cargo's build output for `pg`: one directory per installation. pgrx
    rebuilds its bindings, and all above them, when PGRX_PG_CONFIG_PATH
    changes; in one directory, 15.18's build and 15.20's would undo each
    other at every turn."""
    base = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    tag = hashlib.sha256(pg.pg_config.encode()).hexdigest()[:8]
    return os.path.join(base, "by-installation", f"{pg.release}-{tag}")


def check_tools():
    """What building needs, or a BuildError saying what is missing."""
    want = pgrx_version()
    try:
        r = subprocess.run(["cargo", "pgrx", "--version"], capture_output=True, text=True)
    except FileNotFoundError:
        raise BuildError("cargo is not on PATH: install Rust 1.96 or newer (rustup), then "
                         f"`cargo install --locked cargo-pgrx --version {want}`")
    if r.returncode != 0 or not r.stdout.strip().endswith(" " + want):
        raise BuildError(f"cargo-pgrx {want} is missing ({(r.stdout or r.stderr).strip() or 'not installed'}): "
                         f"`cargo install --locked cargo-pgrx --version {want}`")


def place(src, dest, mode):
    """Puts `src` at `dest` as a new file renamed into place."""
    tmp = f"{dest}.uuid_ext-new-{os.getpid()}"
    shutil.copyfile(src, tmp)
    os.chmod(tmp, mode)
    os.replace(tmp, dest)


def build(pg, out_dir, scratch, release=False):
    """`cargo pgrx package` for `pg` into out_dir (debug unless release);
    returns (library, [extension files]) as built."""
    check_tools()
    cmd = ["cargo", "pgrx", "package", "--no-default-features", "--features", f"pg{pg.major}",
           "--pg-config", pg.pg_config, "--out-dir", out_dir]
    if not release:
        cmd.insert(3, "--debug")
    r = subprocess.run(cmd, cwd=ROOT, env=cargo_env(pg, scratch), capture_output=True, text=True)
    if r.returncode != 0:
        raise BuildError(f"{' '.join(cmd)} failed:\n{r.stdout[-3000:]}{r.stderr[-6000:]}")
    lib = out_dir + os.path.join(pg.pkglibdir, "uuid_ext.so")
    files = sorted(glob.glob(out_dir + os.path.join(pg.extension_dir, "uuid_ext*")))
    return lib, files


def install(pg, scratch, release=False):
    """Builds uuid_ext for `pg` and renames its files into place."""
    if not pg.writable():
        raise BuildError(f"{pg.pkglibdir} or {pg.extension_dir} is not writable here: install uuid_ext into "
                         "that PostgreSQL yourself and give --installed, or use a PostgreSQL tree you own")
    stage = tempfile.mkdtemp(prefix="uuid_ext-build-", dir=scratch)
    try:
        lib, files = build(pg, stage, scratch, release)
        place(lib, os.path.join(pg.pkglibdir, "uuid_ext.so"), 0o755)
        for f in files:
            place(f, os.path.join(pg.extension_dir, os.path.basename(f)), 0o644)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def releases():
    """Every earlier release whose install script as released is in
    tests/upgrade (CONTRIBUTING.md#cutting-a-release), oldest first."""
    found = [re.search(r"uuid_ext--(.*)\.sql$", f).group(1)
             for f in glob.glob(os.path.join(ROOT, "tests", "upgrade", "uuid_ext--*.sql"))]
    return sorted(found, key=lambda v: tuple(int(n) for n in v.split(".")))


# The test stand-ins that go into the extension directory for a run: every
# earlier release's install script as released (the update tests start from
# them) and a stand-in with pg_uuidv7 1.6's interface (the pg_uuidv7 move of
# docs/operations.md is tested against it).
def standins():
    return sorted(glob.glob(os.path.join(ROOT, "tests", "upgrade", "uuid_ext--*.sql"))
                  + glob.glob(os.path.join(ROOT, "tests", "pg_uuidv7_standin", "*")))


def add_standins(pg):
    """Copies the stand-ins into pg's extension directory; returns the paths
    it made (remove_standins takes them away; what was there before stays).
    None when it may not write there."""
    if not os.access(pg.extension_dir, os.W_OK):
        return None
    added = []
    for f in standins():
        dest = os.path.join(pg.extension_dir, os.path.basename(f))
        # A real pg_uuidv7 the server has stays (the benchmark uses it).
        if os.path.basename(f).startswith("pg_uuidv7") and os.path.exists(dest) \
                and open(dest, "rb").read() != open(f, "rb").read():
            continue
        if not os.path.exists(dest):
            added.append(dest)
        place(f, dest, 0o644)
    return added


def remove_standins(paths):
    for p in paths or ():
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def main():
    ap = argparse.ArgumentParser(description="Builds uuid_ext and installs it into a PostgreSQL.")
    ap.add_argument("--pg-config", required=True)
    ap.add_argument("--release", action="store_true", help="a release build (fat LTO), not a debug one")
    a = ap.parse_args()
    pg = Installation(a.pg_config)
    scratch = tempfile.mkdtemp(prefix="uuid_ext-")
    try:
        install(pg, scratch, a.release)
    except BuildError as e:
        sys.exit(str(e))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"uuid_ext installed into {pg}")


if __name__ == "__main__":
    main()
