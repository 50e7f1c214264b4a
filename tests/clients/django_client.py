#!/usr/bin/env python3
"""Django 5.2 and 6.1 (psycopg 3) with a uuid, a uuid7 and a uuid7_domain key
(docs/clients.md#django). The app is tests/clients/django_app/uuidapp.

Checks, in a database of its own:
- `migrate` makes everything from an empty database (the extension, the
  domain, the tables), and the models agree with the migration
  (`makemigrations --check`);
- for each model, the key a UUIDField-like primary key takes from the
  database (db_default=Func(function="uuid_generate_v7")): create() reads it
  back as a UUIDv7 uuid.UUID; create(id=<client-made UUIDv7>).pk is that
  uuid.UUID; filter(pk=...) and pk__in; order_by("pk") is insert order;
  filter(pk__gte=UUIDv7LowerBound(Value(<datetime>))) finds exactly the rows
  made since; a UUIDv4 is refused (22P02 by uuid7, 23514 by the domain);
- the failure the docs describe: a plain UUIDField on the uuid7 column gives
  .pk as a str, from create() with or without an id and from a query, and a
  raw cursor reads a str; the docs' UUID7Field (models.py) gives uuid.UUID, also through a
  foreign key; the docs' connection_created handler makes raw cursors read
  uuid.UUID;
- `inspectdb` writes UUIDField for the uuid and the domain columns and a
  TextField guess for the uuid7 column; the inspected model with UUID7Field
  instead reads uuid.UUID keys;
- Django 6.1's `UUID7()` (Django 5.2 has none: skipped): before PostgreSQL
  18 Django refuses it (NotSupportedError); the docs' `UUIDv7` makes it
  uuid_ext's `uuidv7()` there, as a `db_default` and in a query, with a
  shift too, and keys from two connections interleaved keep one order; from
  18 on it is core's; the docs' `UuidExtV7` is uuid_ext's on every version,
  in one order across connections on 18 and 19 too.

Env: PGHOST, PGPORT, PGUSER (a superuser). Run with /opt/uuid_ext/venv/bin/python.
"""
import io
import os
import sys
import uuid
from datetime import datetime, timedelta, timezone

import django
from django.conf import settings
from django.core.management import call_command
from django.db import DatabaseError, connection, models, transaction
from django.db.models import Func, Value

from django.db.backends.signals import connection_created
from psycopg.types import TypeInfo
from psycopg.types.uuid import UUIDBinaryLoader, UUIDLoader

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "django_app"))
from common import V4_REFUSED, Checks, client_v7, drop_database, fresh_database, is_v7, pause, sqlstate_of  # noqa: E402

DB = "uuid_ext_clients_django"
SERVER = {
    "ENGINE": "django.db.backends.postgresql",
    "NAME": DB,
    "HOST": os.environ.get("PGHOST", ""),
    "PORT": os.environ.get("PGPORT", ""),
    "USER": os.environ.get("PGUSER", ""),
}
settings.configure(
    # "other": a second connection to the same database.
    DATABASES={"default": SERVER, "other": dict(SERVER)},
    INSTALLED_APPS=["uuidapp"],
    USE_TZ=True,
)
django.setup()

# The app's models load once Django is set up.
from uuidapp.models import Child7, Event7, Event7AsUUIDField, EventD, EventU, UUID7Field  # noqa: E402

c = Checks("django")


class UUIDv7LowerBound(Func):
    function = "uuid_v7_lower_bound"
    output_field = models.UUIDField()


def register_uuid7(sender, connection, **kwargs):
    """Raw cursors read uuid7 as uuid.UUID too (one catalog query per new connection)."""
    info = TypeInfo.fetch(connection.connection, "uuid7")
    if info is None:
        return  # before the migration that creates the extension
    info.register(connection.connection)
    connection.connection.adapters.register_loader(info.oid, UUIDLoader)
    connection.connection.adapters.register_loader(info.oid, UUIDBinaryLoader)


