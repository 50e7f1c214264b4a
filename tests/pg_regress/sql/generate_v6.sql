-- uuid_generate_v6(): version and variant bits, strict order within a
-- session, the embedded time, random clock sequence and node with the
-- multicast bit set; UUIDv6 bounds; v1 <-> v6 (RFC 9562 §5.6, §6.10).
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

CREATE TEMP TABLE g AS
SELECT n, uuid_generate_v6() AS id, clock_timestamp() AS made
FROM generate_series(1, 20000) AS n;

SELECT count(*) AS rows,
       count(DISTINCT id) AS distinct_ids,
       bool_and(public.uuid_extract_version(id) = 6) AS all_v6,
       bool_and(substr(id::text, 20, 1) IN ('8', '9', 'a', 'b')) AS all_rfc_variant,
       -- RFC 9562 §6.10: the node's first octet has its multicast bit set.
       bool_and((('x' || substr(id::text, 25, 2))::bit(8) & b'00000001') = b'00000001') AS all_multicast
FROM g;

-- Strictly increasing in call order.
SELECT count(*) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM g) s
WHERE prev IS NOT NULL AND NOT prev < id;

-- The embedded time is the clock's (16 UUIDv6 share a tick of 100 ns before
-- the time runs ahead of the clock: no burst gets a second ahead).
SELECT bool_and(public.uuid_extract_timestamp(id) BETWEEN made - interval '1 second'
                                                 AND made + interval '1 second') AS time_is_now
FROM g;

-- clock_seq begins with a 4-bit counter within the tick: UUIDs that share a
-- tick are ordered by it; its other 10 bits and the node are fresh random
-- bits in each UUID.
CREATE TEMP TABLE f AS
SELECT n, ('x' || substr(id::text, 1, 8) || substr(id::text, 10, 4) || substr(id::text, 16, 3))::bit(60)::bigint AS tick,
       (get_byte(uuid_send(id), 8) >> 2) & 15 AS counter,
       ((get_byte(uuid_send(id), 8) & 3) << 8) | get_byte(uuid_send(id), 9) AS clock_seq_random
FROM g;
SELECT bool_and(tick > prev_tick OR (tick = prev_tick AND counter > prev_counter)) AS by_tick_then_counter
FROM (SELECT tick, counter, lag(tick) OVER (ORDER BY n) AS prev_tick, lag(counter) OVER (ORDER BY n) AS prev_counter
      FROM f) s
WHERE prev_tick IS NOT NULL;
SELECT count(DISTINCT right(id::text, 12)) = count(*) AS node_distinct,
       (SELECT count(DISTINCT clock_seq_random) FROM f) > 900 AS clock_seq_random_bits_vary
FROM g;
DROP TABLE f;

-- Ordered by time like a UUIDv7: the ones made later sort later.
SELECT (SELECT id FROM g ORDER BY id DESC LIMIT 1) < uuid_generate_v6() AS next_is_greater;

-- RFC 9562 A.5 and A.1: the same time as v6 and v1, converted both ways.
SELECT uuid_v1_to_v6('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v1_to_v6,
       uuid_v6_to_v1('1EC9414C-232A-6B00-B3C8-9F6BDECED846') AS v6_to_v1,
       public.uuid_extract_timestamp('1EC9414C-232A-6B00-B3C8-9F6BDECED846') AS v6_time;
-- Round trips on UUIDs made here; clock_seq and node are kept.
SELECT bool_and(uuid_v1_to_v6(uuid_v6_to_v1(id)) = id) AS round_trip,
       bool_and(right(uuid_v6_to_v1(id)::text, 17) = right(id::text, 17)) AS tail_kept,
       bool_and(public.uuid_extract_version(uuid_v6_to_v1(id)) = 1) AS all_v1,
       bool_and(public.uuid_extract_timestamp(uuid_v6_to_v1(id)) = public.uuid_extract_timestamp(id)) AS same_time
FROM g;

-- Bounds: the microsecond's first tick (all else 0) and last tick (all else 1).
SELECT uuid_v6_lower_bound('2022-02-22 19:22:22 UTC') AS lower,
       uuid_v6_upper_bound('2022-02-22 19:22:22 UTC') AS upper,
       '1EC9414C-232A-6B00-B3C8-9F6BDECED846'::uuid
         BETWEEN uuid_v6_lower_bound('2022-02-22 19:22:22 UTC') AND uuid_v6_upper_bound('2022-02-22 19:22:22 UTC')
         AS rfc_vector_inside;
SELECT uuid_v6_lower_bound('1582-10-15 00:00:00 UTC') AS first,
       uuid_v6_upper_bound('5236-03-31 21:21:00.684697 UTC') AS last;
-- Every UUID made here lies within the bounds of its own microsecond.
SELECT bool_and(id BETWEEN uuid_v6_lower_bound(public.uuid_extract_timestamp(id))
                       AND uuid_v6_upper_bound(public.uuid_extract_timestamp(id))) AS inside_own_microsecond
FROM g;

-- A time-range scan on a v6 key uses the index; partitions prune at plan time.
CREATE TABLE ev6 (id uuid PRIMARY KEY DEFAULT uuid_generate_v6(), n int);
INSERT INTO ev6 (n) SELECT generate_series(1, 1000);
ANALYZE ev6;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev6 WHERE id >= uuid_v6_lower_bound(now() - interval '1 hour');
RESET enable_seqscan;
SELECT count(*) AS last_hour FROM ev6 WHERE id >= uuid_v6_lower_bound(now() - interval '1 hour');
DROP TABLE ev6;
CREATE TABLE part6 (id uuid NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE part6_2024 PARTITION OF part6
  FOR VALUES FROM (uuid_v6_lower_bound('2024-01-01 UTC')) TO (uuid_v6_lower_bound('2025-01-01 UTC'));
CREATE TABLE part6_2025 PARTITION OF part6
  FOR VALUES FROM (uuid_v6_lower_bound('2025-01-01 UTC')) TO (uuid_v6_lower_bound('2026-01-01 UTC'));
EXPLAIN (COSTS OFF)
SELECT * FROM part6 WHERE id >= uuid_v6_lower_bound('2025-03-01 UTC') AND id < uuid_v6_lower_bound('2025-04-01 UTC');
DROP TABLE part6;

-- The same setting and sequencer rules as v7: switching never goes back.
CREATE TEMP TABLE sw (n int, id uuid);
INSERT INTO sw SELECT n, uuid_generate_v6() FROM generate_series(1, 1000) n;
SET uuid_ext.monotonicity = backend;
INSERT INTO sw SELECT n, uuid_generate_v6() FROM generate_series(1001, 2000) n;
SET uuid_ext.monotonicity = shared;
INSERT INTO sw SELECT n, uuid_generate_v6() FROM generate_series(2001, 3000) n;
SELECT count(*) AS out_of_order FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM sw) s WHERE NOT prev < id;
RESET uuid_ext.monotonicity;

-- STRICT.
SELECT uuid_v6_lower_bound(NULL) IS NULL AS a, uuid_v6_upper_bound(NULL) IS NULL AS b,
       uuid_v1_to_v6(NULL) IS NULL AS c, uuid_v6_to_v1(NULL) IS NULL AS d;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
