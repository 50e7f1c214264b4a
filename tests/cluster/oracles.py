"""Name-based UUIDs, conversions, readers and text forms against Python's uuid, hashlib and base64.

uuid_ext's name-based UUIDs, conversions, readers and text forms against
independent implementations, on many random inputs: Python's `uuid`
(uuid5, the v1 fields), `hashlib` (the SHA-2 of name-based UUIDv8, RFC 9562
App. B.2), `base64` (base32hex, base64url), and plain integer arithmetic
(the ULID/Crockford and base58 numbers, the v6 field order, the times).

Runs on the shared server.
"""
import base64
import hashlib
import os
import random
import uuid

from pg import fail, ok

N = 2000
rng = random.Random(int.from_bytes(os.urandom(8), "big"))
GREGORIAN_TO_UNIX_100NS = 0x01B21DD213814000
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def random_name():
    """Random Unicode text (no NUL, no surrogates), 0 to 40 characters."""
    chars = []
    for _ in range(rng.randrange(41)):
        c = rng.choice([rng.randrange(1, 128), rng.randrange(128, 0xD800), rng.randrange(0xE000, 0x110000)])
        chars.append(chr(c))
    return "".join(chars)


def rows(srv, sql):
    return [line.split("|") for line in srv.q(sql + ";").splitlines()]


def values(tuples):
    return ", ".join("(" + ", ".join(f"'{x}'" for x in t) + ")" for t in tuples)


def name_based(hash_fn, version, namespace, name):
    """RFC 9562 §5.5 / App. B.2: the hash's first 128 bits, version and variant
    written over. (uuid.uuid5 takes only text before Python 3.12: bytea names
    are checked through this.)"""
    b = bytearray(hash_fn(namespace.bytes + name).digest()[:16])
    b[6] = (b[6] & 0x0F) | (version << 4)
    b[8] = (b[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(b)))


def digits(n, alphabet, width):
    out = []
    for _ in range(width):
        n, d = divmod(n, len(alphabet))
        out.append(alphabet[d])
    if n:
        raise ValueError("does not fit")
    return "".join(reversed(out))


def names(srv):
    """UUIDv5 and name-based UUIDv8, text and bytea names, every algorithm."""
    data = []
    for i in range(N):
        ns = uuid.uuid4() if i % 2 else rng.choice([uuid.NAMESPACE_DNS, uuid.NAMESPACE_URL,
                                                     uuid.NAMESPACE_OID, uuid.NAMESPACE_X500])
        text = random_name()
        raw = os.urandom(rng.randrange(0, 64))
        data.append((i, ns, text, raw))
    got = rows(
        srv,
        "SELECT i, uuid_generate_v5_name(ns::uuid, convert_from(decode(t, 'hex'), 'UTF8')), "
        "uuid_generate_v5_name(ns::uuid, decode(b, 'hex')), "
        "uuid_generate_v8_name(ns::uuid, convert_from(decode(t, 'hex'), 'UTF8')), "
        "uuid_generate_v8_name(ns::uuid, decode(b, 'hex'), 'sha224'), "
        "uuid_generate_v8_name(ns::uuid, convert_from(decode(t, 'hex'), 'UTF8'), 'sha384'), "
        "uuid_generate_v8_name(ns::uuid, decode(b, 'hex'), 'sha512') "
        f"FROM (VALUES {values((i, ns, t.encode().hex(), r.hex()) for i, ns, t, r in data)}) AS v(i, ns, t, b) "
        "ORDER BY i::int")
    for (i, ns, text, raw), row in zip(data, got):
        want = [str(i), str(uuid.uuid5(ns, text)), name_based(hashlib.sha1, 5, ns, raw),
                name_based(hashlib.sha256, 8, ns, text.encode()), name_based(hashlib.sha224, 8, ns, raw),
                name_based(hashlib.sha384, 8, ns, text.encode()), name_based(hashlib.sha512, 8, ns, raw)]
        if row != want:
            fail(f"name-based UUIDs differ for namespace {ns}, name {text!r} / {raw.hex()}:\n"
                 f"  server {row}\n  python {want}")
    ok(f"{N} random namespaces and names (text and bytea): UUIDv5 equals Python's uuid.uuid5 / SHA-1, "
       "UUIDv8 equals hashlib's SHA-224/256/384/512 with version and variant written over")


