-- pg_uuidv7 1.6's functions: same names, signatures, labels and results on
-- UUIDv7 input.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

-- Readers.
SELECT uuid_v7_to_timestamptz('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS tstz,
       uuid_v7_to_timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS ts;
-- timestamp means UTC, whatever the session's zone.
SET TIME ZONE 'America/New_York';
SELECT uuid_v7_to_timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS ts_still_utc,
       uuid_v7_to_timestamptz('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS tstz_in_new_york;
SET TIME ZONE 'UTC';
-- On other versions: as uuid_extract_timestamp, not bits decoded as a v7.
SELECT uuid_v7_to_timestamptz('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v1,
       uuid_v7_to_timestamptz('919108F7-52D1-4320-9BAC-F847DB4148A8') AS v4,
       uuid_v7_to_timestamp('1EC9414C-232A-6B00-B3C8-9F6BDECED846') AS v6;

-- Writers: zero = true gives the exact lower bound, given time unclamped.
SELECT uuid_timestamptz_to_v7('2022-02-22 19:22:22 UTC', true) AS tstz_zero,
       uuid_timestamp_to_v7('2022-02-22 19:22:22', true) AS ts_zero,
       uuid_timestamptz_to_v7('2022-02-22 19:22:22 UTC', zero => true)
         = uuid_v7_lower_bound('2022-02-22 19:22:22 UTC') AS zero_is_lower_bound;
-- A time far ahead of the clock is used as it is, and the sequencer is untouched.
SELECT uuid_timestamptz_to_v7('5000-01-01 UTC', true) AS far_future;
SELECT uuid_generate_v7() < uuid_v7_lower_bound(now() + interval '1 day') AS generator_untouched;
-- zero = false (the default): random bits, still version 7 at that millisecond.
SELECT count(DISTINCT u) AS distinct_ids,
       bool_and(public.uuid_extract_version(u) = 7) AS all_v7,
       bool_and(uuid_v7_to_timestamptz(u) = '2022-02-22 19:22:22 UTC') AS all_at_that_ms,
       bool_and(u > uuid_v7_lower_bound('2022-02-22 19:22:22 UTC')
                AND u <= uuid_v7_upper_bound('2022-02-22 19:22:22 UTC')) AS all_inside
FROM (SELECT uuid_timestamptz_to_v7('2022-02-22 19:22:22.0005 UTC') AS u FROM generate_series(1, 1000)) s;
SELECT public.uuid_extract_timestamp(uuid_timestamp_to_v7('2022-02-22 19:22:22.123456')) AS ts_to_v7_ms;
-- Round trip.
SELECT uuid_v7_to_timestamptz(uuid_timestamptz_to_v7('2001-09-09 01:46:40.5 UTC')) AS round_trip;

-- STRICT.
SELECT uuid_v7_to_timestamptz(NULL) IS NULL AS a, uuid_v7_to_timestamp(NULL) IS NULL AS b,
       uuid_timestamptz_to_v7(NULL) IS NULL AS c, uuid_timestamp_to_v7(NULL, true) IS NULL AS d,
       uuid_timestamptz_to_v7(now(), NULL) IS NULL AS e;

-- An index scan from a STABLE bound, as pg_uuidv7 users write it.
CREATE TABLE compat_t (id uuid PRIMARY KEY DEFAULT uuid_generate_v7());
INSERT INTO compat_t SELECT FROM generate_series(1, 100);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM compat_t WHERE id >= uuid_timestamptz_to_v7(now() - interval '1 hour', true);
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) FROM compat_t WHERE id >= uuid_timestamptz_to_v7(now() - interval '1 hour', true);
DROP TABLE compat_t;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
