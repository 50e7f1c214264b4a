-- uuid_ext 0.5.0 -> 0.6.0 (ALTER EXTENSION uuid_ext UPDATE TO '0.6.0'):
-- PostgreSQL 18's generator names, uuidv7(), uuidv7(shift interval) and
-- uuidv4(), with core 18's signatures and labels, so SQL written for 18 runs
-- on 15, 16 and 17 (src/pg18_names.rs). On 18, core's functions in
-- pg_catalog still answer unqualified calls. The update fails if the
-- extension's schema already holds a function of one of these signatures
-- (a hand-written uuidv7(), say): drop or rename it first.
-- tests/upgrade checks that the catalog after the update equals a fresh
-- 0.6.0 install.
\echo Use "ALTER EXTENSION uuid_ext UPDATE TO '0.6.0'" to load this file. \quit

CREATE  FUNCTION "uuidv7"() RETURNS uuid /* Uuid */
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuidv7_wrapper';

CREATE  FUNCTION "uuidv7"(
	"shift" interval /* Interval */
) RETURNS uuid /* Uuid */
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuidv7_shifted_wrapper';

CREATE  FUNCTION "uuidv4"() RETURNS uuid /* Uuid */
STRICT VOLATILE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'uuidv4_wrapper';
