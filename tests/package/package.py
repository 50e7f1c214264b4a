"""The packages of scripts/package, installed where users install them
(docs/operations.md#installing).

The packages are the runner's `--packages DIR` (scripts/test builds every
major's once, on Debian 12), else built here for the PostgreSQL under test
with `scripts/package --pg-config`.

- archive: the library needs no newer C library than Debian 12's (glibc
  2.36: `objdump -T`, and the .deb's Depends); built here, pgrx's schema
  generator writes the same install script on five runs and the release
  build's is the debug build's byte for byte; given, every major's package
  has the same install script; install.sh refuses a server older than the
  minor it was built against and one of another major, leaving no file; run
  as root, it refuses a pg_config, a library or an extension directory that
  another user may change (the file or a directory above it), saying to run
  it as the installation's owner, and installs into a fake installation
  that only root may change; it installs into the PostgreSQL under test,
  whose uuid_ext files were removed first, removing an earlier release's
  install script and control file left there (pg_available_extension_versions
  then lists only this release's version, and CREATE EXTENSION ... VERSION
  '0.4.0' fails), and a new server preloading it makes keys of both types on
  the shared sequencer. Not as root, the root part is skipped.
- golden: the golden tests with the packaged library, preloaded.
- floor: in a server of an older minor than the package declares, install.sh
  refuses; the library put there by hand either loads, or the server refuses
  it at start for a symbol of PostgreSQL's that minor lacks: never for the C
  library.
- deb: the .deb with apt into Debian's own postgresql-NN (root, on a Debian
  system that has that package at the minor it needs or later), a cluster
  made by Debian's pg_createcluster preloading it, a uuid7 table; installed
  over an earlier .deb of the package that shipped uuid_ext--0.4.0.sql, it
  leaves no such file (dpkg removes what the new version does not ship);
  then apt-get remove leaves none of its files.
"""
import contextlib
import glob
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import zipfile

import extension
import regress
from harness import Skip
from pg import fail, ok

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEBIAN_12_GLIBC = "2.36"


def crate_version():
    return re.search(r'^version = "([^"]+)"', open(os.path.join(ROOT, "Cargo.toml")).read(), re.M).group(1)


def ext_version():
    return re.search(r"^default_version = '([^']+)'", open(os.path.join(ROOT, "uuid_ext.control")).read(),
                     re.M).group(1)


def version_key(v):
    """15.18 < 15.20; 19rc1 < 19.0 (Debian's ~: a release candidate comes before)."""
    return [int(x) if x.isdigit() else -1 for x in re.findall(r"\d+|[a-z]+", v)]


def files_of(t, major=None):
    """(tarball, .deb) of PostgreSQL `major` (t.pg's): the runner's --packages,
    else built once into t's directory."""
    major = major or t.pg.major
    version = crate_version()
    dist = t.run.packages or t.path("dist")
    tarball = os.path.join(dist, f"uuid_ext-{version}-pg{major}-{os.uname().machine}-linux.tar.gz")
    if not t.run.packages and not os.path.exists(tarball):
        r = subprocess.run([os.path.join(ROOT, "scripts", "package"), "--pg-config", t.pg.pg_config, "--out", dist],
                           cwd=ROOT, capture_output=True, text=True)
        print(r.stdout, end="")
        if r.returncode != 0:
            fail(f"scripts/package --pg-config {t.pg.pg_config} failed:\n{r.stderr[-5000:]}")
    debs = glob.glob(os.path.join(dist, f"postgresql-{major}-uuid-ext_{version}-1_*.deb"))
    if not os.path.exists(tarball) or len(debs) != 1:
        fail(f"{dist} has no archive and .deb of uuid_ext {version} for PostgreSQL {major}")
    return tarball, debs[0]


def unpacked(t):
    """The archive of t.pg's major, unpacked: its directory."""
    tarball, _ = files_of(t)
    where = t.path("archive")
    if not os.path.isdir(where):
        with tarfile.open(tarball) as tar:
            tar.extractall(where)
    return os.path.join(where, f"uuid_ext-{crate_version()}-pg{t.pg.major}")


def floor_of(t):
    """The oldest minor the package of t.pg's major declares (its .deb's Depends)."""
    _, debfile = files_of(t)
    depends = subprocess.run(["dpkg-deb", "-f", debfile, "Depends"], capture_output=True, text=True).stdout.strip()
    return re.search(rf"postgresql-{t.pg.major} \(>= ([^)]+)\)", depends).group(1).replace("~", ""), depends


