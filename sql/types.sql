-- The uuid7 and uuid6 types (docs/reference.md#the-uuid7-and-uuid6-types): the 16 bytes of a uuid, laid out
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
