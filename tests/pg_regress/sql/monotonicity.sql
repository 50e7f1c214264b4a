-- uuid_ext.monotonicity and uuid_ext_info() on a cluster that preloads the
-- library (docs/reference.md#configuration).
CREATE EXTENSION uuid_ext;

-- version is the library's release, at least the version of the SQL objects
-- (which moves only when they change); built_for names the headers it was
-- compiled against, a release of the server's major.
SELECT string_to_array(uuid_ext_info() ->> 'version', '.')::int[]
         >= (SELECT string_to_array(extversion, '.')::int[] FROM pg_extension WHERE extname = 'uuid_ext') AS version_ok,
       uuid_ext_info() ->> 'postgres' = current_setting('server_version') AS postgres_ok,
       uuid_ext_info() ->> 'built_for' ~ ('^' || current_setting('server_version_num')::int / 10000 || '(\.|beta|rc)')
         AS built_for_ok,
       uuid_ext_info() -> 'preloaded' AS preloaded,
       uuid_ext_info() ->> 'sequencer' AS sequencer,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(uuid_ext_info()) AS k) AS keys;

-- The setting: default shared, any user may change it for the session.
SHOW uuid_ext.monotonicity;
SELECT context, vartype, enumvals, boot_val FROM pg_settings WHERE name = 'uuid_ext.monotonicity';
SET uuid_ext.monotonicity = backend;
SELECT uuid_ext_info() ->> 'sequencer' AS sequencer;
RESET uuid_ext.monotonicity;
SELECT uuid_ext_info() ->> 'sequencer' AS sequencer;
-- A non-superuser may set it.
CREATE ROLE uuid_ext_someone;
SET ROLE uuid_ext_someone;
SET uuid_ext.monotonicity = 'backend';
SHOW uuid_ext.monotonicity;
RESET ROLE;
DROP ROLE uuid_ext_someone;
RESET uuid_ext.monotonicity;
-- Bad values and misspelt names are errors.
SET uuid_ext.monotonicity = 'global';
SET uuid_ext.monotonicty = 'backend';

-- Switching back and forth in one session never goes backwards.
CREATE TEMP TABLE sw (n int, id uuid);
INSERT INTO sw SELECT n, uuid_generate_v7() FROM generate_series(1, 1000) n;
SET uuid_ext.monotonicity = backend;
INSERT INTO sw SELECT n, uuid_generate_v7() FROM generate_series(1001, 2000) n;
SET uuid_ext.monotonicity = shared;
INSERT INTO sw SELECT n, uuid_generate_v7() FROM generate_series(2001, 3000) n;
SELECT count(*) AS out_of_order FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM sw) s WHERE NOT prev < id;
RESET uuid_ext.monotonicity;

-- The functions that take a timestamp never touch the sequencer: far
-- future bounds leave the next UUID at today's time.
SELECT uuid_v7_upper_bound('9999-12-31') IS NOT NULL AS bound,
       uuid_timestamptz_to_v7('9999-12-31') IS NOT NULL AS to_v7,
       uuid_generate_v7(interval '5000 years') IS NOT NULL AS shifted;
SELECT public.uuid_extract_timestamp(uuid_generate_v7()) < now() + interval '1 minute' AS still_today;

DROP EXTENSION uuid_ext;
