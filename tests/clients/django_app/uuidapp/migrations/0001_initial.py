# Made by Django 5.2's makemigrations, then the extension and the domain
# put first (they need a superuser; see docs/clients.md#django).

import django.db.models.deletion
import uuidapp.models
from django.contrib.postgres.operations import CreateExtension
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
    ]

    operations = [
        CreateExtension("uuid_ext"),
        migrations.RunSQL(
            "CREATE DOMAIN uuid7_domain AS uuid CHECK (public.uuid_extract_version(VALUE) = 7)",
            "DROP DOMAIN uuid7_domain",
        ),
        migrations.CreateModel(
            name='Event7AsUUIDField',
            fields=[
                ('id', models.UUIDField(db_default=models.Func(function='uuid_generate_v7'), primary_key=True, serialize=False)),
                ('n', models.IntegerField()),
            ],
            options={
                'db_table': 't7',
                'managed': False,
            },
        ),
        migrations.CreateModel(
            name='Event7',
            fields=[
                ('id', uuidapp.models.UUID7Field(db_default=models.Func(function='uuid_generate_v7'), primary_key=True, serialize=False)),
                ('n', models.IntegerField()),
            ],
            options={
                'db_table': 't7',
            },
        ),
        migrations.CreateModel(
            name='EventD',
            fields=[
                ('id', uuidapp.models.UUID7DomainField(db_default=models.Func(function='uuid_generate_v7'), primary_key=True, serialize=False)),
                ('n', models.IntegerField()),
            ],
            options={
                'db_table': 'td',
            },
        ),
        migrations.CreateModel(
            name='EventU',
            fields=[
                ('id', models.UUIDField(db_default=models.Func(function='uuid_generate_v7'), primary_key=True, serialize=False)),
                ('n', models.IntegerField()),
            ],
            options={
                'db_table': 'tu',
            },
        ),
        migrations.CreateModel(
            name='Child7',
            fields=[
                ('id', uuidapp.models.UUID7Field(db_default=models.Func(function='uuid_generate_v7'), primary_key=True, serialize=False)),
                ('event', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='uuidapp.event7')),
            ],
        ),
    ]
