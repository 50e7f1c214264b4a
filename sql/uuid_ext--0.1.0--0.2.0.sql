-- uuid_ext 0.1.0 -> 0.2.0 (ALTER EXTENSION uuid_ext UPDATE TO '0.2.0'):
-- UUIDv6, name-based UUIDv5 and UUIDv8, custom UUIDv8, uuid_inspect, the text
-- reader, UUIDv6 bounds and v1 <-> v6, the compact text forms, and the uuid7
-- and uuid6 types with their operators, operator classes, casts and
-- aggregates. The objects are those of a fresh 0.2.0 install that 0.1.0
-- lacks, in the same order (tests/upgrade checks that the two catalogs agree).
\echo Use "ALTER EXTENSION uuid_ext UPDATE TO '0.2.0'" to load this file. \quit

-- bootstrap
-- The row uuid_inspect() returns: every field of a UUID, by name (SPEC §2.2).
-- NULL in a field the UUID's version does not have.
CREATE TYPE uuid_fields AS (
    version smallint,          -- the version nibble, under the RFC 9562 variant only
    variant text,              -- NCS, RFC 9562, Microsoft or future
    ts timestamptz,            -- v1, v6, v7: as uuid_extract_timestamp reads it
    ts_exact text,             -- the same to every digit the UUID holds, in UTC (v1/v6 100 ns; v7 with rand_a)
    rand_a integer,            -- v7: the 12 bits after the version
    sub_ms_fraction float8,    -- v7: rand_a / 4096, the fraction of the millisecond it means
    clock_seq integer,         -- v1, v6: the 14-bit clock sequence
    node text,                 -- v1, v6: the 48-bit node, as a MAC address (castable to macaddr)
    is_nil boolean,            -- all 128 bits 0 (RFC 9562 §5.9)
    is_max boolean             -- all 128 bits 1 (RFC 9562 §5.10)
);

-- The uuid7 and uuid6 types (SPEC §2.5): the 16 bytes of a uuid, laid out
-- and aligned as uuid is (so the cast to uuid needs no function), holding
-- only UUIDs of their version under the RFC 9562 variant. Input and binary
-- receive check the version (src/types.rs); output and send are core uuid's.

CREATE TYPE uuid7;

CREATE FUNCTION uuid7_in(cstring) RETURNS uuid7
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid7_in_wrapper';
CREATE FUNCTION uuid7_out(uuid7) RETURNS cstring
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_out';
CREATE FUNCTION uuid7_recv(internal) RETURNS uuid7
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid7_recv_wrapper';
CREATE FUNCTION uuid7_send(uuid7) RETURNS bytea
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_send';

CREATE TYPE uuid7 (
  INPUT = uuid7_in, OUTPUT = uuid7_out, RECEIVE = uuid7_recv, SEND = uuid7_send,
  INTERNALLENGTH = 16, ALIGNMENT = char, STORAGE = plain, CATEGORY = 'U'
);
COMMENT ON TYPE uuid7 IS 'A UUIDv7 (RFC 9562), stored as 16 bytes, ordered as an unsigned octet string';

CREATE TYPE uuid6;

CREATE FUNCTION uuid6_in(cstring) RETURNS uuid6
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid6_in_wrapper';
CREATE FUNCTION uuid6_out(uuid6) RETURNS cstring
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_out';
CREATE FUNCTION uuid6_recv(internal) RETURNS uuid6
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid6_recv_wrapper';
CREATE FUNCTION uuid6_send(uuid6) RETURNS bytea
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_send';

CREATE TYPE uuid6 (
  INPUT = uuid6_in, OUTPUT = uuid6_out, RECEIVE = uuid6_recv, SEND = uuid6_send,
  INTERNALLENGTH = 16, ALIGNMENT = char, STORAGE = plain, CATEGORY = 'U'
);
COMMENT ON TYPE uuid6 IS 'A UUIDv6 (RFC 9562), stored as 16 bytes, ordered as an unsigned octet string';

