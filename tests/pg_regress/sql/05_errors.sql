-- Every error path of SPEC §6 that exists so far, with its SQLSTATE.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

-- Runs a statement; shows the SQLSTATE and message it failed with.
CREATE FUNCTION pg_temp.fails(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- 22008: timestamps a UUIDv7 cannot hold.
SELECT q, pg_temp.fails(q) FROM (VALUES
  ($$SELECT uuid_v7_lower_bound('infinity')$$),
  ($$SELECT uuid_v7_upper_bound('-infinity')$$),
  ($$SELECT uuid_v7_lower_bound('1969-12-31 23:59:59.999999 UTC')$$),
  ($$SELECT uuid_v7_upper_bound('10889-08-02 05:31:50.656 UTC')$$),
  ($$SELECT uuid_timestamptz_to_v7('infinity')$$),
  ($$SELECT uuid_timestamptz_to_v7('1900-01-01 UTC', true)$$),
  ($$SELECT uuid_timestamp_to_v7('-infinity')$$),
  ($$SELECT uuid_timestamp_to_v7('20000-01-01', true)$$),
  ($$SELECT uuid_generate_v7(interval '-100 years')$$),
  ($$SELECT uuid_generate_v7(interval '9000 years')$$),
  ($$SELECT uuid_generate_v7(interval '200000 years')$$),
  ($$SELECT uuid_generate_v7(interval '-2147483648 days')$$)
) AS t(q);

-- The message, its detail and hint, as a user sees them.
\set VERBOSITY default
SELECT uuid_v7_lower_bound('infinity');
SELECT uuid_generate_v7(interval '9000 years');
\set VERBOSITY sqlstate
SELECT uuid_timestamptz_to_v7('1900-01-01 UTC');
\set VERBOSITY default

-- The edges themselves are fine.
SELECT uuid_v7_lower_bound('1970-01-01 00:00:00 UTC') IS NOT NULL AS first_ms,
       uuid_v7_upper_bound('10889-08-02 05:31:50.655999 UTC') IS NOT NULL AS last_ms;

-- Nothing above broke the session: the generator still works.
SELECT public.uuid_extract_version(uuid_generate_v7()) AS still_v7;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
