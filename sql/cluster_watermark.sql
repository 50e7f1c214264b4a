-- The commit watermark of a Citus cluster (docs/ordering.md#on-a-citus-cluster):
-- the lowest of every node's watermark, read from any node with Citus's
-- run_command_on_all_nodes(); without Citus in the database, this node's.
-- Each node is asked with SHOW uuid_ext.watermark: a setting whose value
-- uuid_ext's library computes (uuid_v7_watermark()), behind a name no role
-- can plant, so a database owner's objects on a worker never run as the
-- caller. PL/pgSQL, so that it installs where Citus is not: the names it
-- uses are looked up when it runs, under the search_path it pins.
CREATE FUNCTION uuid_v7_cluster_watermark() RETURNS uuid
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
