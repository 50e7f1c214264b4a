-- uuid_ext 0.6.0 -> 0.7.0 (ALTER EXTENSION uuid_ext UPDATE TO '0.7.0'):
-- uuid_ext_sequencer_reset(), which brings the shared UUIDv7 and UUIDv6
-- sequencers back to the clock after a clock that ran ahead was corrected
-- (docs/operations.md, "When the clock lies"). Superusers only: EXECUTE is
-- revoked from PUBLIC, so a database owner who installs the trusted
-- extension gets none. uuid_ext_info() keeps its signature and answers more
-- fields. tests/upgrade checks that the catalog after the update, privileges
-- included, equals a fresh 0.7.0 install.
\echo Use "ALTER EXTENSION uuid_ext UPDATE TO '0.7.0'" to load this file. \quit

CREATE  FUNCTION "uuid_ext_sequencer_reset"() RETURNS TABLE (
	"version" INT,  /* i32 */
	"before" timestamp with time zone,  /* pgrx::datum::time_stamp_with_timezone::TimestampWithTimeZone */
	"after" timestamp with time zone  /* pgrx::datum::time_stamp_with_timezone::TimestampWithTimeZone */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuid_ext_sequencer_reset_wrapper';

REVOKE EXECUTE ON FUNCTION uuid_ext_sequencer_reset() FROM PUBLIC;
