-- requires: extension:pg_walinspect
-- When the clock lies (docs/operations.md): how far the words are ahead of
-- the clock, the warning's threshold, and uuid_ext_sequencer_reset(), the
-- superuser's: it brings the shared words back to the clock (a word that is
-- not ahead stays), says so in uuid_ext_info() and, with
-- uuid_ext.durable_wal on, writes a RESET record. The cluster test
-- tests/cluster/clock.py moves the clock itself.
CREATE EXTENSION uuid_ext;
CREATE EXTENSION pg_walinspect;
SHOW uuid_ext.clock_ahead_warning;
-- A server setting: no session changes it.
SET uuid_ext.clock_ahead_warning = 0;
SELECT uuid_ext_info() -> 'clock_ahead_warning_ms' AS threshold_ms,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(uuid_ext_info() -> 'ahead_of_clock_ms') AS k) AS words;
-- With a clock that is right, no word is a threshold ahead.
SELECT (uuid_ext_info() -> 'ahead_of_clock_ms' ->> 'v7')::bigint < 60000 AS v7_close,
       (uuid_ext_info() -> 'ahead_of_clock_ms' ->> 'v6')::bigint < 60000 AS v6_close;

-- The bound on how far draws may take a word ahead of the clock: a server
-- setting (postgresql.conf, a reload), which no session changes.
SHOW uuid_ext.max_lead;
SELECT context, vartype, unit, boot_val, min_val, max_val FROM pg_settings WHERE name = 'uuid_ext.max_lead';
SET uuid_ext.max_lead = 0;
-- A burst in one statement stays within it.
SELECT count(DISTINCT u) AS made,
       max(public.uuid_extract_timestamp(u)) - clock_timestamp() < interval '100 ms' AS v6_within_bound
FROM (SELECT uuid_generate_v6() AS u FROM generate_series(1, 200000)) s;
SELECT (uuid_ext_info() -> 'ahead_of_clock_ms' ->> 'v6')::bigint <= 100 AS v6_within_bound,
       (uuid_ext_info() -> 'ahead_of_clock_ms' ->> 'v7')::bigint <= 100 AS v7_within_bound;

-- Only superusers may reset (EXECUTE is revoked from PUBLIC).
CREATE ROLE reset_tester;
SET ROLE reset_tester;
SELECT * FROM uuid_ext_sequencer_reset();
RESET ROLE;
DROP ROLE reset_tester;

ALTER SYSTEM SET uuid_ext.durable_wal = on;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SELECT uuid_generate_v7() AS before_reset \gset
SELECT pg_current_wal_insert_lsn() AS start \gset
-- One row per word: its time before and after. A word that is not ahead
-- of the clock stays where it is.
SELECT version, after <= before AS not_raised, after <= clock_timestamp() AS at_or_before_now
FROM uuid_ext_sequencer_reset() ORDER BY version DESC;
SELECT uuid_ext_info() -> 'last_reset' ->> 'replayed' AS replayed,
       uuid_ext_info() -> 'last_reset' ->> 'open_from_before' AS open_from_before,
       (uuid_ext_info() -> 'last_reset' ->> 'v7_after_key')::uuid < uuid_generate_v7() AS new_keys_above_after_key,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(uuid_ext_info() -> 'last_reset') AS k) AS keys;
-- This session's keys still rise.
SELECT uuid_generate_v7() > :'before_reset'::uuid AS still_rising;
SELECT pg_current_wal_flush_lsn() AS stop \gset
SELECT record_type, count(*) AS records,
       bool_and(description ~ '^v7 [0-9a-f]{16} \(\d{4}-[^)]*\); v6 [0-9a-f]{16} \(\d{4}-[^)]*\)$') AS described
FROM pg_get_wal_records_info(:'start', :'stop')
WHERE resource_manager = 'uuid_ext' AND record_type = 'RESET'
GROUP BY record_type;
ALTER SYSTEM RESET uuid_ext.durable_wal;
SELECT pg_reload_conf();
DROP EXTENSION pg_walinspect;
DROP EXTENSION uuid_ext;
