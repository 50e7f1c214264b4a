-- The uuid7 and uuid6 types (docs/reference.md#the-uuid7-and-uuid6-types): storage, input and output, order,
-- index support, casts, aggregates, partitions.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

-- 16 bytes, not a varlena, laid out as uuid.
SELECT typname, typlen, typbyval, typalign, typstorage, typcategory
FROM pg_type WHERE typname IN ('uuid', 'uuid7', 'uuid6') ORDER BY typname;

-- Input takes what uuid takes, output is canonical lowercase.
SELECT v::uuid7 AS as_uuid7
FROM unnest(ARRAY['017F22E2-79B0-7CC3-98C4-DC0C0C07398F', '{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}',
                  '017f22e279b07cc398c4dc0c0c07398f', '017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f']) AS v;
SELECT '1EC9414C-232A-6B00-B3C8-9F6BDECED846'::uuid6 AS as_uuid6;
-- The version and the RFC 9562 variant are checked: 22P02 naming what it is.
\set VERBOSITY default
SELECT '919108f7-52d1-4320-9bac-f847db4148a8'::uuid7;
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid6;
SELECT '017f22e2-79b0-7cc3-d8c4-dc0c0c07398f'::uuid7;
SELECT '00000000-0000-0000-0000-000000000000'::uuid7;
SELECT 'not a uuid'::uuid7;
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398'::uuid6;
-- The cast from uuid checks too.
SELECT '919108f7-52d1-4320-9bac-f847db4148a8'::uuid::uuid7;
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid::uuid6;

-- Order: the 16 bytes as an unsigned octet string, as uuid orders them.
CREATE TEMP TABLE o AS
SELECT n, u::uuid7 AS id7, u AS id
FROM (SELECT n, uuid_v7_lower_bound(timestamptz '1970-01-01 UTC' + random() * interval '8000 years')::text AS t
      FROM generate_series(1, 2000) n) s,
     LATERAL (SELECT (substr(t, 1, 19) || lpad(to_hex(floor(random() * 65536)::int), 4, '0') || '-' ||
                      md5(random()::text)::varchar(12))::uuid AS raw) r,
     LATERAL (SELECT overlay(overlay(raw::text PLACING '7' FROM 15 FOR 1)
                             PLACING substr('89ab', 1 + floor(random() * 4)::int, 1) FROM 20 FOR 1)::uuid AS u) v;
SELECT count(*) AS rows,
       (SELECT array_agg(n ORDER BY id7) FROM o) = (SELECT array_agg(n ORDER BY id) FROM o) AS same_order,
       (SELECT array_agg(n ORDER BY id7 DESC) FROM o) = (SELECT array_agg(n ORDER BY id DESC) FROM o) AS same_order_desc,
       bool_and((a.id7 < b.id7) = (a.id < b.id) AND (a.id7 = b.id7) = (a.id = b.id)
                AND (a.id7 >= b.id) = (a.id >= b.id) AND (a.id <= b.id7) = (a.id <= b.id)) AS operators_agree
FROM o a JOIN o b ON b.n = a.n % 2000 + 1;
-- Edges of the byte order: the smallest and largest UUIDv7.
SELECT '00000000-0000-7000-8000-000000000000'::uuid7 < 'ffffffff-ffff-7fff-bfff-ffffffffffff'::uuid7 AS edges;

-- Sorting a uuid7 column (sort support, abbreviated keys) gives uuid's order.
SET work_mem = '64kB';
SELECT (SELECT array_agg(id7::uuid) FROM (SELECT id7 FROM o ORDER BY id7) s)
     = (SELECT array_agg(id) FROM (SELECT id FROM o ORDER BY id) s) AS external_sort_agrees;
RESET work_mem;

-- min() and max(), also from an index.
SELECT min(id7) = (SELECT id7 FROM o ORDER BY id7 LIMIT 1) AS min_ok,
       max(id7) = (SELECT id7 FROM o ORDER BY id7 DESC LIMIT 1) AS max_ok,
       pg_typeof(max(id7)) AS type FROM o;

-- A uuid7 primary key: DEFAULT uuid_generate_v7(), and every reader through the cast to uuid.
CREATE TABLE ev7 (id uuid7 PRIMARY KEY DEFAULT uuid_generate_v7(), n int);
CREATE TABLE ev6 (id uuid6 PRIMARY KEY DEFAULT uuid_generate_v6(), n int);
INSERT INTO ev7 (n) SELECT generate_series(1, 2000);
INSERT INTO ev6 (n) SELECT generate_series(1, 2000);
INSERT INTO ev7 VALUES ('017F22E2-79B0-7CC3-98C4-DC0C0C07398F', 0);
INSERT INTO ev6 VALUES ('1EC9414C-232A-6B00-B3C8-9F6BDECED846', 0);
ANALYZE ev7;
ANALYZE ev6;
SELECT id, public.uuid_extract_timestamp(id) AS ts, public.uuid_extract_version(id) AS v,
       id::timestamptz AS cast_ts, (uuid_inspect(id)).rand_a, uuid_encode(id, 'base58') AS b58
FROM ev7 WHERE n = 0;
SELECT id, public.uuid_extract_timestamp(id) AS ts, id::timestamptz AS cast_ts,
       uuid_v6_to_v1(id) AS v1, (uuid_inspect(id)).clock_seq
FROM ev6 WHERE n = 0;
-- An untyped literal still reaches the one reader (no overloads for the types).
SELECT public.uuid_extract_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f') AS literal;
-- A uuid is checked on assignment: a UUIDv7 goes in, another version does not.
INSERT INTO ev7 VALUES ('017f22e2-79b0-7cc3-98c4-dc0c0c073990'::uuid, -1);
INSERT INTO ev7 VALUES ('919108f7-52d1-4320-9bac-f847db4148a8'::uuid, -2);
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids, bool_and(public.uuid_extract_version(id) = 7) AS all_v7 FROM ev7;

-- Index scans on a uuid7 key: equality with a uuid parameter, a time range
-- between two uuid bounds; the same for uuid6.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
PREPARE by_uuid(uuid) AS SELECT n FROM ev7 WHERE id = $1;
EXPLAIN (COSTS OFF) EXECUTE by_uuid('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');
EXECUTE by_uuid('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev7
WHERE id >= uuid_v7_lower_bound('2022-02-22 00:00 UTC') AND id < uuid_v7_lower_bound('2022-02-23 00:00 UTC');
SELECT count(*) AS on_2022_02_22 FROM ev7
WHERE id >= uuid_v7_lower_bound('2022-02-22 00:00 UTC') AND id < uuid_v7_lower_bound('2022-02-23 00:00 UTC');
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ev6 WHERE id BETWEEN uuid_v6_lower_bound('2022-02-22 UTC') AND uuid_v6_upper_bound('2022-02-23 UTC');
SELECT count(*) AS on_2022_02_22 FROM ev6
WHERE id BETWEEN uuid_v6_lower_bound('2022-02-22 UTC') AND uuid_v6_upper_bound('2022-02-23 UTC');
-- min() and max() read the index (the plan's wording differs by version).
CREATE FUNCTION pg_temp.plan_has(q text, needle text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF strpos(line, needle) > 0 THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
SELECT pg_temp.plan_has('SELECT max(id) FROM ev7', 'Index Only Scan Backward using ev7_pkey') AS max_from_index,
       pg_temp.plan_has('SELECT min(id) FROM ev6', 'Index Only Scan using ev6_pkey') AS min_from_index;
RESET enable_bitmapscan;
-- A hash index and a BRIN index are used.
CREATE INDEX ev7_hash ON ev7 USING hash (id);
CREATE INDEX ev7_brin ON ev7 USING brin (id);
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT n FROM ev7 WHERE id = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f';
SELECT n FROM ev7 WHERE id = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f';
DROP INDEX ev7_hash;
ALTER TABLE ev7 DROP CONSTRAINT ev7_pkey;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ev7 WHERE id < uuid_v7_lower_bound('2023-01-01 UTC');
SELECT count(*) AS before_2023 FROM ev7 WHERE id < uuid_v7_lower_bound('2023-01-01 UTC');
RESET enable_indexscan;
RESET enable_seqscan;
DROP TABLE ev7, ev6;

-- A hash join across uuid7 and uuid (the same hash for the same bytes).
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM o a JOIN o b ON a.id7 = b.id;
SELECT count(*) AS joined FROM o a JOIN o b ON a.id7 = b.id;
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT bool_and(uuid7_hash(id7) = uuid_hash(id) AND uuid7_hash_extended(id7, 42) = uuid_hash_extended(id, 42)) AS same_hash
FROM o;

-- A range-partitioned uuid7 key prunes at plan time; a hash-partitioned one takes rows.
CREATE TABLE log7 (id uuid7 NOT NULL DEFAULT uuid_generate_v7(), line text) PARTITION BY RANGE (id);
CREATE TABLE log7_2025_03 PARTITION OF log7
  FOR VALUES FROM (uuid_v7_lower_bound('2025-03-01 UTC')) TO (uuid_v7_lower_bound('2025-04-01 UTC'));
CREATE TABLE log7_2025_04 PARTITION OF log7
  FOR VALUES FROM (uuid_v7_lower_bound('2025-04-01 UTC')) TO (uuid_v7_lower_bound('2025-05-01 UTC'));
INSERT INTO log7 VALUES (uuid_timestamptz_to_v7('2025-03-10 UTC'), 'march'), (uuid_timestamptz_to_v7('2025-04-10 UTC'), 'april');
EXPLAIN (COSTS OFF)
SELECT * FROM log7 WHERE id >= uuid_v7_lower_bound('2025-03-05 UTC') AND id < uuid_v7_lower_bound('2025-03-20 UTC');
SELECT line FROM log7 WHERE id >= uuid_v7_lower_bound('2025-03-05 UTC') AND id < uuid_v7_lower_bound('2025-03-20 UTC');
DROP TABLE log7;
CREATE TABLE h7 (id uuid7 NOT NULL DEFAULT uuid_generate_v7()) PARTITION BY HASH (id);
CREATE TABLE h7_0 PARTITION OF h7 FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE h7_1 PARTITION OF h7 FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO h7 SELECT FROM generate_series(1, 1000);
SELECT count(*) AS rows, count(*) FILTER (WHERE tableoid = 'h7_0'::regclass) BETWEEN 400 AND 600 AS spread FROM h7;
EXPLAIN (COSTS OFF) SELECT * FROM h7 WHERE id = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f';
DROP TABLE h7;

-- The operator classes are the defaults and complete.
SELECT c.opcname, a.amname, c.opcdefault, amvalidate(c.oid) AS valid
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE c.opcintype IN ('uuid7'::regtype, 'uuid6'::regtype) ORDER BY 1, 2;
-- The casts.
SELECT castsource::regtype, casttarget::regtype, castmethod, castcontext, castfunc::regproc
FROM pg_cast WHERE castsource IN ('uuid7'::regtype, 'uuid6'::regtype) OR casttarget IN ('uuid7'::regtype, 'uuid6'::regtype)
ORDER BY castsource::regtype::text, casttarget::regtype::text;

-- STRICT.
SELECT NULL::uuid7 IS NULL AS a, (NULL::uuid)::uuid6 IS NULL AS b, (NULL::uuid7)::timestamptz IS NULL AS c;

DROP TABLE o;
RESET TIME ZONE;
DROP EXTENSION uuid_ext;
