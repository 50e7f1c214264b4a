'use strict';
// node-postgres (pg) with a uuid, a uuid7 and a uuid7_domain key
// (docs/clients.md, "node-postgres"). node-postgres has no UUID type: every
// UUID is a string, so all three columns work unchanged. Checks, in a
// database of its own, for each column: the server's default through
// RETURNING (a UUIDv7 string), a client-made UUIDv7 in and back, WHERE id = $1
// and = ANY($1), ORDER BY id in insert order, uuid_v7_lower_bound($1) with a
// Date, a UUIDv4 (22P02 from uuid7, 23514 from the domain, taken by uuid).
// Then: a type parser set on uuid's OID (2950) reaches the uuid and domain
// columns but not uuid7, whose OID is looked up at run time; and
// `binary: true` garbles UUIDs of both types beyond repair.
// Env: PGHOST, PGPORT, PGUSER (a superuser). Run: node pg_client.js
const crypto = require('node:crypto');
const pg = require('pg');
const { TABLES, V4_REFUSED, clientV7, isV7, pause, Checks, freshDatabase, dropDatabase } = require('./common.js');

const DB = 'uuid_ext_clients_node_pg';
const c = new Checks('node-postgres');

async function scenario(client, table) {
  const label = `${TABLES[table]} column`;
  await client.query(`TRUNCATE ${table}`);

  const made = (await client.query(`INSERT INTO ${table} (n) VALUES ($1) RETURNING id`, [1])).rows[0].id;
  c.check(isV7(made), `${label}: INSERT ... RETURNING id reads the server's default as a UUIDv7 string`, made);
  const mine = clientV7();
  const back = (await client.query(`INSERT INTO ${table} (id, n) VALUES ($1, $2) RETURNING id`, [mine, 2])).rows[0].id;
  c.equal(back, mine, `${label}: a client-made UUIDv7 string goes in and comes back equal`);
  const one = await client.query(`SELECT n FROM ${table} WHERE id = $1`, [mine]);
  c.equal(one.rows, [{ n: 2 }], `${label}: WHERE id = $1 finds its row`);
  const both = await client.query(`SELECT n FROM ${table} WHERE id = ANY($1) ORDER BY n`, [[made, mine]]);
  c.equal(both.rows, [{ n: 1 }, { n: 2 }], `${label}: WHERE id = ANY($1) with an array of strings finds both rows`);

  const ids = [];
  for (let i = 0; i < 6; i += 1) {
    await pause();
    const r = i % 2
      ? await client.query(`INSERT INTO ${table} (id, n) VALUES ($1, $2) RETURNING id`, [clientV7(), 100 + i])
      : await client.query(`INSERT INTO ${table} (n) VALUES ($1) RETURNING id`, [100 + i]);
    ids.push(r.rows[0].id);
  }
  c.check(ids.every((id, i) => i === 0 || ids[i - 1] < id),
    `${label}: keys made one after another (server's and client's alternating) increase strictly, as strings too`, ids);
  const ordered = await client.query(`SELECT n FROM ${table} WHERE n >= 100 ORDER BY id`);
  c.equal(ordered.rows.map((r) => r.n), [100, 101, 102, 103, 104, 105], `${label}: ORDER BY id is insert order`);

  await pause();
  const since = new Date();
  await pause();
  await client.query(`INSERT INTO ${table} (n) VALUES (200), (201)`);
  await client.query(`INSERT INTO ${table} (id, n) VALUES ($1, 202)`, [clientV7()]);
  const found = await client.query(`SELECT n FROM ${table} WHERE id >= uuid_v7_lower_bound($1) ORDER BY n`, [since]);
  c.equal(found.rows.map((r) => r.n), [200, 201, 202],
    `${label}: WHERE id >= uuid_v7_lower_bound($1) with a Date finds exactly the rows made since`);

  const v4 = crypto.randomUUID();
  const insertV4 = () => client.query(`INSERT INTO ${table} (id, n) VALUES ($1, 3) RETURNING id`, [v4]);
  if (V4_REFUSED[table]) {
    await c.rejects(insertV4, `${label}: a UUIDv4 is refused with ${V4_REFUSED[table]}`, { code: V4_REFUSED[table] });
  } else {
    c.equal((await insertV4()).rows[0].id, v4, `${label}: a UUIDv4 is taken (any UUID is)`);
  }
}

