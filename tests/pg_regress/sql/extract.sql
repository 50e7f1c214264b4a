-- Reading UUIDs back: RFC 9562 test vectors, versions, variants, NULLs.
-- Schema-qualified: on PostgreSQL 17+ core has functions of the same names
-- in pg_catalog, which an unqualified call reaches first.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

-- RFC 9562 Appendix A: v1, v6 and v7 of 2022-02-22 19:22:22 UTC.
SELECT v AS uuid,
       public.uuid_extract_version(v) AS version,
       public.uuid_extract_timestamp(v) AS ts
FROM (VALUES ('C232AB00-9414-11EC-B3C8-9F6BDECED846'::uuid),
             ('1EC9414C-232A-6B00-B3C8-9F6BDECED846'),
             ('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'),
             ('919108F7-52D1-4320-9BAC-F847DB4148A8'),   -- v4: no time
             ('5c146b14-3c52-8afd-938a-375d0df1fbf6'),   -- v8 (RFC 9562 A.7): no time
             ('00000000-0000-0000-0000-000000000000'),   -- Nil
             ('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')    -- Max
     ) AS t(v);

-- The variant decides: a version nibble outside RFC 9562's variant is no version.
SELECT public.uuid_extract_version('017F22E2-79B0-7CC3-18C4-DC0C0C07398F') AS ncs,
       public.uuid_extract_version('017F22E2-79B0-7CC3-C8C4-DC0C0C07398F') AS microsoft,
       public.uuid_extract_version('017F22E2-79B0-7CC3-E8C4-DC0C0C07398F') AS future,
       public.uuid_extract_timestamp('017F22E2-79B0-7CC3-C8C4-DC0C0C07398F') AS microsoft_ts;

-- v1 and v6 keep microseconds (the 100 ns remainder is truncated); v7 has milliseconds.
SELECT public.uuid_extract_timestamp('C232AB0F-9414-11EC-B3C8-9F6BDECED846') AS v1_plus_1_5us,
       public.uuid_extract_timestamp('1EC9414C-232A-6B0F-B3C8-9F6BDECED846') AS v6_plus_1_5us;

-- The edges of each time scale.
SELECT public.uuid_extract_timestamp('00000000-0000-1000-8000-000000000000') AS v1_gregorian_epoch,
       public.uuid_extract_timestamp('FFFFFFFF-FFFF-1FFF-8000-000000000000') AS v1_last,
       public.uuid_extract_timestamp('00000000-0000-7000-8000-000000000000') AS v7_unix_epoch,
       public.uuid_extract_timestamp('FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF') AS v7_last;

-- Every version nibble under the RFC variant.
SELECT string_agg(public.uuid_extract_version(
         ('00000000-0000-' || to_hex(n) || '000-8000-000000000000')::uuid)::text, ',' ORDER BY n) AS versions
FROM generate_series(0, 15) AS n;

-- STRICT: NULL in, NULL out.
SELECT public.uuid_extract_timestamp(NULL) IS NULL AS ts_null,
       public.uuid_extract_version(NULL) IS NULL AS version_null;

-- IMMUTABLE: usable in an index expression and a generated column.
CREATE TABLE ext_t (id uuid, ts timestamptz GENERATED ALWAYS AS (public.uuid_extract_timestamp(id)) STORED);
CREATE INDEX ON ext_t (public.uuid_extract_timestamp(id));
INSERT INTO ext_t (id) VALUES ('017F22E2-79B0-7CC3-98C4-DC0C0C07398F');
SELECT ts FROM ext_t;
DROP TABLE ext_t;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
