-- Test stand-in with pg_uuidv7 1.6's SQL interface (names, arguments, labels).
\echo Use "CREATE EXTENSION pg_uuidv7" to load this file. \quit

-- A random UUID with the first 48 bits replaced by Unix milliseconds and the
-- version nibble turned from 4 into 7 (set_bit numbers bits from each byte's
-- least significant end: bits 52 and 53 are 0x10 and 0x20 of byte 6).
CREATE FUNCTION uuid_generate_v7() RETURNS uuid
LANGUAGE sql VOLATILE STRICT PARALLEL SAFE AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
           PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
           FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;

CREATE FUNCTION uuid_v7_to_timestamptz(uuid) RETURNS timestamptz
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT to_timestamp(('x' || substr(replace($1::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0)
$$;

CREATE FUNCTION uuid_timestamptz_to_v7(timestamptz, zero bool = false) RETURNS uuid
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT encode(set_bit(set_bit(overlay(
           CASE WHEN zero THEN '\x00000000000070008000000000000000'::bytea ELSE uuid_send(gen_random_uuid()) END
           PLACING substring(int8send(floor(extract(epoch FROM $1) * 1000)::bigint) FROM 3)
           FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;

CREATE FUNCTION uuid_v7_to_timestamp(uuid) RETURNS timestamp
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT uuid_v7_to_timestamptz($1) AT TIME ZONE 'UTC'
$$;

CREATE FUNCTION uuid_timestamp_to_v7(timestamp, zero bool = false) RETURNS uuid
LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT uuid_timestamptz_to_v7($1 AT TIME ZONE 'UTC', zero)
$$;