// A parser that turns a UUID into its 16 bytes: what an application keyed on
// uuid's OID might register. It reaches uuid7 only through uuid7's own OID.
const uuidToBuffer = (text) => Buffer.from(text.replace(/-/g, ''), 'hex');

async function parsers() {
  const client = new pg.Client({ database: DB });
  await client.connect();
  try {
    const ids = {};
    for (const table of Object.keys(TABLES)) {
      ids[table] = (await client.query(`INSERT INTO ${table} (n) VALUES (900) RETURNING id`)).rows[0].id;
    }
    client.setTypeParser(pg.types.builtins.UUID, 'text', uuidToBuffer);
    const read = async (table) => (await client.query(`SELECT id FROM ${table} WHERE n = 900`)).rows[0].id;
    for (const table of ['tu', 'td']) {
      const got = await read(table);
      c.check(Buffer.isBuffer(got) && got.toString('hex') === ids[table].replace(/-/g, ''),
        `a parser set on uuid's OID (2950) reaches the ${TABLES[table]} column`, got);
    }
    c.equal(await read('t7'), ids.t7, 'a parser set on uuid\'s OID does not reach uuid7: still a string');

    const { rows: [{ oid }] } = await client.query("SELECT 'uuid7'::regtype::oid AS oid");
    client.setTypeParser(oid, 'text', uuidToBuffer);
    const got = await read('t7');
    c.check(Buffer.isBuffer(got) && got.toString('hex') === ids.t7.replace(/-/g, ''),
      `the same parser set on uuid7's OID (${oid} in this database, looked up at run time) reaches uuid7`, got);
  } finally {
    await client.end();
  }

  // binary: true: node-postgres decodes every field as UTF-8 text before any
  // parser sees it, so the 16 bytes of a UUID are lost.
  const binary = new pg.Client({ database: DB, binary: true });
  await binary.connect();
  try {
    const simple = (await binary.query('SELECT id, id::text AS text FROM t7 WHERE n = 900')).rows[0];
    c.check(simple.id === simple.text && isV7(simple.id),
      'binary: true still reads text from a query without parameters (sent as a simple query)', simple.id);
    binary.setTypeParser(pg.types.builtins.UUID, 'binary', (buf) => buf.toString('hex'));
    for (const table of Object.keys(TABLES)) {
      const want = (await binary.query(`SELECT id::text AS id FROM ${table} WHERE n = 900`)).rows[0].id;
      const got = (await binary.query(`SELECT id FROM ${table} WHERE n = $1`, [900])).rows[0].id;
      const asHex = Buffer.isBuffer(got) ? got.toString('hex') : String(got);
      c.check(got != null && got !== want && asHex !== want.replace(/-/g, '') && !String(got).includes(want),
        `binary: true garbles a ${TABLES[table]} value beyond repair (even with a binary parser): not ${want}`,
        JSON.stringify(got));
    }
  } finally {
    await binary.end();
  }
}

// The lines docs/clients.md shows.
async function docExample() {
  const client = new pg.Client({ database: DB });
  await client.connect();
  try {
    const { rows: [{ id }] } = await client.query('INSERT INTO t7 (n) VALUES ($1) RETURNING id', [1]);
    const since = new Date(Date.now() - 5 * 60 * 1000);
    const recent = await client.query('SELECT id FROM t7 WHERE id >= uuid_v7_lower_bound($1) ORDER BY id', [since]);
    const same = await client.query('SELECT n FROM t7 WHERE id = $1', [id]);
    c.check(isV7(id) && recent.rows[recent.rows.length - 1].id === id && same.rows[0].n === 1,
      'the docs\' example: RETURNING id, uuid_v7_lower_bound($1) with a Date, WHERE id = $1 with a string', id);
  } finally {
    await client.end();
  }
}

async function main() {
  await freshDatabase(DB);
  try {
    const client = new pg.Client({ database: DB });
    await client.connect();
    try {
      for (const table of Object.keys(TABLES)) await scenario(client, table);
    } finally {
      await client.end();
    }
    await parsers();
    await docExample();
  } catch (e) {
    c.crashed(e);
  }
  await dropDatabase(DB);
  c.exit();
}

main();
