-- What an unqualified uuid_extract_timestamp / uuid_extract_version call
-- reaches and answers, next to ours called by schema: the table
-- of docs/reference.md#reading,
-- "Which uuid_extract_timestamp you get". PostgreSQL 17 and later have
-- functions of these names in pg_catalog, which the search path reaches
-- before any other schema. Expected output by what core has: expected/ (15
-- and 16: ours), expected/with-core-readers/ (17: core's, v1 only),
-- expected/with-core-uuidv7/ (18 and 19: core's, v1 and v7).
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

SELECT (SELECT pronamespace::regnamespace FROM pg_proc
        WHERE oid = 'uuid_extract_timestamp(uuid)'::regprocedure) AS unqualified_reaches,
       (SELECT pronamespace::regnamespace FROM pg_proc
        WHERE oid = 'uuid_extract_version(uuid)'::regprocedure) AS version_reaches;

-- RFC 9562's v1, v6 and v7 of 2022-02-22 19:22:22 UTC, and a UUIDv7 made now.
SELECT kind,
       uuid_extract_timestamp(v) AS unqualified,
       public.uuid_extract_timestamp(v) AS ours,
       uuid_extract_version(v) AS unqualified_version,
       public.uuid_extract_version(v) AS our_version
FROM (VALUES ('v1', 'C232AB00-9414-11EC-B3C8-9F6BDECED846'::uuid),
             ('v6', '1EC9414C-232A-6B00-B3C8-9F6BDECED846'),
             ('v7', '017F22E2-79B0-7CC3-98C4-DC0C0C07398F')) AS t(kind, v);
SELECT uuid_extract_timestamp(uuid_generate_v7()) IS NOT NULL AS unqualified_reads_a_new_v7,
       public.uuid_extract_timestamp(uuid_generate_v7()) IS NOT NULL AS ours_reads_a_new_v7;

-- The reference's other way to reach ours without a schema: pg_catalog named
-- after the extension's schema in the search path.
SET search_path = public, pg_catalog;
SELECT kind, uuid_extract_timestamp(v) AS with_pg_catalog_last
FROM (VALUES ('v6', '1EC9414C-232A-6B00-B3C8-9F6BDECED846'::uuid),
             ('v7', '017F22E2-79B0-7CC3-98C4-DC0C0C07398F')) AS t(kind, v);
RESET search_path;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
