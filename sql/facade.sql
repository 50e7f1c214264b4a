-- The façade's keys (docs/facade.md#keys). One table per database in the
-- extension's schema, which PUBLIC cannot read: the functions that use it
-- read it as its owner (src/facade/keys.rs). pg_dump dumps its rows
-- (pg_extension_config_dump), so a dump carries the keys; standbys,
-- point-in-time recovery and pg_upgrade carry it as any table.
CREATE TABLE uuid_facade_key (
  key_id integer PRIMARY KEY CHECK (key_id OPERATOR(pg_catalog.>) 0),
  state text NOT NULL CHECK (state OPERATOR(pg_catalog.=) ANY (ARRAY['current', 'retired', 'dropped'])),
  key bytea CHECK (CASE WHEN state OPERATOR(pg_catalog.=) 'dropped' THEN key IS NULL
                   ELSE pg_catalog.octet_length(key) OPERATOR(pg_catalog.=) 32 END),
  fingerprint text NOT NULL,
  created timestamptz NOT NULL,
  retired timestamptz,
  dropped timestamptz
);
CREATE UNIQUE INDEX uuid_facade_key_one_current ON uuid_facade_key (state)
  WHERE state OPERATOR(pg_catalog.=) 'current';
REVOKE ALL ON uuid_facade_key FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('uuid_facade_key', '');

-- Every statement that changes the table drops each backend's cached key
-- schedules (a relcache invalidation, carried to standbys by the WAL).
CREATE TRIGGER uuid_facade_key_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON uuid_facade_key
  FOR EACH STATEMENT EXECUTE FUNCTION uuid_facade_key_changed();
REVOKE EXECUTE ON FUNCTION uuid_facade_key_changed() FROM PUBLIC;

-- The keys without their bytes. (Plain DDL, as the table: the names resolve
-- while the script's search_path puts pg_catalog first.)
CREATE VIEW uuid_facade_keys AS
  SELECT key_id, state, fingerprint, created, retired, dropped FROM uuid_facade_key;
REVOKE ALL ON uuid_facade_keys FROM PUBLIC;

-- Who may map and manage keys: the extension's owner, who grants it on.
-- Superusers only: moving key bytes between databases.
REVOKE EXECUTE ON FUNCTION uuid_v7_to_facade(uuid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_to_v7(uuid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_to_v7(uuid, text, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_candidates(uuid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_create() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_retire(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_drop(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_export(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_import(bytea) FROM PUBLIC;

-- The grants to the extension's owner, WITH GRANT OPTION. A database owner
-- who installs the trusted extension is not the objects' owner (the
-- bootstrap superuser is), so this gives them the façade to use and to
-- grant; when the installer owns the objects already there is nothing to
-- grant. Hardened as src/info.rs's block: search_path pinned, every name
-- schema-qualified, ours through the schema pg_extension records.
DO $$
DECLARE
  saved pg_catalog.text := pg_catalog.current_setting('search_path');
  ext pg_catalog.text := (SELECT e.extnamespace::pg_catalog.regnamespace::pg_catalog.text
                          FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'uuid_ext');
  owner pg_catalog.oid := (SELECT e.extowner FROM pg_catalog.pg_extension e
                           WHERE e.extname OPERATOR(pg_catalog.=) 'uuid_ext');
  f pg_catalog.text;
BEGIN
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  IF owner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r
                                     WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER) THEN
    FOREACH f IN ARRAY ARRAY['uuid_v7_to_facade(pg_catalog.uuid, pg_catalog.text)',
                             'uuid_facade_to_v7(pg_catalog.uuid, pg_catalog.text)',
                             'uuid_facade_to_v7(pg_catalog.uuid, pg_catalog.text, pg_catalog.int4)',
                             'uuid_facade_candidates(pg_catalog.uuid, pg_catalog.text)',
                             'uuid_facade_key_create()',
                             'uuid_facade_key_retire(pg_catalog.int4)',
                             'uuid_facade_key_drop(pg_catalog.int4)'] LOOP
      EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s.%s TO %s WITH GRANT OPTION',
                                ext, f, owner::pg_catalog.regrole);
    END LOOP;
    EXECUTE pg_catalog.format('GRANT SELECT ON %s.uuid_facade_keys TO %s WITH GRANT OPTION',
                              ext, owner::pg_catalog.regrole);
  END IF;
  PERFORM pg_catalog.set_config('search_path', saved, true);
END
$$;
