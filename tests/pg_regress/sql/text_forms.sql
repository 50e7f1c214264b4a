-- uuid_encode / uuid_decode: compact text forms (docs/reference.md#compact-text-forms).
CREATE EXTENSION uuid_ext;

-- RFC 9562's UUIDv7, Nil and Max in every form.
SELECT f, length(uuid_encode(u, f)) AS len, uuid_encode(u, f) AS encoded,
       uuid_decode(uuid_encode(u, f), f) = u AS round_trip
FROM unnest(ARRAY['hex', 'base32hex', 'crockford', 'base58', 'base64url']) WITH ORDINALITY AS t(f, i),
     (VALUES (1, '017F22E2-79B0-7CC3-98C4-DC0C0C07398F'::uuid),
             (2, '00000000-0000-0000-0000-000000000000'),
             (3, 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')) AS v(j, u)
ORDER BY j, i;

-- A ULID (the spec's example) converts both ways: crockford is its text form.
SELECT uuid_decode('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'crockford') AS ulid_as_uuid,
       uuid_encode('01563e3a-b5d3-d676-4c61-efb99302bd5b', 'crockford') AS uuid_as_ulid;
-- Decoding: case-insensitive where the alphabet has one case; Crockford reads I L as 1 and O as 0.
SELECT uuid_decode('017F22E279B07CC398C4DC0C0C07398F', 'hex') AS hex_upper,
       uuid_decode('05vi5ojpm1uc7664rg60o1pphs', 'base32hex') AS base32hex_lower,
       uuid_decode('01fwhe4ydgfk1shh6w1g60eecf', 'crockford') AS crockford_lower,
       uuid_decode('O1FWHE4YDGFKISHH6W1G6OEECF', 'crockford') AS crockford_aliases,
       uuid_decode('0lFWHE4YDGFKLSHH6W1G60EECF', 'crockford') AS crockford_l;
-- Format names in any case.
SELECT uuid_encode('017F22E2-79B0-7CC3-98C4-DC0C0C07398F', 'Base58') AS base58;
-- The order-preserving forms sort like the UUIDs (COLLATE "C"), on many random
-- UUIDs and the edges; base64url does not (its alphabet is not in ASCII order).
-- (base32hex against Python's base64.b32hexencode: tests/cluster/oracles.py.)
CREATE TEMP TABLE r AS
SELECT gen_random_uuid() AS u FROM generate_series(1, 5000)
UNION ALL SELECT u::uuid FROM (VALUES ('00000000-0000-0000-0000-000000000000'), ('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'),
                                      ('00000000-0000-0000-0000-000000000001'), ('80000000-0000-0000-0000-000000000000')) v(u);
CREATE TEMP TABLE enc AS
SELECT f, i, u, uuid_encode(u, f) AS e
FROM unnest(ARRAY['hex', 'base32hex', 'crockford', 'base58', 'base64url']) WITH ORDINALITY AS t(f, i), r;
SELECT f,
       bool_and(uuid_decode(e, f) = u) AS round_trip,
       bool_and(length(e) = (ARRAY[32, 26, 26, 22, 22])[i]) AS fixed_width,
       count(*) FILTER (WHERE prev >= u) = 0 AS sorts_like_uuid
FROM (SELECT f, i, u, e, lag(u) OVER (PARTITION BY f ORDER BY e COLLATE "C") AS prev FROM enc) s
GROUP BY f, i ORDER BY i;

-- STRICT.
SELECT uuid_encode(NULL, 'hex') IS NULL AS a, uuid_encode(gen_random_uuid(), NULL) IS NULL AS b,
       uuid_decode(NULL, 'hex') IS NULL AS c, uuid_decode('x', NULL) IS NULL AS d;

DROP EXTENSION uuid_ext;
