-- uuid_inspect()'s row, the composite type uuid_fields, kept and passed
-- around: stored in a column, passed to and returned from PL/pgSQL, and read
-- back after ALTER TABLE ... ALTER COLUMN ... TYPE on a table that holds it
-- beside uuid7 keys. The patched minors of 2026-11-12 (15.20, 17.12) stamp
-- each composite datum with a version and check it on use; with
-- composite_type_mismatch = error (a setting only they have) a mismatch is an
-- ERROR. Elsewhere the same statements run without the setting.
CREATE EXTENSION uuid_ext;
SET TIME ZONE 'UTC';
DO $$ BEGIN
  IF current_setting('composite_type_mismatch', true) IS NOT NULL THEN
    SET composite_type_mismatch = error;
  END IF;
END $$;
SELECT coalesce(current_setting('composite_type_mismatch', true), 'error') AS composite_type_mismatch;

CREATE TABLE inspected (id uuid7 PRIMARY KEY, of uuid, fields uuid_fields, n int);
INSERT INTO inspected (id, of, n) VALUES
  ('017F22E2-79B0-7CC3-98C4-DC0C0C07398F', '017F22E2-79B0-7CC3-98C4-DC0C0C07398F', 1),
  ('017F22E2-79B0-7CC4-98C4-DC0C0C07398F', '1EC9414C-232A-6B00-B3C8-9F6BDECED846', 2),
  ('017F22E2-79B0-7CC5-98C4-DC0C0C07398F', 'C232AB00-9414-11EC-B3C8-9F6BDECED846', 3),
  ('017F22E2-79B0-7CC6-98C4-DC0C0C07398F', '00000000-0000-0000-0000-000000000000', 4);
UPDATE inspected SET fields = uuid_inspect(of);
SELECT id, (fields).version, (fields).ts, (fields).rand_a, (fields).node, (fields).is_nil FROM inspected ORDER BY id;

-- Passed to PL/pgSQL, field by field and whole; and returned from it.
CREATE FUNCTION pg_temp.describe(f uuid_fields) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN coalesce(f.version::text, '-') || ' ' || f.variant || ' ' || coalesce(f.clock_seq::text, '-');
END $$;
SELECT n, pg_temp.describe(fields) FROM inspected ORDER BY n;
CREATE FUNCTION pg_temp.fields_of(k uuid7) RETURNS uuid_fields LANGUAGE plpgsql AS $$
DECLARE r uuid_fields;
BEGIN
  SELECT (fields).* INTO r FROM inspected WHERE id = k;
  RETURN r;
END $$;
SELECT (pg_temp.fields_of('017F22E2-79B0-7CC4-98C4-DC0C0C07398F')).*;

-- Other columns change type; the stored rows read back the same, and equal a
-- fresh uuid_inspect() of the same UUID.
ALTER TABLE inspected ALTER COLUMN n TYPE bigint;
ALTER TABLE inspected ALTER COLUMN id TYPE uuid;
ALTER TABLE inspected ALTER COLUMN id TYPE uuid7 USING id::uuid7;
ALTER TABLE inspected ALTER COLUMN of TYPE text;
SELECT n, fields = uuid_inspect(of::uuid) AS same, pg_temp.describe(fields) FROM inspected ORDER BY id;
SELECT pg_typeof(id), pg_typeof(n), (SELECT count(*) FROM inspected WHERE id >= uuid_v7_lower_bound('2022-02-22 19:22:22+00')) FROM inspected LIMIT 1;
DROP TABLE inspected;
DROP FUNCTION pg_temp.describe(uuid_fields), pg_temp.fields_of(uuid7);
DROP EXTENSION uuid_ext;
