-- requires: interval:infinity
-- PostgreSQL 18's uuidv7(interval) given an infinite interval (17 and later
-- have them): core 18's 22008 and words, on every version; where core has
-- uuidv7(interval), the same answer as core's (src/compat_pg18.rs).
CREATE EXTENSION uuid_ext;
CREATE FUNCTION pg_temp.fails(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  DECLARE detail text;
  BEGIN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' / ' || nullif(detail, ''), '');
  END;
END $$;
SELECT shift, pg_temp.fails(format('SELECT public.uuidv7(interval %L)', shift)) AS ours,
       CASE WHEN to_regprocedure('pg_catalog.uuidv7(interval)') IS NOT NULL
            THEN pg_temp.fails(format('SELECT public.uuidv7(interval %L)', shift))
               = pg_temp.fails(format('SELECT pg_catalog.uuidv7(interval %L)', shift)) END AS same_as_core
FROM (VALUES ('infinity'), ('-infinity')) AS t(shift);
-- uuid_ext's own name keeps uuid_ext's words.
SELECT pg_temp.fails($$SELECT uuid_generate_v7(interval 'infinity')$$) AS uuid_generate_v7;
DROP EXTENSION uuid_ext;
