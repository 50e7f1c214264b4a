#!/usr/bin/env python3
"""SQLAlchemy 2.0 with a uuid, a uuid7 and a uuid7_domain key, through
psycopg 3 (sync) and asyncpg (async) (docs/clients.md#sqlalchemy-20).

Checks, in a database of its own, with each driver:
- ORM models whose key takes the server's default (server_default=
  text("uuid_generate_v7()")) read it back through INSERT ... RETURNING as a
  UUIDv7 uuid.UUID: Uuid for the uuid and the domain columns, the docs'
  UUID7 type for the uuid7 column; a client-made UUIDv7 goes in and comes
  back equal; filter by a uuid.UUID; ORDER BY the key is insert order;
  uuid_v7_lower_bound(<datetime>) in a WHERE finds exactly the rows made
  since; a UUIDv4 is refused (22P02 by uuid7, 23514 by the domain);
- the failure without UUID7: a model declaring Uuid on the uuid7 column gets
  a str key back (both drivers);
- reflection: without the ischema_names line the uuid7 column is NullType
  with the warning "Did not recognize type 'uuid7'"; with it, UUID7, and
  rows read through the reflected table have uuid.UUID keys; the domain
  reflects as a UUID type with nothing added;
- create_all() makes a uuid7 column from a UUID7 model.

Env: PGHOST, PGPORT, PGUSER (a superuser). Run with /opt/uuid_ext/venv/bin/python.
"""
import asyncio
import os
import sys
import uuid
import warnings
from datetime import datetime, timedelta, timezone

from sqlalchemy import MetaData, Table, Uuid, create_engine, event, func, select, text
from sqlalchemy.dialects.postgresql import DOMAIN
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.types import NullType

from sqlalchemy.dialects.postgresql.base import ischema_names
from sqlalchemy.types import UserDefinedType

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import V4_REFUSED, Checks, client_v7, drop_database, fresh_database, is_v7, pause, sqlstate_of  # noqa: E402

DB = "uuid_ext_clients_sqlalchemy"
c = Checks("sqlalchemy")


class UUID7(UserDefinedType):
    """A uuid7 column as uuid.UUID, whatever the driver returns (str or UUID)."""

    cache_ok = True

    def get_col_spec(self, **kw):
        return "uuid7"

    def bind_processor(self, dialect):
        return lambda value: None if value is None else str(value)

    def result_processor(self, dialect, coltype):
        return lambda value: None if value is None else uuid.UUID(str(value))


class Base(DeclarativeBase):
    pass


class EventU(Base):
    __tablename__ = "tu"
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, server_default=text("uuid_generate_v7()"))
    n: Mapped[int]


class Event7(Base):
    __tablename__ = "t7"
    id: Mapped[uuid.UUID] = mapped_column(UUID7, primary_key=True, server_default=text("uuid_generate_v7()"))
    n: Mapped[int]


class EventD(Base):
    __tablename__ = "td"  # id is a uuid7_domain: a uuid to every driver
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, server_default=text("uuid_generate_v7()"))
    n: Mapped[int]


class Wrong(DeclarativeBase):
    pass


class Event7AsUuid(Wrong):
    """The failure: Uuid declared on the uuid7 column."""
    __tablename__ = "t7"
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, server_default=text("uuid_generate_v7()"))
    n: Mapped[int]


class Created(Base):
    __tablename__ = "created7"
    id: Mapped[uuid.UUID] = mapped_column(UUID7, primary_key=True, server_default=text("uuid_generate_v7()"))


def url(driver):
    port = os.environ.get("PGPORT")
    return URL.create(f"postgresql+{driver}", username=os.environ.get("PGUSER"), host=os.environ.get("PGHOST"),
                      port=int(port) if port else None, database=DB)


