"""The models of tests/clients/django_client.py (docs/clients.md#django):
one key per table, each filled by the database (db_default) when the
application gives none."""
import uuid

from django.db import models
from django.db.models import Func


class UUID7Field(models.UUIDField):
    """A uuid7 column; its values are uuid.UUID however the driver reads them."""

    def db_type(self, connection):
        return "uuid7"

    def from_db_value(self, value, expression, connection):
        return value if value is None or isinstance(value, uuid.UUID) else uuid.UUID(value)


class UUID7DomainField(models.UUIDField):
    """A column of the domain uuid7_domain (a uuid to the driver: nothing to convert)."""

    def db_type(self, connection):
        return "uuid7_domain"


class EventU(models.Model):
    id = models.UUIDField(primary_key=True, db_default=Func(function="uuid_generate_v7"))
    n = models.IntegerField()

    class Meta:
        db_table = "tu"


class Event7(models.Model):
    id = UUID7Field(primary_key=True, db_default=Func(function="uuid_generate_v7"))
    n = models.IntegerField()

    class Meta:
        db_table = "t7"


class EventD(models.Model):
    id = UUID7DomainField(primary_key=True, db_default=Func(function="uuid_generate_v7"))
    n = models.IntegerField()

    class Meta:
        db_table = "td"


class Child7(models.Model):
    """A foreign key to a uuid7 key is a uuid7 column, read through UUID7Field."""
    id = UUID7Field(primary_key=True, db_default=Func(function="uuid_generate_v7"))
    event = models.ForeignKey(Event7, on_delete=models.CASCADE)


class Event7AsUUIDField(models.Model):
    """The failure: a plain UUIDField on the uuid7 column (the table is Event7's)."""
    id = models.UUIDField(primary_key=True, db_default=Func(function="uuid_generate_v7"))
    n = models.IntegerField()

    class Meta:
        db_table = "t7"
        managed = False
