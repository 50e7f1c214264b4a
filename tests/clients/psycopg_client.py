#!/usr/bin/env python3
"""psycopg 3 with a uuid, a uuid7 and a uuid7_domain key (docs/clients.md,
"psycopg 3").

Checks, in a database of its own:
- the uuid and the domain columns read as uuid.UUID with nothing registered,
  in text and binary cursors;
- a uuid7 column without registration: a text cursor reads str, a binary
  cursor bytes, uuid7[] a str, and COPY's set_types(["uuid7"]) raises
  KeyError; with the type's loaders alone, uuid7[] is still a str;
- with register_uuid7() (the docs' snippet), uuid7 and uuid7[] read as
  uuid.UUID in both cursors and binary COPY in and out with
  set_types(["uuid7", ...]) works;
- for each column and cursor: the server's default through RETURNING, a
  client-made UUIDv7 in and back, WHERE id = %s, ORDER BY id in insert order,
  uuid_v7_lower_bound(%s) with a datetime, and a UUIDv4 (refused by uuid7
  with 22P02, by the domain with 23514, taken by uuid);
- the uuid7 type's OID is not the same in every database;
- the change feed of docs/feeds.md (examples/feed/feed.py): next_page() holds back a tenant's row
  committed above a key another transaction still holds (the naive query
  returns it, and its cursor would pass the held row), then delivers both,
  in key order, once that one commits; never a row of another tenant or of
  a transaction that rolled back; wait_for_commits() wakes at a commit and
  returns False when nothing commits; follow() delivers each row once.

Env: PGHOST, PGPORT, PGUSER (a superuser). Run with /opt/uuid_ext/venv/bin/python.
"""
import os
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone

import psycopg
from psycopg.types import TypeInfo
from psycopg.types.uuid import UUIDBinaryDumper, UUIDBinaryLoader, UUIDDumper, UUIDLoader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TABLES, V4_MESSAGE, V4_REFUSED, Checks, client_v7, drop_database, fresh_database, is_v7, pause  # noqa: E402

DB = "uuid_ext_clients_psycopg"
c = Checks("psycopg")


def register_uuid7(conn):
    """uuid7 and uuid7[] read as uuid.UUID; COPY's set_types() knows "uuid7"."""
    info = TypeInfo.fetch(conn, "uuid7")  # its OID differs per database
    info.register(conn)  # the name, and the array type uuid7[]
    conn.adapters.register_loader(info.oid, UUIDLoader)
    conn.adapters.register_loader(info.oid, UUIDBinaryLoader)
    # By OID only (no Python class): uuid.UUID parameters are still sent as uuid.
    conn.adapters.register_dumper(None, type("UUID7Dumper", (UUIDDumper,), {"oid": info.oid}))
    conn.adapters.register_dumper(None, type("UUID7BinaryDumper", (UUIDBinaryDumper,), {"oid": info.oid}))


def scenario(conn, table, binary):
    """The same checks for every column and cursor format."""
    label = f"{TABLES[table]} column, {'binary' if binary else 'text'} cursor"
    cur = conn.cursor(binary=binary)
    cur.execute(f"TRUNCATE {table}")

    made = cur.execute(f"INSERT INTO {table} (n) VALUES (1) RETURNING id").fetchone()[0]
    c.check(is_v7(made), f"{label}: INSERT ... RETURNING id reads the server's default as a UUIDv7 uuid.UUID",
            repr(made))
    mine = client_v7()
    back = cur.execute(f"INSERT INTO {table} (id, n) VALUES (%s, 2) RETURNING id", (mine,)).fetchone()[0]
    c.equal(back, mine, f"{label}: a client-made UUIDv7 goes in as uuid.UUID and comes back equal")
    c.equal(cur.execute(f"SELECT n FROM {table} WHERE id = %s", (mine,)).fetchall(), [(2,)],
            f"{label}: WHERE id = %s with a uuid.UUID finds its row")
    c.equal(cur.execute(f"SELECT n FROM {table} WHERE id = ANY(%s) ORDER BY n", ([made, mine],)).fetchall(),
            [(1,), (2,)], f"{label}: WHERE id = ANY(%s) with a list of uuid.UUID finds both rows")

    # Server-made and client-made keys alternating, each in a later millisecond.
    ids = []
    for i in range(6):
        pause()
        if i % 2:
            row = cur.execute(f"INSERT INTO {table} (id, n) VALUES (%s, %s) RETURNING id", (client_v7(), 100 + i))
        else:
            row = cur.execute(f"INSERT INTO {table} (n) VALUES (%s) RETURNING id", (100 + i,))
        ids.append(row.fetchone()[0])
    c.check(all(a < b for a, b in zip(ids, ids[1:])),
            f"{label}: keys made one after another (server's and client's alternating) increase strictly", ids)
    got = [r[0] for r in cur.execute(f"SELECT n FROM {table} WHERE n >= 100 ORDER BY id")]
    c.equal(got, list(range(100, 106)), f"{label}: ORDER BY id is insert order")

    pause()
    since = datetime.now(timezone.utc)
    pause()
    cur.execute(f"INSERT INTO {table} (n) VALUES (200), (201)")
    cur.execute(f"INSERT INTO {table} (id, n) VALUES (%s, 202)", (client_v7(),))
    found = sorted(r[0] for r in cur.execute(f"SELECT n FROM {table} WHERE id >= uuid_v7_lower_bound(%s)", (since,)))
    c.equal(found, [200, 201, 202],
            f"{label}: WHERE id >= uuid_v7_lower_bound(%s) with a datetime finds exactly the rows made since")

    v4 = uuid.uuid4()
    insert_v4 = f"INSERT INTO {table} (id, n) VALUES (%s, 3) RETURNING id"
    if V4_REFUSED[table]:
        c.raises(lambda: cur.execute(insert_v4, (v4,)), f"{label}: a UUIDv4 is refused with {V4_REFUSED[table]}, "
                 f"'{V4_MESSAGE[table]}'", sqlstate=V4_REFUSED[table], match=V4_MESSAGE[table])
    else:
        c.equal(cur.execute(insert_v4, (v4,)).fetchone()[0], v4, f"{label}: a UUIDv4 is taken (any UUID is)")


