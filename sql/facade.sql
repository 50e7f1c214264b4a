-- The façade's keys (docs/facade.md#keys). One table per database in the
-- extension's schema. The key functions read and write it without SQL, as
-- the calling role (src/facade/table.rs); in SQL, who may do what is below
-- (docs/facade.md#who-may-call-what).

-- A key's 32 bytes: a type whose text and binary forms show them to
-- superusers only (42501 for anyone else), and that only superusers make
-- from text or binary, with no operator, cast or other function, so a role
-- that may read the table reads ids, states and dates
-- (src/facade/secret.rs). Output and send depend on the role: STABLE.
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
-- No other role keeps a value of it (a table, a view, a default of its own;
-- nor a row of the key tables, below); its functions are the type's, not
-- for calling.
REVOKE USAGE ON TYPE uuid_facade_secret FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_secret_in(cstring), uuid_facade_secret_out(uuid_facade_secret),
  uuid_facade_secret_recv(internal), uuid_facade_secret_send(uuid_facade_secret) FROM PUBLIC;

CREATE TABLE uuid_facade_key (
  key_id integer PRIMARY KEY CHECK (key_id OPERATOR(pg_catalog.>) 0),
  state text NOT NULL CHECK (state OPERATOR(pg_catalog.=) ANY (ARRAY['current', 'retired', 'dropped'])),
  key uuid_facade_secret,
  fingerprint text NOT NULL,
  created timestamptz NOT NULL,
  retired timestamptz,
  dropped timestamptz,
  CONSTRAINT uuid_facade_key_bytes
    CHECK ((state OPERATOR(pg_catalog.=) 'dropped') OPERATOR(pg_catalog.=) (key IS NULL))
);
CREATE UNIQUE INDEX uuid_facade_key_one_current ON uuid_facade_key (state)
  WHERE state OPERATOR(pg_catalog.=) 'current';
REVOKE ALL ON uuid_facade_key FROM PUBLIC;
-- pg_dump dumps the rows when its session's user is a superuser: another
-- role that may read the table (the extension's owner, pg_read_all_data)
-- dumps none, and its dump succeeds; a superuser's session that has become
-- another role (SET ROLE, ALTER DATABASE ... SET role) fails on the key's
-- bytes rather than dump no key.
SELECT pg_catalog.pg_extension_config_dump('uuid_facade_key',
  'WHERE (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) SESSION_USER)');

-- Every statement that changes the table drops each backend's cached key
-- schedules (a relcache invalidation, carried to standbys by the WAL);
-- ALWAYS: logical replication's apply fires it too.
CREATE TRIGGER uuid_facade_key_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON uuid_facade_key
  FOR EACH STATEMENT EXECUTE FUNCTION uuid_facade_key_changed();
ALTER TABLE uuid_facade_key ENABLE ALWAYS TRIGGER uuid_facade_key_changed;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_changed() FROM PUBLIC;
-- A row changes through the key functions, or by a superuser (42501 for
-- anyone else who may write: the extension's owner, pg_write_all_data).
-- ALWAYS: a subscription's apply (session_replication_role = replica)
-- fires it too, so one owned by a role that is not a superuser changes no
-- row.
CREATE TRIGGER uuid_facade_key_guard
  BEFORE INSERT OR UPDATE OR DELETE ON uuid_facade_key
  FOR EACH ROW EXECUTE FUNCTION uuid_facade_key_guard();
ALTER TABLE uuid_facade_key ENABLE ALWAYS TRIGGER uuid_facade_key_guard;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_guard() FROM PUBLIC;

-- The cluster key (docs/facade.md#on-a-citus-cluster): one per database,
-- on every node of a Citus cluster, under which the coordinator seals the
-- keys for the workers, with the generation of the key set this node last
-- sealed or took. Kept as the keys are: bytes for superusers only, dumped
-- for them only, changed only through its functions.
CREATE TABLE uuid_facade_cluster_key (
  key uuid_facade_secret NOT NULL,
  fingerprint text NOT NULL,
  created timestamptz NOT NULL,
  generation bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX uuid_facade_cluster_key_one ON uuid_facade_cluster_key ((true));
REVOKE ALL ON uuid_facade_cluster_key FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('uuid_facade_cluster_key',
  'WHERE (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) SESSION_USER)');
CREATE TRIGGER uuid_facade_cluster_key_guard
  BEFORE INSERT OR UPDATE OR DELETE ON uuid_facade_cluster_key
  FOR EACH ROW EXECUTE FUNCTION uuid_facade_key_guard();
ALTER TABLE uuid_facade_cluster_key ENABLE ALWAYS TRIGGER uuid_facade_cluster_key_guard;
-- A column of the tables' row types would hold a key's bytes past the
-- REVOKE on uuid_facade_secret (a composite's USAGE is checked, not its
-- fields'): no other role keeps a row of them in a table of its own.
REVOKE USAGE ON TYPE uuid_facade_key, uuid_facade_cluster_key FROM PUBLIC;

-- The keys without their bytes. (Plain DDL, as the table: the names resolve
-- while the script's search_path puts pg_catalog first.)
CREATE VIEW uuid_facade_keys AS
  SELECT key_id, state, fingerprint, created, retired, dropped FROM uuid_facade_key;
REVOKE ALL ON uuid_facade_keys FROM PUBLIC;

-- Who may map and manage keys: the extension's owner, who grants it on.
-- Superusers only: moving key bytes between databases, the cluster key.
REVOKE EXECUTE ON FUNCTION uuid_v7_to_facade(uuid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_to_v7(uuid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_to_v7(uuid, text, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_candidates(uuid, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_create() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_retire(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_drop(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_export(integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_key_import(bytea) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_cluster_key_create() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_cluster_key_export() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_cluster_key_import(bytea) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_cluster_sync() FROM PUBLIC;

-- The grants to the extension's owner: the façade's functions WITH GRANT
-- OPTION, and the key table to read (its bytes stay hidden) and insert
-- into (the guard refuses rows), so that its pg_dump and the restore of
-- that dump work. A database owner who installs the trusted extension is
-- not the objects' owner (the bootstrap superuser is); when the installer
-- owns the objects already there is nothing to grant. Hardened as
-- src/info.rs's block: search_path pinned, every name schema-qualified,
-- ours through the schema pg_extension records.
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
                             'uuid_facade_key_drop(pg_catalog.int4)',
                             'uuid_facade_cluster_sync()'] LOOP
      EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s.%s TO %s WITH GRANT OPTION',
                                ext, f, owner::pg_catalog.regrole);
    END LOOP;
    EXECUTE pg_catalog.format('GRANT SELECT ON %s.uuid_facade_keys TO %s WITH GRANT OPTION',
                              ext, owner::pg_catalog.regrole);
    EXECUTE pg_catalog.format('GRANT SELECT, INSERT ON %s.uuid_facade_key, %s.uuid_facade_cluster_key TO %s',
                              ext, ext, owner::pg_catalog.regrole);
  END IF;
  PERFORM pg_catalog.set_config('search_path', saved, true);
END
$$;
