-- uuid_ext 0.8.1 -> 0.9.0 (ALTER EXTENSION uuid_ext UPDATE TO '0.9.0'): the
-- façade on a Citus cluster (docs/facade.md#on-a-citus-cluster) and the
-- commit watermark of a cluster (docs/ordering.md#on-a-citus-cluster):
-- - the cluster key table, kept as the key table is (bytes for superusers
--   only, dumped for them only, changed only through its functions), and
--   its functions, for superusers only;
-- - uuid_facade_cluster_sync() for the extension's owner, who grants it on;
-- - the workers' side of the coordinator's command: it takes only a
--   command the cluster key authenticates, run by the role it names, only
--   forward;
-- - uuid_v7_cluster_watermark().
-- tests/upgrade checks that the catalog after the update equals a fresh
-- 0.9.0 install.
\echo Use "ALTER EXTENSION uuid_ext UPDATE TO '0.9.0'" to load this file. \quit

CREATE  FUNCTION "uuid_facade_cluster_key_create"() RETURNS TEXT /* String */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_facade_cluster_key_create_wrapper';

CREATE  FUNCTION "uuid_facade_cluster_key_export"() RETURNS bytea /* Vec < u8 > */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_facade_cluster_key_export_wrapper';

CREATE  FUNCTION "uuid_facade_cluster_key_import"(
	"key" bytea /* & [u8] */
) RETURNS TEXT /* String */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_facade_cluster_key_import_wrapper';

CREATE  FUNCTION "uuid_facade_cluster_sync"() RETURNS INT /* i32 */
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_facade_cluster_sync_wrapper';

CREATE  FUNCTION "uuid_facade_key_sync"(
	"cluster_fingerprint" TEXT, /* & str */
	"ids" INT[], /* Vec < i32 > */
	"states" TEXT[], /* Vec < String > */
	"wrapped" bytea[], /* pgrx :: datum :: Array < '_, & [u8] > */
	"fingerprints" TEXT[], /* Vec < String > */
	"created" bigint[], /* Vec < i64 > */
	"retired" bigint[], /* Vec < Option < i64 > > */
	"dropped" bigint[], /* Vec < Option < i64 > > */
	"sender" TEXT, /* & str */
	"tag" bytea /* & [u8] */
) RETURNS void
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_facade_key_sync_wrapper';

CREATE FUNCTION uuid_v7_cluster_watermark() RETURNS uuid
  VOLATILE STRICT PARALLEL UNSAFE LANGUAGE plpgsql
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  ext pg_catalog.text := (SELECT e.extnamespace::pg_catalog.regnamespace::pg_catalog.text
                          FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'uuid_ext');
  command pg_catalog.text := pg_catalog.format('SELECT %s.uuid_v7_watermark()', ext);
  lowest pg_catalog.uuid;
  failed pg_catalog.text;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'citus') THEN
    EXECUTE command INTO lowest;
    RETURN lowest;
  END IF;
  EXECUTE 'SELECT (pg_catalog.array_agg(r.result::pg_catalog.uuid ORDER BY r.result::pg_catalog.uuid)
                   FILTER (WHERE r.success))[1],
                  pg_catalog.string_agg(r.nodeid::pg_catalog.text OPERATOR(pg_catalog.||) '': ''
                                        OPERATOR(pg_catalog.||) r.result, ''; '') FILTER (WHERE NOT r.success)
           FROM pg_catalog.run_command_on_all_nodes($1) r'
    INTO lowest, failed USING command;
  IF failed IS NOT NULL THEN
    RAISE EXCEPTION 'uuid_v7_cluster_watermark() could not read every node''s watermark'
      USING ERRCODE = 'object_not_in_prerequisite_state', DETAIL = failed;
  END IF;
  RETURN lowest;
END
$$;

CREATE TABLE uuid_facade_cluster_key (
  key uuid_facade_secret NOT NULL,
  fingerprint text NOT NULL,
  created timestamptz NOT NULL
);
CREATE UNIQUE INDEX uuid_facade_cluster_key_one ON uuid_facade_cluster_key ((true));
REVOKE ALL ON uuid_facade_cluster_key FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('uuid_facade_cluster_key',
  'WHERE (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) SESSION_USER)');
CREATE TRIGGER uuid_facade_cluster_key_guard
  BEFORE INSERT OR UPDATE OR DELETE ON uuid_facade_cluster_key
  FOR EACH ROW EXECUTE FUNCTION uuid_facade_key_guard();

REVOKE EXECUTE ON FUNCTION uuid_facade_cluster_key_create() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_cluster_key_export() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_cluster_key_import(bytea) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION uuid_facade_cluster_sync() FROM PUBLIC;

-- The extension's owner, when it is not the objects' owner (a trusted
-- install), as sql/facade.sql grants: uuid_facade_cluster_sync() with
-- grant option, and the cluster key table to read (its bytes stay hidden)
-- and insert into (the guard refuses rows), for its dump and restore.
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
    EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s.uuid_facade_cluster_sync() TO %s WITH GRANT OPTION',
                              ext, owner::pg_catalog.regrole);
    EXECUTE pg_catalog.format('GRANT SELECT, INSERT ON %s.uuid_facade_cluster_key TO %s',
                              ext, owner::pg_catalog.regrole);
  END IF;
  PERFORM pg_catalog.set_config('search_path', saved, true);
END
$$;
