-- What uuid_ext does, in a minute. Run by scripts/demo.
\pset footer off
CREATE EXTENSION uuid_ext;

-- The library is preloaded: one sequencer for the whole server.
SELECT uuid_ext_info();

-- A table keyed by time-ordered UUIDs.
CREATE TABLE event (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), body text);
INSERT INTO event (body) SELECT 'event ' || n FROM generate_series(1, 5) AS n;

-- Each key carries the time it was made; keys sort in the order they were made.
-- (Schema-qualified: on PostgreSQL 17 and later an unqualified
-- uuid_extract_timestamp is core's, which 17 makes read UUIDv1 only.)
SELECT id, public.uuid_extract_version(id) AS version, public.uuid_extract_timestamp(id) AS made, body
FROM event ORDER BY id;

-- Many at once: still strictly increasing, all distinct (and, the library
-- being preloaded, greater than anything any other session made before).
SELECT count(*) AS made, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE id <= prev) AS out_of_order
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, uuid_generate_v7() AS id FROM generate_series(1, 100000) AS n) s) t;

-- Time to key bounds: a time-range query is a range scan on the primary key.
SELECT uuid_v7_lower_bound(now() - interval '1 hour') AS one_hour_ago,
       uuid_v7_upper_bound(now()) AS now;
EXPLAIN (COSTS OFF)
SELECT * FROM event WHERE id >= uuid_v7_lower_bound(now() - interval '1 hour');
SELECT count(*) AS last_hour FROM event WHERE id >= uuid_v7_lower_bound(now() - interval '1 hour');

-- A UUID for another time (back-dating an import, say): the shift moves the
-- embedded time only.
SELECT uuid_generate_v7(interval '-1 day') AS yesterday,
       public.uuid_extract_timestamp(uuid_generate_v7(interval '-1 day')) AS its_time;

-- RFC 9562's own examples read back: v1, v6 and v7 of 2022-02-22 19:22:22 UTC.
SELECT u AS uuid, public.uuid_extract_version(u) AS version, public.uuid_extract_timestamp(u) AS ts
FROM (VALUES ('C232AB00-9414-11EC-B3C8-9F6BDECED846'::uuid),
             ('1EC9414C-232A-6B00-B3C8-9F6BDECED846'),
             ('017F22E2-79B0-7CC3-98C4-DC0C0C07398F')) AS v(u);

-- UUIDv6, name-based UUIDs, and short forms for URLs.
SELECT uuid_generate_v6() AS v6,
       uuid_generate_v5_name(uuid_namespace('url'), 'https://example.com') AS v5,
       uuid_encode(uuid_generate_v7(), 'base58') AS v7_in_base58;

-- A uuid7 column holds UUIDv7s only, ordered by their bytes.
CREATE TABLE event7 (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), body text);
INSERT INTO event7 (body) SELECT 'event ' || n FROM generate_series(1, 3) AS n;
SELECT id, id::timestamptz AS made, body FROM event7 ORDER BY id;

-- Out of range is an error with its SQLSTATE, never a wrapped value; so is a
-- UUIDv4 in a uuid7 column.
\set VERBOSITY verbose
\set ON_ERROR_STOP off
SELECT uuid_v7_lower_bound('1969-12-31 UTC');
INSERT INTO event7 VALUES (gen_random_uuid(), 'not a v7');
\set ON_ERROR_STOP on
