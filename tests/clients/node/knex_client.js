'use strict';
// Knex (on node-postgres) with a uuid, a uuid7 and a uuid7_domain key
// (docs/clients.md, "Knex"). Knex hands UUIDs over as strings, as node-postgres
// does: all three columns work unchanged. Checks, in a database of its own:
// the schema builder makes the three columns (t.uuid, t.specificType('uuid7'),
// t.specificType('uuid7_domain'), each defaultTo(knex.raw('uuid_generate_v7()'))),
// then for each: insert().returning('id') reads the server's default (a UUIDv7
// string), a client-made UUIDv7 in and back, where('id', ...) and whereIn,
// orderBy('id') in insert order, uuid_v7_lower_bound(?) with a Date, and a
// UUIDv4 (22P02 from uuid7, 23514 from the domain, taken by uuid).
// Env: PGHOST, PGPORT, PGUSER (a superuser). Run: node knex_client.js
const crypto = require('node:crypto');
const knexFactory = require('knex');
const { TABLES, V4_REFUSED, clientV7, isV7, pause, Checks, freshDatabase, dropDatabase } = require('./common.js');

const DB = 'uuid_ext_clients_node_knex';
const c = new Checks('knex');

async function schema(knex) {
  await knex.raw('CREATE EXTENSION uuid_ext');
  await knex.raw('CREATE DOMAIN uuid7_domain AS uuid CHECK (public.uuid_extract_version(VALUE) = 7)');
  await knex.schema.createTable('tu', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('uuid_generate_v7()'));
    t.integer('n').notNullable();
  });
  await knex.schema.createTable('t7', (t) => {
    t.specificType('id', 'uuid7').primary().defaultTo(knex.raw('uuid_generate_v7()'));
    t.integer('n').notNullable();
  });
  await knex.schema.createTable('td', (t) => {
    t.specificType('id', 'uuid7_domain').primary().defaultTo(knex.raw('uuid_generate_v7()'));
    t.integer('n').notNullable();
  });
  const { rows } = await knex.raw(`SELECT c.relname, format_type(a.atttypid, a.atttypmod) AS type
    FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
    WHERE c.relname IN ('tu', 't7', 'td') AND a.attname = 'id' ORDER BY c.relname`);
  c.equal(rows.map((r) => `${r.relname} ${r.type}`), ['t7 uuid7', 'td uuid7_domain', 'tu uuid'],
    'the schema builder makes the uuid, uuid7 and uuid7_domain key columns');
}

async function scenario(knex, table) {
  const label = `${TABLES[table]} column`;
  await knex(table).truncate();

  const [{ id: made }] = await knex(table).insert({ n: 1 }).returning('id');
  c.check(isV7(made), `${label}: insert().returning('id') reads the server's default as a UUIDv7 string`, made);
  const mine = clientV7();
  const [{ id: back }] = await knex(table).insert({ id: mine, n: 2 }).returning('id');
  c.equal(back, mine, `${label}: a client-made UUIDv7 string goes in and comes back equal`);
  c.equal(await knex(table).where('id', mine).first('n'), { n: 2 }, `${label}: where('id', <uuid>) finds its row`);
  c.equal(await knex(table).whereIn('id', [made, mine]).orderBy('n').pluck('n'), [1, 2],
    `${label}: whereIn('id', [...]) finds both rows`);

  const ids = [];
  for (let i = 0; i < 6; i += 1) {
    await pause();
    const row = i % 2 ? { id: clientV7(), n: 100 + i } : { n: 100 + i };
    ids.push((await knex(table).insert(row).returning('id'))[0].id);
  }
  c.check(ids.every((id, i) => i === 0 || ids[i - 1] < id),
    `${label}: keys made one after another (server's and client's alternating) increase strictly`, ids);
  c.equal(await knex(table).where('n', '>=', 100).orderBy('id').pluck('n'), [100, 101, 102, 103, 104, 105],
    `${label}: orderBy('id') is insert order`);

  await pause();
  const since = new Date();
  await pause();
  await knex(table).insert([{ n: 200 }, { n: 201 }]);
  await knex(table).insert({ id: clientV7(), n: 202 });
  const found = await knex(table).where('id', '>=', knex.raw('uuid_v7_lower_bound(?)', [since])).orderBy('n').pluck('n');
  c.equal(found, [200, 201, 202],
    `${label}: where('id', '>=', knex.raw('uuid_v7_lower_bound(?)', [<Date>])) finds exactly the rows made since`);

  const v4 = crypto.randomUUID();
  const insertV4 = () => knex(table).insert({ id: v4, n: 3 }).returning('id');
  if (V4_REFUSED[table]) {
    await c.rejects(insertV4, `${label}: a UUIDv4 is refused with ${V4_REFUSED[table]}`, { code: V4_REFUSED[table] });
  } else {
    c.equal((await insertV4())[0].id, v4, `${label}: a UUIDv4 is taken (any UUID is)`);
  }
}

// The lines docs/clients.md shows.
async function docExample(knex) {
  const [{ id }] = await knex('t7').insert({ n: 1 }).returning('id');
  const since = new Date(Date.now() - 5 * 60 * 1000);
  const recent = await knex('t7').where('id', '>=', knex.raw('uuid_v7_lower_bound(?)', [since])).orderBy('id').pluck('id');
  const row = await knex('t7').where({ id }).first('n');
  c.check(isV7(id) && recent[recent.length - 1] === id && row.n === 1,
    'the docs\' example: insert().returning(\'id\'), uuid_v7_lower_bound(?) with a Date, where({ id })', id);
}

async function main() {
  await freshDatabase(DB, null);
  const knex = knexFactory({ client: 'pg', connection: { database: DB }, pool: { min: 0, max: 2 } });
  try {
    await schema(knex);
    for (const table of Object.keys(TABLES)) await scenario(knex, table);
    await docExample(knex);
  } catch (e) {
    c.crashed(e);
  }
  await knex.destroy();
  await dropDatabase(DB);
  c.exit();
}

main();
