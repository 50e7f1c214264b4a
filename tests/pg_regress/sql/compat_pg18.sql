-- PostgreSQL 18's generator names on every version (src/compat_pg18.rs):
-- uuidv7(), uuidv7(shift interval) and uuidv4(), with core 18's signatures
-- and labels. On 15, 16 and 17 an unqualified call reaches ours; from 18 on
-- core's in pg_catalog come first and ours answer schema-qualified calls. The
-- expected output differs where core has uuidv7() (expected/with-core-uuidv7/).
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';

-- Ours beside core's where core has them: the same arguments, result and labels.
SELECT p.pronamespace::regnamespace AS schema, p.proname, pg_get_function_arguments(p.oid) AS arguments,
       p.prorettype::regtype AS returns, p.provolatile, p.proisstrict, p.proparallel
FROM pg_proc p WHERE p.proname IN ('uuidv7', 'uuidv4')
ORDER BY p.pronamespace::regnamespace::text DESC, p.proname DESC, 3;

-- Which function an unqualified call reaches.
SELECT call, (SELECT p.pronamespace::regnamespace FROM pg_proc p WHERE p.oid = call::regprocedure) AS reaches
FROM (VALUES ('uuidv7()'), ('uuidv7(interval)'), ('uuidv4()')) AS t(call);

-- Ours draw from uuid_generate_v7's sequencer: interleaved, every value is
-- greater than the one before, and carries version 7 and the RFC variant.
WITH s AS (
  SELECT n, CASE n % 3 WHEN 0 THEN public.uuidv7()
                       WHEN 1 THEN uuid_generate_v7()
                       ELSE public.uuidv7(interval '0') END AS id
  FROM generate_series(1, 30000) n),
l AS (SELECT id, lag(id) OVER (ORDER BY n) AS before FROM s)
SELECT count(*) AS n, count(*) FILTER (WHERE id <= before) AS not_increasing,
       bool_and(public.uuid_extract_version(id) = 7) AS all_v7,
       bool_and((uuid_inspect(id)).variant = 'RFC 9562') AS rfc_variant
FROM l;

-- The shift moves the time as uuid_generate_v7(shift) does; named notation
-- with core's argument name; NULL in, NULL out.
SELECT abs(extract(epoch FROM public.uuid_extract_timestamp(public.uuidv7(interval '-1 day')) - (now() - interval '1 day'))) < 60 AS back_a_day,
       abs(extract(epoch FROM public.uuid_extract_timestamp(public.uuidv7(shift => interval '3 hours')) - (now() + interval '3 hours'))) < 60 AS named,
       public.uuidv7(NULL::interval) IS NULL AS strict;

-- Out of the 48-bit range: 22008 with core 18's words (18.6 and later),
-- and beyond PostgreSQL's own range what timestamptz + interval says; where
-- core has uuidv7(interval), its answer to the same call is compared
-- (uuid_generate_v7(shift) keeps uuid_ext's words: the errors golden test).
CREATE FUNCTION pg_temp.fails(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  DECLARE detail text;
  BEGIN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' / ' || nullif(detail, ''), '');
  END;
END $$;
SELECT shift, pg_temp.fails(format('SELECT public.uuidv7(interval %L)', shift)) AS ours,
       CASE WHEN to_regprocedure('pg_catalog.uuidv7(interval)') IS NOT NULL
            THEN pg_temp.fails(format('SELECT public.uuidv7(interval %L)', shift))
               = pg_temp.fails(format('SELECT pg_catalog.uuidv7(interval %L)', shift)) END AS same_as_core
FROM (VALUES ('9000 years'), ('-100 years'), ('-57 years'), ('300000 years')) AS t(shift);

-- uuidv4(): version 4, the RFC variant, every one distinct, and each of the
-- 122 free bits set in about half of 20,000 (get_bit numbers a byte's bits
-- from its least significant one: bits 52-55 are byte 6's high nibble, the
-- version 0100; bits 70 and 71 byte 8's top two, the variant 10).
SELECT count(*) AS n, count(DISTINCT id) AS distinct_ids,
       bool_and(public.uuid_extract_version(id) = 4) AS all_v4
FROM (SELECT public.uuidv4() AS id FROM generate_series(1, 20000)) s;
WITH u AS (SELECT uuid_send(public.uuidv4()) AS b FROM generate_series(1, 20000)),
bits AS (SELECT n, avg(get_bit(b, n)) AS share FROM u, generate_series(0, 127) n GROUP BY n)
SELECT count(*) FILTER (WHERE share BETWEEN 0.45 AND 0.55) AS random_bits,
       string_agg(n || '=' || round(share), ' ' ORDER BY n) FILTER (WHERE share NOT BETWEEN 0.45 AND 0.55) AS fixed_bits
FROM bits;

-- A column default written for 18, unqualified: it binds to what the
-- unqualified call reaches (the catalog records a dependency on ours, none
-- on core's pinned functions).
CREATE TABLE ev (id uuid PRIMARY KEY DEFAULT uuidv7(), back uuid DEFAULT uuidv7(interval '-1 day'),
                 tok uuid DEFAULT uuidv4(), ours uuid DEFAULT public.uuidv7(), n int);
INSERT INTO ev (n) SELECT generate_series(1, 100);
SELECT count(*) AS n, count(DISTINCT id) AS ids, bool_and(id < ours) AS id_before_ours,
       bool_and(public.uuid_extract_version(tok) = 4) AS tok_v4
FROM ev;
SELECT a.attname, pg_get_expr(ad.adbin, ad.adrelid) AS default_expr,
       (SELECT string_agg(d.refobjid::regprocedure::text, ', ') FROM pg_depend d
        WHERE d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid AND d.refclassid = 'pg_proc'::regclass) AS depends_on
FROM pg_attrdef ad JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
WHERE ad.adrelid = 'ev'::regclass ORDER BY a.attnum;
DROP TABLE ev;

-- A function of the same signature already in the schema (a hand-written
-- uuidv7(), say) stops CREATE EXTENSION and the update from 0.5.0; another
-- schema, or the function dropped, lets them through.
DROP EXTENSION uuid_ext;
CREATE FUNCTION public.uuidv7() RETURNS uuid LANGUAGE sql AS 'SELECT gen_random_uuid()';
-- (18 on names the install script's line in a CONTEXT that moves with every
-- release; the error is what counts)
\set SHOW_CONTEXT never
CREATE EXTENSION uuid_ext;
\set SHOW_CONTEXT errors
CREATE EXTENSION uuid_ext VERSION '0.5.0';
ALTER EXTENSION uuid_ext UPDATE TO '0.6.0';
DROP EXTENSION uuid_ext;
CREATE SCHEMA uuid_ext_elsewhere;
CREATE EXTENSION uuid_ext SCHEMA uuid_ext_elsewhere;
SELECT uuid_ext_elsewhere.uuid_extract_version(uuid_ext_elsewhere.uuidv7()) AS elsewhere_v7;
DROP EXTENSION uuid_ext;
DROP SCHEMA uuid_ext_elsewhere;
DROP FUNCTION public.uuidv7();
CREATE EXTENSION uuid_ext VERSION '0.5.0';
ALTER EXTENSION uuid_ext UPDATE TO '0.6.0';
SELECT extversion, public.uuid_extract_version(public.uuidv7()) AS v7, public.uuid_extract_version(public.uuidv4()) AS v4
FROM pg_extension WHERE extname = 'uuid_ext';

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
