'use strict';
// What the Node client tests of tests/clients/node share: the three tables, a
// UUIDv7 made on the client, the fresh database, and the ok/FAIL lines
// (docs/clients.md). Connection settings come from PGHOST, PGPORT, PGUSER.
const crypto = require('node:crypto');
const pg = require('pg');

const SCHEMA = `
CREATE EXTENSION uuid_ext;
CREATE DOMAIN uuid7_domain AS uuid CHECK (public.uuid_extract_version(VALUE) = 7);
CREATE TABLE tu (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int NOT NULL);
CREATE TABLE t7 (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int NOT NULL);
CREATE TABLE td (id uuid7_domain PRIMARY KEY DEFAULT uuid_generate_v7(), n int NOT NULL);
`;
// table -> the column's type
const TABLES = { tu: 'uuid', t7: 'uuid7', td: 'uuid7_domain' };
// How each column refuses a UUIDv4 (null: it takes it).
const V4_REFUSED = { tu: null, t7: '22P02', td: '23514' };

// A UUIDv7 made here (RFC 9562 section 5.7): the Unix time in milliseconds,
// version 7, 74 random bits, the RFC variant; as node-postgres writes and
// reads UUIDs, a canonical lower-case string.
function clientV7() {
  const b = crypto.randomBytes(16);
  b.writeUIntBE(Date.now(), 0, 6);
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const V7_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const isV7 = (value) => typeof value === 'string' && V7_TEXT.test(value);

// Long enough that the next UUIDv7, client's or server's, is in a later millisecond.
const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

class Checks {
  constructor(client) {
    this.client = client;
    this.passed = 0;
    this.failed = 0;
  }

  check(cond, what, detail) {
    if (cond) {
      this.passed += 1;
      console.log(`ok   ${this.client}: ${what}`);
    } else {
      this.failed += 1;
      console.log(`FAIL ${this.client}: ${what}${detail === undefined ? '' : `: ${detail}`}`);
    }
    return cond;
  }

  equal(got, want, what) {
    const g = JSON.stringify(got);
    const w = JSON.stringify(want);
    return this.check(g === w, what, `got ${g}, want ${w}`);
  }

  // fn() must reject with that SQLSTATE (err.code), or with that text in its message.
  async rejects(fn, what, { code, match } = {}) {
    try {
      await fn();
    } catch (e) {
      const good = (code === undefined || e.code === code) && (match === undefined || String(e.message).includes(match));
      return this.check(good, what, `rejected [${e.code}]: ${e.message}`);
    }
    return this.check(false, what, 'no error');
  }

  crashed(e) {
    this.failed += 1;
    console.log(`FAIL ${this.client}: unexpected error:\n${e && e.stack ? e.stack : e}`);
  }

  exit() {
    process.exitCode = this.failed || !this.passed ? 1 : 0;
  }
}

async function onPostgres(sql) {
  const client = new pg.Client({ database: 'postgres' });
  await client.connect();
  try {
    for (const s of sql) await client.query(s);
  } finally {
    await client.end();
  }
}

async function freshDatabase(name, schema = SCHEMA) {
  await onPostgres([`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, `CREATE DATABASE "${name}"`]);
  if (schema) {
    const client = new pg.Client({ database: name });
    await client.connect();
    try {
      await client.query(schema);
    } finally {
      await client.end();
    }
  }
}

const dropDatabase = (name) => onPostgres([`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`]);

module.exports = { SCHEMA, TABLES, V4_REFUSED, clientV7, isV7, pause, Checks, freshDatabase, dropDatabase };
