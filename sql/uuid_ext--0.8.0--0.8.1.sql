-- uuid_ext 0.8.0 -> 0.8.1 (ALTER EXTENSION uuid_ext UPDATE TO '0.8.1'), a
-- security release (CHANGELOG.md, SECURITY.md). The key functions no longer
-- run SQL (src/facade/table.rs); in SQL, the key table changes as
-- docs/facade.md#who-may-call-what says:
-- - the key column becomes the type uuid_facade_secret, whose text and
--   binary forms show a key's bytes to superusers only;
-- - pg_dump dumps the table's rows for a superuser only, and the
--   extension's owner may read it (not the bytes) and insert into it, so
--   that its own pg_dump and restore work;
-- - a guard trigger refuses changes by anyone but the key functions and
--   superusers (pg_write_all_data, the owner's inserts);
-- - the invalidation trigger fires in logical replication's apply too.
-- tests/upgrade checks that the catalog after the update equals a fresh
-- 0.8.1 install, and that every key made before it maps as before.
\echo Use "ALTER EXTENSION uuid_ext UPDATE TO '0.8.1'" to load this file. \quit

CREATE TYPE uuid_facade_secret;
CREATE FUNCTION uuid_facade_secret_in(cstring) RETURNS uuid_facade_secret
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_facade_secret_in';
CREATE FUNCTION uuid_facade_secret_out(uuid_facade_secret) RETURNS cstring
  STABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_facade_secret_out';
CREATE FUNCTION uuid_facade_secret_recv(internal) RETURNS uuid_facade_secret
  IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_facade_secret_recv';
CREATE FUNCTION uuid_facade_secret_send(uuid_facade_secret) RETURNS bytea
  STABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'uuid_facade_secret_send';
CREATE TYPE uuid_facade_secret (
  INPUT = uuid_facade_secret_in, OUTPUT = uuid_facade_secret_out,
  RECEIVE = uuid_facade_secret_recv, SEND = uuid_facade_secret_send,
  INTERNALLENGTH = 32, ALIGNMENT = char, STORAGE = plain
);
COMMENT ON TYPE uuid_facade_secret IS 'A facade key''s 32 bytes, shown to superusers only';
-- No other role keeps a value of it (a table, a view, a default of its own);
-- its functions are the type's, not for calling.
REVOKE USAGE ON TYPE uuid_facade_secret FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_secret_in(cstring), uuid_facade_secret_out(uuid_facade_secret),
  uuid_facade_secret_recv(internal), uuid_facade_secret_send(uuid_facade_secret) FROM PUBLIC;

-- The keys keep their bytes: bytea's hex text is the new type's text form.
ALTER TABLE uuid_facade_key DROP CONSTRAINT uuid_facade_key_check;
ALTER TABLE uuid_facade_key ALTER COLUMN key TYPE uuid_facade_secret
  USING (('\x'::pg_catalog.text OPERATOR(pg_catalog.||) pg_catalog.encode(key, 'hex'::pg_catalog.text))::uuid_facade_secret);
ALTER TABLE uuid_facade_key ADD CONSTRAINT uuid_facade_key_bytes
  CHECK ((state OPERATOR(pg_catalog.=) 'dropped') OPERATOR(pg_catalog.=) (key IS NULL));
SELECT pg_catalog.pg_extension_config_dump('uuid_facade_key',
  'WHERE (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) SESSION_USER)');

ALTER TABLE uuid_facade_key ENABLE ALWAYS TRIGGER uuid_facade_key_changed;
CREATE FUNCTION "uuid_facade_key_guard"()
	RETURNS TRIGGER
	LANGUAGE c
	AS 'MODULE_PATHNAME', 'uuid_facade_key_guard_wrapper';
CREATE TRIGGER uuid_facade_key_guard
  BEFORE INSERT OR UPDATE OR DELETE ON uuid_facade_key
  FOR EACH ROW EXECUTE FUNCTION uuid_facade_key_guard();
REVOKE EXECUTE ON FUNCTION uuid_facade_key_guard() FROM PUBLIC;

-- The extension's owner reads and inserts into the key table (its dump and
-- restore), when it is not the objects' owner (a trusted install).
-- Hardened as sql/facade.sql's block.
DO $$
DECLARE
  saved pg_catalog.text := pg_catalog.current_setting('search_path');
  ext pg_catalog.text := (SELECT e.extnamespace::pg_catalog.regnamespace::pg_catalog.text
                          FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'uuid_ext');
  owner pg_catalog.oid := (SELECT e.extowner FROM pg_catalog.pg_extension e
                           WHERE e.extname OPERATOR(pg_catalog.=) 'uuid_ext');
BEGIN
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  IF owner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r
                                     WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER) THEN
    EXECUTE pg_catalog.format('GRANT SELECT, INSERT ON %s.uuid_facade_key TO %s',
                              ext, owner::pg_catalog.regrole);
  END IF;
  PERFORM pg_catalog.set_config('search_path', saved, true);
END
$$;
