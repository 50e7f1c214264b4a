-- Everything uuid_ext installs, one sorted line per object or member (the
-- façade's key table and view with their columns, constraints, indexes,
-- triggers and privileges too), for
-- comparing an updated installation with a fresh one (tests/upgrade).
WITH members AS (
  SELECT d.classid, d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
  WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'uuid_ext'
), families AS (
  SELECT f.oid FROM members m JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid
)
SELECT line FROM (
  SELECT format('function %s returns %s: kind %s, volatility %s, strict %s, parallel %s, leakproof %s, %s %s %s, privileges %s',
                p.oid::regprocedure, pg_get_function_result(p.oid), p.prokind, p.provolatile, p.proisstrict,
                p.proparallel, p.proleakproof, l.lanname, p.prosrc, coalesce(p.probin, ''),
                coalesce(p.proacl::text, 'default')) AS line
  FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
  JOIN pg_language l ON l.oid = p.prolang
  UNION ALL
  SELECT format('aggregate %s: transition %s, combine %s, state %s, sort operator %s',
                g.aggfnoid::regprocedure, g.aggtransfn::regprocedure, g.aggcombinefn, g.aggtranstype::regtype,
                g.aggsortop::regoperator)
  FROM members m JOIN pg_aggregate g ON m.classid = 'pg_proc'::regclass AND g.aggfnoid = m.objid
  UNION ALL
  SELECT format('type %s: length %s, by value %s, align %s, storage %s, category %s, kind %s, in %s, out %s, recv %s, send %s, comment %s, privileges %s',
                t.typname, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory, t.typtype,
                t.typinput, t.typoutput, t.typreceive, t.typsend, obj_description(t.oid, 'pg_type'),
                coalesce(t.typacl::text, 'default'))
  FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
  UNION ALL
  SELECT format('type %s column %s %s %s', t.typname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod))
  FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
  JOIN pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0
  UNION ALL
  SELECT format('operator %s: function %s, commutator %s, negator %s, restrict %s, join %s, hashes %s, merges %s',
                o.oid::regoperator, o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest,
                o.oprjoin, o.oprcanhash, o.oprcanmerge)
  FROM members m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
  UNION ALL
  SELECT format('operator class %s for %s using %s: default %s, family %s, key %s',
                c.opcname, c.opcintype::regtype, a.amname, c.opcdefault, f.opfname, c.opckeytype)
  FROM members m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
  JOIN pg_am a ON a.oid = c.opcmethod JOIN pg_opfamily f ON f.oid = c.opcfamily
  UNION ALL
  SELECT format('operator family %s using %s: strategy %s (%s, %s) %s %s, sort family %s',
                f.opfname, a.amname, o.amopstrategy, o.amoplefttype::regtype, o.amoprighttype::regtype,
                o.amopopr::regoperator, o.amoppurpose, o.amopsortfamily)
  FROM families JOIN pg_opfamily f ON f.oid = families.oid JOIN pg_am a ON a.oid = f.opfmethod
  JOIN pg_amop o ON o.amopfamily = f.oid
  UNION ALL
  SELECT format('operator family %s using %s: function %s (%s, %s) %s',
                f.opfname, a.amname, p.amprocnum, p.amproclefttype::regtype, p.amprocrighttype::regtype,
                p.amproc::regprocedure)
  FROM families JOIN pg_opfamily f ON f.oid = families.oid JOIN pg_am a ON a.oid = f.opfmethod
  JOIN pg_amproc p ON p.amprocfamily = f.oid
  UNION ALL
  SELECT format('cast %s as %s: method %s, context %s, function %s',
                c.castsource::regtype, c.casttarget::regtype, c.castmethod, c.castcontext, c.castfunc::regprocedure)
  FROM members m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
  UNION ALL
  SELECT format('relation %s: kind %s, privileges %s, dumped by pg_dump %s %s, view %s',
                c.relname, c.relkind, coalesce(c.relacl::text, 'default'),
                c.oid = ANY (e.extconfig), e.extcondition[array_position(e.extconfig, c.oid)],
                coalesce(pg_get_viewdef(c.oid), ''))
  FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
  CROSS JOIN pg_extension e WHERE e.extname = 'uuid_ext'
  UNION ALL
  SELECT format('relation %s column %s %s %s, not null %s, default %s, privileges %s', c.relname, a.attnum,
                a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                coalesce(pg_get_expr(d.adbin, d.adrelid), 'none'), coalesce(a.attacl::text, 'default'))
  FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
  UNION ALL
  SELECT format('relation %s row type privileges %s', c.relname, coalesce(t.typacl::text, 'default'))
  FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
  JOIN pg_type t ON t.oid = c.reltype
  UNION ALL
  SELECT format('relation %s constraint %s: %s', c.relname, k.conname, pg_get_constraintdef(k.oid))
  FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
  JOIN pg_constraint k ON k.conrelid = c.oid
  UNION ALL
  SELECT format('relation %s index: %s', c.relname, pg_get_indexdef(i.indexrelid))
  FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
  JOIN pg_index i ON i.indrelid = c.oid
  UNION ALL
  SELECT format('relation %s trigger: %s, enabled %s', c.relname, pg_get_triggerdef(g.oid), g.tgenabled)
  FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
  JOIN pg_trigger g ON g.tgrelid = c.oid AND NOT g.tgisinternal
  UNION ALL
  SELECT format('member of class %s', m.classid::regclass) FROM members m
  WHERE m.classid NOT IN ('pg_proc'::regclass, 'pg_type'::regclass, 'pg_operator'::regclass,
                          'pg_opclass'::regclass, 'pg_opfamily'::regclass, 'pg_cast'::regclass,
                          'pg_class'::regclass)
) s ORDER BY line;
