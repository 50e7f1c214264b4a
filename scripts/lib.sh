# Shared settings and helpers for the scripts; sourced, not run.
UUID_EXT_USER=${UUID_EXT_USER:-uuidext}
UUID_EXT_PG_ROOT=${UUID_EXT_PG_ROOT:-/opt/uuid_ext}
UUID_EXT_PG_VERSIONS=${UUID_EXT_PG_VERSIONS:-"15 16 18"}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

pg_config_for() { # major -> path of its pg_config
  case $1 in
    15) echo /usr/lib/postgresql/15/bin/pg_config ;;
    *) echo "$UUID_EXT_PG_ROOT/pg$1/bin/pg_config" ;;
  esac
}
pg_bindir_for() { "$(pg_config_for "$1")" --bindir; }
