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
