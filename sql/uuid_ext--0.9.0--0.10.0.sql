-- uuid_ext 0.9.0 -> 0.10.0 (ALTER EXTENSION uuid_ext UPDATE TO '0.10.0'):
-- on a Citus cluster nothing of uuid_ext's runs on a worker by a name a
-- database owner controls (docs/facade.md#on-a-citus-cluster,
-- docs/ordering.md#on-a-citus-cluster):
-- - the workers' side of the coordinator's key command,
--   uuid_facade_key_sync(...), goes: the keys now reach a worker as a
--   sealed value of the setting uuid_ext.facade_sync, which the worker's
--   library takes; the cluster key table records the generation of the key
--   set each node last sealed or took;
-- - uuid_v7_cluster_watermark() asks each node with SHOW uuid_ext.watermark
--   instead of calling a function there by name;
-- - the guard triggers fire under session_replication_role = replica too
--   (a subscription's apply), and PUBLIC loses USAGE on the key tables' row
--   types (a column of them would copy a key's bytes).
-- On Citus, install the new library on every node (and restart), then run
-- this on the coordinator: Citus runs it on the workers too.
-- tests/upgrade checks that the catalog after the update equals a fresh
-- 0.10.0 install.
\echo Use "ALTER EXTENSION uuid_ext UPDATE TO '0.10.0'" to load this file. \quit

DROP FUNCTION uuid_facade_key_sync(text, integer[], text[], bytea[], text[], bigint[], bigint[], bigint[], text, bytea);

ALTER TABLE uuid_facade_cluster_key ADD COLUMN generation bigint NOT NULL DEFAULT 0;

ALTER TABLE uuid_facade_key ENABLE ALWAYS TRIGGER uuid_facade_key_guard;
ALTER TABLE uuid_facade_cluster_key ENABLE ALWAYS TRIGGER uuid_facade_cluster_key_guard;
REVOKE USAGE ON TYPE uuid_facade_key, uuid_facade_cluster_key FROM PUBLIC;

CREATE OR REPLACE FUNCTION uuid_v7_cluster_watermark() RETURNS uuid
  VOLATILE STRICT PARALLEL UNSAFE LANGUAGE plpgsql
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  lowest pg_catalog.uuid;
  failed pg_catalog.text;
BEGIN
  IF pg_catalog.current_setting('uuid_ext.watermark', true) IS NULL THEN
    RAISE EXCEPTION 'uuid_v7_cluster_watermark() needs the shared sequencer: uuid_ext is not in shared_preload_libraries'
      USING ERRCODE = 'object_not_in_prerequisite_state',
            HINT = 'Add uuid_ext to shared_preload_libraries (after citus on a Citus node) and restart the server.';
  END IF;
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'citus') THEN
    failed := pg_catalog.current_setting('uuid_ext.watermark');
    IF failed OPERATOR(pg_catalog.~) '^unavailable: ' THEN
      RAISE EXCEPTION 'uuid_v7_cluster_watermark() has no watermark of this node: %',
                      pg_catalog.substr(failed, 14)
        USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    RETURN failed::pg_catalog.uuid;
  END IF;
  -- A node answers its watermark, or 'unavailable: ' and why.
  EXECUTE 'SELECT (pg_catalog.array_agg(r.result::pg_catalog.uuid ORDER BY r.result::pg_catalog.uuid)
                   FILTER (WHERE r.success AND r.result OPERATOR(pg_catalog.!~) ''^unavailable: ''))[1],
                  pg_catalog.string_agg(r.nodeid::pg_catalog.text OPERATOR(pg_catalog.||) '': ''
                                        OPERATOR(pg_catalog.||) r.result, ''; '')
                    FILTER (WHERE NOT r.success OR r.result OPERATOR(pg_catalog.~) ''^unavailable: '')
           FROM pg_catalog.run_command_on_all_nodes(''SHOW uuid_ext.watermark'') r'
    INTO lowest, failed;
  IF failed IS NOT NULL THEN
    RAISE EXCEPTION 'uuid_v7_cluster_watermark() could not read every node''s watermark'
      USING ERRCODE = 'object_not_in_prerequisite_state', DETAIL = failed,
            HINT = 'Every node needs uuid_ext in shared_preload_libraries, after citus: docs/ordering.md#on-a-citus-cluster.';
  END IF;
  RETURN lowest;
END
$$;
