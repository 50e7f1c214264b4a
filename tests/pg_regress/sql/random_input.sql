-- Thousands of random strings and byte strings to every function that
-- parses or takes apart its input: every call ends with a value or with the
-- documented error (22P02, 22023, 22008), and the server never restarts
-- (a crash would end this session and fail the file). Seeded, so repeatable.
CREATE EXTENSION uuid_ext;
SELECT pg_postmaster_start_time() AS started \gset
SELECT setseed(0.42);
-- Times as text that reads back (pg_regress runs in PST8PDT, whose times
-- before 1883 print as "LMT", which does not read back).
SET TIME ZONE 'UTC';
SET DateStyle = 'ISO';

-- Strings of `len` characters half the time, else of 0 to 40: from an
-- alphabet with a few strangers, any Unicode character but NUL and surrogates.
CREATE FUNCTION pg_temp.random_text(alphabet text, len int) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(string_agg(
           CASE WHEN random() < 0.97 THEN substr(alphabet, 1 + floor(random() * length(alphabet))::int, 1)
                ELSE chr(CASE WHEN random() < 0.5 THEN 1 + floor(random() * 127)::int
                              ELSE 57344 + floor(random() * (1114111 - 57344))::int END) END, ''), '')
  FROM generate_series(1, CASE WHEN random() < 0.5 THEN len ELSE floor(random() * 41)::int END)
$$;
-- A valid name 30% of the time, else random text from the alphabet.
CREATE FUNCTION pg_temp.random_name(valid text[], alphabet text, len int) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT CASE WHEN random() < 0.3 THEN valid[1 + floor(random() * cardinality(valid))::int]
              ELSE pg_temp.random_text(alphabet, len) END
$$;
CREATE FUNCTION pg_temp.random_bytes() RETURNS bytea LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(string_agg(set_byte('\x00'::bytea, 0, floor(random() * 256)::int), ''), '')
  FROM generate_series(1, floor(random() * 33)::int)
$$;
CREATE FUNCTION pg_temp.random_uuid() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(string_agg(set_byte('\x00'::bytea, 0, floor(random() * 256)::int), ''), 'hex')::uuid
  FROM generate_series(1, 16)
$$;

-- Calls q with each argument list; returns the count of each outcome.
CREATE FUNCTION pg_temp.outcomes(q text, args text[]) RETURNS TABLE (outcome text, n bigint) LANGUAGE plpgsql AS $$
DECLARE
  a text;
  result text;
  tally jsonb := '{}';
BEGIN
  FOREACH a IN ARRAY args LOOP
    BEGIN
      EXECUTE format(q, a) INTO result;
      a := 'value';
    EXCEPTION WHEN OTHERS THEN
      a := SQLSTATE;
    END;
    tally := jsonb_set(tally, ARRAY[a], to_jsonb(coalesce((tally ->> a)::bigint, 0) + 1));
  END LOOP;
  RETURN QUERY SELECT key, value::bigint FROM jsonb_each_text(tally) ORDER BY key;
END $$;