-- Casts (SPEC §2.5). uuid7 and uuid6 to uuid: implicit, the same bytes, no
-- function, so every function that takes a uuid takes them. uuid to uuid7
-- or uuid6: on assignment, checking the version (so DEFAULT
-- uuid_generate_v7() fills a uuid7 column, and a wrong version is 22P02).
-- To timestamptz: explicit, uuid_ext's own reader (the cast names it
-- through its own function: core's uuid_extract_timestamp, first on the
-- search path from PostgreSQL 17, does not read v6, nor v7 on 17).

CREATE FUNCTION uuid7(uuid) RETURNS uuid7
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid7_of_uuid';
CREATE FUNCTION uuid7_to_timestamptz(uuid7) RETURNS timestamptz
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_extract_timestamp_wrapper';
CREATE CAST (uuid7 AS uuid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (uuid AS uuid7) WITH FUNCTION uuid7(uuid) AS ASSIGNMENT;
CREATE CAST (uuid7 AS timestamptz) WITH FUNCTION uuid7_to_timestamptz(uuid7);

CREATE FUNCTION uuid6(uuid) RETURNS uuid6
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid6_of_uuid';
CREATE FUNCTION uuid6_to_timestamptz(uuid6) RETURNS timestamptz
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_extract_timestamp_wrapper';
CREATE CAST (uuid6 AS uuid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (uuid AS uuid6) WITH FUNCTION uuid6(uuid) AS ASSIGNMENT;
CREATE CAST (uuid6 AS timestamptz) WITH FUNCTION uuid6_to_timestamptz(uuid6);

-- Comparison of uuid7 and uuid6 with themselves and with uuid, in both
-- directions: the 16 bytes as an unsigned octet string (RFC 4530
-- uuidOrderingMatch), which is what core uuid's own comparison and hash
-- functions do, so these are those functions, declared for the new types.
-- Equality hashes and merges; the hash is core uuid's, so a uuid7 and the
-- uuid of the same bytes hash alike and cross-type hash joins work.

-- uuid7

CREATE FUNCTION uuid7_lt(uuid7, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION uuid7_le(uuid7, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION uuid7_eq(uuid7, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION uuid7_ne(uuid7, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION uuid7_ge(uuid7, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION uuid7_gt(uuid7, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION uuid7_cmp(uuid7, uuid7) RETURNS integer
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';
CREATE FUNCTION uuid7_uuid_lt(uuid7, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION uuid7_uuid_le(uuid7, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION uuid7_uuid_eq(uuid7, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION uuid7_uuid_ne(uuid7, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION uuid7_uuid_ge(uuid7, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION uuid7_uuid_gt(uuid7, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION uuid7_uuid_cmp(uuid7, uuid) RETURNS integer
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';
CREATE FUNCTION uuid_uuid7_lt(uuid, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION uuid_uuid7_le(uuid, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION uuid_uuid7_eq(uuid, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION uuid_uuid7_ne(uuid, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION uuid_uuid7_ge(uuid, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION uuid_uuid7_gt(uuid, uuid7) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION uuid_uuid7_cmp(uuid, uuid7) RETURNS integer
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';
CREATE FUNCTION uuid7_hash(uuid7) RETURNS integer
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_hash';
CREATE FUNCTION uuid7_hash_extended(uuid7, bigint) RETURNS bigint
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_hash_extended';

CREATE OPERATOR < (LEFTARG = uuid7, RIGHTARG = uuid7, FUNCTION = uuid7_lt,
  COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = uuid7, RIGHTARG = uuid7, FUNCTION = uuid7_le,
  COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = uuid7, RIGHTARG = uuid7, FUNCTION = uuid7_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = uuid7, RIGHTARG = uuid7, FUNCTION = uuid7_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = uuid7, RIGHTARG = uuid7, FUNCTION = uuid7_ge,
  COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = uuid7, RIGHTARG = uuid7, FUNCTION = uuid7_gt,
  COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR < (LEFTARG = uuid7, RIGHTARG = uuid, FUNCTION = uuid7_uuid_lt,
  COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = uuid7, RIGHTARG = uuid, FUNCTION = uuid7_uuid_le,
  COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = uuid7, RIGHTARG = uuid, FUNCTION = uuid7_uuid_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = uuid7, RIGHTARG = uuid, FUNCTION = uuid7_uuid_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = uuid7, RIGHTARG = uuid, FUNCTION = uuid7_uuid_ge,
  COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = uuid7, RIGHTARG = uuid, FUNCTION = uuid7_uuid_gt,
  COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR < (LEFTARG = uuid, RIGHTARG = uuid7, FUNCTION = uuid_uuid7_lt,
  COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = uuid, RIGHTARG = uuid7, FUNCTION = uuid_uuid7_le,
  COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = uuid, RIGHTARG = uuid7, FUNCTION = uuid_uuid7_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = uuid, RIGHTARG = uuid7, FUNCTION = uuid_uuid7_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = uuid, RIGHTARG = uuid7, FUNCTION = uuid_uuid7_ge,
  COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = uuid, RIGHTARG = uuid7, FUNCTION = uuid_uuid7_gt,
  COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

-- uuid6

CREATE FUNCTION uuid6_lt(uuid6, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION uuid6_le(uuid6, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION uuid6_eq(uuid6, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION uuid6_ne(uuid6, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION uuid6_ge(uuid6, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION uuid6_gt(uuid6, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION uuid6_cmp(uuid6, uuid6) RETURNS integer
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';
CREATE FUNCTION uuid6_uuid_lt(uuid6, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION uuid6_uuid_le(uuid6, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION uuid6_uuid_eq(uuid6, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION uuid6_uuid_ne(uuid6, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION uuid6_uuid_ge(uuid6, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION uuid6_uuid_gt(uuid6, uuid) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION uuid6_uuid_cmp(uuid6, uuid) RETURNS integer
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';
CREATE FUNCTION uuid_uuid6_lt(uuid, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION uuid_uuid6_le(uuid, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION uuid_uuid6_eq(uuid, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION uuid_uuid6_ne(uuid, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION uuid_uuid6_ge(uuid, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION uuid_uuid6_gt(uuid, uuid6) RETURNS boolean
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION uuid_uuid6_cmp(uuid, uuid6) RETURNS integer
  IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';
CREATE FUNCTION uuid6_hash(uuid6) RETURNS integer
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_hash';
CREATE FUNCTION uuid6_hash_extended(uuid6, bigint) RETURNS bigint
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_hash_extended';

CREATE OPERATOR < (LEFTARG = uuid6, RIGHTARG = uuid6, FUNCTION = uuid6_lt,
  COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = uuid6, RIGHTARG = uuid6, FUNCTION = uuid6_le,
  COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = uuid6, RIGHTARG = uuid6, FUNCTION = uuid6_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = uuid6, RIGHTARG = uuid6, FUNCTION = uuid6_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = uuid6, RIGHTARG = uuid6, FUNCTION = uuid6_ge,
  COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = uuid6, RIGHTARG = uuid6, FUNCTION = uuid6_gt,
  COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR < (LEFTARG = uuid6, RIGHTARG = uuid, FUNCTION = uuid6_uuid_lt,
  COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = uuid6, RIGHTARG = uuid, FUNCTION = uuid6_uuid_le,
  COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = uuid6, RIGHTARG = uuid, FUNCTION = uuid6_uuid_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = uuid6, RIGHTARG = uuid, FUNCTION = uuid6_uuid_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = uuid6, RIGHTARG = uuid, FUNCTION = uuid6_uuid_ge,
  COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = uuid6, RIGHTARG = uuid, FUNCTION = uuid6_uuid_gt,
  COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR < (LEFTARG = uuid, RIGHTARG = uuid6, FUNCTION = uuid_uuid6_lt,
  COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = uuid, RIGHTARG = uuid6, FUNCTION = uuid_uuid6_le,
  COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = uuid, RIGHTARG = uuid6, FUNCTION = uuid_uuid6_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = uuid, RIGHTARG = uuid6, FUNCTION = uuid_uuid6_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = uuid, RIGHTARG = uuid6, FUNCTION = uuid_uuid6_ge,
  COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = uuid, RIGHTARG = uuid6, FUNCTION = uuid_uuid6_gt,
  COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

-- Index support: btree (with core uuid's sort support, abbreviated keys
-- included, and on PostgreSQL 18 its skip support), hash (support functions
-- 1 and 2: hash joins, hash indexes, hash partitioning, Citus distribution
-- columns) and BRIN minmax, each the default for its type. Each family also
-- holds the cross-type operators with uuid, so that `id7 = $1::uuid` and
-- `id7 >= uuid_v7_lower_bound(t)` use an index on a uuid7 column, and
-- uuid's own, so that the family is complete (amvalidate).

-- uuid7
CREATE OPERATOR FAMILY uuid7_ops USING btree;
CREATE OPERATOR CLASS uuid7_ops DEFAULT FOR TYPE uuid7 USING btree FAMILY uuid7_ops AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 uuid7_cmp(uuid7, uuid7),
  FUNCTION 2 uuid_sortsupport(internal);
ALTER OPERATOR FAMILY uuid7_ops USING btree ADD
  OPERATOR 1 < (uuid7, uuid), OPERATOR 2 <= (uuid7, uuid), OPERATOR 3 = (uuid7, uuid),
  OPERATOR 4 >= (uuid7, uuid), OPERATOR 5 > (uuid7, uuid),
  FUNCTION 1 uuid7_uuid_cmp(uuid7, uuid),
  OPERATOR 1 < (uuid, uuid7), OPERATOR 2 <= (uuid, uuid7), OPERATOR 3 = (uuid, uuid7),
  OPERATOR 4 >= (uuid, uuid7), OPERATOR 5 > (uuid, uuid7),
  FUNCTION 1 uuid_uuid7_cmp(uuid, uuid7),
  OPERATOR 1 < (uuid, uuid), OPERATOR 2 <= (uuid, uuid), OPERATOR 3 = (uuid, uuid),
  OPERATOR 4 >= (uuid, uuid), OPERATOR 5 > (uuid, uuid),
  FUNCTION 1 uuid_cmp(uuid, uuid),
  FUNCTION 2 (uuid, uuid) uuid_sortsupport(internal);

CREATE OPERATOR FAMILY uuid7_hash_ops USING hash;
CREATE OPERATOR CLASS uuid7_hash_ops DEFAULT FOR TYPE uuid7 USING hash FAMILY uuid7_hash_ops AS
  OPERATOR 1 =,
  FUNCTION 1 uuid7_hash(uuid7),
  FUNCTION 2 uuid7_hash_extended(uuid7, bigint);
ALTER OPERATOR FAMILY uuid7_hash_ops USING hash ADD
  OPERATOR 1 = (uuid7, uuid), OPERATOR 1 = (uuid, uuid7), OPERATOR 1 = (uuid, uuid),
  FUNCTION 1 uuid_hash(uuid),
  FUNCTION 2 uuid_hash_extended(uuid, bigint);

CREATE OPERATOR FAMILY uuid7_minmax_ops USING brin;
CREATE OPERATOR CLASS uuid7_minmax_ops DEFAULT FOR TYPE uuid7 USING brin FAMILY uuid7_minmax_ops AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
ALTER OPERATOR FAMILY uuid7_minmax_ops USING brin ADD
  OPERATOR 1 < (uuid7, uuid), OPERATOR 2 <= (uuid7, uuid), OPERATOR 3 = (uuid7, uuid),
  OPERATOR 4 >= (uuid7, uuid), OPERATOR 5 > (uuid7, uuid);

-- uuid6
CREATE OPERATOR FAMILY uuid6_ops USING btree;
CREATE OPERATOR CLASS uuid6_ops DEFAULT FOR TYPE uuid6 USING btree FAMILY uuid6_ops AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 uuid6_cmp(uuid6, uuid6),
  FUNCTION 2 uuid_sortsupport(internal);
ALTER OPERATOR FAMILY uuid6_ops USING btree ADD
  OPERATOR 1 < (uuid6, uuid), OPERATOR 2 <= (uuid6, uuid), OPERATOR 3 = (uuid6, uuid),
  OPERATOR 4 >= (uuid6, uuid), OPERATOR 5 > (uuid6, uuid),
  FUNCTION 1 uuid6_uuid_cmp(uuid6, uuid),
  OPERATOR 1 < (uuid, uuid6), OPERATOR 2 <= (uuid, uuid6), OPERATOR 3 = (uuid, uuid6),
  OPERATOR 4 >= (uuid, uuid6), OPERATOR 5 > (uuid, uuid6),
  FUNCTION 1 uuid_uuid6_cmp(uuid, uuid6),
  OPERATOR 1 < (uuid, uuid), OPERATOR 2 <= (uuid, uuid), OPERATOR 3 = (uuid, uuid),
  OPERATOR 4 >= (uuid, uuid), OPERATOR 5 > (uuid, uuid),
  FUNCTION 1 uuid_cmp(uuid, uuid),
  FUNCTION 2 (uuid, uuid) uuid_sortsupport(internal);

CREATE OPERATOR FAMILY uuid6_hash_ops USING hash;
CREATE OPERATOR CLASS uuid6_hash_ops DEFAULT FOR TYPE uuid6 USING hash FAMILY uuid6_hash_ops AS
  OPERATOR 1 =,
  FUNCTION 1 uuid6_hash(uuid6),
  FUNCTION 2 uuid6_hash_extended(uuid6, bigint);
ALTER OPERATOR FAMILY uuid6_hash_ops USING hash ADD
  OPERATOR 1 = (uuid6, uuid), OPERATOR 1 = (uuid, uuid6), OPERATOR 1 = (uuid, uuid),
  FUNCTION 1 uuid_hash(uuid),
  FUNCTION 2 uuid_hash_extended(uuid, bigint);

CREATE OPERATOR FAMILY uuid6_minmax_ops USING brin;
CREATE OPERATOR CLASS uuid6_minmax_ops DEFAULT FOR TYPE uuid6 USING brin FAMILY uuid6_minmax_ops AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
ALTER OPERATOR FAMILY uuid6_minmax_ops USING brin ADD
  OPERATOR 1 < (uuid6, uuid), OPERATOR 2 <= (uuid6, uuid), OPERATOR 3 = (uuid6, uuid),
  OPERATOR 4 >= (uuid6, uuid), OPERATOR 5 > (uuid6, uuid);

-- PostgreSQL 18's btree skip scan: core uuid's skip support, where there is one.
-- A trusted extension's script runs as the bootstrap superuser with the
-- target schema first in search_path, where anyone with CREATE there may
-- have planted look-alikes: the block pins search_path (restored at its
-- end, so what follows is created in the target schema) and names every
-- operator, function and type by its schema, the extension's own through
-- the schema pg_extension records for it.
DO $$
DECLARE
  saved pg_catalog.text := pg_catalog.current_setting('search_path');
  ext pg_catalog.text := (SELECT e.extnamespace::pg_catalog.regnamespace::pg_catalog.text
                          FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'uuid_ext');
BEGIN
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  IF pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000 THEN
    EXECUTE pg_catalog.format('ALTER OPERATOR FAMILY %1$s.uuid7_ops USING btree ADD FUNCTION 6 (%1$s.uuid7, %1$s.uuid7) '
                              'pg_catalog.uuid_skipsupport(pg_catalog.internal)', ext);
    EXECUTE pg_catalog.format('ALTER OPERATOR FAMILY %1$s.uuid6_ops USING btree ADD FUNCTION 6 (%1$s.uuid6, %1$s.uuid6) '
                              'pg_catalog.uuid_skipsupport(pg_catalog.internal)', ext);
  END IF;
  PERFORM pg_catalog.set_config('search_path', saved, true);
END
$$;

-- min() and max() of uuid7 and uuid6 (core uuid has them only from
-- PostgreSQL 19). With SORTOP, the planner answers them from a btree index.

CREATE FUNCTION uuid7_smaller(uuid7, uuid7) RETURNS uuid7
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_bytes_smaller_wrapper';
CREATE FUNCTION uuid7_larger(uuid7, uuid7) RETURNS uuid7
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_bytes_larger_wrapper';
CREATE AGGREGATE min(uuid7) (SFUNC = uuid7_smaller, STYPE = uuid7, COMBINEFUNC = uuid7_smaller, SORTOP = <, PARALLEL = SAFE);
CREATE AGGREGATE max(uuid7) (SFUNC = uuid7_larger, STYPE = uuid7, COMBINEFUNC = uuid7_larger, SORTOP = >, PARALLEL = SAFE);

CREATE FUNCTION uuid6_smaller(uuid6, uuid6) RETURNS uuid6
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_bytes_smaller_wrapper';
CREATE FUNCTION uuid6_larger(uuid6, uuid6) RETURNS uuid6
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_bytes_larger_wrapper';
CREATE AGGREGATE min(uuid6) (SFUNC = uuid6_smaller, STYPE = uuid6, COMBINEFUNC = uuid6_smaller, SORTOP = <, PARALLEL = SAFE);
CREATE AGGREGATE max(uuid6) (SFUNC = uuid6_larger, STYPE = uuid6, COMBINEFUNC = uuid6_larger, SORTOP = >, PARALLEL = SAFE);

CREATE  FUNCTION "uuid_decode"(
	"data" TEXT, /* & str */
	"format" TEXT /* & str */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_decode_wrapper';

CREATE  FUNCTION "uuid_encode"(
	"id" uuid, /* Uuid */
	"format" TEXT /* & str */
) RETURNS TEXT /* String */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_encode_wrapper';

CREATE  FUNCTION "uuid_extract_timestamp_text"(
	"id" TEXT /* & str */
) RETURNS timestamp with time zone /* Option < TimestampWithTimeZone > */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_extract_timestamp_text_wrapper';

CREATE  FUNCTION "uuid_generate_v5_name"(
	"namespace" uuid, /* Uuid */
	"name" TEXT /* & str */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_generate_v5_name_wrapper';

CREATE  FUNCTION "uuid_generate_v5_name"(
	"namespace" uuid, /* Uuid */
	"name" bytea /* & [u8] */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_generate_v5_name_bytea_wrapper';

CREATE  FUNCTION "uuid_generate_v6"() RETURNS uuid /* Uuid */
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_generate_v6_wrapper';

CREATE  FUNCTION "uuid_generate_v8"(
	"data" bytea /* & [u8] */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_generate_v8_wrapper';

CREATE  FUNCTION "uuid_generate_v8_name"(
	"namespace" uuid, /* Uuid */
	"name" TEXT, /* & str */
	"algorithm" TEXT DEFAULT 'sha256' /* & str */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_generate_v8_name_wrapper';

CREATE  FUNCTION "uuid_generate_v8_name"(
	"namespace" uuid, /* Uuid */
	"name" bytea, /* & [u8] */
	"algorithm" TEXT DEFAULT 'sha256' /* & str */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_generate_v8_name_bytea_wrapper';

CREATE  FUNCTION "uuid_inspect"(
	"id" uuid /* Uuid */
) RETURNS uuid_fields /* :: pgrx :: heap_tuple :: PgHeapTuple < '_, :: pgrx :: pgbox :: AllocatedByRust
> */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_inspect_wrapper';

CREATE  FUNCTION "uuid_namespace"(
	"name" TEXT /* & str */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_namespace_wrapper';

CREATE  FUNCTION "uuid_v1_to_v6"(
	"id" uuid /* Uuid */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_v1_to_v6_wrapper';

CREATE  FUNCTION "uuid_v6_lower_bound"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_v6_lower_bound_wrapper';

CREATE  FUNCTION "uuid_v6_to_v1"(
	"id" uuid /* Uuid */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_v6_to_v1_wrapper';

CREATE  FUNCTION "uuid_v6_upper_bound"(
	"ts" timestamp with time zone /* TimestampWithTimeZone */
) RETURNS uuid /* Uuid */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_v6_upper_bound_wrapper';
