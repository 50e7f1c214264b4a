-- The façade (docs/facade.md): faces of UUIDv7 keys under this database's
-- keys, the published vectors through SQL, round trips, errors with their
-- SQLSTATEs, rotation, who may call what, and the primary key's index
-- behind uuid_facade_to_v7(). tests/cluster/facade.py takes the keys
-- through restarts, standbys, dumps, pg_upgrade and the server log.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

CREATE FUNCTION pg_temp.fails(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- No key yet: 55000, and a hint that names uuid_facade_key_create().
SELECT * FROM uuid_facade_keys;
SELECT uuid_v7_to_facade('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b');
SELECT pg_temp.fails($$SELECT uuid_v7_to_facade('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b')$$);
SELECT pg_temp.fails($$SELECT uuid_facade_to_v7('adfa3dfb-2322-4c5e-b1b9-3bfb6996e3d0')$$);
SELECT uuid_facade_candidates('adfa3dfb-2322-4c5e-b1b9-3bfb6996e3d0') AS no_candidates;

-- The published test key (bytes 0x00 to 0x1f) and its vectors
-- (docs/facade.md#test-vectors), through the SQL functions. Its import
-- warns: anyone can decode its faces.
SELECT uuid_facade_key_import('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f') AS key_id;
-- The key's bytes, of type uuid_facade_secret, as a superuser sees them;
-- its text and binary input take 32 bytes only.
SELECT key_id, key, key::text = '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f' AS same
FROM uuid_facade_key;
SELECT uuid_facade_secret_send(key) = '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea AS sent
FROM uuid_facade_key;
SELECT '\x0A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20212223242526272829'::uuid_facade_secret AS upper_hex_in;
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT '\x00'::uuid_facade_secret$$),
  ($$SELECT '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::uuid_facade_secret$$),
  ($$SELECT '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1z'::uuid_facade_secret$$),
  ($$SELECT '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f00'::uuid_facade_secret$$)
) AS t(q);
SELECT key_id, state, fingerprint, retired IS NULL AS not_retired FROM uuid_facade_keys;
SELECT id, context, uuid_v7_to_facade(id, context) AS face,
       uuid_facade_to_v7(uuid_v7_to_facade(id, context), context) = id AS back
FROM (VALUES ('00000000-0000-7000-8000-000000000000'::uuid, ''),
             ('00000000-0000-7000-8000-000000000000', 'orders'),
             ('ffffffff-ffff-7fff-bfff-ffffffffffff', ''),
             ('ffffffff-ffff-7fff-bfff-ffffffffffff', 'orders'),
             ('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b', ''),
             ('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b', 'orders'),
             ('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0c', ''),
             ('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0c', 'orders')) AS v(id, context);
-- A uuid7 goes in through its cast to uuid.
SELECT uuid_v7_to_facade('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b'::uuid7) AS from_uuid7;
-- The same key moved into another database gives the same faces.
SELECT uuid_facade_key_export(1) = '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea AS exported;

-- 100000 generated keys each way: every face a UUIDv4 with no time, all
-- distinct, each decoding to its key; every v4 decoding to a v7-shaped
-- value whose face it is.
SELECT count(*) AS keys,
       count(*) FILTER (WHERE uuid_facade_to_v7(face) = id) AS decoded,
       count(DISTINCT face) AS distinct_faces,
       count(*) FILTER (WHERE uuid_extract_version(face) = 4 AND uuid_extract_timestamp(face) IS NULL
                          AND substr(face::text, 20, 1) IN ('8', '9', 'a', 'b')) AS v4_faces
FROM (SELECT id, uuid_v7_to_facade(id) AS face
      FROM (SELECT uuid_generate_v7() AS id FROM generate_series(1, 100000)) g) f;
SELECT count(*) AS v4s,
       count(*) FILTER (WHERE uuid_v7_to_facade(v7) = v4) AS back,
       count(*) FILTER (WHERE uuid_extract_version(v7) = 7) AS v7_shaped
FROM (SELECT v4, uuid_facade_to_v7(v4) AS v7
      FROM (SELECT gen_random_uuid() AS v4 FROM generate_series(1, 100000)) g) f;
-- Another context gives other faces, which decode only under it.
SELECT count(*) AS keys,
       count(*) FILTER (WHERE uuid_v7_to_facade(id, 'orders') <> uuid_v7_to_facade(id)) AS other_faces,
       count(*) FILTER (WHERE uuid_facade_to_v7(uuid_v7_to_facade(id, 'orders')) = id) AS crossed
FROM (SELECT uuid_generate_v7() AS id FROM generate_series(1, 1000)) g;

-- 22023: what goes in must be a UUIDv7, a face a UUIDv4; a key id must
-- name a key that decodes. NULL in, NULL out.
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT uuid_v7_to_facade('adfa3dfb-2322-4c5e-b1b9-3bfb6996e3d0')$$),
  ($$SELECT uuid_v7_to_facade(uuid_generate_v6())$$),
  ($$SELECT uuid_v7_to_facade('01936f7a-1c2d-7e3f-0a4b-5c6d7e8f9a0b')$$),
  ($$SELECT uuid_facade_to_v7('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b')$$),
  ($$SELECT uuid_facade_to_v7('adfa3dfb-2322-4c5e-b1b9-3bfb6996e3d0', '', 9)$$),
  ($$SELECT uuid_facade_candidates('01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b')$$),
  ($$SELECT uuid_facade_key_retire(9)$$),
  ($$SELECT uuid_facade_key_drop(9)$$),
  ($$SELECT uuid_facade_key_export(9)$$),
  ($$SELECT uuid_facade_key_import('\x0102')$$),
  ($$SELECT uuid_facade_key_import('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f')$$)
) AS t(q);
SELECT uuid_v7_to_facade(NULL) IS NULL AS a, uuid_v7_to_facade(uuid_generate_v7(), NULL) IS NULL AS b,
       uuid_facade_to_v7(NULL) IS NULL AS c, uuid_facade_to_v7(gen_random_uuid(), '', NULL) IS NULL AS d,
       uuid_facade_candidates(NULL) IS NULL AS e;