def text_forms(srv):
    data = [(i, os.urandom(16)) for i in range(N)]
    data += [(N, bytes(16)), (N + 1, b"\xff" * 16)]
    got = rows(
        srv,
        "SELECT i, uuid_encode(u::uuid, 'hex'), uuid_encode(u::uuid, 'base32hex'), uuid_encode(u::uuid, 'crockford'), "
        "uuid_encode(u::uuid, 'base58'), uuid_encode(u::uuid, 'base64url') "
        f"FROM (VALUES {values((i, b.hex()) for i, b in data)}) AS v(i, u) ORDER BY i::int")
    for (i, b), row in zip(data, got):
        n = int.from_bytes(b, "big")
        want = [str(i), b.hex(), base64.b32hexencode(b).decode().rstrip("="), digits(n, CROCKFORD, 26),
                digits(n, BASE58, 22), base64.urlsafe_b64encode(b).decode().rstrip("=")]
        if row != want:
            fail(f"text forms of {b.hex()} differ:\n  server {row}\n  python {want}")
    # And back: Python's encodings decode to the same bytes.
    back = rows(
        srv,
        "SELECT i, uuid_decode(x, 'base32hex') = uuid_decode(y, 'base64url') AND uuid_decode(x, 'base32hex') = u::uuid "
        "AND uuid_decode(lower(z), 'crockford') = u::uuid "
        f"FROM (VALUES {values((i, b.hex(), base64.b32hexencode(b).decode().rstrip('='), base64.urlsafe_b64encode(b).decode().rstrip('='), digits(int.from_bytes(b, 'big'), CROCKFORD, 26)) for i, b in data)}) "
        "AS v(i, u, x, y, z)")
    if any(r[1] != "t" for r in back):
        fail("a text form Python made does not decode to its UUID")
    ok(f"{len(data)} random UUIDs: base32hex and base64url equal Python's base64 (padding stripped), crockford "
       "and base58 equal the 128-bit number's digits; Python's strings decode back")


def conversions_and_times(srv):
    # uuid1 from Python with random times, clock sequences and nodes.
    data = []
    for i in range(N):
        t = rng.randrange(0, 1 << 60)
        v1 = uuid.UUID(fields=(t & 0xFFFFFFFF, (t >> 32) & 0xFFFF, ((t >> 48) & 0x0FFF) | 0x1000,
                               0x80 | rng.randrange(0x40), rng.randrange(0x100), rng.randrange(1 << 48)))
        data.append((i, v1, t))
    got = rows(
        srv,
        "SELECT i, uuid_v1_to_v6(u::uuid), (extract(epoch FROM public.uuid_extract_timestamp(u::uuid)) * 1000000)::bigint "
        f"FROM (VALUES {values((i, v1) for i, v1, _ in data)}) AS v(i, u) ORDER BY i::int")
    for (i, v1, t), (_, v6, us) in zip(data, got):
        want_v6 = uuid.UUID(int=((t >> 12) << 80) | (0x6 << 76) | ((t & 0xFFF) << 64) | (v1.int & ((1 << 64) - 1)))
        if v6 != str(want_v6):
            fail(f"uuid_v1_to_v6({v1}) = {v6}, not {want_v6}")
        want_us = t // 10 - GREGORIAN_TO_UNIX_100NS // 10
        if int(us) != want_us:
            fail(f"the time of {v1} read as {us} µs, not {want_us}")
        if v1.time != t:
            fail("Python's own reading of the v1 time disagrees")
    ok(f"{N} random UUIDv1s (Python's uuid fields): uuid_v1_to_v6 reorders the time as computed here, "
       "and the time read equals the 60-bit count's microsecond")
    # Our generated v6 and v7 times read by plain arithmetic.
    got = rows(srv, "SELECT g::text, (extract(epoch FROM public.uuid_extract_timestamp(g)) * 1000000)::bigint "
                    "FROM (SELECT uuid_generate_v6() AS g FROM generate_series(1, 500) "
                    "UNION ALL SELECT uuid_generate_v7() FROM generate_series(1, 500)) s")
    for u, us in got:
        n = uuid.UUID(u).int
        if (n >> 76) & 0xF == 6:
            t = ((n >> 80) << 12) | ((n >> 64) & 0xFFF)
            want = t // 10 - GREGORIAN_TO_UNIX_100NS // 10
        else:
            want = (n >> 80) * 1000
        if int(us) != want:
            fail(f"the time of {u} read as {us} µs, not {want}")
    ok("500 generated UUIDv6 and 500 UUIDv7: the time read equals their fields' by plain arithmetic")


def main(t):
    srv = t.shared()
    srv.q("CREATE EXTENSION IF NOT EXISTS uuid_ext")
    names(srv)
    text_forms(srv)
    conversions_and_times(srv)
