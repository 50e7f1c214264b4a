-- Durable order (docs/ordering.md#durable-order-restarts-and-crashes): uuid_ext.durable_margin and what uuid_ext_info()
-- says of the horizon on disk. (Restarts, SIGKILL and a clock stepping back
-- are tests/cluster/durable.py.)
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

-- The setting: one second by default, in milliseconds from 0 to an hour,
-- changed only in postgresql.conf (or ALTER SYSTEM) and a reload.
SHOW uuid_ext.durable_margin;
SELECT context, vartype, unit, min_val, max_val, boot_val
FROM pg_settings WHERE name = 'uuid_ext.durable_margin';
SET uuid_ext.durable_margin = 0;

-- On the shared sequencer the order is durable, and the horizons on disk
-- cover every UUID made (v7 to the millisecond, v6 to the microsecond
-- that timestamptz keeps), at most one margin ahead of the last UUID or the
-- clock (the horizon worker keeps it ahead of the clock).
SELECT uuid_ext_info() -> 'durable' AS durable,
       uuid_ext_info() -> 'durable_margin_ms' AS margin_ms,
       uuid_ext_info() #>> '{horizon,file}' LIKE '%/uuid_ext.horizon' AS file_in_data_directory;
CREATE TEMP TABLE made AS
SELECT uuid_generate_v7() AS v7, uuid_generate_v6() AS v6 FROM generate_series(1, 50000);
SELECT max(public.uuid_extract_timestamp(v7)) <= (uuid_ext_info() #>> '{horizon,v7}')::timestamptz AS v7_covered,
       max(public.uuid_extract_timestamp(v6)) <= (uuid_ext_info() #>> '{horizon,v6}')::timestamptz AS v6_covered,
       (uuid_ext_info() #>> '{horizon,v7}')::timestamptz
         - greatest(max(public.uuid_extract_timestamp(v7)), clock_timestamp())
         <= interval '1 second' AS v7_within_margin
FROM made;
DROP TABLE made;

-- A session on its own word has no durable order.
SET uuid_ext.monotonicity = backend;
SELECT uuid_ext_info() -> 'durable' AS durable;
RESET uuid_ext.monotonicity;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
