-- requires: extension:uuid-ossp
-- uuid_ext installs into a schema that already has uuid-ossp, and the two
-- work side by side (no name of uuid-ossp's is reused). On every PostgreSQL
-- with contrib (the build of 16 used here has none).
CREATE EXTENSION "uuid-ossp";
CREATE EXTENSION uuid_ext;
SELECT e.extname, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname IN ('uuid-ossp', 'uuid_ext') ORDER BY 1;

-- Both extensions' functions resolve, each to its own.
SELECT public.uuid_extract_version(uuid_generate_v1()) AS ossp_v1,
       public.uuid_extract_version(uuid_generate_v4()) AS ossp_v4,
       public.uuid_extract_version(uuid_generate_v5(uuid_ns_url(), 'https://example.com')) AS ossp_v5,
       public.uuid_extract_version(uuid_generate_v7()) AS ours_v7;
-- Our reader on uuid-ossp's time-based UUID: the time of now.
SELECT abs(extract(epoch FROM public.uuid_extract_timestamp(uuid_generate_v1()) - now())) < 60 AS v1_time_is_now;

-- Our UUIDv5 is uuid-ossp's, on many names in every namespace; the namespace IDs too.
SELECT bool_and(uuid_generate_v5_name(uuid_namespace(ns), name) = uuid_generate_v5(ns_id, name)) AS v5_same,
       count(*) AS n
FROM (VALUES ('dns', uuid_ns_dns()), ('url', uuid_ns_url()), ('oid', uuid_ns_oid()), ('x500', uuid_ns_x500())) AS t(ns, ns_id),
     (SELECT md5(g::text) || repeat('ü', g % 5) AS name FROM generate_series(1, 500) g) AS names;
SELECT uuid_generate_v5_name(uuid_namespace('dns'), 'www.example.com') = uuid_generate_v5(uuid_ns_dns(), 'www.example.com')
       AS rfc_example_same;
-- uuid-ossp's time-based v1 converts to a v6 of the same time, and back.
SELECT public.uuid_extract_timestamp(uuid_v1_to_v6(u)) = public.uuid_extract_timestamp(u) AS same_time,
       uuid_v6_to_v1(uuid_v1_to_v6(u)) = u AS round_trip
FROM (SELECT uuid_generate_v1() AS u) s;

-- Either can be dropped and re-created without the other.
DROP EXTENSION uuid_ext;
SELECT uuid_nil() = '00000000-0000-0000-0000-000000000000' AS ossp_still_there;
CREATE EXTENSION uuid_ext;
DROP EXTENSION "uuid-ossp";
CREATE EXTENSION "uuid-ossp";
DROP EXTENSION "uuid-ossp";
DROP EXTENSION uuid_ext;
