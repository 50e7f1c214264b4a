-- Without shared_preload_libraries: the extension installs with one NOTICE
-- naming the setting, works, and orders per backend; nothing fails, and
-- nothing else speaks (docs/reference.md#configuration).
SHOW shared_preload_libraries;
CREATE EXTENSION uuid_ext;
SELECT uuid_ext_info() -> 'preloaded' AS preloaded, uuid_ext_info() ->> 'sequencer' AS sequencer;
-- No shared word, so no durable horizon and no file.
SELECT uuid_ext_info() -> 'durable' AS durable, uuid_ext_info() -> 'horizon' AS horizon;
-- No resource manager, no records, no horizon worker, even with the setting on.
SELECT uuid_ext_info() -> 'durable_wal' AS durable_wal, uuid_ext_info() -> 'horizon_worker_pid' AS worker,
       uuid_ext_info() -> 'in_recovery' AS in_recovery;
-- shared is asked for, backend is what there is: a silent fallback.
SHOW uuid_ext.monotonicity;
SELECT count(*) AS made, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE NOT prev < id) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, uuid_generate_v7() AS id FROM generate_series(1, 10000) n) s) t;
-- UUIDv6 too, on its own backend word.
SELECT count(*) AS made, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE NOT prev < id) AS out_of_order,
       bool_and(public.uuid_extract_version(id) = 6) AS all_v6
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, uuid_generate_v6() AS id FROM generate_series(1, 10000) n) s) t;
SET uuid_ext.monotonicity = backend;
SELECT uuid_ext_info() ->> 'sequencer' AS sequencer;
SELECT public.uuid_extract_version(uuid_generate_v7()) AS version;
-- A new connection that uses the extension says nothing.
\connect
SELECT public.uuid_extract_version(uuid_generate_v7()) AS version;
-- No commit watermark without the shared sequencer: an error naming the setting.
SELECT uuid_v7_watermark();
\echo :LAST_ERROR_SQLSTATE
SELECT uuid_v7_cluster_watermark();
\echo :LAST_ERROR_SQLSTATE
-- The names read with SHOW say why, and never raise: pg_settings, which
-- asks every setting on PostgreSQL 15, hidden ones too, still answers.
SHOW uuid_ext.watermark;
SHOW uuid_ext.facade_generation;
SELECT count(*) > 0 AS settings_read FROM pg_settings;
-- Thousands of UUIDs later, still no horizon file in the data directory.
SELECT count(*) AS horizon_files FROM pg_ls_dir('.') AS f WHERE f LIKE 'uuid_ext.horizon%';
-- No shared sequencer to reset: an error that says so (55000); a session
-- follows the clock from its start.
SELECT * FROM uuid_ext_sequencer_reset();
\echo :LAST_ERROR_SQLSTATE
SELECT uuid_ext_info() -> 'last_reset' AS last_reset,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(uuid_ext_info() -> 'ahead_of_clock_ms') AS k) AS words;
-- The NOTICE comes once per CREATE EXTENSION.
DROP EXTENSION uuid_ext;
CREATE EXTENSION uuid_ext;
DROP EXTENSION uuid_ext;
