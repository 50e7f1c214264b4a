"""The uuid7 and uuid6 types from the outside: pg_dump/pg_restore, binary COPY, psycopg 3, binary receive.

docs/reference.md#the-uuid7-and-uuid6-types, #errors:

- a table with both types survives pg_dump/pg_restore (plain and custom
  formats) and binary COPY out and in, unchanged;
- psycopg 3 writes and reads both as uuid.UUID, in text and binary, after
  the registration docs/reference.md shows;
- binary receive: thousands of random 0-to-32-byte values sent as binary
  uuid7/uuid6 parameters end with a value, 22P03 (not 16 bytes) or 22P02
  (another version), and the server never restarts.

Runs on the shared server (its pg_dump, pg_restore and psql); needs psycopg 3.
"""
import os
import random
import subprocess
import uuid

import psycopg
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.types import TypeInfo
from psycopg.types.uuid import UUIDBinaryLoader, UUIDLoader

from pg import fail, ok

rng = random.Random(int.from_bytes(os.urandom(8), "big"))


def run(*cmd, **kw):
    r = subprocess.run(cmd, text=True, capture_output=True, **kw)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)}:\n{r.stderr}")
    return r.stdout


CONTENT = ("SELECT md5(string_agg(id7::text || id6::text || n::text || coalesce(ids::text, ''), ',' ORDER BY n)), "
           "count(*), bool_and(pg_typeof(id7) = 'uuid7'::regtype AND pg_typeof(id6) = 'uuid6'::regtype) FROM t")


def dump_and_restore(t, srv):
    srv.fresh("types_src")
    srv.q("CREATE EXTENSION uuid_ext", "types_src")
    srv.q("CREATE TABLE t (id7 uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), "
          "id6 uuid6 NOT NULL DEFAULT uuid_generate_v6(), n int, ids uuid7[]); "
          "CREATE INDEX ON t USING hash (id6); CREATE INDEX ON t USING brin (id7); "
          "INSERT INTO t (n, ids) SELECT g, ARRAY[uuid_generate_v7(), uuid_generate_v7()] "
          "FROM generate_series(1, 2000) g; "
          "INSERT INTO t VALUES ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', "
          "'1ec9414c-232a-6b00-b3c8-9f6bdeced846', 0, NULL)", "types_src")
    want = srv.q(CONTENT, "types_src")
    # The server's user owns the directory: the server writes the COPY file into it.
    d = t.path("dumps")
    t.host.make_dir(d)
    plain, custom, copy = f"{d}/plain.sql", f"{d}/custom.dump", f"{d}/t.copy"
    run(srv.pg.tool("pg_dump"), "-d", srv.conninfo("types_src"), "-f", plain)
    run(srv.pg.tool("pg_dump"), "-d", srv.conninfo("types_src"), "-Fc", "-f", custom)
    srv.fresh("types_plain")
    run(*srv.psql("types_plain"), "-f", plain)
    srv.fresh("types_custom")
    run(srv.pg.tool("pg_restore"), "-d", srv.conninfo("types_custom"), "--exit-on-error", custom)
    for db in ("types_plain", "types_custom"):
        got = srv.q(CONTENT, db)
        if got != want:
            fail(f"{db}: restored content differs:\n  {got}\n  {want}")
        if srv.q("SELECT count(*) FROM pg_indexes WHERE tablename = 't'", db) != "3":
            fail(f"{db}: indexes not restored")
    ok("a table with uuid7, uuid6 and uuid7[] columns survives pg_dump and restore, plain and custom formats")

    srv.q(f"COPY t TO '{copy}' WITH (FORMAT binary)", "types_src")
    srv.q("CREATE TABLE t2 (LIKE t INCLUDING ALL)", "types_src")
    srv.q(f"COPY t2 FROM '{copy}' WITH (FORMAT binary)", "types_src")
    got = srv.q(CONTENT.replace("FROM t", "FROM t2"), "types_src")
    if got != want:
        fail(f"binary COPY out and in changed the data:\n  {got}\n  {want}")
    ok("binary COPY out and in leaves uuid7 and uuid6 unchanged")
    for db in ("types_plain", "types_custom"):
        srv.q(f"DROP DATABASE {db}")


def register(conn):
    """What docs/reference.md shows: psycopg reads both types as uuid.UUID."""
    for name in ("uuid7", "uuid6"):
        info = TypeInfo.fetch(conn, name)
        conn.adapters.register_loader(info.oid, UUIDLoader)
        conn.adapters.register_loader(info.oid, UUIDBinaryLoader)


