-- uuid_ext 0.3.0 -> 0.4.0 (ALTER EXTENSION uuid_ext UPDATE TO '0.4.0'):
-- no object changes. 0.4.0's library brings the sequencer in the WAL (a
-- custom WAL resource manager, uuid_ext.durable_wal), the horizon worker,
-- uuid_v7_watermark() on standbys and uuid_ext.watermark_interval; restart
-- PostgreSQL to load it. tests/upgrade checks that the catalog after the
-- update equals a fresh 0.4.0 install.
\echo Use "ALTER EXTENSION uuid_ext UPDATE TO '0.4.0'" to load this file. \quit