-- Rotation: a new key becomes current and the old one retired; faces made
-- under the old key resolve through the candidates (or its id).
CREATE TABLE facade_orders (id uuid PRIMARY KEY, n int);
INSERT INTO facade_orders SELECT uuid_generate_v7(), n FROM generate_series(1, 1000) n;
CREATE TEMP TABLE shown AS SELECT n, uuid_v7_to_facade(id) AS face FROM facade_orders;
SELECT uuid_facade_key_create() AS key_id;
SELECT key_id, state, retired IS NOT NULL AS has_retired FROM uuid_facade_keys ORDER BY key_id;
SELECT count(*) FILTER (WHERE o.n = s.n) AS through_candidates,
       count(*) FILTER (WHERE uuid_facade_to_v7(s.face, '', 1) = o.id) AS through_key_1,
       count(*) FILTER (WHERE uuid_facade_to_v7(s.face) = o.id) AS through_current
FROM shown s JOIN facade_orders o ON o.id = ANY (uuid_facade_candidates(s.face));
SELECT cardinality(uuid_facade_candidates(gen_random_uuid())) AS candidates;
-- Retiring the current key leaves none current until the next create.
SELECT uuid_facade_key_retire(2);
SELECT pg_temp.fails($$SELECT uuid_v7_to_facade(uuid_generate_v7())$$);
SELECT uuid_facade_key_create() AS key_id;
-- Dropped: its faces find nothing, without an error; its id is 22023.
SELECT uuid_facade_key_drop(1);
SELECT uuid_facade_key_drop(1);
SELECT key_id, state, dropped IS NOT NULL AS has_dropped FROM uuid_facade_keys ORDER BY key_id;
SELECT count(*) AS found_after_drop
FROM shown s JOIN facade_orders o ON o.id = ANY (uuid_facade_candidates(s.face));
SELECT pg_temp.fails($$SELECT uuid_facade_to_v7(gen_random_uuid(), '', 1)$$);
SELECT pg_temp.fails($$SELECT uuid_facade_key_retire(1)$$);
SELECT pg_temp.fails($$SELECT uuid_facade_key_export(1)$$);