def run_sql(argv, *statements):
    r = subprocess.run([*argv, *[x for s in statements for x in ("-c", s)]], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{statements}: {r.stderr}")
    return r.stdout.strip()


def remove_installed(t):
    """Nothing of uuid_ext left in t.pg's directories but the earlier releases'
    install scripts the update tests use."""
    for f in [os.path.join(t.pg.pkglibdir, "uuid_ext.so"), os.path.join(t.pg.extension_dir, "uuid_ext.control"),
              *glob.glob(os.path.join(t.pg.extension_dir, "uuid_ext--*--*.sql")),
              os.path.join(t.pg.extension_dir, f"uuid_ext--{ext_version()}.sql")]:
        if os.path.exists(f):
            os.unlink(f)


# An earlier release's files an install of the tarball or from source could
# leave in the extension directory: 0.4.0's install script (a version a
# database owner could then install; its DO blocks predate the trusted
# install) and a secondary control file.
EARLIER = "0.4.0"


@contextlib.contextmanager
def standins_kept(t):
    """What an install.sh run inside removes of the uuid_ext files of the
    extension directory comes back after it: the earlier releases' install
    scripts the runner puts there for the update and golden tests."""
    saved = tempfile.mkdtemp(prefix="standins-", dir=t.dir)
    there = glob.glob(os.path.join(t.pg.extension_dir, "uuid_ext--*"))
    for f in there:
        shutil.copy2(f, saved)
    try:
        yield
    finally:
        for f in there:
            if not os.path.exists(f):
                extension.place(os.path.join(saved, os.path.basename(f)), f, 0o644)
        shutil.rmtree(saved, ignore_errors=True)


@contextlib.contextmanager
def nothing_of_uuid_ext(t):
    """No uuid_ext file in t.pg's library and extension directories during
    the block; afterwards those that were there come back (renamed into
    place), and those the block put there go."""
    saved = tempfile.mkdtemp(prefix="uuid_ext-files-", dir=t.dir)

    def ours():
        return [*glob.glob(os.path.join(t.pg.pkglibdir, "uuid_ext*")),
                *glob.glob(os.path.join(t.pg.extension_dir, "uuid_ext*"))]
    there = ours()
    for f in there:
        shutil.copy2(f, saved)
        os.unlink(f)
    try:
        yield
    finally:
        for f in ours():
            if f not in there:
                os.unlink(f)
        for f in there:
            extension.place(os.path.join(saved, os.path.basename(f)), f, 0o755 if f.endswith(".so") else 0o644)
        shutil.rmtree(saved, ignore_errors=True)


def run_install_sh(install_sh, pg_config, cwd=None):
    return subprocess.run([install_sh, pg_config], capture_output=True, text=True, cwd=cwd)


def root_refusals(t, install_sh):
    """Run as root, install.sh refuses a pg_config, library directory or
    extension directory that another user may change, installing nothing;
    into a fake installation only root may change, it installs."""
    base = tempfile.mkdtemp(prefix="uuid_ext-install-sh-")  # in /tmp: root's, 0700
    try:
        bindir, lib, ext = (os.path.join(base, d) for d in ("bin", "lib", os.path.join("share", "extension")))
        for d in (bindir, lib, ext):
            os.makedirs(d)
        for d in (bindir, lib, ext, os.path.dirname(ext)):
            os.chmod(d, 0o755)
        fake = os.path.join(bindir, "pg_config")
        with open(fake, "w") as f:
            f.write(f'#!/bin/sh\ncase $1 in\n  --version) echo "PostgreSQL {t.pg.release}" ;;\n'
                    f'  --pkglibdir) echo {lib} ;;\n  --sharedir) echo {os.path.dirname(ext)} ;;\nesac\n')
        os.chmod(fake, 0o755)
        other = t.host.user or "nobody"
        cases = [("pg_config belongs to another user", fake, "owner"),
                 ("pg_config is group-writable", fake, 0o775),
                 ("the directory of pg_config belongs to another user", bindir, "owner"),
                 ("the library directory belongs to another user", lib, "owner"),
                 ("the library directory is world-writable", lib, 0o757),
                 ("the extension directory is group-writable", ext, 0o775)]
        said = []
        for what, path, change in cases:
            if change == "owner":
                shutil.chown(path, other)
            else:
                os.chmod(path, change)
            r = run_install_sh(install_sh, fake)
            if change == "owner":
                shutil.chown(path, "root")
            else:
                os.chmod(path, 0o755)
            if r.returncode == 0 or os.listdir(lib) or os.listdir(ext):
                fail(f"run as root, install.sh installed where {what}: {r.returncode}\n{r.stdout}{r.stderr}")
            if "Run install.sh as the user who owns this PostgreSQL installation" not in r.stderr:
                fail(f"install.sh refused where {what} otherwise than expected: {r.stderr}")
            said.append(r.stderr.splitlines()[0].split("will not trust ", 1)[-1].rstrip(".").replace(base, "…"))
        r = run_install_sh(install_sh, fake)
        if r.returncode != 0 or not os.listdir(lib) or not os.listdir(ext):
            fail(f"run as root, install.sh did not install into a fake installation only root may change:\n"
                 f"{r.stdout}{r.stderr}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    ok("run as root, install.sh refuses, installing nothing, and says to run it as the installation's owner: "
       + "; ".join(said) + "; where only root may change them, it installs")


def at_or_above_floor(t):
    floor, _ = floor_of(t)
    if version_key(t.pg.release) < version_key(floor):
        raise Skip(f"PostgreSQL {t.pg.release} is older than the {floor} the package declares (the floor test)")


def glibc_needed(lib):
    out = subprocess.run(["objdump", "-T", lib], capture_output=True, text=True).stdout
    return max(re.findall(r"GLIBC_([0-9][0-9.]*)", out), key=version_key)


def archive(t):
    t.need(t.pg.writable(), f"installing the archive writes into {t.pg.pkglibdir}, which this user may not write")
    t.need(shutil.which("objdump"), "needs objdump (binutils), which reads the library's C library symbols")
    at_or_above_floor(t)
    version, script = crate_version(), f"uuid_ext--{ext_version()}.sql"
    pkg = unpacked(t)
    lib = os.path.join(pkg, "lib", "uuid_ext.so")
    glibc = glibc_needed(lib)
    _, depends = floor_of(t)
    libc = re.search(r"libc6 \(>= ([0-9.]+)\)", depends)
    if version_key(glibc) > version_key(DEBIAN_12_GLIBC) or not libc \
            or version_key(libc.group(1)) > version_key(DEBIAN_12_GLIBC):
        fail(f"the library needs GLIBC_{glibc} (Depends: {depends}): newer than Debian 12's {DEBIAN_12_GLIBC}")
    ok(f"the library of PostgreSQL {t.pg.major}'s package needs GLIBC_{glibc} at most, and its .deb says "
       f"{depends}: it installs on Debian 12 and later")
    packaged = open(os.path.join(pkg, "extension", script), "rb").read()
    if t.run.packages:
        # One commit, one SQL: every major's install script is the same bytes.
        others = {}
        for tarball in glob.glob(os.path.join(t.run.packages, f"uuid_ext-{version}-pg*-*-linux.tar.gz")):
            with tarfile.open(tarball) as tar:
                member = next(m for m in tar.getmembers() if m.name.endswith("/extension/" + script))
                others[os.path.basename(tarball)] = tar.extractfile(member).read()
        differ = [name for name, text in others.items() if text != packaged]
        if differ:
            fail(f"{script} of PostgreSQL {t.pg.major}'s package differs from that of {differ}")
        ok(f"the {len(others)} packages of {t.run.packages} have the same {script}, byte for byte")
    else:
        # pgrx's schema generator (a debug build) writes the same install
        # script on every run, and the release build's is the debug build's.
        env = extension.cargo_env(t.pg, t.dir)
        for i in range(1, 6):
            out = t.path(f"schema-{i}.sql")
            r = subprocess.run(["cargo", "pgrx", "schema", "--no-default-features", "--features", f"pg{t.pg.major}",
                                "-o", out], cwd=ROOT, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                fail(f"cargo pgrx schema failed:\n{r.stderr[-3000:]}")
            if open(out, "rb").read() != packaged:
                fail(f"run {i} of pgrx's schema generator wrote another {script} than the release build's")
        ok(f"pgrx's schema generator wrote the release build's {script} on five runs of a debug build")

    remove_installed(t)
    install_sh = os.path.join(pkg, "install.sh")
    # install.sh refuses a server older than the minor it was built against,
    # and one of another major (a pg_config that says so), installing nothing.
    # Run as root, install.sh trusts only a pg_config only root may change.
    fake = os.path.join(tempfile.mkdtemp(prefix="uuid_ext-fake-") if t.host.root else t.dir, "fake-pg_config")
    refusals = []
    # Run where a wrong install would leave files: a fake pg_config answers
    # every question with its version, a relative path.
    cwd = t.path("refusals")
    os.makedirs(cwd)
    for said in (f"{t.pg.major}beta1", "14.9"):
        with open(fake, "w") as f:
            f.write(f'#!/bin/sh\necho "PostgreSQL {said}"\n')
        os.chmod(fake, 0o755)
        r = subprocess.run([install_sh, fake], capture_output=True, text=True, cwd=cwd)
        if r.returncode == 0:
            fail(f"the archive's install.sh installed into a PostgreSQL {said}")
        if "this package" not in r.stderr:
            fail(f"install.sh refused PostgreSQL {said} otherwise than expected: {r.stderr}")
        refusals.append(r.stderr.strip().splitlines()[0].replace(fake, "its pg_config"))
        if os.listdir(cwd) or os.path.exists(os.path.join(t.pg.pkglibdir, "uuid_ext.so")):
            fail(f"install.sh wrote files before it refused PostgreSQL {said}")
    if t.host.root:
        shutil.rmtree(os.path.dirname(fake))
    ok(f"the archive's install.sh refuses, installing nothing: {'; '.join(refusals)}")
    if t.host.root:
        root_refusals(t, install_sh)

    with standins_kept(t):
        # An earlier release's files left in the extension directory go.
        earlier = [os.path.join(t.pg.extension_dir, f"uuid_ext--{EARLIER}.{x}") for x in ("sql", "control")]
        try:
            extension.place(os.path.join(ROOT, "tests", "upgrade", f"uuid_ext--{EARLIER}.sql"), earlier[0], 0o644)
            with open(t.path("earlier.control"), "w") as f:
                f.write("comment = 'left by an earlier install'\n")
            extension.place(t.path("earlier.control"), earlier[1], 0o644)
            r = run_install_sh(install_sh, t.pg.pg_config)
            if r.returncode != 0:
                fail(f"install.sh {t.pg.pg_config} failed: {r.stderr}")
            left = [os.path.basename(f) for f in earlier if os.path.exists(f)]
            if left:
                fail(f"install.sh left {left} in {t.pg.extension_dir}: a database owner may install uuid_ext "
                     f"{EARLIER}")
        finally:
            # What this test put there goes (a stand-in of the run comes back).
            for f in earlier:
                if os.path.exists(f):
                    os.unlink(f)
        srv = t.server("package").create("shared_preload_libraries = 'uuid_ext'")
        versions = run_sql(srv.psql(), "SELECT string_agg(version, ' ' ORDER BY version) "
                                       "FROM pg_available_extension_versions WHERE name = 'uuid_ext'")
        old = subprocess.run([*srv.psql(), "-c", f"CREATE EXTENSION uuid_ext VERSION '{EARLIER}'"],
                             capture_output=True, text=True)
        got = run_sql(srv.psql(), "CREATE EXTENSION uuid_ext",
                      "CREATE TABLE t (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), v6 uuid6 DEFAULT "
                      "uuid_generate_v6())",
                      "INSERT INTO t SELECT FROM generate_series(1, 100)",
                      "SELECT (uuid_ext_info() ->> 'version') || ' ' || (uuid_ext_info() ->> 'sequencer') || ' ' "
                      "|| count(*) FROM t")
        srv.stop()
    if versions != ext_version():
        fail(f"after install.sh, pg_available_extension_versions lists uuid_ext {versions}, not {ext_version()} "
             "alone")
    if old.returncode == 0:
        fail(f"after install.sh, CREATE EXTENSION uuid_ext VERSION '{EARLIER}' succeeded")
    ok(f"install.sh removed uuid_ext--{EARLIER}.sql and uuid_ext--{EARLIER}.control, which it does not ship: "
       f"pg_available_extension_versions lists uuid_ext {versions} alone, and CREATE EXTENSION uuid_ext VERSION "
       f"'{EARLIER}' fails ({old.stderr.strip().splitlines()[0]})")
    if got != f"{version} shared 100":
        fail(f"the package's extension answered: {got}")
    ok(f"uuid_ext {version} installed from its archive into {t.pg.release}: preloaded, shared sequencer, types work")
    if not t.host.root:
        raise Skip("install.sh's refusals as root need root (everything else of the archive test passed, above)")


def golden(t):
    """The golden tests with the packaged library (installed by archive, or here)."""
    t.need(t.pg.writable(), f"installing the archive writes into {t.pg.pkglibdir}, which this user may not write")
    at_or_above_floor(t)
    pkg = unpacked(t)
    if open(os.path.join(pkg, "lib", "uuid_ext.so"), "rb").read() != \
            open(os.path.join(t.pg.pkglibdir, "uuid_ext.so"), "rb").read():
        remove_installed(t)
        with standins_kept(t):
            r = run_install_sh(os.path.join(pkg, "install.sh"), t.pg.pg_config)
        if r.returncode != 0:
            fail(f"install.sh {t.pg.pg_config} failed: {r.stderr}")
    srv = t.server("golden").create("shared_preload_libraries = 'uuid_ext'", "max_prepared_transactions = 64")
    if regress.run(t, srv, os.path.join(ROOT, "tests", "pg_regress")):
        fail(f"the golden tests fail with the packaged library in {t.pg.release}")
    built_for = srv.q("CREATE EXTENSION uuid_ext; SELECT uuid_ext_info() ->> 'built_for'", db="postgres")
    srv.q("DROP EXTENSION uuid_ext")
    srv.stop()
    ok(f"the golden tests pass in {t.pg.release} with the packaged library (built with the headers of {built_for})")


def floor(t):
    """A server older than the package's floor: install.sh refuses it; the
    library put there by hand loads, or is refused for a symbol of
    PostgreSQL's, never the C library's."""
    t.need(t.pg.writable(), f"needs to write into {t.pg.pkglibdir}")
    least, _ = floor_of(t)
    if version_key(t.pg.release) >= version_key(least):
        raise Skip(f"PostgreSQL {t.pg.release} is not older than the {least} the package declares")
    pkg = unpacked(t)
    r = subprocess.run([os.path.join(pkg, "install.sh"), t.pg.pg_config], capture_output=True, text=True)
    if r.returncode == 0 or f"needs PostgreSQL {least}" not in r.stderr.replace("~", ""):
        fail(f"install.sh into {t.pg.release}, older than the package's {least}: {r.returncode} {r.stderr}")
    placed = [os.path.join(t.pg.pkglibdir, "uuid_ext.so")] + \
        [os.path.join(t.pg.extension_dir, os.path.basename(f)) for f in glob.glob(os.path.join(pkg, "extension", "*"))]
    try:
        extension.place(os.path.join(pkg, "lib", "uuid_ext.so"), placed[0], 0o755)
        for f in placed[1:]:
            extension.place(os.path.join(pkg, "extension", os.path.basename(f)), f, 0o644)
        srv = t.server("older").initdb("shared_preload_libraries = 'uuid_ext'")
        if srv.start(check=False):
            srv.stop()
            ok(f"install.sh refuses {t.pg.release} (the package declares {least}); put there by hand, the library "
               "loads all the same")
            return
        log = srv.log_text()
        symbol = re.search(r"could not load library .*uuid_ext\.so.*undefined symbol: (\w+)", log)
        if not symbol or "GLIBC" in log:
            fail(f"{t.pg.release} refused the library otherwise than for a symbol of PostgreSQL's:\n{log[-2000:]}")
        ok(f"install.sh refuses {t.pg.release}, older than the {least} the package declares; put there by hand, the "
           f"library is refused at start for `undefined symbol: {symbol.group(1)}`, which {least}'s headers call "
           "and this minor lacks: the floor, never the C library")
    finally:
        for f in placed:
            if os.path.exists(f):
                os.unlink(f)


def deb_installed(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Version}", pkg], capture_output=True, text=True)
    return r.stdout.split()[-1] if r.returncode == 0 and " installed " in r.stdout + " " else None


def earlier_deb(t, major, pkg):
    """The package as an earlier release's .deb could have been: one that
    ships uuid_ext--0.4.0.sql (the tests' copy of 0.4.0's install script)."""
    root = t.path("earlier-deb")
    ext = os.path.join(root, "usr", "share", "postgresql", str(major), "extension")
    os.makedirs(os.path.join(root, "DEBIAN"))
    os.makedirs(ext)
    shutil.copy(os.path.join(ROOT, "tests", "upgrade", f"uuid_ext--{EARLIER}.sql"), ext)
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write(f"Package: {pkg}\nVersion: {EARLIER}-1\nArchitecture: all\nMaintainer: uuid_ext tests "
                "<uuid-ext@users.noreply.github.com>\nDescription: an earlier release's files (the package test)\n")
    subprocess.run(["find", root, "-type", "d", "-exec", "chmod", "755", "{}", "+"], check=True)
    out = t.path(f"{pkg}_{EARLIER}-1_all.deb")
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", root, out], check=True, capture_output=True)
    return out


def apt_get(*args, options=()):
    r = subprocess.run(["apt-get", "-y", "-q", *options, *args], capture_output=True, text=True,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    if r.returncode != 0:
        fail(f"apt-get {' '.join(args)}: {r.stdout[-2000:]}{r.stderr}")
    return r.stdout


@contextlib.contextmanager
def debian_postgresql(t, cluster):
    """Debian's own postgresql-NN of t.pg's major, its uuid_ext files (and
    package) taken away for the test and put back after it, as is the
    pg_createcluster cluster CLUSTER. Skips where there is none, or one too
    old for the package. Yields (the .deb, its Depends, the server's version)."""
    major, pkg = t.pg.major, f"postgresql-{t.pg.major}-uuid-ext"
    t.need(t.host.root, "apt installs the .deb: needs root")
    t.need(shutil.which("apt-get") and shutil.which("pg_createcluster"),
           "needs Debian's apt and postgresql-common (pg_createcluster)")
    server = deb_installed(f"postgresql-{major}")
    t.need(server, f"Debian's postgresql-{major} is not installed here")
    lib, ext = f"/usr/lib/postgresql/{major}/lib", f"/usr/share/postgresql/{major}/extension"
    ours = os.path.realpath(t.pg.pkglibdir) == os.path.realpath(lib)
    if not ours and not deb_installed(pkg) and (os.path.exists(f"{lib}/uuid_ext.so") or glob.glob(f"{ext}/uuid_ext*")):
        raise Skip(f"Debian's postgresql-{major} here has a uuid_ext of its own, which the test would replace")
    _, debfile = files_of(t)
    depends = subprocess.run(["dpkg-deb", "-f", debfile, "Depends"], capture_output=True, text=True).stdout.strip()
    need = re.search(rf"postgresql-{major} \(>= ([^)]+)\)", depends).group(1)
    if subprocess.run(["dpkg", "--compare-versions", server, "ge", need]).returncode != 0:
        raise Skip(f"Debian's postgresql-{major} here is {server}, older than the {need} the package was built "
                   f"against (Depends: {depends.split(',')[0]})")
    saved = t.path(f"saved-{cluster}")
    os.makedirs(saved)
    kept = [f for f in [f"{lib}/uuid_ext.so", *glob.glob(f"{ext}/uuid_ext*")] if os.path.exists(f)]
    for f in kept:
        shutil.copy2(f, saved)
    if deb_installed(pkg):
        apt_get("remove", pkg)
    for f in kept:
        if os.path.exists(f):
            os.unlink(f)
    subprocess.run(["pg_dropcluster", "--stop", str(major), cluster], capture_output=True)
    try:
        yield debfile, depends, server
    finally:
        subprocess.run(["pg_dropcluster", "--stop", str(major), cluster], capture_output=True)
        if deb_installed(pkg):
            subprocess.run(["apt-get", "-y", "-q", "remove", pkg], capture_output=True)
        # What was there before comes back (renamed into place: a server may map the library).
        for f in kept:
            extension.place(os.path.join(saved, os.path.basename(f)), f, 0o755 if f.endswith(".so") else 0o644)


def debian_psql(major, port):
    """psql as Debian's postgres user, through Debian's socket directory."""
    return ["runuser", "-u", "postgres", "--", f"/usr/lib/postgresql/{major}/bin/psql", "-X", "-q", "-At",
            "-h", "/var/run/postgresql", "-p", port, "-d", "postgres", "-v", "ON_ERROR_STOP=1"]


def deb(t):
    major, pkg = t.pg.major, f"postgresql-{t.pg.major}-uuid-ext"
    lib, ext = f"/usr/lib/postgresql/{major}/lib", f"/usr/share/postgresql/{major}/extension"
    cluster, port = "uuidext_deb", str(t.run.port())
    with debian_postgresql(t, cluster) as (debfile, depends, _):
        # Over an earlier .deb of the package: dpkg removes what the new one does not ship.
        apt_get("install", earlier_deb(t, major, pkg))
        earlier_script = f"{ext}/uuid_ext--{EARLIER}.sql"
        if not os.path.exists(earlier_script):
            fail(f"the earlier .deb did not install {earlier_script}")
        apt_get("install", os.path.abspath(debfile))
        version = crate_version()
        if deb_installed(pkg) != f"{version}-1":
            fail(f"{pkg} {version}-1 is not installed after apt-get install")
        if os.path.exists(earlier_script):
            fail(f"installed over an earlier .deb that shipped it, the .deb left {earlier_script}")
        subprocess.run(["pg_createcluster", str(major), cluster, "-p", port, "-o", "shared_preload_libraries=uuid_ext"],
                       check=True, capture_output=True)
        subprocess.run(["pg_ctlcluster", str(major), cluster, "start"], check=True, capture_output=True)
        got = run_sql(debian_psql(major, port),
                      "CREATE EXTENSION uuid_ext",
                      "CREATE TABLE t (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int)",
                      "INSERT INTO t (n) SELECT generate_series(1, 1000)",
                      "SELECT (uuid_ext_info() ->> 'version') || ' ' || (uuid_ext_info() ->> 'sequencer') || ' ' "
                      "|| count(DISTINCT id) || ' ' || (uuid_ext_info() ->> 'postgres') FROM t")
        subprocess.run(["pg_dropcluster", "--stop", str(major), cluster], check=True, capture_output=True)
        if not got.startswith(f"{version} shared 1000 "):
            fail(f"the .deb's extension in a pg_createcluster cluster answered: {got}")
        files = [f for f in subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True).stdout.split()
                 if "/uuid_ext" in f or f"/{pkg}" in f]
        apt_get("remove", pkg)
        left = [f for f in files if os.path.exists(f)] + [f for f in [f"{lib}/uuid_ext.so", *glob.glob(f"{ext}/uuid_ext*")]
                                                           if os.path.exists(f)]
        if left:
            fail(f"apt-get remove left: {left}")
    ok(f"{os.path.basename(debfile)}: apt-get install into Debian's postgresql-{major} (server {got.split()[-1]}, "
       f"{depends.split(',')[0]}) over an earlier .deb of the package, whose uuid_ext--{EARLIER}.sql it leaves "
       "no trace of; a pg_createcluster cluster preloading it, a uuid7 table of 1000 keys; apt-get remove leaves "
       "none of its files")


def previous_release_deb(t, debfile, major, pkg, out_dir):
    """The package as the previous release's (0.9.0) could be in a repository:
    this .deb's library beside 0.9.0's install script as released and a
    control file naming it (the update tests pair them so), version 0.9.0-1."""
    root = t.path("previous-deb")
    subprocess.run(["dpkg-deb", "-R", debfile, root], check=True)
    ext = os.path.join(root, "usr", "share", "postgresql", str(major), "extension")
    control = open(os.path.join(ext, "uuid_ext.control")).read()
    for f in glob.glob(os.path.join(ext, "uuid_ext*")):
        os.unlink(f)
    shutil.copy(os.path.join(ROOT, "tests", "upgrade", "uuid_ext--0.9.0.sql"), ext)
    with open(os.path.join(ext, "uuid_ext.control"), "w") as f:
        f.write(re.sub(r"default_version = '[^']*'", "default_version = '0.9.0'", control))
    meta = os.path.join(root, "DEBIAN", "control")
    text = re.sub(r"^Version: .*$", "Version: 0.9.0-1", open(meta).read(), flags=re.M)
    open(meta, "w").write(text)
    os.makedirs(out_dir)
    out = os.path.join(out_dir, f"{pkg}_0.9.0-1_{subprocess.check_output(['dpkg', '--print-architecture'], text=True).strip()}.deb")
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", root, out], check=True, capture_output=True)
    return out


def apt(t):
    """The apt repository of `scripts/package --apt` (docs/operations.md#an-apt-repository),
    as a Debian server uses one: Debian's own postgresql-NN, the tree a
    `file:` source (apt given only that source, its lists apart from the
    machine's). The tree holds the previous release's package (0.9.0's
    install script beside this library): apt-get install, a pg_createcluster
    cluster preloading it, 1000 keys; then this release's packages added to
    the tree, apt-get update and apt-get upgrade take the new version, the
    cluster restarted, ALTER EXTENSION UPDATE, 1000 more keys above them."""
    major, pkg = t.pg.major, f"postgresql-{t.pg.major}-uuid-ext"
    cluster, port = "uuidext_apt", str(t.run.port())
    with debian_postgresql(t, cluster) as (debfile, _, server):
        repo, lists, cache = t.path("repo"), t.path("apt-lists"), t.path("apt-cache")
        os.makedirs(os.path.join(lists, "partial"))
        os.makedirs(os.path.join(cache, "archives", "partial"))
        sources = t.path("uuid_ext.list")
        with open(sources, "w") as f:
            f.write(f"deb [trusted=yes] file:{repo} stable main\n")
        options = ("-o", f"Dir::Etc::SourceList={sources}", "-o", "Dir::Etc::SourceParts=/nonexistent",
                   "-o", f"Dir::State::Lists={lists}", "-o", f"Dir::Cache={cache}")
        env = dict(os.environ, SOURCE_DATE_EPOCH=os.environ.get("SOURCE_DATE_EPOCH", "1700000000"))

        def add(from_dir):
            r = subprocess.run([os.path.join(ROOT, "scripts", "package"), "--apt", repo, from_dir], capture_output=True,
                               text=True, env=env)
            if r.returncode != 0:
                fail(f"scripts/package --apt {repo} {from_dir}: {r.stdout}{r.stderr}")
            apt_get("update", options=options)
        add(os.path.dirname(previous_release_deb(t, debfile, major, pkg, t.path("previous"))))
        apt_get("install", pkg, options=options)
        if deb_installed(pkg) != "0.9.0-1":
            fail(f"apt-get install {pkg} from the repository installed {deb_installed(pkg)}, not 0.9.0-1")
        subprocess.run(["pg_createcluster", str(major), cluster, "-p", port, "-o", "shared_preload_libraries=uuid_ext"],
                       check=True, capture_output=True)
        subprocess.run(["pg_ctlcluster", str(major), cluster, "start"], check=True, capture_output=True)
        psql = debian_psql(major, port)
        run_sql(psql, "CREATE EXTENSION uuid_ext",
                "CREATE TABLE k (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int)",
                "INSERT INTO k (n) SELECT generate_series(1, 1000)")
        add(t.run.packages or os.path.dirname(debfile))
        upgraded = apt_get("upgrade", options=options)
        if deb_installed(pkg) != f"{crate_version()}-1":
            fail(f"apt-get upgrade left {pkg} at {deb_installed(pkg)}:\n{upgraded}")
        subprocess.run(["pg_ctlcluster", str(major), cluster, "restart"], check=True, capture_output=True)
        got = run_sql(psql, "ALTER EXTENSION uuid_ext UPDATE",
                      "INSERT INTO k (n) SELECT generate_series(1001, 2000)",
                      "SELECT extversion || ' ' || (uuid_ext_info() ->> 'sequencer') FROM pg_extension "
                      "WHERE extname = 'uuid_ext'",
                      "SELECT count(*) FROM (SELECT lag(id) OVER (ORDER BY n) < id AS up FROM k) s WHERE up")
        if got.splitlines()[-2:] != [f"{crate_version()} shared", "1999"]:
            fail(f"after apt-get upgrade and ALTER EXTENSION uuid_ext UPDATE: {got}")
    ok(f"the apt repository of scripts/package --apt as a file: source of Debian's postgresql-{major} ({server}): "
       f"apt-get install {pkg} 0.9.0-1, a cluster preloading it, 1000 keys; this release added to the tree, "
       f"apt-get update and upgrade to {crate_version()}-1, the cluster restarted, ALTER EXTENSION UPDATE, "
       "2000 keys in order")


# scripts/setup installs it (cargo install pgxn_meta).
PGXN_META = os.path.join(os.environ.get("UUID_EXT_PG_ROOT", "/opt/uuid_ext"), "tools", "bin", "pgxn_meta")


def pgxn(t):
    """The PGXN distribution (docs/operations.md#pgxn): META.json valid under
    PGXN's spec (pgxn_meta; a copy without its licence is not), its versions
    those of Cargo.toml and uuid_ext.control; `scripts/package --pgxn`'s zip,
    unpacked in a new directory, built with `make` and installed with `make
    install` against this PostgreSQL; a new server preloading it makes keys
    on the shared sequencer. Against 15 and 18 (the majors PGXN's build is
    tested with), where this installation has its server headers."""
    if t.pg.major not in (15, 18):
        raise Skip(f"PGXN's make is tested against PostgreSQL 15 and 18, not {t.pg.major}")
    t.need(os.access(t.pg.pkglibdir, os.W_OK) and os.access(t.pg.extension_dir, os.W_OK),
           f"make install writes into {t.pg.pkglibdir}: not writable here")
    includes = subprocess.run([t.pg.pg_config, "--includedir-server"], capture_output=True, text=True).stdout.strip()
    if not os.path.exists(os.path.join(includes, "postgres.h")):
        raise Skip(f"PostgreSQL {t.pg.release} here has no server headers ({includes}): make cannot build against it")
    if not shutil.which("git"):
        raise Skip("no git here: the zip is made from the clone (the host's run tests it)")
    if not os.access(PGXN_META, os.X_OK):
        raise Skip(f"no {PGXN_META} here: scripts/setup installs it on Debian 12, where PGXN's make is tested "
                   "against 15.18 and 18.6")
    meta = json.load(open(os.path.join(ROOT, "META.json")))
    versions = (meta["version"], meta["provides"]["uuid_ext"]["version"])
    if versions != (crate_version(), ext_version()):
        fail(f"META.json says {versions}, Cargo.toml and uuid_ext.control {(crate_version(), ext_version())}")
    bad = t.path("META-without-licence.json")
    json.dump({k: v for k, v in meta.items() if k != "license"}, open(bad, "w"))
    checks = [subprocess.run([PGXN_META, p], capture_output=True, text=True) for p in (os.path.join(ROOT, "META.json"), bad)]
    if checks[0].returncode != 0 or checks[1].returncode == 0:
        fail(f"pgxn_meta: META.json {checks[0].stdout}{checks[0].stderr}; without a licence: exit {checks[1].returncode}")
    dist = t.path("pgxn")
    r = subprocess.run([os.path.join(ROOT, "scripts", "package"), "--pgxn", dist], cwd=ROOT, capture_output=True,
                       text=True)
    zips = glob.glob(os.path.join(dist, "*.zip"))
    if r.returncode != 0 or zips != [os.path.join(dist, f"uuid_ext-{crate_version()}.zip")]:
        fail(f"scripts/package --pgxn: exit {r.returncode}, wrote {zips}:\n{r.stderr}")
    with zipfile.ZipFile(zips[0]) as z:
        roots = {n.split("/")[0] for n in z.namelist()}
        z.extractall(t.path("unzipped"))
    if roots != {f"uuid_ext-{crate_version()}"}:
        fail(f"the zip's root is {roots}, not one uuid_ext-{crate_version()}/")
    licences_file = t.path("unzipped", f"uuid_ext-{crate_version()}", "LICENSES")
    gaps = copyright_gaps(open(licences_file).read() if os.path.exists(licences_file) else "",
                          linked_crates(t.pg.major), accepted_licences())
    if gaps:
        fail(f"the zip's LICENSES: {'; '.join(gaps[:10])}")
    src = t.path("unzipped", f"uuid_ext-{crate_version()}")
    with nothing_of_uuid_ext(t):
        pgxn_make(t, src)


def pgxn_make(t, src):
    """make and make install of the unzipped distribution SRC into t.pg,
    which holds an earlier release's install script: make install takes it
    away; a server preloading what it installed."""
    earlier = os.path.join(t.pg.extension_dir, f"uuid_ext--{EARLIER}.sql")
    extension.place(os.path.join(ROOT, "tests", "upgrade", f"uuid_ext--{EARLIER}.sql"), earlier, 0o644)
    # A build directory kept between runs where scripts/test names one (the
    # dependencies built once per machine and major), else one here. What is
    # tested is that make builds and installs: the release profile without
    # its link-time optimisation (a minute of one core each time) will do.
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    env["CARGO_TARGET_DIR"] = os.environ.get("UUID_EXT_PGXN_TARGET") or t.path("target")
    env.update(CARGO_PROFILE_RELEASE_LTO="off", CARGO_PROFILE_RELEASE_CODEGEN_UNITS="16")
    for target in ("all", "install"):
        r = subprocess.run(["make", target, f"PG_CONFIG={t.pg.pg_config}"], cwd=src, env=env, capture_output=True,
                           text=True)
        if r.returncode != 0:
            fail(f"make {target} PG_CONFIG={t.pg.pg_config}:\n{(r.stdout + r.stderr)[-5000:]}")
    if os.path.exists(earlier):
        fail(f"make install left {earlier}, which this build does not ship: a database owner could install it")
    srv = t.server("pgxn").create("shared_preload_libraries = 'uuid_ext'")
    said = srv.q("CREATE EXTENSION uuid_ext; SELECT uuid_ext_info() ->> 'version', uuid_ext_info() ->> 'sequencer', "
                 "uuid_extract_version(uuid_generate_v7())")
    srv.stop()
    if said.splitlines()[-1] != f"{crate_version()}|shared|7":
        fail(f"the library make installed: {said}")
    ok(f"META.json valid under PGXN's spec (pgxn_meta; without its licence, not); the zip of scripts/package --pgxn "
       f"(its LICENSES naming every crate) unpacked, make and make install against {t.pg.release} (which removed "
       f"uuid_ext--{EARLIER}.sql, left there): uuid_ext {crate_version()}, the shared sequencer")


def image_of(t):
    """The CloudNativePG image of t.pg's major (an OCI archive) and its tag."""
    files_of(t)  # built here when the runner was given no packages
    dist = t.run.packages or t.path("dist")
    return (os.path.join(dist, f"uuid_ext-{crate_version()}-pg{t.pg.major}-image.tar"),
            f"{crate_version()}-{t.pg.major}-bookworm")


def oci_config(layout, tag):
    """The image configuration of TAG in an OCI layout."""
    def blob(digest):
        return json.load(open(os.path.join(layout, "blobs", *digest.split(":"))))
    for m in json.load(open(os.path.join(layout, "index.json")))["manifests"]:
        if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag:
            manifest = blob(m["digest"])
            return blob(manifest["config"]["digest"]), manifest
    fail(f"the image has no tag {tag}")


def image_layout(t, name):
    """The image of t.pg's major, its OCI archive unpacked into t's directory
    `name`: (the layout, its tag)."""
    archive, tag = image_of(t)
    if not os.path.exists(archive):
        fail(f"no image {archive}")
    layout = t.path(name)
    os.makedirs(layout)
    with tarfile.open(archive) as tar:
        tar.extractall(layout)
    return layout, tag


def unpack(layout, tag, rootfs):
    """The files of the image TAG of an OCI layout, at ROOTFS (umoci)."""
    os.makedirs(os.path.dirname(rootfs), exist_ok=True)
    r = subprocess.run(["umoci", "raw", "unpack", "--rootless", "--image", f"{layout}:{tag}", rootfs],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"umoci raw unpack {layout}:{tag}: {r.stderr}")


def read_only(root):
    """The files at ROOT as a pod mounts an image: root's, read-only."""
    for d, dirs, files in os.walk(root):
        for p in [d, *(os.path.join(d, f) for f in files)]:
            os.chown(p, 0, 0)
            os.chmod(p, 0o555 if os.path.isdir(p) else 0o444)
    os.chmod(os.path.dirname(root), 0o755)


IMAGE_LABELS = ("org.opencontainers.image.title", "org.opencontainers.image.version",
                "org.opencontainers.image.licenses", "org.opencontainers.image.source",
                "org.opencontainers.image.base.name", "io.cloudnativepg.image.base.pgmajor",
                "io.cloudnativepg.image.base.os", "io.cloudnativepg.image.sql.version")


def image(t):
    """The CloudNativePG extension image (docs/operations.md#cloudnativepg),
    as the operator uses it: unpacked read-only (root's, no write bit) where
    the operator mounts it, the server given only extension_control_path,
    dynamic_library_path and shared_preload_libraries pointing there,
    nothing of uuid_ext in the server's own directories. First an image of
    the previous release's install script (0.9.0's, as released, beside this
    library, as the update tests pair them), CREATE EXTENSION and keys; then
    the server restarted on this image, ALTER EXTENSION UPDATE, the keys
    above the earlier ones; keys from sessions one after another strictly
    increasing; scripts/demo.sql. PostgreSQL 18 and later (extension_control_path)."""
    if t.pg.major < 18:
        raise Skip(f"extension_control_path, which an image needs, came with PostgreSQL 18; this is {t.pg.release}")
    t.need(shutil.which("umoci"), "umoci unpacks the image (scripts/setup installs it)")
    t.need(t.host.root, "the image is unpacked as a pod mounts it, root's: needs root")
    at_or_above_floor(t)
    t.need(os.access(t.pg.tool("psql"), os.X_OK), f"PostgreSQL {t.pg.release} here has no psql")
    layout, tag = image_layout(t, "oci")
    config, manifest = oci_config(layout, tag)
    labels = config.get("config", {}).get("Labels") or {}
    missing = [k for k in IMAGE_LABELS if not labels.get(k)]
    if missing or labels["io.cloudnativepg.image.base.pgmajor"] != str(t.pg.major) \
            or labels["io.cloudnativepg.image.sql.version"] != ext_version() \
            or manifest.get("annotations", {}).get("org.opencontainers.image.version") != crate_version():
        fail(f"the image's labels lack {missing} or name another major or version: {labels}")
    new_root = t.path("extensions", "uuid_ext")
    unpack(layout, tag, new_root)
    read_only(new_root)
    files = sorted(os.path.relpath(os.path.join(d, f), new_root) for d, _, fs in os.walk(new_root) for f in fs)
    expected = sorted(["lib/uuid_ext.so", "licenses/uuid_ext/copyright",
                       *(os.path.join("share", "extension", f) for f in
                         os.listdir(os.path.join(new_root, "share", "extension")) if f.startswith("uuid_ext"))])
    if files != expected or "share/extension/uuid_ext.control" not in files:
        fail(f"the image holds {files}, not only /lib/uuid_ext.so, /share/extension/uuid_ext* and /licenses")
    # The previous release's image: 0.9.0's install script and control file
    # beside this library (the update tests pair them so).
    old_stage = t.path("old-image")
    os.makedirs(os.path.join(old_stage, "share", "extension"))
    os.makedirs(os.path.join(old_stage, "lib"))
    shutil.copy(os.path.join(new_root, "lib", "uuid_ext.so"), os.path.join(old_stage, "lib"))
    shutil.copy(os.path.join(ROOT, "tests", "upgrade", "uuid_ext--0.9.0.sql"),
                os.path.join(old_stage, "share", "extension"))
    control = open(os.path.join(new_root, "share", "extension", "uuid_ext.control")).read()
    with open(os.path.join(old_stage, "share", "extension", "uuid_ext.control"), "w") as f:
        f.write(re.sub(r"default_version = '[^']*'", "default_version = '0.9.0'", control))
    old_root = t.path("old-extensions", "uuid_ext")
    shutil.copytree(old_stage, old_root)
    read_only(old_root)

    def mounted(root):  # what the operator sets for an image at ROOT
        return (f"extension_control_path = '$system:{root}/share'", f"dynamic_library_path = '$libdir:{root}/lib'",
                "shared_preload_libraries = 'uuid_ext'")
    with nothing_of_uuid_ext(t):
        srv = t.server("image").create(*mounted(old_root))
        said = srv.q("CREATE EXTENSION uuid_ext; CREATE TABLE k (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int);"
                     "INSERT INTO k (n) SELECT generate_series(1, 1000);"
                     "SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext'")
        if said.splitlines()[-1] != "0.9.0":
            fail(f"CREATE EXTENSION with the previous release's image: {said}")
        srv.stop()
        srv.configure(*mounted(new_root))
        srv.start()
        said = srv.q("ALTER EXTENSION uuid_ext UPDATE; INSERT INTO k (n) SELECT generate_series(1001, 2000);"
                     "SELECT extversion FROM pg_extension WHERE extname = 'uuid_ext';"
                     "SELECT uuid_ext_info() ->> 'sequencer', uuid_ext_info() ->> 'version';"
                     "SELECT count(*) FROM (SELECT n, lag(id) OVER (ORDER BY n) < id AS up FROM k) s WHERE up;"
                     "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'uuid_ext horizon worker'")
        if said.splitlines()[-4:] != [crate_version(), f"shared|{crate_version()}", "1999", "1"]:
            fail(f"after ALTER EXTENSION uuid_ext UPDATE with this image: {said}")
        keys = [srv.q("SELECT uuid_generate_v7()") for _ in range(12)]
        if keys != sorted(keys) or len(set(keys)) != len(keys):
            fail(f"keys of sessions one after another are not strictly increasing: {keys}")
        own = [f for f in [*glob.glob(os.path.join(t.pg.pkglibdir, "uuid_ext*")),
                           *glob.glob(os.path.join(t.pg.extension_dir, "uuid_ext*"))]]
        if own:
            fail(f"uuid_ext files in the server's own directories: {own}")
        srv.q("CREATE DATABASE demo")
        r = subprocess.run([*srv.psql("demo"), "-f", os.path.join(ROOT, "scripts", "demo.sql")], capture_output=True,
                           text=True)
        if r.returncode != 0:
            fail(f"scripts/demo.sql with the image: {r.stdout[-2000:]}{r.stderr}")
        srv.stop()
    ok(f"{os.path.basename(image_of(t)[0])} (tag {tag}, the operator's labels): unpacked read-only, a server of "
       f"{t.pg.release} given only extension_control_path, dynamic_library_path and shared_preload_libraries, nothing "
       "of uuid_ext in its own directories: from the previous release's image (0.9.0, 1000 keys) to this one, ALTER "
       f"EXTENSION UPDATE to {crate_version()}, the shared sequencer and its horizon worker, 2000 keys in order; 12 "
       "sessions' keys increasing; scripts/demo.sql")


def linked_crates(major):
    """The crates Cargo.lock puts into the library of MAJOR, as `cargo tree`
    lists them (normal dependencies for Linux: no build or dev dependency),
    uuid_ext's own left out: {(name, version)}."""
    r = subprocess.run(["cargo", "tree", "--frozen", "-e", "normal", "--no-default-features", "--features",
                        f"pg{major}", "--prefix", "none", "--target", "x86_64-unknown-linux-gnu", "-p", "uuid_ext"],
                       cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"cargo tree: {r.stderr[-2000:]}")
    crates = {tuple(line.split()[:2]) for line in r.stdout.splitlines() if line.strip()}
    return {(n, v.lstrip("v")) for n, v in crates if n not in ("uuid_ext", "uuid_ext_core")}


def accepted_licences():
    import tomllib
    return set(tomllib.load(open(os.path.join(ROOT, "about.toml"), "rb"))["accepted"])


def copyright_gaps(text, crates, accepted):
    """What a DEP-5 copyright file lacks: a crate of CRATES without its Files
    paragraph, a licence not in ACCEPTED, a licence named without its text."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    fields = [dict(re.findall(r"^([A-Za-z-]+):[ \t]*(.*)$", p, re.M)) for p in paragraphs]
    files = {f["Files"]: f for f in fields if "Files" in f}
    texts = {f["License"] for f, p in zip(fields, paragraphs) if "Files" not in f and "License" in f
             and len(p.splitlines()) > 3}
    gaps = []
    for name, version in sorted(crates):
        f = files.get(f"cargo-crates/{name}-{version}/*")
        if not f:
            gaps.append(f"the crate {name} {version} is not named")
            continue
        if not f.get("Copyright"):
            gaps.append(f"the crate {name} {version} has no copyright line")
    for f in files.values():
        for lic in re.split(r"\s+(?:and|or)\s+", f.get("License", "")):
            if lic not in accepted:
                gaps.append(f"{f['Files']}: the licence {lic!r} is not accepted (about.toml)")
            elif lic not in texts:
                gaps.append(f"{f['Files']}: no text of the licence {lic}")
    return gaps


def licences(t):
    """The copyright file of every package of this major (the .deb's, the
    tarball's LICENSES, the image's /licenses/uuid_ext/copyright) names each
    crate `cargo tree` finds in the library, with a copyright line and a
    licence of about.toml's accepted list whose text it holds; the three are
    the same file. The check fails on a copy that lacks a crate, and on one
    with a licence not accepted (docs/operations.md#licences)."""
    t.need(shutil.which("cargo"), "cargo tree lists the library's crates: no cargo here")
    tarball, debfile = files_of(t)
    with tarfile.open(tarball) as tar:
        found = {"the tarball's LICENSES": tar.extractfile(
            f"uuid_ext-{crate_version()}-pg{t.pg.major}/LICENSES").read().decode()}
    r = subprocess.run(["dpkg-deb", "--fsys-tarfile", debfile], capture_output=True)
    with tarfile.open(fileobj=io.BytesIO(r.stdout)) as tar:
        found["the .deb's copyright"] = tar.extractfile(
            f"./usr/share/doc/postgresql-{t.pg.major}-uuid-ext/copyright").read().decode()
    if t.pg.major >= 18:
        layout, tag = image_layout(t, "licences-oci")
        rootfs = t.path("licences-rootfs")
        unpack(layout, tag, rootfs)
        found["the image's /licenses/uuid_ext/copyright"] = open(
            os.path.join(rootfs, "licenses", "uuid_ext", "copyright")).read()
    crates, accepted = linked_crates(t.pg.major), accepted_licences()
    for where, text in found.items():
        gaps = copyright_gaps(text, crates, accepted)
        if gaps:
            fail(f"{where}: " + "; ".join(gaps))
    if len(set(found.values())) != 1:
        fail(f"the copyright files differ: {list(found)}")
    text = next(iter(found.values()))
    name, version = sorted(crates)[0]
    without = re.sub(rf"Files: cargo-crates/{re.escape(name)}-{re.escape(version)}/\*\n(.+\n)+", "", text)
    other = text.replace("License: MIT\n", "License: GPL-3.0\n", 1)
    if not copyright_gaps(without, crates, accepted) or not copyright_gaps(other, crates, accepted):
        fail("the check found nothing in a copy without a crate, or with a licence not accepted")
    ok(f"{' = '.join(found)}: all {len(crates)} crates of the library (cargo tree), each with its copyright line "
       f"and a licence of about.toml ({', '.join(sorted({x for x in re.findall(r'^License: (.+)$', text, re.M)}))}) "
       "whose text it holds; a copy without a crate, or with a licence not accepted, fails the check")
