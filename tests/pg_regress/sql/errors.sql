-- Every error path of docs/reference.md#errors, with its SQLSTATE.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

-- Runs a statement; shows the SQLSTATE and message it failed with.
CREATE FUNCTION pg_temp.fails(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- 22008: timestamps a UUIDv7 cannot hold.
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT uuid_v7_lower_bound('infinity')$$),
  ($$SELECT uuid_v7_upper_bound('-infinity')$$),
  ($$SELECT uuid_v7_lower_bound('1969-12-31 23:59:59.999999 UTC')$$),
  ($$SELECT uuid_v7_upper_bound('10889-08-02 05:31:50.656 UTC')$$),
  ($$SELECT uuid_timestamptz_to_v7('infinity')$$),
  ($$SELECT uuid_timestamptz_to_v7('1900-01-01 UTC', true)$$),
  ($$SELECT uuid_timestamp_to_v7('-infinity')$$),
  ($$SELECT uuid_timestamp_to_v7('20000-01-01', true)$$),
  ($$SELECT uuid_generate_v7(interval '-100 years')$$),
  ($$SELECT uuid_generate_v7(interval '9000 years')$$),
  ($$SELECT uuid_generate_v7(interval '200000 years')$$),
  ($$SELECT uuid_generate_v7(interval '-2147483648 days')$$)
) AS t(q);

-- 22008: timestamps a UUIDv6 cannot hold (1582-10-15 to 5236-03-31).
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT uuid_v6_lower_bound('infinity')$$),
  ($$SELECT uuid_v6_upper_bound('-infinity')$$),
  ($$SELECT uuid_v6_lower_bound('1582-10-14 23:59:59.999999 UTC')$$),
  ($$SELECT uuid_v6_upper_bound('5236-03-31 21:21:00.684698 UTC')$$)
) AS t(q);

-- 22023: a bytea not 16 bytes, an unknown algorithm, namespace or format,
-- a conversion of the wrong version; the message says what is valid.
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT uuid_generate_v8('\x')$$),
  ($$SELECT uuid_generate_v8('\x000102030405060708090a0b0c0d0e')$$),
  ($$SELECT uuid_generate_v8('\x000102030405060708090a0b0c0d0e0f10')$$),
  ($$SELECT uuid_generate_v8_name(uuid_namespace('dns'), 'x', 'md5')$$),
  ($$SELECT uuid_generate_v8_name(uuid_namespace('dns'), 'x'::bytea, 'sha-256')$$),
  ($$SELECT uuid_namespace('nis')$$),
  ($$SELECT uuid_namespace('')$$),
  ($$SELECT uuid_encode('00000000-0000-0000-0000-000000000000', 'base36')$$),
  ($$SELECT uuid_decode('0000', 'ulid')$$),
  ($$SELECT uuid_v1_to_v6('1EC9414C-232A-6B00-B3C8-9F6BDECED846')$$),
  ($$SELECT uuid_v6_to_v1('C232AB00-9414-11EC-B3C8-9F6BDECED846')$$),
  ($$SELECT uuid_v6_to_v1('1EC9414C-232A-6B00-D3C8-9F6BDECED846')$$)
) AS t(q);

