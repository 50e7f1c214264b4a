-- Time to UUIDv7 bounds, and a time-range scan on a UUIDv7 key.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

SELECT uuid_v7_lower_bound('2022-02-22 19:22:22.000 UTC') AS lower,
       uuid_v7_upper_bound('2022-02-22 19:22:22.000 UTC') AS upper;
-- The RFC 9562 UUIDv7 falls between the bounds of its millisecond.
SELECT '017F22E2-79B0-7CC3-98C4-DC0C0C07398F'::uuid
       BETWEEN uuid_v7_lower_bound('2022-02-22 19:22:22 UTC') AND uuid_v7_upper_bound('2022-02-22 19:22:22 UTC')
       AS rfc_vector_inside;
-- Microseconds inside one millisecond give the same bounds.
SELECT uuid_v7_lower_bound('2022-02-22 19:22:22.000999 UTC') = uuid_v7_lower_bound('2022-02-22 19:22:22 UTC')
       AS same_ms;
-- The edges of the 48-bit field.
SELECT uuid_v7_lower_bound('1970-01-01 00:00:00 UTC') AS first,
       uuid_v7_upper_bound('10889-08-02 05:31:50.655999 UTC') AS last;
-- Bounds read back as their millisecond.
SELECT public.uuid_extract_timestamp(uuid_v7_lower_bound('2024-06-30 12:34:56.789123 UTC')) AS lower_ts,
       public.uuid_extract_timestamp(uuid_v7_upper_bound('2024-06-30 12:34:56.789123 UTC')) AS upper_ts;

-- A time-range scan on the primary key uses the index.
CREATE TABLE event (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
INSERT INTO event (n) SELECT generate_series(1, 1000);
INSERT INTO event (id, n)
SELECT uuid_timestamptz_to_v7(t), 0
FROM generate_series(timestamptz '2020-01-01 00:00 UTC', '2020-01-01 23:00 UTC', interval '1 hour') AS t;
ANALYZE event;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM event
WHERE id >= uuid_v7_lower_bound('2020-01-01 05:00 UTC') AND id <= uuid_v7_upper_bound('2020-01-01 08:00 UTC');
RESET enable_seqscan;
SELECT count(*) AS hours_5_to_8 FROM event
WHERE id >= uuid_v7_lower_bound('2020-01-01 05:00 UTC') AND id <= uuid_v7_upper_bound('2020-01-01 08:00 UTC');
SELECT count(*) AS last_hour FROM event WHERE id >= uuid_v7_lower_bound(now() - interval '1 hour');
DROP TABLE event;

-- IMMUTABLE: plan-time partition pruning on a range-partitioned UUIDv7 key.
CREATE TABLE part (id uuid NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE part_2023 PARTITION OF part
  FOR VALUES FROM (uuid_v7_lower_bound('2023-01-01 UTC')) TO (uuid_v7_lower_bound('2024-01-01 UTC'));
CREATE TABLE part_2024 PARTITION OF part
  FOR VALUES FROM (uuid_v7_lower_bound('2024-01-01 UTC')) TO (uuid_v7_lower_bound('2025-01-01 UTC'));
EXPLAIN (COSTS OFF)
SELECT * FROM part WHERE id >= uuid_v7_lower_bound('2024-03-01 UTC') AND id < uuid_v7_lower_bound('2024-04-01 UTC');
DROP TABLE part;

-- STRICT.
SELECT uuid_v7_lower_bound(NULL) IS NULL AS lower_null, uuid_v7_upper_bound(NULL) IS NULL AS upper_null;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
