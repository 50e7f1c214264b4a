-- Run after every golden test (scripts/lib.sh, run_regress): what the test
-- left in the database or the server. Each test leaves them as it found
-- them, so this prints no row.
SELECT 'extension ' || extname AS left_behind FROM pg_extension WHERE extname <> 'plpgsql'
UNION ALL
SELECT 'schema ' || nspname FROM pg_namespace
 WHERE nspname NOT IN ('public', 'information_schema') AND nspname NOT LIKE 'pg\_%'
UNION ALL
SELECT 'relation ' || c.oid::regclass FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace
UNION ALL
SELECT 'function ' || p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
UNION ALL
SELECT 'type ' || t.oid::regtype FROM pg_type t WHERE t.typnamespace = 'public'::regnamespace
UNION ALL
SELECT 'role ' || rolname FROM pg_roles WHERE rolname NOT LIKE 'pg\_%' AND rolname <> 'postgres'
UNION ALL
SELECT 'prepared transaction ' || gid FROM pg_prepared_xacts
UNION ALL
SELECT 'database setting ' || s FROM pg_db_role_setting, unnest(setconfig) AS s WHERE s LIKE 'uuid\_ext.%'
UNION ALL
SELECT 'server setting ' || name FROM pg_file_settings
 WHERE sourcefile LIKE '%postgresql.auto.conf' AND name LIKE 'uuid\_ext.%'
ORDER BY 1;
