-- Every function's volatility, strictness and parallel label (docs/reference.md),
-- (that docs/reference.md lists exactly these functions is tests/docs/check.py's).
CREATE EXTENSION uuid_ext;

SELECT p.proname || '(' || pg_get_function_arguments(p.oid) || ')' AS function,
       pg_get_function_result(p.oid) AS returns,
       CASE p.provolatile WHEN 'i' THEN 'IMMUTABLE' WHEN 's' THEN 'STABLE' ELSE 'VOLATILE' END AS volatility,
       CASE WHEN p.proisstrict THEN 'STRICT' ELSE '' END AS strict,
       CASE p.proparallel WHEN 's' THEN 'SAFE' WHEN 'r' THEN 'RESTRICTED' ELSE 'UNSAFE' END AS parallel
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'uuid_ext'
ORDER BY 1;

DROP EXTENSION uuid_ext;
