#!/usr/bin/env python3
"""asyncpg with a uuid, a uuid7 and a uuid7_domain key (docs/clients.md,
"asyncpg").

Checks, in a database of its own:
- the uuid and the domain columns read and bind as uuid.UUID with nothing set;
- a uuid7 column without a codec: it reads as str (uuid7[] as a list of
  str), a uuid.UUID parameter fails with "expected str, got UUID", and
  copy_records_to_table fails ("no binary format encoder for type uuid7");
- with register_uuid7() (the docs' snippet, also as a pool's init): uuid7 and
  uuid7[] read and bind as uuid.UUID, and copy_records_to_table works;
- for each column: the server's default through RETURNING, a client-made
  UUIDv7 in and back, WHERE id = $1, ORDER BY id in insert order,
  uuid_v7_lower_bound($1) with a datetime, and a UUIDv4 (refused by uuid7
  with 22P02, also through COPY, by the domain with 23514, taken by uuid).

Env: PGHOST, PGPORT, PGUSER (a superuser). Run with /opt/uuid_ext/venv/bin/python.
"""
import asyncio
import os
import sys
import uuid
from datetime import datetime, timedelta, timezone

import asyncpg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TABLES, V4_REFUSED, Checks, client_v7, drop_database, fresh_database, is_v7  # noqa: E402

DB = "uuid_ext_clients_asyncpg"
c = Checks("asyncpg")


async def register_uuid7(conn):
    """uuid7 read and written as uuid.UUID (also uuid7[] and binary COPY)."""
    await conn.set_builtin_type_codec("uuid7", schema="public", codec_name="uuid")


async def raises(coro_fn, what, sqlstate=None, exc=Exception, match=None):
    try:
        await coro_fn()
    except exc as e:
        state = getattr(e, "sqlstate", None)
        good = (sqlstate is None or state == sqlstate) and (match is None or match in str(e))
        c.check(good, what, f"raised {type(e).__name__} [{state}]: {e}")
        return
    c.check(False, what, "no error")


async def scenario(conn, table):
    label = f"{TABLES[table]} column"
    await conn.execute(f"TRUNCATE {table}")

    made = await conn.fetchval(f"INSERT INTO {table} (n) VALUES (1) RETURNING id")
    c.check(is_v7(made), f"{label}: INSERT ... RETURNING id reads the server's default as a UUIDv7 uuid.UUID",
            repr(made))
    mine = client_v7()
    back = await conn.fetchval(f"INSERT INTO {table} (id, n) VALUES ($1, 2) RETURNING id", mine)
    c.equal(back, mine, f"{label}: a client-made UUIDv7 goes in as uuid.UUID and comes back equal")
    c.equal(await conn.fetchval(f"SELECT n FROM {table} WHERE id = $1", mine), 2,
            f"{label}: WHERE id = $1 with a uuid.UUID finds its row")
    got = [r["n"] for r in await conn.fetch(f"SELECT n FROM {table} WHERE id = ANY($1) ORDER BY n", [made, mine])]
    c.equal(got, [1, 2], f"{label}: WHERE id = ANY($1) with a list of uuid.UUID finds both rows")

    ids = []
    for i in range(6):
        await asyncio.sleep(0.003)
        if i % 2:
            ids.append(await conn.fetchval(f"INSERT INTO {table} (id, n) VALUES ($1, $2) RETURNING id", client_v7(), 100 + i))
        else:
            ids.append(await conn.fetchval(f"INSERT INTO {table} (n) VALUES ($1) RETURNING id", 100 + i))
    c.check(all(a < b for a, b in zip(ids, ids[1:])),
            f"{label}: keys made one after another (server's and client's alternating) increase strictly", ids)
    got = [r["n"] for r in await conn.fetch(f"SELECT n FROM {table} WHERE n >= 100 ORDER BY id")]
    c.equal(got, list(range(100, 106)), f"{label}: ORDER BY id is insert order")

    await asyncio.sleep(0.003)
    since = datetime.now(timezone.utc)
    await asyncio.sleep(0.003)
    await conn.execute(f"INSERT INTO {table} (n) VALUES (200), (201)")
    await conn.execute(f"INSERT INTO {table} (id, n) VALUES ($1, 202)", client_v7())
    got = sorted(r["n"] for r in await conn.fetch(f"SELECT n FROM {table} WHERE id >= uuid_v7_lower_bound($1)", since))
    c.equal(got, [200, 201, 202],
            f"{label}: WHERE id >= uuid_v7_lower_bound($1) with a datetime finds exactly the rows made since")

    v4 = uuid.uuid4()
    insert_v4 = f"INSERT INTO {table} (id, n) VALUES ($1, 3) RETURNING id"
    if V4_REFUSED[table]:
        await raises(lambda: conn.fetchval(insert_v4, v4), f"{label}: a UUIDv4 is refused with {V4_REFUSED[table]}",
                     sqlstate=V4_REFUSED[table])
    else:
        c.equal(await conn.fetchval(insert_v4, v4), v4, f"{label}: a UUIDv4 is taken (any UUID is)")

    # Binary COPY (asyncpg's only kind) from Python rows.
    rows = [(client_v7(), 300 + i) for i in range(3)]
    await conn.copy_records_to_table(table, records=rows, columns=["id", "n"])
    got = [(r["id"], r["n"]) for r in await conn.fetch(f"SELECT id, n FROM {table} WHERE n >= 300 ORDER BY n")]
    c.equal(got, rows, f"{label}: copy_records_to_table writes uuid.UUID keys that read back equal")


