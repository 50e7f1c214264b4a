-- requires: cast:uuid:bytea
-- PostgreSQL 19 casts uuid to bytea and back, and encodes bytea in
-- base32hex. Beside them: a uuid7 or uuid6 value has no cast of its own to
-- bytea (PostgreSQL never chains casts: go through uuid), bytea comes back
-- as uuid7 through uuid (which checks the version), and core's base32hex
-- text is ours with the padding core adds.
CREATE EXTENSION uuid_ext;
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid7::uuid::bytea AS v7_bytes,
       '1ec9414c-232a-6b00-b3c8-9f6bdeced846'::uuid6::uuid::bytea AS v6_bytes;
SELECT '\x017f22e279b07cc398c4dc0c0c07398f'::bytea::uuid::uuid7 AS back;
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid7::bytea;
SELECT '\x017f22e279b07cc398c4dc0c0c07398f'::bytea::uuid7;
SELECT '\x1ec9414c232a6b00b3c89f6bdeced846'::bytea::uuid::uuid7;
-- The bytes are the 16 of the UUID in network order, as uuid_encode's hex.
SELECT encode(id::uuid::bytea, 'hex') = uuid_encode(id, 'hex') AS same_hex
  FROM (SELECT uuid_generate_v7()::uuid7 AS id) s;
-- base32hex: core pads to 32 characters with '='; without the padding the
-- text is ours, character for character, for any UUID.
SELECT encode('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid::bytea, 'base32hex') AS core,
       uuid_encode('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'base32hex') AS ours;
SELECT count(*) AS uuids,
       count(*) FILTER (WHERE rtrim(encode(u::bytea, 'base32hex'), '=') = uuid_encode(u, 'base32hex')) AS same,
       count(*) FILTER (WHERE decode(uuid_encode(u, 'base32hex') || '======', 'base32hex')::uuid = u) AS decoded_by_core
  FROM (SELECT uuid_generate_v7() AS u FROM generate_series(1, 1000)
        UNION ALL SELECT gen_random_uuid() FROM generate_series(1, 1000)
        UNION ALL VALUES ('00000000-0000-0000-0000-000000000000'::uuid), ('ffffffff-ffff-ffff-ffff-ffffffffffff')) s;
-- min() and max() of uuid: core has none; ours are for uuid7 and uuid6.
SELECT to_regprocedure('pg_catalog.min(uuid)') AS core_min_uuid, min(id) AS min_uuid7
  FROM (VALUES ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid7), ('017f22e2-79b0-7cc4-98c4-dc0c0c07398f')) v(id);
DROP EXTENSION uuid_ext;