def unregistered(conn):
    """What a uuid7 column gives before register_uuid7(), as the docs say."""
    mine = client_v7()
    conn.execute("INSERT INTO t7 (id, n) VALUES (%s, 0)", (mine,))
    c.equal(conn.execute("SELECT id::text FROM t7 WHERE id = %s", (mine,)).fetchone()[0], str(mine),
            "uuid7 unregistered: a uuid.UUID parameter is written and matched all the same")
    got = conn.execute("SELECT id FROM t7 WHERE n = 0").fetchone()[0]
    c.equal(got, str(mine), "uuid7 unregistered: a text cursor reads a str")
    got = conn.cursor(binary=True).execute("SELECT id FROM t7 WHERE n = 0").fetchone()[0]
    c.equal(got, mine.bytes, "uuid7 unregistered: a binary cursor reads the 16 raw bytes")
    got = conn.execute("SELECT ARRAY[id] FROM t7 WHERE n = 0").fetchone()[0]
    c.equal(got, "{%s}" % mine, "uuid7 unregistered: uuid7[] reads as a str")

    def copy_with_types():
        with conn.cursor().copy("COPY t7 (id, n) FROM STDIN (FORMAT binary)") as copy:
            copy.set_types(["uuid7", "int4"])
            copy.write_row((client_v7(), -1))

    c.raises(copy_with_types, "uuid7 unregistered: binary COPY's set_types([\"uuid7\", ...]) raises KeyError",
             exc=KeyError, match="uuid7")
    # The loaders alone (what docs/reference.md shows): scalars yes, arrays no.
    info = TypeInfo.fetch(conn, "uuid7")
    conn.adapters.register_loader(info.oid, UUIDLoader)
    conn.adapters.register_loader(info.oid, UUIDBinaryLoader)
    c.equal(conn.execute("SELECT id FROM t7 WHERE n = 0").fetchone()[0], mine,
            "uuid7 with its loaders alone: a uuid7 reads as uuid.UUID")
    got = conn.execute("SELECT ARRAY[id] FROM t7 WHERE n = 0").fetchone()[0]
    c.equal(got, "{%s}" % mine, "uuid7 with its loaders alone: uuid7[] still reads as a str (info.register is needed)")


def registered(conn):
    """After register_uuid7(): arrays and COPY too."""
    mine = conn.execute("INSERT INTO t7 (n) VALUES (0) RETURNING id").fetchone()[0]
    for binary in (False, True):
        got = conn.cursor(binary=binary).execute("SELECT ARRAY[id, id] FROM t7 WHERE n = 0").fetchone()[0]
        c.equal(got, [mine, mine], f"uuid7 registered: uuid7[] reads as a list of uuid.UUID ({'binary' if binary else 'text'} cursor)")
    pair = [client_v7(), client_v7()]
    got = conn.execute("SELECT %s::uuid7[]", (pair,)).fetchone()[0]
    c.equal(got, pair, "uuid7 registered: a list of uuid.UUID goes in as uuid7[] and comes back equal")

    conn.execute("TRUNCATE t7")
    rows = [(client_v7(), i) for i in range(3)]
    with conn.cursor().copy("COPY t7 (id, n) FROM STDIN (FORMAT binary)") as copy:
        copy.set_types(["uuid7", "int4"])
        for row in rows:
            copy.write_row(row)
    with conn.cursor().copy("COPY (SELECT id, n FROM t7 ORDER BY n) TO STDOUT (FORMAT binary)") as copy:
        copy.set_types(["uuid7", "int4"])
        back = list(copy.rows())
    c.equal(back, rows, "uuid7 registered: binary COPY in and out with set_types([\"uuid7\", \"int4\"]) keeps the rows")

    def copy_v4():
        with conn.cursor().copy("COPY t7 (id, n) FROM STDIN (FORMAT binary)") as copy:
            copy.set_types(["uuid7", "int4"])
            copy.write_row((uuid.uuid4(), 9))

    c.raises(copy_v4, "uuid7 registered: binary COPY of a UUIDv4 into uuid7 is refused with 22P02", sqlstate="22P02")