def scenario(model, label):
    model.objects.all().delete()
    a = model.objects.create(n=1)
    c.check(is_v7(a.pk), f"{label}: create() reads the database's default back as a UUIDv7 uuid.UUID", repr(a.pk))
    mine = client_v7()
    b = model.objects.create(id=mine, n=2)
    c.check(isinstance(b.pk, uuid.UUID) and b.pk == mine,
            f"{label}: create(id=<client-made UUIDv7>).pk is that uuid.UUID", repr(b.pk))
    got = model.objects.get(pk=mine)
    c.check(got.n == 2 and isinstance(got.pk, uuid.UUID) and got.pk == mine,
            f"{label}: get(pk=<uuid.UUID>) finds the row, pk a uuid.UUID", repr(got.pk))
    c.equal(list(model.objects.filter(pk__in=[a.pk, mine]).order_by("n").values_list("n", flat=True)), [1, 2],
            f"{label}: filter(pk__in=[...]) finds both rows")

    ids = []
    for i in range(6):
        pause()
        obj = model.objects.create(id=client_v7(), n=100 + i) if i % 2 else model.objects.create(n=100 + i)
        ids.append(obj.pk)
    c.check(all(x < y for x, y in zip(ids, ids[1:])),
            f"{label}: keys made one after another (database's and client's alternating) increase strictly", ids)
    c.equal(list(model.objects.filter(n__gte=100).order_by("pk").values_list("n", flat=True)), list(range(100, 106)),
            f"{label}: order_by(\"pk\") is insert order")

    pause()
    since = datetime.now(timezone.utc)
    pause()
    model.objects.create(n=200)
    model.objects.bulk_create([model(n=201), model(id=client_v7(), n=202)])
    found = model.objects.filter(pk__gte=UUIDv7LowerBound(Value(since))).order_by("n").values_list("n", flat=True)
    c.equal(list(found), [200, 201, 202],
            f"{label}: filter(pk__gte=UUIDv7LowerBound(Value(<datetime>))) finds exactly the rows made since")

    state = V4_REFUSED[model._meta.db_table]
    v4 = uuid.uuid4()
    try:
        with transaction.atomic():
            model.objects.create(id=v4, n=3)
        c.check(state is None and model.objects.get(pk=v4).pk == v4, f"{label}: a UUIDv4 is taken (any UUID is)",
                f"taken, should be refused with {state}")
    except DatabaseError as e:
        c.check(state is not None and sqlstate_of(e) == state, f"{label}: a UUIDv4 is refused with {state}",
                f"[{sqlstate_of(e)}] {e}")


def doc_example():
    """The lines docs/clients.md shows."""
    event = Event7.objects.create(n=1)  # event.pk: a uuid.UUID, the database's default read back
    since = datetime.now(timezone.utc) - timedelta(minutes=5)
    recent = Event7.objects.filter(pk__gte=UUIDv7LowerBound(Value(since))).order_by("pk")
    keys = list(recent.values_list("pk", flat=True))
    c.check(is_v7(event.pk) and keys[-1] == event.pk and all(is_v7(k) for k in keys),
            "the docs' example: Event7.objects.create(n=1).pk is a UUIDv7 uuid.UUID; filter(pk__gte=UUIDv7LowerBound(...))",
            repr(event.pk))


