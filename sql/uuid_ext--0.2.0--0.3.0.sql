-- uuid_ext 0.2.0 -> 0.3.0 (ALTER EXTENSION uuid_ext UPDATE TO '0.3.0'):
-- uuid_v7_watermark(), the commit watermark. (0.3.0 also brings durable
-- order and the settings uuid_ext.durable_margin and uuid_ext.commit_watermark,
-- which live in the library, not in SQL.) tests/upgrade checks that the
-- catalog after the update equals a fresh 0.3.0 install.
\echo Use "ALTER EXTENSION uuid_ext UPDATE TO '0.3.0'" to load this file. \quit

CREATE  FUNCTION "uuid_v7_watermark"() RETURNS uuid /* Uuid */
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_v7_watermark_wrapper';