-- 22P02: text that is no UUID in the form named, or no UUID at all; the
-- detail says what is wrong with it.
CREATE FUNCTION pg_temp.fails_why(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  detail text;
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || coalesce(nullif(detail, ''), SQLERRM);
END $$;
SELECT q, pg_temp.fails_why(q) FROM (VALUES
  ($$SELECT uuid_decode('017f22e279b07cc398c4dc0c0c07398', 'hex')$$),
  ($$SELECT uuid_decode('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'hex')$$),
  ($$SELECT uuid_decode('017f22e279b07cc398c4dc0c0c07398g', 'hex')$$),
  ($$SELECT uuid_decode('05VI5OJPM1UC7664RG60O1PPHW', 'base32hex')$$),
  ($$SELECT uuid_decode('05VI5OJPM1UC7664RG60O1PPHT', 'base32hex')$$),
  ($$SELECT uuid_decode('01FWHE4YDGFK1SHH6W1G60EECU', 'crockford')$$),
  ($$SELECT uuid_decode('81FWHE4YDGFK1SHH6W1G60EECF', 'crockford')$$),
  ($$SELECT uuid_decode('1BihbxwwQ4NZZpKRH9JDC0', 'base58')$$),
  ($$SELECT uuid_decode('zzzzzzzzzzzzzzzzzzzzzz', 'base58')$$),
  ($$SELECT uuid_decode('AX8i4nmwfMOYxNwMDAc5jw==', 'base64url')$$),
  ($$SELECT uuid_decode('AX8i4nmwfMOYxNwMDAc5jx', 'base64url')$$),
  ($$SELECT uuid_decode('AX8i4nmwfMOYxNwMDAc5j/', 'base64url')$$),
  ($$SELECT uuid_decode('', 'base58')$$),
  ($$SELECT uuid_extract_timestamp_text('017F22E2-79B0-7CC3-98C4')$$),
  ($$SELECT uuid_extract_timestamp_text('')$$)
) AS t(q);

-- 22P02: the types uuid7 and uuid6 given text that is no UUID, or a UUID of
-- another version or variant (text or cast); 22P03 for binary input of other
-- than 16 bytes is in tests/cluster/types_client.py (psql cannot send binary).
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT 'xyz'::uuid7$$),
  ($$SELECT '{017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid7$$),
  ($$SELECT '919108f7-52d1-4320-9bac-f847db4148a8'::uuid7$$),
  ($$SELECT '017f22e2-79b0-7cc3-c8c4-dc0c0c07398f'::uuid7$$),
  ($$SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid6$$),
  ($$SELECT 'c232ab00-9414-11ec-b3c8-9f6bdeced846'::uuid::uuid6$$),
  ($$SELECT 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid::uuid7$$)
) AS t(q);

-- The message, its detail and hint, as a user sees them.
\set VERBOSITY default
SELECT uuid_v7_lower_bound('infinity');
SELECT uuid_generate_v7(interval '9000 years');
SELECT uuid_decode('1BihbxwwQ4NZZpKRH9JDC0', 'base58');
SELECT uuid_encode(gen_random_uuid(), 'base36');
SELECT uuid_v1_to_v6(gen_random_uuid());
SELECT uuid_generate_v8('\x00');
\set VERBOSITY sqlstate
SELECT uuid_timestamptz_to_v7('1900-01-01 UTC');
\set VERBOSITY default

-- An input too long to quote: the message quotes its first 64 characters
-- (cut between characters, never inside one) and `...`; the detail gives
-- its length in bytes. 64 characters are quoted whole, as before.
SELECT repeat('x', 100)::uuid7;
SELECT ('{' || repeat('é', 99))::uuid6;
SELECT repeat('y', 64)::uuid7;
SELECT uuid_decode(repeat('!', 100), 'base58');
SELECT uuid_decode(repeat('1', 64), 'base58');
SELECT uuid_decode('0000', repeat('f', 100));
SELECT uuid_encode(gen_random_uuid(), repeat('f', 100));
SELECT uuid_namespace(repeat('n', 100));
SELECT uuid_generate_v8_name(uuid_namespace('dns'), 'x', repeat('s', 100));
-- Longer than any uuid: refused unread, in core's words.
SELECT uuid_extract_timestamp_text(repeat('0', 100));
SELECT uuid_extract_timestamp_text('{017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f}-');
-- The longest form core accepts, braces and a hyphen after every group of four.
SELECT uuid_extract_timestamp_text('{017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f}');
SELECT '{017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f}'::uuid7;

-- The edges themselves are fine.
SELECT uuid_v7_lower_bound('1970-01-01 00:00:00 UTC') IS NOT NULL AS first_ms,
       uuid_v7_upper_bound('10889-08-02 05:31:50.655999 UTC') IS NOT NULL AS last_ms;

-- Nothing above broke the session: the generator still works.
SELECT public.uuid_extract_version(uuid_generate_v7()) AS still_v7;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
