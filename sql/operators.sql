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
