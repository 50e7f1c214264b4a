"""The packages of scripts/package, installed where users install them
(docs/operations.md#installing).

- archive: `scripts/package --pg-config` builds the tarball and the .deb for
  the PostgreSQL under test (lintian, where it is installed, finds no error
  in the .deb); pgrx's schema generator writes the same install script on
  five runs, and the release build's is the debug build's byte for byte;
  install.sh refuses a server older than the minor it was built against
  and one of another major, installing nothing; it installs into the
  PostgreSQL under test, whose uuid_ext files were removed first, and a new
  server preloading it makes keys of both types on the shared sequencer.
- deb: the .deb with apt into Debian's own postgresql-NN (root, on a Debian
  system that has that package at the minor it needs or later), a cluster
  made by Debian's pg_createcluster preloading it, a uuid7 table; then
  apt-get remove leaves none of its files.
"""
import glob
import os
import re
import shutil
import subprocess
import tarfile

import extension
from harness import Skip
from pg import fail, ok

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def crate_version():
    return re.search(r'^version = "([^"]+)"', open(os.path.join(ROOT, "Cargo.toml")).read(), re.M).group(1)


def ext_version():
    return re.search(r"^default_version = '([^']+)'", open(os.path.join(ROOT, "uuid_ext.control")).read(),
                     re.M).group(1)


def built(t):
    """scripts/package's archive and .deb for t.pg, built once into t's directory."""
    dist = t.path("dist")
    version = crate_version()
    tarball = os.path.join(dist, f"uuid_ext-{version}-pg{t.pg.major}-{os.uname().machine}-linux.tar.gz")
    if not os.path.exists(tarball):
        r = subprocess.run([os.path.join(ROOT, "scripts", "package"), "--pg-config", t.pg.pg_config, "--out", dist],
                           cwd=ROOT, capture_output=True, text=True)
        print(r.stdout, end="")
        if r.returncode != 0:
            fail(f"scripts/package --pg-config {t.pg.pg_config} failed:\n{r.stderr[-5000:]}")
    debs = glob.glob(os.path.join(dist, f"postgresql-{t.pg.major}-uuid-ext_{version}-1_*.deb"))
    if len(debs) != 1:
        fail(f"scripts/package wrote {debs}, not one .deb for PostgreSQL {t.pg.major}")
    return tarball, debs[0]