async def unregistered(conn):
    mine = client_v7()
    await conn.execute("INSERT INTO t7 (id, n) VALUES ($1, 0)", str(mine))
    c.equal(await conn.fetchval("SELECT id FROM t7 WHERE n = 0"), str(mine),
            "uuid7 without a codec: reads as a str (a str parameter writes it)")
    c.equal(await conn.fetchval("SELECT ARRAY[id] FROM t7 WHERE n = 0"), [str(mine)],
            "uuid7 without a codec: uuid7[] reads as a list of str")
    await raises(lambda: conn.execute("INSERT INTO t7 (id, n) VALUES ($1, 1)", client_v7()),
                 "uuid7 without a codec: a uuid.UUID parameter fails with 'expected str, got UUID'",
                 exc=asyncpg.DataError, match="expected str, got UUID")
    await raises(lambda: conn.copy_records_to_table("t7", records=[(client_v7(), 2)], columns=["id", "n"]),
                 "uuid7 without a codec: copy_records_to_table fails with 'no binary format encoder for type uuid7'",
                 match="no binary format encoder for type uuid7")
    c.equal(await conn.fetchval("SELECT n FROM t7 WHERE id = $1::uuid", mine), 0,
            "uuid7 without a codec: WHERE id = $1::uuid binds a uuid.UUID (the cast makes the parameter a uuid)")


async def registered_extra(conn):
    made = await conn.fetchval("INSERT INTO t7 (n) VALUES (7) RETURNING id")
    c.equal(await conn.fetchval("SELECT ARRAY[id, id] FROM t7 WHERE n = 7"), [made, made],
            "uuid7 with the codec: uuid7[] reads as a list of uuid.UUID")
    pair = [client_v7(), client_v7()]
    c.equal(await conn.fetchval("SELECT $1::uuid7[]", pair), pair,
            "uuid7 with the codec: a list of uuid.UUID binds as uuid7[] and comes back equal")
    await raises(lambda: conn.copy_records_to_table("t7", records=[(uuid.uuid4(), 8)], columns=["id", "n"]),
                 "uuid7 with the codec: copy_records_to_table of a UUIDv4 is refused with 22P02", sqlstate="22P02")


async def main():
    fresh_database(DB)
    try:
        conn = await asyncpg.connect(database=DB)
        try:
            for table in ("tu", "td"):
                await scenario(conn, table)
            await unregistered(conn)
        finally:
            await conn.close()
        conn = await asyncpg.connect(database=DB)
        try:
            await register_uuid7(conn)
            await scenario(conn, "t7")
            await registered_extra(conn)
        finally:
            await conn.close()
        pool = await asyncpg.create_pool(database=DB, min_size=1, max_size=2, init=register_uuid7)
        async with pool.acquire() as conn:
            new_id = await conn.fetchval("INSERT INTO t7 (n) VALUES ($1) RETURNING id", 9)
            since = datetime.now(timezone.utc) - timedelta(minutes=5)
            recent = await conn.fetch("SELECT id FROM t7 WHERE id >= uuid_v7_lower_bound($1) ORDER BY id", since)
            c.check(is_v7(new_id) and recent[-1]["id"] == new_id,
                    "the docs' example: a pool with init=register_uuid7 reads uuid7 as uuid.UUID", repr(new_id))
        await pool.close()
    except Exception:
        c.crashed()
    drop_database(DB)
    c.exit()


if __name__ == "__main__":
    asyncio.run(main())
