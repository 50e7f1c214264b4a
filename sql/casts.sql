-- Casts (docs/reference.md#the-uuid7-and-uuid6-types). uuid7 and uuid6 to uuid: implicit, the same bytes, no
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
