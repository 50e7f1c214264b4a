"""What the Python client tests of tests/clients share: the three tables, a
UUIDv7 made on the client, the fresh database, and the ok/FAIL lines.

The tables (docs/clients.md): the same key three ways, each filled by
uuid_generate_v7() when the client gives none.
"""
import os
import sys
import time
import traceback
import uuid

import psycopg

SCHEMA = """
CREATE EXTENSION uuid_ext;
CREATE DOMAIN uuid7_domain AS uuid CHECK (public.uuid_extract_version(VALUE) = 7);
CREATE TABLE tu (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int NOT NULL);
CREATE TABLE t7 (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int NOT NULL);
CREATE TABLE td (id uuid7_domain PRIMARY KEY DEFAULT uuid_generate_v7(), n int NOT NULL);
"""
# table -> the column's type
TABLES = {"tu": "uuid", "t7": "uuid7", "td": "uuid7_domain"}

# A UUIDv4 is refused by each column this way (None: accepted).
V4_REFUSED = {"tu": None, "t7": "22P02", "td": "23514"}
# ... and with this in its message (docs/clients.md quotes them).
V4_MESSAGE = {"tu": None, "t7": "a uuid7 holds UUIDv7s only, not a UUIDv4",
              "td": 'value for domain uuid7_domain violates check constraint "uuid7_domain_check"'}


def client_v7():
    """A UUIDv7 made here (RFC 9562 section 5.7): the Unix time in
    milliseconds, version 7, 74 random bits, the RFC variant."""
    ms = time.time_ns() // 1_000_000
    b = bytearray(ms.to_bytes(6, "big") + os.urandom(10))
    b[6] = 0x70 | (b[6] & 0x0F)
    b[8] = 0x80 | (b[8] & 0x3F)
    return uuid.UUID(bytes=bytes(b))


def is_v7(value):
    return isinstance(value, uuid.UUID) and value.version == 7 and value.variant == uuid.RFC_4122


def pause():
    """Long enough that the next UUIDv7, client's or server's, is in a later
    millisecond: UUIDs made one after another then sort in that order."""
    time.sleep(0.003)


class Checks:
    """Prints `ok   what` or `FAIL what: detail`; exit() is non-zero after any FAIL."""

    def __init__(self, client):
        self.client = client
        self.failed = 0
        self.passed = 0

    def check(self, cond, what, detail=""):
        if cond:
            self.passed += 1
            print(f"ok   {self.client}: {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {self.client}: {what}" + (f": {detail}" if detail else ""), flush=True)
        return cond

    def equal(self, got, want, what):
        return self.check(got == want, what, f"got {got!r}, want {want!r}")

    def raises(self, fn, what, sqlstate=None, exc=Exception, match=None):
        """fn() must raise exc (with that SQLSTATE, or that text in its message)."""
        try:
            fn()
        except exc as e:
            state = sqlstate_of(e)
            good = (sqlstate is None or state == sqlstate) and (match is None or match in str(e))
            self.check(good, what, f"raised {type(e).__name__} [{state}]: {e}")
            return e
        self.check(False, what, "no error")
        return None

    def crashed(self):
        self.failed += 1
        print(f"FAIL {self.client}: unexpected error:\n{traceback.format_exc()}", flush=True)

    def skip(self, what, why):
        """A part this machine cannot run: the runner reports it as skipped."""
        print(f"skip {self.client}: {what}: {why}", flush=True)

    def exit(self):
        sys.exit(1 if self.failed or not self.passed else 0)


def sqlstate_of(e):
    """The SQLSTATE of a psycopg, asyncpg or SQLAlchemy-wrapped error, else None."""
    for x in (e, getattr(e, "orig", None), getattr(getattr(e, "orig", None), "__cause__", None), e.__cause__):
        state = getattr(x, "sqlstate", None)
        if state:
            return state
    return None


def fresh_database(name, schema=SCHEMA):
    """Creates database NAME anew (with the tables unless schema is None), on
    the server of PGHOST, PGPORT and PGUSER."""
    with psycopg.connect(dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    if schema:
        with psycopg.connect(dbname=name, autocommit=True) as conn:
            conn.execute(schema)


def drop_database(name):
    with psycopg.connect(dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