-- A face is looked up through the primary key's index, for uuid and for
-- uuid7 keys.
CREATE TABLE facade_orders7 (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
INSERT INTO facade_orders7 (n) SELECT generate_series(1, 1000);
ANALYZE facade_orders, facade_orders7;
EXPLAIN (COSTS OFF) SELECT n FROM facade_orders WHERE id = uuid_facade_to_v7('adfa3dfb-2322-4c5e-b1b9-3bfb6996e3d0');
EXPLAIN (COSTS OFF) SELECT n FROM facade_orders7 WHERE id = uuid_facade_to_v7('adfa3dfb-2322-4c5e-b1b9-3bfb6996e3d0');
EXPLAIN (COSTS OFF) SELECT n FROM facade_orders WHERE id = ANY (uuid_facade_candidates('adfa3dfb-2322-4c5e-b1b9-3bfb6996e3d0'));
SELECT count(*) AS found FROM facade_orders7 o
WHERE o.id = uuid_facade_to_v7(uuid_v7_to_facade(o.id, 'x'), 'x');

-- Who may call what: PUBLIC nothing (42501); the key table is unreadable
-- even to a role granted the functions; the view shows no key bytes;
-- export and import are for superusers.
CREATE ROLE facade_app;
CREATE ROLE facade_stranger;
GRANT EXECUTE ON FUNCTION uuid_v7_to_facade(uuid, text), uuid_facade_to_v7(uuid, text) TO facade_app;
GRANT SELECT ON uuid_facade_keys TO facade_app;
SET ROLE facade_stranger;
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT uuid_v7_to_facade(uuid_generate_v7())$$),
  ($$SELECT uuid_facade_to_v7(gen_random_uuid())$$),
  ($$SELECT uuid_facade_to_v7(gen_random_uuid(), '', 3)$$),
  ($$SELECT uuid_facade_candidates(gen_random_uuid())$$),
  ($$SELECT uuid_facade_key_create()$$),
  ($$SELECT uuid_facade_key_retire(3)$$),
  ($$SELECT uuid_facade_key_drop(3)$$),
  ($$SELECT uuid_facade_key_export(3)$$),
  ($$SELECT uuid_facade_key_import('\x00')$$),
  ($$SELECT * FROM uuid_facade_key$$),
  ($$SELECT * FROM uuid_facade_keys$$)
) AS t(q);
SET ROLE facade_app;
SELECT uuid_facade_to_v7(uuid_v7_to_facade(id)) = id AS app_maps FROM (SELECT uuid_generate_v7() AS id) g;
SELECT key_id, state FROM uuid_facade_keys ORDER BY key_id;
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT * FROM uuid_facade_key$$),
  ($$SELECT uuid_facade_key_create()$$),
  ($$SELECT uuid_facade_key_export(3)$$)
) AS t(q);
RESET ROLE;
-- A role that may read and write the table (as the extension's owner of a
-- trusted install may read it, and pg_read_all_data and pg_write_all_data
-- do) reads ids and states, never a key's bytes, and changes no key.
GRANT SELECT, INSERT, UPDATE, DELETE ON uuid_facade_key TO facade_app;
SET ROLE facade_app;
SELECT key_id, state, key IS NULL AS no_key FROM uuid_facade_key ORDER BY key_id;
-- (The output function raises only when a value is shown, as here: in
-- pg_temp.fails() below a SELECT's rows are not shown.)
SELECT key FROM uuid_facade_key;
SELECT * FROM uuid_facade_key;
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT t::text FROM uuid_facade_key t$$),
  ($$SELECT key::text FROM uuid_facade_key$$),
  ($$SELECT uuid_facade_secret_out(key) FROM uuid_facade_key$$),
  ($$SELECT uuid_facade_secret_send(key) FROM uuid_facade_key$$),
  ($$SELECT row_to_json(t) FROM uuid_facade_key t$$),
  ($$UPDATE uuid_facade_key SET key = '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'$$),
  ($$UPDATE uuid_facade_key SET state = 'retired' WHERE state = 'current'$$),
  ($$DELETE FROM uuid_facade_key$$),
  ($$INSERT INTO uuid_facade_key VALUES (9, 'dropped', NULL, 'x', now())$$),
  ($$INSERT INTO uuid_facade_key VALUES (9, 'retired', '\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'x', now())$$)
) AS t(q);
RESET ROLE;
SELECT key_id, state FROM uuid_facade_keys ORDER BY key_id;
SELECT attname FROM pg_attribute WHERE attrelid = 'uuid_facade_keys'::regclass AND attnum > 0 ORDER BY attnum;

-- The channel a Citus coordinator's keys reach its workers by takes
-- nothing here, from anyone: not on a worker (55000, whatever it is
-- given), not as a role's default (55000). The generation a
-- node holds: 0 here, "none" to a role that may not read the cluster key's
-- table.
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SET uuid_ext.facade_sync = '00'$$),
  ($$SELECT set_config('uuid_ext.facade_sync', 'not a key set', true)$$),
  ($$ALTER ROLE facade_app SET uuid_ext.facade_sync = '00'$$)
) AS t(q);
SHOW uuid_ext.facade_sync;
SHOW uuid_ext.facade_generation;
SET ROLE facade_stranger;
SHOW uuid_ext.facade_generation;
RESET ROLE;

DROP TABLE facade_orders, facade_orders7, shown;
DROP OWNED BY facade_app, facade_stranger;
DROP ROLE facade_app, facade_stranger;
DROP EXTENSION uuid_ext;
