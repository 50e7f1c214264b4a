-- The commit watermark of a Citus cluster (docs/ordering.md#on-a-citus-cluster):
-- the lowest of every node's uuid_v7_watermark(), read from any node by
-- Citus's run_command_on_all_nodes(); without Citus in the database, this
-- node's. PL/pgSQL, so that it installs where Citus is not: the names it
-- uses are looked up when it runs, under the search_path it pins.
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
