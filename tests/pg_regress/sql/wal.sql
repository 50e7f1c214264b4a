-- requires: extension:pg_walinspect
-- The sequencer in the WAL (docs/design.md#the-wal-records). With uuid_ext.durable_wal on, each
-- raise of the horizon writes a HORIZON record and the horizon worker a
-- WATERMARK record when the commit watermark moves; pg_walinspect reads them
-- as the resource manager uuid_ext, described with their values and times.
-- Turned off, no record is written. A server setting: ALTER SYSTEM and a
-- reload, reset at the end.
CREATE EXTENSION uuid_ext;
CREATE EXTENSION pg_walinspect;
SHOW uuid_ext.durable_wal;
SET uuid_ext.durable_wal = on;
SHOW uuid_ext.watermark_interval;
SET uuid_ext.watermark_interval = 50;
SELECT uuid_ext_info() -> 'durable_wal' AS durable_wal, uuid_ext_info() -> 'in_recovery' AS in_recovery,
       uuid_ext_info() ->> 'horizon_worker_pid' = (SELECT pid::text FROM pg_stat_activity
                                                  WHERE backend_type = 'uuid_ext horizon worker') AS worker_runs;

ALTER SYSTEM SET uuid_ext.durable_wal = on;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SELECT current_setting('uuid_ext.durable_wal') AS durable_wal, uuid_ext_info() -> 'durable_wal' AS info;
SELECT pg_current_wal_insert_lsn() AS start \gset
CREATE TABLE wal_probe (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), id6 uuid DEFAULT uuid_generate_v6());
INSERT INTO wal_probe SELECT FROM generate_series(1, 20000);
-- The worker raises the horizons as the clock moves (every half second
-- while UUIDs are made) and logs the watermark that moved.
SELECT pg_sleep(1.2);
INSERT INTO wal_probe SELECT FROM generate_series(1, 10);
SELECT pg_sleep(0.3);
-- pg_walinspect reads up to where the WAL is flushed.
SELECT pg_current_wal_flush_lsn() AS stop \gset
SELECT record_type, count(*) > 0 AS written,
       bool_and(description ~ '^v7 [0-9a-f]{16} \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}\+00\)$'
                OR description ~ '^v7 [0-9a-f]{16} \(\d{4}-[^)]*\); v6 [0-9a-f]{16} \(\d{4}-[^)]*\)$') AS described
FROM pg_get_wal_records_info(:'start', :'stop')
WHERE resource_manager = 'uuid_ext'
GROUP BY record_type ORDER BY record_type;
-- The last horizon covers every key, and the last watermark reaches the
-- last key's millisecond (the records hold v7 words; keys their ms).
WITH r AS (SELECT record_type, substr(description, 4, 16) AS v7
           FROM pg_get_wal_records_info(:'start', :'stop') WHERE resource_manager = 'uuid_ext')
SELECT (SELECT max(v7) FROM r WHERE record_type = 'HORIZON')
         >= (SELECT max(substr(replace(id::text, '-', ''), 1, 12)) FROM wal_probe) AS horizon_ms_covers,
       (SELECT max(v7) FROM r WHERE record_type = 'WATERMARK')
         >= (SELECT max(substr(replace(id::text, '-', ''), 1, 12)) FROM wal_probe) AS watermark_ms_reaches;

-- Off again: no more records.
ALTER SYSTEM RESET uuid_ext.durable_wal;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SELECT pg_current_wal_insert_lsn() AS start \gset
INSERT INTO wal_probe SELECT FROM generate_series(1, 20000);
SELECT pg_sleep(1.2);
INSERT INTO wal_probe SELECT FROM generate_series(1, 10);
SELECT pg_current_wal_flush_lsn() AS stop \gset
SELECT count(*) AS records_when_off FROM pg_get_wal_records_info(:'start', :'stop') WHERE resource_manager = 'uuid_ext';
DROP TABLE wal_probe;
DROP EXTENSION pg_walinspect;
DROP EXTENSION uuid_ext;
