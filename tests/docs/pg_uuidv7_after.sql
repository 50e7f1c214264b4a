-- After the move: pg_uuidv7 is gone, uuid_ext is in public, every default
-- calls uuid_ext's functions, old rows are intact and new ones keep order.
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_uuidv7') THEN
    RAISE EXCEPTION 'pg_uuidv7 is still installed';
  END IF;
  IF (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'uuid_ext') IS DISTINCT FROM 'public' THEN
    RAISE EXCEPTION 'uuid_ext is not in public';
  END IF;
  IF EXISTS (SELECT FROM pg_namespace WHERE nspname = 'uuid_ext_migration') THEN
    RAISE EXCEPTION 'the migration schema is left behind';
  END IF;
  -- Each default depends on a function of uuid_ext.
  IF (SELECT count(*) FROM pg_attrdef ad
      JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid AND d.refclassid = 'pg_proc'::regclass
      JOIN pg_depend x ON x.classid = 'pg_proc'::regclass AND x.objid = d.refobjid AND x.deptype = 'e'
      JOIN pg_extension e ON e.oid = x.refobjid AND e.extname = 'uuid_ext'
      WHERE ad.adrelid IN ('orders'::regclass, 'audit'::regclass)) <> 2 THEN
    RAISE EXCEPTION 'defaults do not all call uuid_ext: %',
      (SELECT string_agg(pg_get_expr(adbin, adrelid), ', ') FROM pg_attrdef);
  END IF;
  IF (SELECT count(*) FROM orders) <> 100 THEN
    RAISE EXCEPTION 'rows lost';
  END IF;
END $$;
INSERT INTO orders (item) VALUES ('after the move');
INSERT INTO audit DEFAULT VALUES;
DO $$
BEGIN
  IF (SELECT id FROM orders WHERE item = 'after the move') <= (SELECT id FROM orders WHERE item <> 'after the move' ORDER BY id DESC LIMIT 1) THEN
    RAISE EXCEPTION 'new key does not sort after the old ones';
  END IF;
  IF (SELECT count(*) FROM audit WHERE public.uuid_extract_version(id) = 7) <> 2 THEN
    RAISE EXCEPTION 'audit defaults broken';
  END IF;
END $$;
