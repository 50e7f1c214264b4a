-- Name-based UUIDv5 (SHA-1) and UUIDv8 (SHA-2), custom UUIDv8, namespace IDs.
CREATE EXTENSION uuid_ext;

-- RFC 9562 §6.6 namespace IDs, by name in any case.
SELECT n, uuid_namespace(n) FROM unnest(ARRAY['dns', 'url', 'oid', 'x500', 'DNS', 'X500']) AS n;

-- UUIDv5 of www.example.com in the DNS namespace: Python's uuid.uuid5 gives
-- 2ed6657d-e927-568b-95e1-2665a8aea6a2.
SELECT uuid_generate_v5_name(uuid_namespace('dns'), 'www.example.com') AS v5,
       uuid_generate_v5_name(uuid_namespace('dns'), 'www.example.com'::bytea) AS v5_bytea;
-- Text is hashed as its UTF-8 bytes.
SELECT uuid_generate_v5_name(uuid_namespace('url'), 'https://例え.jp/ü')
       = uuid_generate_v5_name(uuid_namespace('url'), convert_to('https://例え.jp/ü', 'UTF8')) AS utf8;
-- An untyped literal picks the text form, and the empty name is a name.
SELECT uuid_generate_v5_name(uuid_namespace('oid'), '') AS empty_name;

-- RFC 9562 Appendix B.2: name-based UUIDv8, DNS namespace, www.example.com, SHA-256.
SELECT uuid_generate_v8_name(uuid_namespace('dns'), 'www.example.com') AS v8_sha256_default,
       uuid_generate_v8_name(uuid_namespace('dns'), 'www.example.com', 'sha256') AS v8_sha256,
       uuid_generate_v8_name(uuid_namespace('dns'), 'www.example.com'::bytea, 'SHA256') AS v8_bytea;
-- Each algorithm: the first 128 bits of its hash, version 8 and variant written over.
SELECT a, uuid_generate_v8_name(uuid_namespace('dns'), 'www.example.com', a) AS v8
FROM unnest(ARRAY['sha224', 'sha256', 'sha384', 'sha512']) AS a;

-- RFC 9562 Appendix B.1: a custom UUIDv8 from its 16 bytes; other bytes get
-- version 8 and the variant written over, the rest kept.
SELECT uuid_generate_v8('\x2489E9AD2EE28E008EC932D5F69181C0') AS rfc_b1,
       uuid_generate_v8('\xffffffffffffffffffffffffffffffff') AS all_ones,
       uuid_generate_v8('\x00000000000000000000000000000000') AS all_zeros;

-- IMMUTABLE: usable in a generated column and an index expression.
CREATE TABLE named (name text, id uuid GENERATED ALWAYS AS (uuid_generate_v5_name(uuid_namespace('url'), name)) STORED);
CREATE INDEX ON named (uuid_generate_v8_name(uuid_namespace('url'), name));
INSERT INTO named (name) VALUES ('https://example.com/a'), ('https://example.com/b');
SELECT name, id FROM named ORDER BY name;
DROP TABLE named;

-- STRICT.
SELECT uuid_generate_v8(NULL) IS NULL AS a,
       uuid_generate_v8_name(NULL, 'x') IS NULL AS b,
       uuid_generate_v8_name(uuid_namespace('dns'), NULL::text) IS NULL AS c,
       uuid_generate_v8_name(uuid_namespace('dns'), 'x', NULL) IS NULL AS d,
       uuid_generate_v5_name(uuid_namespace('dns'), NULL::bytea) IS NULL AS e,
       uuid_namespace(NULL) IS NULL AS f;

DROP EXTENSION uuid_ext;