def run_sql(argv, *statements):
    r = subprocess.run([*argv, *[x for s in statements for x in ("-c", s)]], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{statements}: {r.stderr}")
    return r.stdout.strip()


def archive(t):
    t.need(t.pg.writable(), f"installing the archive writes into {t.pg.pkglibdir}, which this user may not write")
    version, script = crate_version(), f"uuid_ext--{ext_version()}.sql"
    installed = os.path.join(t.pg.extension_dir, script)
    # pgrx's schema generator (a debug build) writes the same install script
    # on every run.
    env = extension.cargo_env(t.pg, t.dir)
    debug_script = t.path("schema-1.sql")
    for i in range(1, 6):
        out = t.path(f"schema-{i}.sql")
        r = subprocess.run(["cargo", "pgrx", "schema", "--no-default-features", "--features", f"pg{t.pg.major}",
                            "-o", out], cwd=ROOT, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"cargo pgrx schema failed:\n{r.stderr[-3000:]}")
        if open(out, "rb").read() != open(debug_script, "rb").read():
            fail(f"run {i} of pgrx's schema generator wrote another {script} than run 1")
    tarball, _ = built(t)

    # Nothing of uuid_ext left in the server's directories but the earlier
    # releases' scripts the update tests use.
    for f in [os.path.join(t.pg.pkglibdir, "uuid_ext.so"), os.path.join(t.pg.extension_dir, "uuid_ext.control"),
              *glob.glob(os.path.join(t.pg.extension_dir, "uuid_ext--*--*.sql")), installed]:
        if os.path.exists(f):
            os.unlink(f)
    unpacked = t.path("archive")
    with tarfile.open(tarball) as tar:
        tar.extractall(unpacked)
    pkg = os.path.join(unpacked, f"uuid_ext-{version}-pg{t.pg.major}")
    install_sh = os.path.join(pkg, "install.sh")
    # install.sh refuses a server older than the minor it was built against,
    # and one of another major (a pg_config that says so), installing nothing.
    fake = t.path("fake-pg_config")
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
    ok(f"the archive's install.sh refuses, installing nothing: {'; '.join(refusals)}")
    if open(os.path.join(pkg, "extension", script), "rb").read() != open(debug_script, "rb").read():
        fail(f"the release build's {script} differs from the debug build's")
    r = subprocess.run([install_sh, t.pg.pg_config], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"install.sh {t.pg.pg_config} failed: {r.stderr}")
    srv = t.server("package").create("shared_preload_libraries = 'uuid_ext'")
    got = run_sql(srv.psql(), "CREATE EXTENSION uuid_ext",
                  "CREATE TABLE t (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), v6 uuid6 DEFAULT uuid_generate_v6())",
                  "INSERT INTO t SELECT FROM generate_series(1, 100)",
                  "SELECT (uuid_ext_info() ->> 'version') || ' ' || (uuid_ext_info() ->> 'sequencer') || ' ' || count(*) "
                  "FROM t")
    srv.stop()
    if got != f"{version} shared 100":
        fail(f"the package's extension answered: {got}")
    ok(f"uuid_ext {version} installed from its archive: preloaded, shared sequencer, types work; its {script} is "
       "the debug build's, byte for byte")


def deb_installed(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Version}", pkg], capture_output=True, text=True)
    return r.stdout.split()[-1] if r.returncode == 0 and " installed " in r.stdout + " " else None


def deb(t):
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
    _, debfile = built(t)
    depends = subprocess.run(["dpkg-deb", "-f", debfile, "Depends"], capture_output=True, text=True).stdout.strip()
    need = re.search(rf"postgresql-{major} \(>= ([^)]+)\)", depends).group(1)
    if subprocess.run(["dpkg", "--compare-versions", server, "ge", need]).returncode != 0:
        raise Skip(f"Debian's postgresql-{major} here is {server}, older than the {need} the package was built "
                   f"against (Depends: {depends.split(',')[0]})")

    def apt(*args):
        r = subprocess.run(["apt-get", "-y", "-q", *args], capture_output=True, text=True,
                           env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        if r.returncode != 0:
            fail(f"apt-get {' '.join(args)}: {r.stdout[-2000:]}{r.stderr}")
    saved = t.path("saved")
    os.makedirs(saved)
    kept = [f for f in [f"{lib}/uuid_ext.so", *glob.glob(f"{ext}/uuid_ext*")] if os.path.exists(f)]
    for f in kept:
        shutil.copy2(f, saved)
    if deb_installed(pkg):
        apt("remove", pkg)
    for f in kept:
        if os.path.exists(f):
            os.unlink(f)
    cluster, port = "uuidext_deb", str(t.run.port())
    subprocess.run(["pg_dropcluster", "--stop", str(major), cluster], capture_output=True)
    try:
        apt("install", os.path.abspath(debfile))
        version = crate_version()
        if deb_installed(pkg) != f"{version}-1":
            fail(f"{pkg} {version}-1 is not installed after apt-get install")
        subprocess.run(["pg_createcluster", str(major), cluster, "-p", port, "-o", "shared_preload_libraries=uuid_ext"],
                       check=True, capture_output=True)
        subprocess.run(["pg_ctlcluster", str(major), cluster, "start"], check=True, capture_output=True)
        # Debian's socket directory and default user.
        got = run_sql(["runuser", "-u", "postgres", "--", f"/usr/lib/postgresql/{major}/bin/psql", "-X", "-q", "-At",
                       "-h", "/var/run/postgresql", "-p", port, "-d", "postgres", "-v", "ON_ERROR_STOP=1"],
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
        apt("remove", pkg)
        left = [f for f in files if os.path.exists(f)] + [f for f in [f"{lib}/uuid_ext.so", *glob.glob(f"{ext}/uuid_ext*")]
                                                           if os.path.exists(f)]
        if left:
            fail(f"apt-get remove left: {left}")
    finally:
        subprocess.run(["pg_dropcluster", "--stop", str(major), cluster], capture_output=True)
        # What was there before comes back (renamed into place: a server may map the library).
        for f in kept:
            extension.place(os.path.join(saved, os.path.basename(f)), f, 0o755 if f.endswith(".so") else 0o644)
    ok(f"{os.path.basename(debfile)}: apt-get install into Debian's postgresql-{major} (server {got.split()[-1]}, "
       f"{depends.split(',')[0]}), a pg_createcluster cluster preloading it, a uuid7 table of 1000 keys; "
       "apt-get remove leaves none of its files")
