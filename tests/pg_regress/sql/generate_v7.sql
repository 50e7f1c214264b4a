-- uuid_generate_v7(): version and variant bits, strict order within a
-- session, the embedded time, and the shifted form.
CREATE EXTENSION uuid_ext;

CREATE TEMP TABLE g AS
SELECT n, uuid_generate_v7() AS id, clock_timestamp() AS made
FROM generate_series(1, 20000) AS n;

-- Every one is a version 7 of the RFC 9562 variant.
SELECT count(*) AS rows,
       count(DISTINCT id) AS distinct_ids,
       bool_and(public.uuid_extract_version(id) = 7) AS all_v7,
       bool_and(substr(id::text, 20, 1) IN ('8', '9', 'a', 'b')) AS all_rfc_variant
FROM g;

-- Strictly increasing in call order.
SELECT count(*) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM g) s
WHERE prev IS NOT NULL AND NOT prev < id;

-- The embedded millisecond is the clock's (a 20000-row burst never runs it
-- far ahead: the sequencer holds 65536 values a millisecond).
SELECT bool_and(public.uuid_extract_timestamp(id) BETWEEN date_trunc('milliseconds', made) - interval '1 second'
                                                 AND made + interval '1 second') AS time_is_now
FROM g;

-- The random bits differ: no two share their last 12 hex digits.
SELECT count(DISTINCT right(id::text, 12)) = count(*) AS random_tail_distinct FROM g;

-- Shifted: the time moves by the interval, order is kept for a fixed shift.
SELECT public.uuid_extract_timestamp(uuid_generate_v7(interval '1 day'))
       - public.uuid_extract_timestamp(uuid_generate_v7()) BETWEEN interval '23:59:59' AND interval '1 day 00:00:01'
       AS one_day_ahead;
SELECT public.uuid_extract_timestamp(uuid_generate_v7(interval '-30 years')) < now() - interval '29 years'
       AS thirty_years_back;
SELECT count(*) AS out_of_order_shifted
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, uuid_generate_v7(interval '-2 hours') AS id FROM generate_series(1, 5000) n) s) t
WHERE prev IS NOT NULL AND NOT prev < id;
-- A shift never moves the sequencer: after 1000 years ahead, today again.
SELECT public.uuid_extract_version(uuid_generate_v7(interval '1000 years')) AS v;
SELECT public.uuid_extract_timestamp(uuid_generate_v7()) < now() + interval '1 minute' AS back_to_today;
-- Month and day parts follow the calendar (here in UTC).
SET TIME ZONE 'UTC';
SELECT date_part('day', public.uuid_extract_timestamp(uuid_generate_v7(interval '1 month'))
                        - (now() + interval '1 month')) AS days_off;
RESET TIME ZONE;

-- STRICT: NULL in, NULL out.
SELECT uuid_generate_v7(NULL::interval) IS NULL AS null_shift;

DROP EXTENSION uuid_ext;
