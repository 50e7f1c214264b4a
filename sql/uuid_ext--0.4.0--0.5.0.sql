-- uuid_ext 0.4.0 -> 0.5.0 (ALTER EXTENSION uuid_ext UPDATE TO '0.5.0'):
-- no object changes. 0.5.0 is a trusted extension (uuid_ext.control: a
-- database owner installs and updates it without a superuser), its install
-- and update scripts pin search_path and schema-qualify every name outside
-- plain DDL, and its library brings the per-database commit watermark
-- (uuid_ext.watermark_scope) and hides the data directory's path from roles
-- without pg_read_all_settings; restart PostgreSQL to load it.
-- tests/upgrade checks that the catalog after the update equals a fresh
-- 0.5.0 install.
\echo Use "ALTER EXTENSION uuid_ext UPDATE TO '0.5.0'" to load this file. \quit
