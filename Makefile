# PGXN's build of uuid_ext: `make && make install`, against the PostgreSQL
# whose pg_config is PG_CONFIG (the first on PATH by default). uuid_ext is
# written in Rust: it needs cargo (Rust 1.96 or later), cargo-pgrx 0.19.3 and
# the server's headers (postgresql-server-dev-NN on Debian and Ubuntu);
# `make` checks for each (and pgrx's bindings need libclang). The library and the SQL scripts are built
# into target/pgxn/pgNN, then copied where PG_CONFIG says (each file
# renamed into place: a running server keeps the library it mapped).

PG_CONFIG ?= pg_config
PGRX_VERSION = 0.19.3
MAJOR = $(shell $(PG_CONFIG) --version 2>/dev/null | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
OUT = target/pgxn/pg$(MAJOR)
PKGLIBDIR = $(shell $(PG_CONFIG) --pkglibdir 2>/dev/null)
EXTENSIONDIR = $(shell $(PG_CONFIG) --sharedir 2>/dev/null)/extension

all: check
	rm -rf $(OUT)
	PGRX_PG_CONFIG_PATH="$(PG_CONFIG)" cargo pgrx package --pg-config "$(PG_CONFIG)" \
	  --no-default-features --features pg$(MAJOR) --out-dir $(OUT)

check:
	@$(PG_CONFIG) --version >/dev/null 2>&1 || { echo "no pg_config at $(PG_CONFIG): make PG_CONFIG=/path/to/pg_config" >&2; exit 1; }
	@case "$(MAJOR)" in 15|16|17|18|19) ;; *) echo "uuid_ext builds for PostgreSQL 15 to 19, not $$($(PG_CONFIG) --version)" >&2; exit 1 ;; esac
	@test -f "$$($(PG_CONFIG) --includedir-server)/postgres.h" || { echo "the headers of PostgreSQL $(MAJOR) are missing ($$($(PG_CONFIG) --includedir-server)): install postgresql-server-dev-$(MAJOR)" >&2; exit 1; }
	@command -v cargo >/dev/null || { echo "uuid_ext is written in Rust and cargo is not on PATH: install Rust 1.96 or later (https://rustup.rs)" >&2; exit 1; }
	@cargo pgrx --version 2>/dev/null | grep -q " $(PGRX_VERSION)$$" || { echo "uuid_ext builds with cargo-pgrx $(PGRX_VERSION): cargo install --locked cargo-pgrx --version $(PGRX_VERSION)" >&2; exit 1; }

install:
	@test -n "$$(find $(OUT) -name uuid_ext.so 2>/dev/null)" || { echo "nothing built for PostgreSQL $(MAJOR): run make PG_CONFIG=$(PG_CONFIG) first" >&2; exit 1; }
	install -d "$(DESTDIR)$(PKGLIBDIR)" "$(DESTDIR)$(EXTENSIONDIR)"
	install -m 755 "$$(find $(OUT) -name uuid_ext.so)" "$(DESTDIR)$(PKGLIBDIR)/.uuid_ext.so.new"
	mv -f "$(DESTDIR)$(PKGLIBDIR)/.uuid_ext.so.new" "$(DESTDIR)$(PKGLIBDIR)/uuid_ext.so"
	for f in $$(find $(OUT) -path "*/extension/uuid_ext*" -type f); do \
	  install -m 644 "$$f" "$(DESTDIR)$(EXTENSIONDIR)/.$$(basename $$f).new" && \
	  mv -f "$(DESTDIR)$(EXTENSIONDIR)/.$$(basename $$f).new" "$(DESTDIR)$(EXTENSIONDIR)/$$(basename $$f)" || exit 1; \
	done
	@# An earlier release's install script left there would keep that release installable by a
	@# database owner (the extension is trusted): every uuid_ext script this build does not ship goes.
	@for f in "$(DESTDIR)$(EXTENSIONDIR)"/uuid_ext--*; do \
	  [ -e "$$f" ] || continue; \
	  if [ -z "$$(find $(OUT) -path "*/extension/$$(basename $$f)" -type f)" ]; then \
	    rm -f "$$f" && echo "removed $$f: this build of uuid_ext does not ship it"; \
	  fi; \
	done

.PHONY: all check install
