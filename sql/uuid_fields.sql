-- The row uuid_inspect() returns: every field of a UUID, by name (docs/reference.md#reading).
-- NULL in a field the UUID's version does not have.
CREATE TYPE uuid_fields AS (
    version smallint,          -- the version nibble, under the RFC 9562 variant only
    variant text,              -- NCS, RFC 9562, Microsoft or future
    ts timestamptz,            -- v1, v6, v7: as uuid_extract_timestamp reads it
    ts_exact text,             -- the same to every digit the UUID holds, in UTC (v1/v6 100 ns; v7 with rand_a)
    rand_a integer,            -- v7: the 12 bits after the version
    sub_ms_fraction float8,    -- v7: rand_a / 4096, the fraction of the millisecond it means
    clock_seq integer,         -- v1, v6: the 14-bit clock sequence
    node text,                 -- v1, v6: the 48-bit node, as a MAC address (castable to macaddr)
    is_nil boolean,            -- all 128 bits 0 (RFC 9562 §5.9)
    is_max boolean             -- all 128 bits 1 (RFC 9562 §5.10)
);
