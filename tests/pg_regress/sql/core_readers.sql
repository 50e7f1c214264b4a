-- requires: core:uuid_extract_timestamp !core:uuidv7
-- PostgreSQL 17 has uuid_extract_timestamp() and uuid_extract_version() in
-- core (no uuidv7() yet); its timestamp reader reads UUIDv1 only. Ours agree
-- with core where core answers; core's come first on the default search_path.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

-- Random UUIDv1s (a v4's random bits with the version nibble set to 1):
-- core's reader is an independent oracle for ours.
SELECT count(*) AS n,
       bool_and(pg_catalog.uuid_extract_timestamp(id) = public.uuid_extract_timestamp(id)) AS ts_agree,
       bool_and(pg_catalog.uuid_extract_version(id) = public.uuid_extract_version(id)) AS version_agrees
FROM (SELECT overlay(gen_random_uuid()::text PLACING '1' FROM 15 FOR 1)::uuid AS id
      FROM generate_series(1, 20000)) s;

-- Every version nibble under every variant: the same version answers.
SELECT count(*) AS n,
       bool_and(pg_catalog.uuid_extract_version(id) IS NOT DISTINCT FROM public.uuid_extract_version(id)) AS version_agrees
FROM (SELECT ('017F22E2-79B0-' || to_hex(ver) || 'CC3-' || to_hex(var) || '8C4-DC0C0C07398F')::uuid AS id
      FROM generate_series(0, 15) ver, generate_series(0, 15) var) s;

-- On our UUIDv7s core 17 answers NULL; ours reads them.
SELECT count(*) AS n,
       bool_and(pg_catalog.uuid_extract_timestamp(id) IS NULL) AS core_null,
       bool_and(public.uuid_extract_timestamp(id) IS NOT NULL) AS ours_reads,
       bool_and(pg_catalog.uuid_extract_version(id) = 7) AS core_version_7
FROM (SELECT uuid_generate_v7() AS id FROM generate_series(1, 1000)) s;

-- Infinite intervals exist from PostgreSQL 17: 22008, as core 18's uuidv7().
CREATE FUNCTION pg_temp.fails(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT uuid_generate_v7('infinity'::interval)$$),
  ($$SELECT uuid_generate_v7('-infinity'::interval)$$)
) AS t(q);

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