def orm_scenario(session, model, label):
    """The ORM checks for one model; session is a Session (or an AsyncSession's, through run_sync)."""
    statements = []
    listen_on = session.connection().engine
    record = lambda conn, cursor, stmt, params, context, many: statements.append(stmt)  # noqa: E731
    event.listen(listen_on, "before_cursor_execute", record)
    try:
        session.execute(text(f"TRUNCATE {model.__tablename__}"))
        a = model(n=1)
        session.add(a)
        session.flush()
        c.check(is_v7(a.id), f"{label}: a new object's key is the server's default, a UUIDv7 uuid.UUID", repr(a.id))
        c.check(any(s.startswith("INSERT") and "RETURNING" in s for s in statements),
                f"{label}: the INSERT read the key back with RETURNING", statements)
        mine = client_v7()
        session.add(model(id=mine, n=2))
        session.flush()
        session.expunge_all()
        b = session.get(model, mine)
        c.check(b is not None and b.id == mine and b.n == 2 and is_v7(b.id),
                f"{label}: a client-made UUIDv7 goes in and session.get() finds it, equal", repr(b and b.id))
        c.equal(session.scalars(select(model.n).where(model.id == mine)).all(), [2],
                f"{label}: where(id == <uuid.UUID>) finds its row")
        c.equal(session.scalars(select(model.n).where(model.id.in_([a.id, mine])).order_by(model.n)).all(), [1, 2],
                f"{label}: where(id.in_([...])) finds both rows")

        ids = []
        for i in range(6):
            pause()
            obj = model(id=client_v7(), n=100 + i) if i % 2 else model(n=100 + i)
            session.add(obj)
            session.flush()
            ids.append(obj.id)
        c.check(all(a < b for a, b in zip(ids, ids[1:])),
                f"{label}: keys made one after another (server's and client's alternating) increase strictly", ids)
        c.equal(session.scalars(select(model.n).where(model.n >= 100).order_by(model.id)).all(), list(range(100, 106)),
                f"{label}: order_by(id) is insert order")

        pause()
        since = datetime.now(timezone.utc)
        pause()
        session.add_all([model(n=200), model(n=201), model(id=client_v7(), n=202)])
        session.flush()
        found = session.scalars(select(model.n).where(model.id >= func.uuid_v7_lower_bound(since)).order_by(model.n))
        c.equal(found.all(), [200, 201, 202],
                f"{label}: where(id >= func.uuid_v7_lower_bound(<datetime>)) finds exactly the rows made since")
        session.commit()

        state = V4_REFUSED[model.__tablename__]
        session.add(model(id=uuid.uuid4(), n=3))
        try:
            session.flush()
            c.check(state is None, f"{label}: a UUIDv4 is taken (any UUID is)", f"taken, should be refused with {state}")
        except DBAPIError as e:
            c.check(state is not None and sqlstate_of(e) == state, f"{label}: a UUIDv4 is refused with {state}",
                    f"[{sqlstate_of(e)}] {e}")
        session.rollback()
    finally:
        event.remove(listen_on, "before_cursor_execute", record)


def wrong_model(session, label):
    """Uuid declared on the uuid7 column: the key comes back a str."""
    obj = Event7AsUuid(n=50)
    session.add(obj)
    session.flush()
    c.check(isinstance(obj.id, str), f"{label}: without UUID7, a Uuid model on the uuid7 column gets a str key back",
            repr(obj.id))
    session.rollback()


