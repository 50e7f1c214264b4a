-- uuid_ext.cache: leases of the shared sequencer (docs/ordering.md#leases).
CREATE EXTENSION uuid_ext;

-- Default 1 (every draw its own); a superuser's setting, 1 to 1000.
SHOW uuid_ext.cache;
SELECT context, vartype, min_val, max_val, boot_val FROM pg_settings WHERE name = 'uuid_ext.cache';
SET uuid_ext.cache = 0;
SET uuid_ext.cache = 1001;
CREATE ROLE uuid_ext_cache_app;
SET ROLE uuid_ext_cache_app;
SET uuid_ext.cache = 100;
SHOW uuid_ext.cache;
RESET ROLE;
DROP ROLE uuid_ext_cache_app;

-- Leased: within a transaction and across transactions, this session's keys
-- strictly increase, none twice, versions and variants as without a lease.
SET uuid_ext.cache = 100;
CREATE TABLE leased (n int, v7 uuid, v6 uuid);
BEGIN;
INSERT INTO leased SELECT n, uuid_generate_v7(), uuid_generate_v6() FROM generate_series(1, 250) n;
COMMIT;
INSERT INTO leased SELECT n, uuid_generate_v7(), uuid_generate_v6() FROM generate_series(251, 500) n;
INSERT INTO leased SELECT n, public.uuidv7(), uuid_generate_v6() FROM generate_series(501, 550) n;
SELECT count(*) AS keys,
       count(DISTINCT v7) AS distinct_v7, count(DISTINCT v6) AS distinct_v6,
       count(*) FILTER (WHERE v7 <= prev7) AS v7_not_increasing,
       count(*) FILTER (WHERE v6 <= prev6) AS v6_not_increasing,
       count(*) FILTER (WHERE uuid_extract_version(v7) <> 7 OR uuid_extract_version(v6) <> 6) AS wrong_version
FROM (SELECT v7, v6, lag(v7) OVER (ORDER BY n) AS prev7, lag(v6) OVER (ORDER BY n) AS prev6 FROM leased) s;

-- A key of the session that follows is above every key of this one's leases:
-- a lease ends with its transaction, and the rest of its block is never given.
SELECT v7 AS last_v7, v6 AS last_v6 FROM leased ORDER BY n DESC LIMIT 1 \gset
RESET uuid_ext.cache;
SELECT uuid_generate_v7() > :'last_v7'::uuid AS v7_above, uuid_generate_v6() > :'last_v6'::uuid AS v6_above;
DROP TABLE leased;
DROP EXTENSION uuid_ext;
