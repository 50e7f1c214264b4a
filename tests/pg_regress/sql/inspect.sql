-- uuid_inspect(): every field by name; uuid_extract_timestamp_text().
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';
\x on

-- RFC 9562's v1, v6 and v7 of 2022-02-22 19:22:22 UTC.
SELECT * FROM uuid_inspect('C232AB00-9414-11EC-B3C8-9F6BDECED846');
SELECT * FROM uuid_inspect('1EC9414C-232A-6B00-B3C8-9F6BDECED846');
SELECT * FROM uuid_inspect('017F22E2-79B0-7CC3-98C4-DC0C0C07398F');
-- A v6 with 1.5 µs more: ts keeps the microsecond, ts_exact the 100 ns.
SELECT ts, ts_exact FROM uuid_inspect('1EC9414C-232A-6B0F-B3C8-9F6BDECED846');
-- v4, v8 (RFC 9562 B.1), Nil, Max, and a version nibble under the Microsoft variant.
SELECT * FROM uuid_inspect('919108F7-52D1-4320-9BAC-F847DB4148A8');
SELECT * FROM uuid_inspect('2489E9AD-2EE2-8E00-8EC9-32D5F69181C0');
SELECT * FROM uuid_inspect('00000000-0000-0000-0000-000000000000');
SELECT * FROM uuid_inspect('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF');
SELECT * FROM uuid_inspect('017F22E2-79B0-7CC3-D8C4-DC0C0C07398F');
\x off

-- Every variant by name.
SELECT b, (uuid_inspect(('017F22E2-79B0-7CC3-' || b || '8C4-DC0C0C07398F')::uuid)).variant
FROM unnest(ARRAY['0', '7', '8', 'B', 'C', 'D', 'E', 'F']) AS b;
-- Fields read back what uuid_ext made: the v7 fraction is the time's, the node a MAC address.
SELECT (f).version, (f).ts = public.uuid_extract_timestamp(id) AS ts_agrees,
       (f).sub_ms_fraction = (f).rand_a / 4096.0 AS fraction_agrees,
       (f).node::macaddr IS NOT NULL AS node_is_a_macaddr
FROM (SELECT id, uuid_inspect(id) AS f FROM (VALUES (uuid_generate_v7()), (uuid_generate_v6())) v(id)) s
ORDER BY 1;
-- As a composite: NULL in, NULL out; in FROM, one row for any UUID.
SELECT uuid_inspect(NULL) IS NULL AS null_in_null_out,
       (SELECT count(*) FROM uuid_inspect(gen_random_uuid())) AS one_row;

-- uuid_extract_timestamp_text: the same reading of text, for callers that
-- pass text (pg_partman's decoder(col::text)); whatever core uuid accepts.
SELECT t, uuid_extract_timestamp_text(t)
FROM unnest(ARRAY['017F22E2-79B0-7CC3-98C4-DC0C0C07398F',
                  '{1ec9414c-232a-6b00-b3c8-9f6bdeced846}',
                  'C232-AB00-9414-11EC-B3C8-9F6B-DECE-D846',
                  'c232ab00941411ecb3c89f6bdeced846',
                  '919108f7-52d1-4320-9bac-f847db4148a8']) AS t;
SELECT bool_and(uuid_extract_timestamp_text(id::text) = public.uuid_extract_timestamp(id)) AS agrees_with_uuid_reader
FROM (SELECT uuid_generate_v7() AS id FROM generate_series(1, 1000)
      UNION ALL SELECT uuid_generate_v6() FROM generate_series(1, 1000)) s;
SELECT uuid_extract_timestamp_text(NULL) IS NULL AS strict;

RESET TIME ZONE;
DROP EXTENSION uuid_ext;