CREATE TEMP TABLE fuzz (fn text, outcome text, n bigint);
-- uuid_decode in each format, fed strings mostly from that format's alphabet.
INSERT INTO fuzz
SELECT 'uuid_decode ' || f, o.outcome, o.n
FROM (VALUES ('hex', 32, '0123456789abcdefABCDEF'),
             ('base32hex', 26, '0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuv'),
             ('crockford', 26, '01234567ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyzILOilo'),
             ('base58', 22, '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'),
             ('base64url', 22, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_')) AS t(f, len, alphabet),
     LATERAL pg_temp.outcomes(format('SELECT uuid_decode(%%L, %L)::text', f),
                              ARRAY(SELECT pg_temp.random_text(alphabet, len) FROM generate_series(1, 2000))) AS o;
-- Text for the uuid reader and names to hash.
INSERT INTO fuzz
SELECT fn, o.outcome, o.n
FROM (VALUES ('uuid_extract_timestamp_text', 'SELECT uuid_extract_timestamp_text(%L)::text', 32, '0123456789abcdefABCDEF-{}'),
             ('uuid_generate_v8_name', 'SELECT uuid_generate_v8_name(gen_random_uuid(), %L)::text', 10, 'abcü€𝄞'),
             ('uuid_generate_v5_name', 'SELECT uuid_generate_v5_name(gen_random_uuid(), %L)::text', 10, 'abcü€𝄞')) AS t(fn, q, len, alphabet),
     LATERAL pg_temp.outcomes(q, ARRAY(SELECT pg_temp.random_text(alphabet, len) FROM generate_series(1, 1000))) AS o;
-- Format, namespace and algorithm names: valid ones, near misses, noise.
INSERT INTO fuzz
SELECT fn, o.outcome, o.n
FROM (VALUES ('uuid_encode format', 'SELECT uuid_encode(gen_random_uuid(), %L)',
              ARRAY['hex', 'base32hex', 'crockford', 'base58', 'BASE64URL'], 'abcdefhilnorsux0123456789'),
             ('uuid_decode format', 'SELECT uuid_decode(''1111111111111111111111'', %L)::text',
              ARRAY['base58', 'Base58', 'base32hex'], 'abcdefhilnorsux0123456789'),
             ('uuid_namespace', 'SELECT uuid_namespace(%L)::text', ARRAY['dns', 'URL', 'oid', 'x500'], 'dnsurloidx5DNSURLOIDX'),
             ('uuid_generate_v8_name algorithm', 'SELECT uuid_generate_v8_name(uuid_namespace(''url''), ''n'', %L)::text',
              ARRAY['sha224', 'SHA256', 'sha384', 'sha512'], 'sha0123456789SHA-')) AS t(fn, q, valid, alphabet),
     LATERAL pg_temp.outcomes(q, ARRAY(SELECT pg_temp.random_name(valid, alphabet, 6) FROM generate_series(1, 1000))) AS o;
-- Byte strings of 0 to 32 bytes.
INSERT INTO fuzz
SELECT fn, o.outcome, o.n
FROM (VALUES ('uuid_generate_v8', 'SELECT uuid_generate_v8(%L::bytea)::text'),
             ('uuid_generate_v8_name bytea', 'SELECT uuid_generate_v8_name(gen_random_uuid(), %L::bytea, ''sha512'')::text'),
             ('uuid_generate_v5_name bytea', 'SELECT uuid_generate_v5_name(gen_random_uuid(), %L::bytea)::text')) AS t(fn, q),
     LATERAL pg_temp.outcomes(q, ARRAY(SELECT pg_temp.random_bytes()::text FROM generate_series(1, 2000))) AS o;
-- Random 128-bit values (every version and variant) to every reader and converter.
INSERT INTO fuzz
SELECT fn, o.outcome, o.n
FROM (VALUES ('uuid_inspect', 'SELECT uuid_inspect(%L::uuid)::text'),
             ('uuid_extract_timestamp', 'SELECT public.uuid_extract_timestamp(%L::uuid)::text'),
             ('uuid_v1_to_v6', 'SELECT uuid_v1_to_v6(%L::uuid)::text'),
             ('uuid_v6_to_v1', 'SELECT uuid_v6_to_v1(%L::uuid)::text'),
             ('uuid_encode base58', 'SELECT uuid_encode(%L::uuid, ''base58'')')) AS t(fn, q),
     LATERAL pg_temp.outcomes(q, ARRAY(SELECT pg_temp.random_uuid()::text FROM generate_series(1, 2000))) AS o;
-- Random 128-bit values to the façade (a key made here), and random
-- contexts: a value, or 22023 for a UUID of the wrong version.
SELECT uuid_facade_key_create() AS facade_key;
INSERT INTO fuzz
SELECT fn, o.outcome, o.n
FROM (VALUES ('uuid_v7_to_facade', 'SELECT uuid_v7_to_facade(%L::uuid)::text'),
             ('uuid_facade_to_v7', 'SELECT uuid_facade_to_v7(%L::uuid)::text'),
             ('uuid_facade_candidates', 'SELECT uuid_facade_candidates(%L::uuid)::text')) AS t(fn, q),
     LATERAL pg_temp.outcomes(q, ARRAY(SELECT pg_temp.random_uuid()::text FROM generate_series(1, 2000))) AS o;
INSERT INTO fuzz
SELECT 'uuid_v7_to_facade context', o.outcome, o.n
FROM pg_temp.outcomes('SELECT uuid_v7_to_facade(uuid_generate_v7(), %L)::text',
                      ARRAY(SELECT pg_temp.random_text('abc', 40) FROM generate_series(1, 1000))) AS o;
-- Random times, far outside the ranges too, to the v6 bounds.
INSERT INTO fuzz
SELECT fn, o.outcome, o.n
FROM (VALUES ('uuid_v6_lower_bound', 'SELECT uuid_v6_lower_bound(%L::timestamptz)::text'),
             ('uuid_v6_upper_bound', 'SELECT uuid_v6_upper_bound(%L::timestamptz)::text')) AS t(fn, q),
     LATERAL pg_temp.outcomes(q, ARRAY(SELECT (timestamptz '1000-01-01' + random() * interval '5000 years')::text
                                       FROM generate_series(1, 2000))) AS o;

-- Text input of uuid7 and uuid6: a string parses exactly when core uuid's
-- input parses it (then the version decides), and to the same bytes.
CREATE FUNCTION pg_temp.parses_as_core(t text, typ text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  core uuid;
  ours text;
BEGIN
  BEGIN
    core := t::uuid;
  EXCEPTION WHEN invalid_text_representation THEN
    core := NULL;
  END;
  BEGIN
    EXECUTE format('SELECT %L::%s::text', t, typ) INTO ours;
  EXCEPTION WHEN invalid_text_representation THEN
    ours := CASE WHEN SQLERRM LIKE 'invalid input syntax%' THEN 'syntax' ELSE 'version' END;
  END;
  RETURN CASE WHEN core IS NULL THEN ours = 'syntax'
              WHEN ours = 'version' THEN public.uuid_extract_version(core) IS DISTINCT FROM right(typ, 1)::int
              ELSE ours = core::text END;
END $$;
INSERT INTO fuzz
SELECT typ || ' input', CASE WHEN pg_temp.parses_as_core(t, typ) THEN 'value' ELSE 'differs from core' END, 1
FROM (VALUES ('uuid7'), ('uuid6')) AS y(typ),
     LATERAL (SELECT CASE WHEN random() < 0.2
                          THEN overlay(overlay(md5(random()::text) PLACING right(typ, 1) FROM 13 FOR 1)
                                       PLACING '8' FROM 17 FOR 1)
                          ELSE pg_temp.random_text('0123456789abcdefABCDEF-{}', 36) END AS t
              FROM generate_series(1, 3000)) AS r;

-- Every call ended with a value or a documented SQLSTATE.
SELECT fn, sum(n) AS calls,
       bool_and(outcome IN ('value', '22P02', '22023', '22008')) AS only_documented_outcomes,
       bool_or(outcome = 'value') AS some_values
FROM fuzz GROUP BY fn ORDER BY fn;
-- The server did not restart.
SELECT pg_postmaster_start_time() = :'started' AS same_postmaster;

DROP EXTENSION uuid_ext;