def reflection(engine):
    ischema_names.pop("uuid7", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t7 = Table("t7", MetaData(), autoload_with=engine)
    c.check(isinstance(t7.c.id.type, NullType) and any("Did not recognize type 'uuid7'" in str(w.message) for w in caught),
            "reflection without the ischema_names line: uuid7 is NullType, warning \"Did not recognize type 'uuid7'\"",
            f"{t7.c.id.type!r}, {[str(w.message) for w in caught]}")

    ischema_names["uuid7"] = UUID7  # reflection: uuid7 columns are UUID7, not NullType

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t7 = Table("t7", MetaData(), autoload_with=engine)
        td = Table("td", MetaData(), autoload_with=engine)
    c.check(isinstance(t7.c.id.type, UUID7) and not caught,
            "reflection with ischema_names[\"uuid7\"] = UUID7: the column is UUID7, no warning",
            f"{t7.c.id.type!r}, {[str(w.message) for w in caught]}")
    c.check(isinstance(td.c.id.type, DOMAIN) and isinstance(td.c.id.type.data_type, Uuid),
            "reflection: the domain column is a DOMAIN over UUID with nothing added", repr(td.c.id.type))
    with engine.begin() as conn:
        made = conn.execute(t7.insert().values(n=60).returning(t7.c.id)).scalar_one()
        c.check(is_v7(made), "reflected uuid7 table: insert().returning(id) reads a UUIDv7 uuid.UUID", repr(made))
        c.equal(conn.execute(select(t7.c.n).where(t7.c.id == made)).scalar_one(), 60,
                "reflected uuid7 table: where(id == <uuid.UUID>) finds its row")
        made = conn.execute(td.insert().values(n=60).returning(td.c.id)).scalar_one()
        c.check(is_v7(made), "reflected domain table: insert().returning(id) reads a UUIDv7 uuid.UUID", repr(made))


def create_all(engine):
    Base.metadata.create_all(engine, tables=[Created.__table__])
    with engine.begin() as conn:
        got = conn.execute(text("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                                "WHERE attrelid = 'created7'::regclass AND attname = 'id'")).scalar_one()
        c.equal(got, "uuid7", "create_all() makes a uuid7 column from a UUID7 model")
        conn.execute(text("DROP TABLE created7"))


def doc_example(engine):
    """The lines docs/clients.md shows."""
    since = datetime.now(timezone.utc) - timedelta(minutes=5)
    with Session(engine) as session:
        event = Event7(n=1)
        session.add(event)
        session.flush()  # INSERT ... RETURNING t7.id: event.id is a uuid.UUID
        recent = session.scalars(select(Event7).where(Event7.id >= func.uuid_v7_lower_bound(since)).order_by(Event7.id)).all()
        c.check(is_v7(event.id) and recent[-1] is event and all(is_v7(e.id) for e in recent),
                "the docs' example: Event7(n=1) flushed has a UUIDv7 id; where(Event7.id >= func.uuid_v7_lower_bound(since))",
                repr(event.id))
        session.commit()


def registered_driver():
    """UUID7 also works when the driver itself reads uuid7 as uuid.UUID
    (psycopg's registration of docs/clients.md, on each new connection)."""
    from psycopg.types import TypeInfo
    from psycopg.types.uuid import UUIDBinaryLoader, UUIDLoader

    engine = create_engine(url("psycopg"))

    @event.listens_for(engine, "connect")
    def register(dbapi_connection, connection_record):
        info = TypeInfo.fetch(dbapi_connection, "uuid7")
        info.register(dbapi_connection)
        dbapi_connection.adapters.register_loader(info.oid, UUIDLoader)
        dbapi_connection.adapters.register_loader(info.oid, UUIDBinaryLoader)

    with Session(engine) as session:
        event7 = Event7(n=80)
        session.add(event7)
        session.flush()
        raw = session.connection().exec_driver_sql("SELECT id FROM t7 WHERE n = 80").scalar_one()
        found = session.scalars(select(Event7.id).where(Event7.id == event7.id)).all()
        c.check(isinstance(raw, uuid.UUID) and raw == event7.id and found == [event7.id],
                "psycopg with uuid7 registered on the driver: UUID7 keys are uuid.UUID all the same",
                f"{raw!r} {event7.id!r} {found!r}")
        session.rollback()
    engine.dispose()


def sync_psycopg():
    engine = create_engine(url("psycopg"))
    with Session(engine) as session:
        for model, what in ((EventU, "uuid"), (Event7, "uuid7 (UUID7)"), (EventD, "uuid7_domain")):
            orm_scenario(session, model, f"psycopg, {what} column")
        wrong_model(session, "psycopg")
    doc_example(engine)
    reflection(engine)
    create_all(engine)
    engine.dispose()
    registered_driver()


async def async_asyncpg():
    engine = create_async_engine(url("asyncpg"))
    async with AsyncSession(engine) as session:
        for model, what in ((EventU, "uuid"), (Event7, "uuid7 (UUID7)"), (EventD, "uuid7_domain")):
            await session.run_sync(orm_scenario, model, f"asyncpg, {what} column")
        await session.run_sync(wrong_model, "asyncpg")

    # The same, written as async code.
    async with AsyncSession(engine, expire_on_commit=False) as session:
        event7 = Event7(n=70)
        session.add(event7)
        await session.commit()
        c.check(is_v7(event7.id), "asyncpg, async code: the committed object's key is a UUIDv7 uuid.UUID",
                repr(event7.id))
        found = await session.scalar(select(Event7).where(Event7.id == event7.id))
        c.check(found is not None and found.n == 70, "asyncpg, async code: select(Event7).where(Event7.id == <uuid>)")

    # Reflection through asyncpg, with the ischema_names line of reflection() in force.
    async with engine.begin() as conn:
        t7 = await conn.run_sync(lambda sync_conn: Table("t7", MetaData(), autoload_with=sync_conn))
        made = (await conn.execute(t7.insert().values(n=71).returning(t7.c.id))).scalar_one()
        c.check(isinstance(t7.c.id.type, UUID7) and is_v7(made),
                "asyncpg, reflected uuid7 table: the column is UUID7, insert().returning(id) reads a UUIDv7 uuid.UUID",
                f"{t7.c.id.type!r} {made!r}")
    await engine.dispose()


def main():
    fresh_database(DB)
    try:
        sync_psycopg()
        asyncio.run(async_asyncpg())
    except Exception:
        c.crashed()
    drop_database(DB)
    c.exit()


if __name__ == "__main__":
    main()
