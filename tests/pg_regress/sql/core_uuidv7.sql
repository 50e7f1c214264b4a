-- requires: core:uuidv7
-- PostgreSQL 18 has uuidv7(), uuid_extract_timestamp() and
-- uuid_extract_version() in core. Ours agree with core on our UUIDs and on
-- core's; core's come first on the default search_path.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

-- An unqualified call reaches core's.
SELECT p.pronamespace::regnamespace AS resolves_to_schema
FROM pg_proc p WHERE p.oid = 'uuid_extract_timestamp'::regproc;

-- On our UUIDv7s, core reads what we read.
SELECT count(*) AS n,
       bool_and(pg_catalog.uuid_extract_timestamp(id) = public.uuid_extract_timestamp(id)) AS ts_agree,
       bool_and(pg_catalog.uuid_extract_version(id) = public.uuid_extract_version(id)) AS version_agrees
FROM (SELECT uuid_generate_v7() AS id FROM generate_series(1, 10000)
      UNION ALL SELECT uuid_generate_v7(interval '-12 years 3 months 5 days 01:02:03.004') FROM generate_series(1, 1000)
      UNION ALL SELECT uuid_timestamptz_to_v7(t) FROM generate_series(timestamptz '1970-01-01', '2500-01-01', interval '1 year') t) s;

-- On core's uuidv7() (shifted too), we read what core reads.
SELECT count(*) AS n,
       bool_and(pg_catalog.uuid_extract_timestamp(id) = public.uuid_extract_timestamp(id)) AS ts_agree,
       bool_and(pg_catalog.uuid_extract_version(id) = public.uuid_extract_version(id)) AS version_agrees
FROM (SELECT uuidv7() AS id FROM generate_series(1, 10000)
      UNION ALL SELECT uuidv7(interval '-30 years') FROM generate_series(1, 1000)
      UNION ALL SELECT uuidv7(interval '3000 years') FROM generate_series(1, 1000)) s;

-- Random UUIDv1s and UUIDv7s (a v4's random bits with the version nibble
-- set): core's reader is an independent oracle for ours.
SELECT count(*) AS n,
       bool_and(pg_catalog.uuid_extract_timestamp(id) = public.uuid_extract_timestamp(id)) AS ts_agree
FROM (SELECT overlay(gen_random_uuid()::text PLACING v FROM 15 FOR 1)::uuid AS id
      FROM generate_series(1, 10000), (VALUES ('1'), ('7')) AS t(v)) s;

-- RFC 9562 vectors and the other versions: the same answers, but for v6,
-- which core 18 does not read.
SELECT v, pg_catalog.uuid_extract_timestamp(v) AS core, public.uuid_extract_timestamp(v) AS ours,
       pg_catalog.uuid_extract_version(v) AS core_version, public.uuid_extract_version(v) AS our_version
FROM (VALUES ('C232AB00-9414-11EC-B3C8-9F6BDECED846'::uuid),
             ('1EC9414C-232A-6B00-B3C8-9F6BDECED846'),
             ('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'),
             ('919108F7-52D1-4320-9BAC-F847DB4148A8'),
             ('017F22E2-79B0-7CC3-C8C4-DC0C0C07398F'),
             ('00000000-0000-0000-0000-000000000000')) AS t(v);

-- A shifted uuid_generate_v7 lands where core's shifted uuidv7 does (within a
-- second: the two calls read the clock at different instants).
SELECT abs(extract(epoch FROM public.uuid_extract_timestamp(uuid_generate_v7(interval '1 month 2 days 3 hours'))
                            - pg_catalog.uuid_extract_timestamp(uuidv7(interval '1 month 2 days 3 hours')))) < 1 AS same_shift;

-- Infinite intervals exist from PostgreSQL 17: 22008, as core.
CREATE FUNCTION pg_temp.fails(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT uuid_generate_v7('infinity'::interval)$$),
  ($$SELECT uuid_generate_v7('-infinity'::interval)$$),
  ($$SELECT uuidv7('infinity'::interval)$$)
) AS t(q);

-- PostgreSQL 18's btree skip scan: the uuid7 and uuid6 operator classes
-- carry core uuid's skip support (support function 6), and a scan with no
-- condition on a leading uuid7 column uses it.
SELECT f.opfname, p.amprocnum, p.amproc::regproc
FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
WHERE f.opfname IN ('uuid7_ops', 'uuid6_ops') AND p.amprocnum = 6 ORDER BY 1;
CREATE TABLE skip7 (id uuid7, n int);
INSERT INTO skip7 SELECT uuid_timestamptz_to_v7('2025-01-01 UTC'::timestamptz + (g % 3) * interval '1 day', true), g
FROM generate_series(1, 3000) g;
CREATE INDEX ON skip7 (id, n);
VACUUM (ANALYZE) skip7;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) SELECT n FROM skip7 WHERE n = 42;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE skip7;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