def failures_and_fixes():
    made = Event7AsUUIDField.objects.create(n=40)
    c.check(isinstance(made.pk, str), "uuid7 with a plain UUIDField: create().pk is a str", repr(made.pk))
    mine = client_v7()
    given = Event7AsUUIDField.objects.create(id=mine, n=41)
    c.check(isinstance(given.pk, str) and given.pk == str(mine),
            "uuid7 with a plain UUIDField: create(id=<uuid.UUID>).pk comes back a str", repr(given.pk))
    got = Event7AsUUIDField.objects.get(pk=mine).pk
    c.check(isinstance(got, str), "uuid7 with a plain UUIDField: a query's .pk is a str too", repr(got))
    with connection.cursor() as cur:
        cur.execute("SELECT id FROM t7 WHERE id = %s", [mine])
        c.equal(cur.fetchone()[0], str(mine), "uuid7: a raw cursor reads a str")

    child = Child7.objects.create(event=Event7.objects.get(pk=mine))
    with connection.cursor() as cur:
        cur.execute("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                    "WHERE attrelid = 'uuidapp_child7'::regclass AND attname = 'event_id'")
        c.equal(cur.fetchone()[0], "uuid7", "a ForeignKey to a UUID7Field key is a uuid7 column")
    again = Child7.objects.get(pk=child.pk)
    c.check(is_v7(child.pk) and isinstance(again.event_id, uuid.UUID) and again.event_id == mine,
            "a ForeignKey to a UUID7Field key reads as uuid.UUID", repr(again.event_id))

    connection_created.connect(register_uuid7)
    connection.close()
    with connection.cursor() as cur:
        cur.execute("SELECT id, ARRAY[id] FROM t7 WHERE id = %s", [mine])
        c.equal(cur.fetchone(), (mine, [mine]), "uuid7 with the connection_created handler: a raw cursor reads uuid.UUID")
    made = Event7AsUUIDField.objects.create(n=42)
    c.check(isinstance(made.pk, uuid.UUID), "uuid7 with the handler: even a plain UUIDField's create().pk is uuid.UUID",
            repr(made.pk))
    connection_created.disconnect(register_uuid7)
    connection.close()


def inspect():
    out = io.StringIO()
    call_command("inspectdb", "tu", "t7", "td", stdout=out)
    text = out.getvalue()
    classes = {block.split("(", 1)[0]: block for block in text.split("\nclass ")[1:]}
    c.check("id = models.UUIDField(primary_key=True)" in classes.get("Tu", ""),
            "inspectdb on the uuid column: models.UUIDField(primary_key=True)", classes.get("Tu"))
    c.check("id = models.UUIDField(primary_key=True)" in classes.get("Td", ""),
            "inspectdb on the domain column: models.UUIDField(primary_key=True)", classes.get("Td"))
    guess = "id = models.TextField(primary_key=True)  # This field type is a guess."
    c.check(guess in classes.get("T7", ""), f"inspectdb on the uuid7 column: {guess}", classes.get("T7"))
    # What to write instead: UUID7Field (unmanaged, as inspectdb makes it).
    source = "class " + classes["T7"].replace("models.TextField(primary_key=True)  # This field type is a guess.",
                                               "UUID7Field(primary_key=True)")
    namespace = {"models": models, "UUID7Field": UUID7Field, "__name__": "uuidapp.inspected"}
    exec(source, namespace)
    inspected = namespace["T7"]
    keys = list(inspected.objects.order_by("id").values_list("id", flat=True)[:3])
    c.check(keys and all(is_v7(k) for k in keys),
            "the inspected uuid7 model with UUID7Field(primary_key=True) instead reads uuid.UUID keys", keys)


try:
    from django.db.models.functions import UUID7
except ImportError:  # Django 5.2
    UUID7 = None

if UUID7 is not None:
    class UUIDv7(UUID7):
        """Django's UUID7() where Django refuses it, before PostgreSQL 18:
        uuid_ext's uuidv7() and uuidv7(interval), in one server-wide order."""

        def as_postgresql(self, compiler, connection, **extra_context):
            if connection.features.supports_uuid7_function:  # 18 and later: core's uuidv7()
                return super().as_postgresql(compiler, connection, **extra_context)
            return Func.as_sql(self, compiler, connection, **extra_context)

    class UuidExtV7(UUID7):
        """uuid_ext's UUIDv7 on every version, 18 and 19 too."""

        def as_postgresql(self, compiler, connection, **extra_context):
            return Func.as_sql(self, compiler, connection, function="uuid_generate_v7", **extra_context)


def uuid7_function():
    """Django 6.1's UUID7() with uuid_ext (docs/clients.md#djangos-uuid7)."""
    if UUID7 is None:
        c.skip("UUID7()", f"Django {django.get_version()} has none (Django 6.1 brought it; it needs Python 3.12)")
        return
    from django.db import NotSupportedError, connections

    core = connection.features.supports_uuid7_function
    with connection.cursor() as cur:
        cur.execute("SHOW server_version_num")
        before_18 = int(cur.fetchone()[0]) < 180000
    c.equal(core, not before_18, "Django 6.1 says PostgreSQL has uuidv7() from 18 on, whatever uuid_ext installs")

    class Plain(models.Model):
        id = models.UUIDField(primary_key=True, db_default=UUID7())

        class Meta:
            app_label = "uuidapp"
            db_table = "django_uuid7"

    class Event(models.Model):
        id = models.UUIDField(primary_key=True, db_default=UUIDv7())
        back = models.UUIDField(db_default=UUIDv7(shift=timedelta(days=-1)))
        ours = models.UUIDField(db_default=UuidExtV7())
        n = models.IntegerField()

        class Meta:
            app_label = "uuidapp"
            db_table = "django_uuidv7"

    if before_18:
        try:
            with transaction.atomic(), connection.schema_editor() as editor:
                editor.create_model(Plain)
            c.check(False, "Django's own UUID7() in a db_default is refused before PostgreSQL 18", "it was taken")
        except NotSupportedError as e:
            c.check("UUID7 requires PostgreSQL version 18 or later" in str(e),
                    "Django's own UUID7() in a db_default is refused before PostgreSQL 18", str(e))
    with connection.schema_editor() as editor:
        editor.create_model(Event)
    with connection.cursor() as cur:
        cur.execute("SELECT string_agg(pg_get_expr(d.adbin, d.adrelid), ', ' ORDER BY a.attnum) FROM pg_attrdef d "
                    "JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum "
                    "WHERE d.adrelid = 'django_uuidv7'::regclass")
        defaults = cur.fetchone()[0]
    c.equal(defaults, "uuidv7(), uuidv7('-1 days'::interval), uuid_generate_v7()", "the docs' UUIDv7() and UuidExtV7() as db_default: the columns' defaults")
    # Which function the default calls: uuid_ext's before 18, core's from 18 on.
    with connection.cursor() as cur:
        cur.execute("SELECT string_agg(DISTINCT p.pronamespace::regnamespace::text, ',') FROM pg_depend d "
                    "JOIN pg_proc p ON p.oid = d.refobjid WHERE d.classid = 'pg_attrdef'::regclass "
                    "AND d.refclassid = 'pg_proc'::regclass AND p.proname = 'uuidv7' "
                    "AND d.objid IN (SELECT oid FROM pg_attrdef WHERE adrelid = 'django_uuidv7'::regclass)")
        reaches = cur.fetchone()[0]
    c.equal(reaches, "public" if before_18 else None,
            "UUIDv7()'s default calls uuid_ext's uuidv7() before 18 (from 18 on core's, on which a default records "
            "no dependency)")
    made = Event.objects.create(n=1)
    c.check(is_v7(made.pk) and is_v7(made.back) and is_v7(made.ours),
            "create() reads back three UUIDv7s from the defaults", (made.pk, made.back, made.ours))
    day_ago = datetime.now(timezone.utc) - timedelta(days=1)
    c.check(abs(datetime.fromtimestamp((made.back.int >> 80) / 1000, timezone.utc) - day_ago) < timedelta(minutes=5),
            "UUIDv7(shift=timedelta(days=-1)) makes a key a day back", made.back)
    # In a query: keys after every stored one.
    c.equal(Event.objects.filter(pk__lt=UUIDv7()).count(), 1, "filter(pk__lt=UUIDv7()) in a query: the stored key "
            "is below a new one")
    # Two connections interleaved: one order with uuid_ext's sequencer.
    for fn, label, ordered in ((UUIDv7(), "UUIDv7()", before_18), (UuidExtV7(), "UuidExtV7()", True)):
        keys = [Event.objects.using(alias).annotate(k=fn).values_list("k", flat=True)[0]
                for _ in range(50) for alias in ("default", "other")]
        increasing = all(a < b for a, b in zip(keys, keys[1:]))
        if ordered:
            c.check(increasing and all(is_v7(k) for k in keys), f"{label} in queries on two connections, "
                    "interleaved: strictly increasing (uuid_ext's server-wide sequencer)", keys[:4])
        else:
            c.check(all(is_v7(k) for k in keys), f"{label} from 18 on is core's uuidv7(): UUIDv7s, each connection "
                    f"in its own order ({'increasing' if increasing else 'not increasing'} across the two this time)")
    connections["other"].close()
    with connection.schema_editor() as editor:
        editor.delete_model(Event)


def main():
    fresh_database(DB, schema=None)
    try:
        call_command("migrate", verbosity=0)
        with connection.cursor() as cur:
            cur.execute("SELECT string_agg(format('%s %s', c.relname, format_type(a.atttypid, a.atttypmod)), ', ' "
                        "ORDER BY c.relname) FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid "
                        "WHERE c.relname IN ('tu', 't7', 'td') AND a.attname = 'id'")
            c.equal(cur.fetchone()[0], "t7 uuid7, td uuid7_domain, tu uuid",
                    "migrate makes the extension, the domain and the three tables in an empty database")
        try:
            call_command("makemigrations", "uuidapp", "--check", "--dry-run", verbosity=0)
            c.check(True, "the models agree with the migration (makemigrations --check)")
        except SystemExit:
            c.check(False, "the models agree with the migration (makemigrations --check)", "changes detected")
        for model, what in ((EventU, "uuid (UUIDField)"), (Event7, "uuid7 (UUID7Field)"),
                            (EventD, "uuid7_domain (a UUIDField)")):
            scenario(model, what)
        doc_example()
        failures_and_fixes()
        inspect()
        uuid7_function()
    except Exception:
        c.crashed()
    connection.close()
    drop_database(DB)
    c.exit()


if __name__ == "__main__":
    main()