def doc_example(conn):
    """The lines docs/clients.md shows after the registration."""
    new_id = conn.execute("INSERT INTO t7 (n) VALUES (%s) RETURNING id", (1,)).fetchone()[0]
    since = datetime.now(timezone.utc) - timedelta(minutes=5)
    recent = conn.execute("SELECT id FROM t7 WHERE id >= uuid_v7_lower_bound(%s) ORDER BY id", (since,)).fetchall()
    same = conn.execute("SELECT n FROM t7 WHERE id = %s", (new_id,)).fetchone()
    c.check(is_v7(new_id) and recent[-1] == (new_id,) and all(is_v7(r[0]) for r in recent) and same == (1,),
            "the docs' example: RETURNING id, uuid_v7_lower_bound(%s) and WHERE id = %s with uuid.UUID",
            f"{new_id!r} {recent[-3:]!r} {same!r}")


# The change feed of docs/feeds.md: the example's SQL and consumer (examples/feed/feed.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "examples", "feed"))
from feed import SETUP_SQL, START, follow, next_page, wait_for_commits  # noqa: E402


def feed_example():
    """The feed of docs/feeds.md, in a database of its own, checked step by step."""
    db = DB + "_feed"
    fresh_database(db, "CREATE EXTENSION uuid_ext;" + SETUP_SQL)
    try:
        with psycopg.connect(dbname=db, autocommit=True) as reader, psycopg.connect(dbname=db) as held, \
                psycopg.connect(dbname=db, autocommit=True) as other:
            insert = "INSERT INTO events (tenant, body) VALUES (%s, %s) RETURNING id"
            first = held.execute(insert, (1, "held")).fetchone()[0]  # its transaction stays open
            second = other.execute(insert, (1, "quick")).fetchone()[0]
            other.execute(insert, (2, "tenant 2"))
            naive = reader.execute("SELECT id FROM events WHERE tenant = 1 AND id > %s ORDER BY id",
                                   (START,)).fetchall()
            c.check(second > first and naive == [(second,)] and next_page(reader, 1, START) == [],
                    "a feed: while a transaction holds a lower key, the naive query returns the row committed "
                    "above it (its cursor would pass the held row for good); next_page() returns nothing yet",
                    f"{first} {second} naive {naive}")
            held.commit()
            held.execute(insert, (1, "rolled back"))
            held.rollback()
            held.execute(insert, (1, "late"))
            held.commit()
            page = []
            deadline = time.time() + 10
            while len(page) < 3 and time.time() < deadline:
                page += next_page(reader, 1, page[-1][0] if page else START)
            c.equal([r[1] for r in page], ["held", "quick", "late"],
                    "a feed: once the held transaction commits, next_page() gives the tenant's committed rows in "
                    "key order, none rolled back, none of another tenant")
            reader.execute("LISTEN events")
            t0 = time.time()
            idle = wait_for_commits(reader, timeout=0.3)
            other.execute(insert, (1, "wakes"))
            woke = wait_for_commits(reader, timeout=5)
            c.check(not idle and time.time() - t0 >= 0.3 and woke,
                    "a feed: wait_for_commits() returns False after its timeout when nothing commits, True at a "
                    "commit (LISTEN/NOTIFY from a statement trigger)")
            got = []
            end = time.time() + 3
            cursor = follow(reader, 1, START, got.extend, lambda: len(got) >= 4 or time.time() > end)
            ids = [r[0] for r in got]
            c.check([r[1] for r in got] == ["held", "quick", "late", "wakes"] and ids == sorted(ids)
                    and cursor == ids[-1],
                    "a feed: follow() delivers each of the tenant's committed rows once, in key order",
                    f"{got}")
    finally:
        drop_database(db)


def other_database_oid(oid):
    other = DB + "_oid"
    fresh_database(other, "CREATE TYPE filler AS (a int); CREATE TABLE filler_t (a int); CREATE EXTENSION uuid_ext;")
    with psycopg.connect(dbname=other) as conn:
        there = TypeInfo.fetch(conn, "uuid7").oid
    drop_database(other)
    c.check(there != oid, "the uuid7 OID is not a constant: another database has another one (look it up per connection)",
            f"{oid} and {there}")


def main():
    fresh_database(DB)
    try:
        with psycopg.connect(dbname=DB, autocommit=True) as conn:
            for table in ("tu", "td"):
                for binary in (False, True):
                    scenario(conn, table, binary)
            unregistered(conn)
        with psycopg.connect(dbname=DB, autocommit=True) as conn:
            register_uuid7(conn)
            for binary in (False, True):
                scenario(conn, "t7", binary)
            registered(conn)
            doc_example(conn)
            other_database_oid(TypeInfo.fetch(conn, "uuid7").oid)
        feed_example()
    except Exception:
        c.crashed()
    drop_database(DB)
    c.exit()


if __name__ == "__main__":
    main()
