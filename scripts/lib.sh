# Shared settings and helpers for the scripts; sourced, not run.
UUID_EXT_USER=${UUID_EXT_USER:-uuidext}
UUID_EXT_PG_ROOT=${UUID_EXT_PG_ROOT:-/opt/uuid_ext}
UUID_EXT_PG_VERSIONS=${UUID_EXT_PG_VERSIONS:-"15 16 17 18"}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Where each PostgreSQL lives (scripts/setup installs them): 15 is Debian's
# package, 16 a PyPI wheel, 17 and 18 built from Debian's source packages.
pg_prefix_for() { # major -> its installation prefix
  case $1 in
    15) echo /usr/lib/postgresql/15 ;;
    16) echo "$UUID_EXT_PG_ROOT/pg16/pgserver/pginstall" ;;
    *) echo "$UUID_EXT_PG_ROOT/postgresql-$1" ;;
  esac
}
crate_version() { sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -1; }
pg_config_for() { echo "$(pg_prefix_for "$1")/bin/pg_config"; }
pg_bindir_for() { "$(pg_config_for "$1")" --bindir; }
pg_regress_for() { echo "$(dirname "$("$(pg_config_for "$1")" --pgxs)")/../test/regress/pg_regress"; }

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

# Builds and installs the extension into PostgreSQL MAJOR (debug unless --release).
install_ext() { # MAJOR [--release]
  local major=$1; shift
  (cd "$ROOT" && cargo pgrx install --no-default-features --features "pg$major" \
      --pg-config "$(pg_config_for "$major")" "$@" >/dev/null)
}

# Runs pg_regress golden tests (INPUTDIR/sql, INPUTDIR/expected; default
# tests/pg_regress) against the cluster in $PGHOST/$PGPORT.
#  - sql/NAME_pgNN.sql runs on PostgreSQL NN only;
#  - a file whose first line is `-- requires: EXTENSION` runs only where that
#    extension is installed (the contrib modules; the wheel of 16 has none);
#  - expected/pgNN/NAME.out, where it exists, is NAME's expected output on NN
#    (a result that differs by version), else expected/NAME.out.
run_regress() { # MAJOR OUTDIR [INPUTDIR]
  local major=$1 out=$2 in=${3:-$ROOT/tests/pg_regress} tests=() f n req
  local sharedir stage="$2/input"
  sharedir=$("$(pg_config_for "$major")" --sharedir)
  rm -rf "$stage"
  mkdir -p "$stage/sql" "$stage/expected"
  for f in "$in"/sql/*.sql; do
    n=$(basename "$f" .sql)
    case $n in *_pg[0-9]*) [[ $n == *_pg"$major" ]] || continue ;; esac
    req=$(sed -n '1s/^-- requires: *\([^ ]*\).*/\1/p' "$f")
    if [ -n "$req" ] && [ ! -f "$sharedir/extension/$req.control" ]; then
      echo "(skipped on PostgreSQL $major, which has no $req: $n)"
      continue
    fi
    cp "$f" "$stage/sql/"
    if [ -f "$in/expected/pg$major/$n.out" ]; then
      cp "$in/expected/pg$major/$n.out" "$stage/expected/$n.out"
    else
      cp "$in/expected/$n.out" "$stage/expected/$n.out"
    fi
    tests+=("$n")
  done
  "$(pg_regress_for "$major")" --bindir="$(pg_bindir_for "$major")" \
    --inputdir="$stage" --outputdir="$out" \
    --host="$PGHOST" --port="$PGPORT" --user=postgres --dbname=uuid_ext_regress "${tests[@]}"
}