def client(srv):
    with psycopg.connect(srv.conninfo("types_src")) as conn:
        before = conn.execute("SELECT id7 FROM t WHERE n = 0").fetchone()[0]
        if before != "017f22e2-79b0-7cc3-98c4-dc0c0c07398f":
            fail(f"unregistered, a uuid7 should read as text; read {before!r}")
        register(conn)
        v7 = uuid.UUID("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
        v6 = uuid.UUID("1ec9414c-232a-6b00-b3c8-9f6bdeced846")
        for binary in (False, True):
            cur = conn.cursor(binary=binary)
            row = cur.execute("SELECT id7, id6 FROM t WHERE n = 0").fetchone()
            if row != (v7, v6) or type(row[0]) is not uuid.UUID:
                fail(f"binary={binary}: read {row!r}")
            # Writing: a uuid.UUID parameter is a uuid, assigned to the column (checked).
            n = 10_000 + binary
            new7 = uuid.UUID(conn.execute("SELECT uuid_generate_v7()::text").fetchone()[0])
            new6 = uuid.UUID(conn.execute("SELECT uuid_generate_v6()::text").fetchone()[0])
            cur.execute("INSERT INTO t (id7, id6, n) VALUES (%s, %s, %s)", (new7, new6, n))
            back = cur.execute("SELECT id7, id6 FROM t WHERE n = %s", (n,)).fetchone()
            if back != (new7, new6):
                fail(f"binary={binary}: wrote {(new7, new6)}, read {back}")
            rows = cur.execute("SELECT id7 FROM t WHERE id7 >= %s ORDER BY id7 LIMIT 3", (v7,)).fetchall()
            if rows[0][0] != v7:
                fail(f"binary={binary}: a uuid parameter against a uuid7 column: {rows}")
        try:
            conn.execute("INSERT INTO t (id7, id6, n) VALUES (%s, %s, -1)", (uuid.uuid4(), v6))
            fail("a UUIDv4 went into a uuid7 column")
        except psycopg.errors.InvalidTextRepresentation:
            conn.rollback()
    ok("psycopg 3 reads uuid7 and uuid6 as uuid.UUID (text and binary) once registered, and writes uuid.UUID "
       "into both; a UUIDv4 is refused with 22P02")


class Raw:
    def __init__(self, data):
        self.data = data


def binary_receive(srv):
    """Random 0-to-32-byte values as binary parameters of each type."""
    outcomes = {}
    with psycopg.connect(srv.conninfo("types_src"), autocommit=True) as conn:
        start = conn.execute("SELECT pg_postmaster_start_time()").fetchone()[0]
        for name, version in (("uuid7", 7), ("uuid6", 6)):
            oid = TypeInfo.fetch(conn, name).oid

            class RawDumper(Dumper):
                format = Format.BINARY

                def dump(self, obj):
                    return obj.data

            RawDumper.oid = oid
            conn.adapters.register_dumper(Raw, RawDumper)
            cur = conn.cursor(binary=False)
            for i in range(3000):
                if i % 3 == 0:
                    b = bytearray(os.urandom(16))
                    b[6] = (b[6] & 0x0F) | (version << 4)
                    b[8] = (b[8] & 0x3F) | 0x80
                    data = bytes(b) if i % 2 else bytes(b[:-1])
                else:
                    data = os.urandom(rng.randrange(0, 33))
                try:
                    got = cur.execute("SELECT %s::text", (Raw(data),)).fetchone()[0]
                    if len(data) != 16 or uuid.UUID(got).bytes != data:
                        fail(f"{name}: {data.hex()} read as {got}")
                    outcome = "value"
                except psycopg.errors.InvalidBinaryRepresentation:
                    outcome = "22P03"
                    if len(data) == 16:
                        fail(f"{name}: 16 bytes refused as of the wrong length")
                except psycopg.errors.InvalidTextRepresentation:
                    outcome = "22P02"
                    if len(data) != 16:
                        fail(f"{name}: {len(data)} bytes refused as of the wrong version")
                outcomes[(name, outcome)] = outcomes.get((name, outcome), 0) + 1
        if conn.execute("SELECT pg_postmaster_start_time()").fetchone()[0] != start:
            fail("the server restarted")
    summary = ", ".join(f"{k[0]} {k[1]}: {v}" for k, v in sorted(outcomes.items()))
    if any(outcomes.get((t, o), 0) == 0 for t in ("uuid7", "uuid6") for o in ("value", "22P02", "22P03")):
        fail(f"an outcome never happened, the test proves less than it says: {summary}")
    ok(f"binary receive of 6000 random values: {summary}; the server never restarted")


def main(t):
    srv = t.shared()
    dump_and_restore(t, srv)
    client(srv)
    binary_receive(srv)
    srv.q("DROP DATABASE types_src")
