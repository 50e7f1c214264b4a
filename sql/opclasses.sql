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
