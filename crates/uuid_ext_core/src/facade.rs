//! The façade (docs/facade.md): a keyed, reversible, UUIDv4-looking face of
//! a UUIDv7, so an application can show ids without showing when their rows
//! were made.
//!
//! The mapping is FF1 (NIST SP 800-38G) with AES-256 and radix 2 over the
//! 122 bits of the UUID that are neither version nor variant, from the `fpe`
//! and `aes` crates; nothing here is cryptography of our own. What is ours
//! is the wiring, frozen by the first release because it fixes every user's
//! public ids (docs/facade.md#the-mapping-frozen):
//!
//! - the 122 bits are the UUID's bits 0-47, 52-63 and 66-127 (RFC 9562
//!   §5.7: `unix_ts_ms`, `rand_a`, `rand_b`) in that order, most significant
//!   first: FF1's numeral string, numeral 1 being bit 0;
//! - the tweak is `"uuid_ext/facade/1" || 0x00 || context`;
//! - the face is the enciphered string put back in the same places, with
//!   version 4 and variant `10`; decoding puts version 7 and variant `10`.
//!
//! FF1 over 122 bits is a permutation of the 2^122 values, so every v7 has
//! one face and every v4 decodes to one v7-shaped value.
//!
//! [`Bits122`] is the numeral string handed to `fpe`: the 122 bits in a
//! `u128`, each half (61 bits) in a `u64`, so a call allocates nothing.
//! The tests check it against `fpe`'s own `FlexibleNumeralString`.

use aes::Aes256Enc;
use aes_kw::{KeyInit, KwAes256};
use fpe::ff1::{NumeralString, Operations, FF1};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::{layout, Bytes};

/// The length of a key: AES-256's.
pub const KEY_LEN: usize = 32;
/// The tweak's fixed prefix; the context follows it after one zero byte.
pub const TWEAK_PREFIX: &[u8] = b"uuid_ext/facade/1";
/// The published test key of docs/facade.md#test-vectors, bytes 0x00 to
/// 0x1f: the vectors' key, and one no production database should use (its
/// faces decode for anyone).
pub const TEST_KEY: [u8; KEY_LEN] = {
    let mut k = [0u8; KEY_LEN];
    let mut i = 0;
    while i < KEY_LEN {
        k[i] = i as u8;
        i += 1;
    }
    k
};
/// How many numerals FF1 works on: the bits that are not version or variant.
pub const BITS: usize = 122;
const HALF: usize = BITS / 2;

/// One key's FF1 cipher, its AES-256 key schedule expanded once. The
/// schedule (which holds the key) is wiped when the value is dropped, as is
/// each copy FF1 makes of it per round (`aes`'s `zeroize` feature).
pub struct Facade {
    ff1: FF1<Aes256Enc>,
}

impl Facade {
    pub fn new(key: &[u8; KEY_LEN]) -> Self {
        Facade {
            // Radix 2 is always in FF1's range [2, 2^16].
            ff1: FF1::new(key, 2).expect("radix 2 is valid"),
        }
    }

    /// The face of `id` under `context`, or `None` when `id` is not a
    /// UUIDv7 (RFC 9562 variant, version 7).
    pub fn to_facade(&self, id: &Bytes, context: &[u8]) -> Option<Bytes> {
        (layout::version(id) == Some(7)).then(|| {
            let x = self
                .ff1
                .encrypt(&tweak(context), &Bits122(pack(id)))
                .expect("a 122-bit radix-2 string is valid for FF1");
            unpack(x.0, 4)
        })
    }

    /// The UUIDv7-shaped value whose face under `context` is `face`, or
    /// `None` when `face` is not a UUIDv4 (RFC 9562 variant, version 4).
    pub fn to_v7(&self, face: &Bytes, context: &[u8]) -> Option<Bytes> {
        (layout::version(face) == Some(4)).then(|| {
            let x = self
                .ff1
                .decrypt(&tweak(context), &Bits122(pack(face)))
                .expect("a 122-bit radix-2 string is valid for FF1");
            unpack(x.0, 7)
        })
    }
}

/// `"uuid_ext/facade/1" || 0x00 || context`.
pub fn tweak(context: &[u8]) -> Vec<u8> {
    let mut t = Vec::with_capacity(TWEAK_PREFIX.len() + 1 + context.len());
    t.extend_from_slice(TWEAK_PREFIX);
    t.push(0);
    t.extend_from_slice(context);
    t
}

/// A key wrapped for another node of a Citus cluster: AES-256 key wrap
/// (RFC 3394, NIST SP 800-38F's KW, from the `aes-kw` crate) of the 32
/// bytes under the cluster key, 40 bytes (docs/facade.md#on-a-citus-cluster).
pub const WRAPPED_LEN: usize = KEY_LEN + 8;

/// `key` wrapped under `cluster_key`.
pub fn wrap(cluster_key: &[u8; KEY_LEN], key: &[u8; KEY_LEN]) -> [u8; WRAPPED_LEN] {
    let mut out = [0u8; WRAPPED_LEN];
    KwAes256::new(cluster_key.into())
        .wrap_key(key, &mut out)
        .expect("32 bytes wrap into 40");
    out
}

/// The key `wrapped` holds, or `None` when it was not wrapped under
/// `cluster_key` (the wrap's integrity check fails) or is not 40 bytes.
pub fn unwrap(cluster_key: &[u8; KEY_LEN], wrapped: &[u8]) -> Option<[u8; KEY_LEN]> {
    if wrapped.len() != WRAPPED_LEN {
        return None;
    }
    let mut out = [0u8; KEY_LEN];
    KwAes256::new(cluster_key.into())
        .unwrap_key(wrapped, &mut out)
        .ok()?;
    Some(out)
}

/// HMAC-SHA-256 (RFC 2104, from the `hmac` crate) of `data` under `key`.
pub fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// One row of the key table as a coordinator sends it to a worker: its
/// key wrapped ([`wrap`]), `None` for a dropped key; the state by name;
/// dates as PostgreSQL keeps them.
pub struct SyncRow<'a> {
    pub id: i32,
    pub state: &'a str,
    pub wrapped: Option<&'a [u8]>,
    pub fingerprint: &'a str,
    pub created: i64,
    pub retired: Option<i64>,
    pub dropped: Option<i64>,
}

/// The tag that authenticates a coordinator's key table for the workers
/// (docs/facade.md#on-a-citus-cluster): HMAC-SHA-256 under a key derived
/// from the cluster key (HMAC of a label under it), over every field of
/// every row, each length-prefixed, the role the command runs as, and the
/// database's name (Citus names a
/// database alike on every node; a copy of it made with `CREATE DATABASE
/// ... TEMPLATE` has the cluster key too). Only a holder of the cluster key makes
/// a tag a worker accepts, so a role that may call the workers' side
/// cannot hand a worker keys, states or dates of its own.
pub fn sync_tag(
    cluster_key: &[u8; KEY_LEN],
    database: &str,
    sender: &str,
    rows: &[SyncRow<'_>],
) -> [u8; 32] {
    let mac_key = Zeroizing::new(hmac_sha256(cluster_key, b"uuid_ext/facade/sync-key/1"));
    let mut m = Vec::with_capacity(64 + database.len() + sender.len() + rows.len() * 96);
    m.extend_from_slice(b"uuid_ext/facade/sync/1\0");
    for name in [database, sender] {
        m.extend_from_slice(&(name.len() as u64).to_be_bytes());
        m.extend_from_slice(name.as_bytes());
    }
    m.extend_from_slice(&(rows.len() as u64).to_be_bytes());
    let bytes = |m: &mut Vec<u8>, b: Option<&[u8]>| match b {
        None => m.push(0),
        Some(b) => {
            m.push(1);
            m.extend_from_slice(&(b.len() as u64).to_be_bytes());
            m.extend_from_slice(b);
        }
    };
    let time = |m: &mut Vec<u8>, t: Option<i64>| match t {
        None => m.push(0),
        Some(t) => {
            m.push(1);
            m.extend_from_slice(&t.to_be_bytes());
        }
    };
    for r in rows {
        m.extend_from_slice(&r.id.to_be_bytes());
        bytes(&mut m, Some(r.state.as_bytes()));
        bytes(&mut m, r.wrapped);
        bytes(&mut m, Some(r.fingerprint.as_bytes()));
        time(&mut m, Some(r.created));
        time(&mut m, r.retired);
        time(&mut m, r.dropped);
    }
    hmac_sha256(&mac_key[..], &m)
}

/// Whether `tag` is [`sync_tag`]'s for these rows, compared in constant time.
pub fn sync_tag_matches(
    cluster_key: &[u8; KEY_LEN],
    database: &str,
    sender: &str,
    rows: &[SyncRow<'_>],
    tag: &[u8],
) -> bool {
    let want = sync_tag(cluster_key, database, sender, rows);
    tag.len() == want.len()
        && tag
            .iter()
            .zip(want.iter())
            .fold(0u8, |d, (a, b)| d | (a ^ b))
            == 0
}

/// A key as a worker holds it and as the coordinator sends it, for
/// [`moves_forward`]: its state's rank (0 current, 1 retired, 2 dropped).
pub struct Held<'a> {
    pub id: i32,
    pub rank: u8,
    pub fingerprint: &'a str,
    pub created: i64,
}

/// Whether the coordinator's rows `incoming` may replace a worker's `held`
/// ones: every key the worker holds is there, the same key (fingerprint
/// and date), in the same state or a later one (a key is retired, then
/// dropped, never the other way). So an older command, replayed, is
/// refused. Returns the id of the first key that would go back.
pub fn moves_forward(held: &[Held<'_>], incoming: &[Held<'_>]) -> Result<(), i32> {
    for h in held {
        match incoming.iter().find(|i| i.id == h.id) {
            Some(i)
                if i.fingerprint == h.fingerprint && i.created == h.created && i.rank >= h.rank => {
            }
            _ => return Err(h.id),
        }
    }
    Ok(())
}

/// A key's fingerprint for people to compare (the key table's view, an
/// export): the first 8 bytes of SHA-256 over a label and the key, in hex.
/// It names a key without helping anyone find it.
pub fn fingerprint(key: &[u8; KEY_LEN]) -> String {
    let digest = Sha256::new()
        .chain_update(b"uuid_ext/facade/fingerprint/1\0")
        .chain_update(key)
        .finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The 122 bits of `b` that are not version or variant, bit 0 of the UUID
/// as the most significant.
pub fn pack(b: &Bytes) -> u128 {
    let u = u128::from_be_bytes(*b);
    let ts = u >> 80; // bits 0-47
    let rand_a = (u >> 64) & 0xfff; // bits 52-63
    let rand_b = u & ((1u128 << 62) - 1); // bits 66-127
    (ts << 74) | (rand_a << 62) | rand_b
}

/// The inverse of [`pack`], with `version` and the RFC 9562 variant.
pub fn unpack(x: u128, version: u8) -> Bytes {
    let ts = x >> 74;
    let rand_a = (x >> 62) & 0xfff;
    let rand_b = x & ((1u128 << 62) - 1);
    let u = (ts << 80) | (u128::from(version) << 76) | (rand_a << 64) | (0b10 << 62) | rand_b;
    u.to_be_bytes()
}

/// The 122-bit numeral string (radix 2) FF1 enciphers: numeral 1 is the
/// most significant bit of the `u128`'s low 122.
pub struct Bits122(pub u128);

/// One half of a [`Bits122`]: up to 64 numerals as an unsigned number.
pub struct Half {
    value: u64,
    len: usize,
}

fn mask(len: usize) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

/// NUM(S) mod 2^64 of a big-endian byte string: the low bits are all that
/// survive the reduction mod 2^m that follows (m <= 64).
fn num_low64(bytes: impl Iterator<Item = u8>) -> u64 {
    bytes.fold(0u64, |acc, b| (acc << 8) | u64::from(b))
}

impl NumeralString for Bits122 {
    type Ops = Half;

    fn is_valid(&self, radix: u32) -> bool {
        radix == 2 && self.0 >> BITS == 0
    }

    fn numeral_count(&self) -> usize {
        BITS
    }

    fn split(&self) -> (Half, Half) {
        // u = floor(n / 2) numerals first, v = n - u after (SP 800-38G, FF1 steps 1-2).
        (
            Half {
                value: (self.0 >> HALF) as u64,
                len: HALF,
            },
            Half {
                value: self.0 as u64 & mask(BITS - HALF),
                len: BITS - HALF,
            },
        )
    }

    fn concat(a: Half, b: Half) -> Self {
        debug_assert_eq!(a.len + b.len, BITS);
        Bits122((u128::from(a.value) << b.len) | u128::from(b.value))
    }
}

/// STR^b_256 of a half: up to 8 bytes, big-endian, without allocating.
pub struct HalfBytes {
    buf: [u8; 8],
    start: usize,
}

impl AsRef<[u8]> for HalfBytes {
    fn as_ref(&self) -> &[u8] {
        &self.buf[self.start..]
    }
}

impl Operations for Half {
    type Bytes = HalfBytes;

    fn numeral_count(&self) -> usize {
        self.len
    }

    /// STR^b_256(NUM_2(X)): the number's `b` low bytes, big-endian. A half
    /// has at most 64 numerals, so `b` is at most 8 (FF1 step 3).
    fn to_be_bytes(&self, _radix: u32, b: usize) -> HalfBytes {
        assert!(b <= 8, "a half of at most 64 bits needs at most 8 bytes");
        HalfBytes {
            buf: self.value.to_be_bytes(),
            start: 8 - b,
        }
    }

    fn add_mod_exp(self, other: impl Iterator<Item = u8>, _radix: u32, m: usize) -> Self {
        Half {
            value: self.value.wrapping_add(num_low64(other)) & mask(m),
            len: m,
        }
    }

    fn sub_mod_exp(self, other: impl Iterator<Item = u8>, _radix: u32, m: usize) -> Self {
        Half {
            value: self.value.wrapping_sub(num_low64(other)) & mask(m),
            len: m,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpe::ff1::FlexibleNumeralString;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn digits(s: &str, radix: u32) -> Vec<u16> {
        s.chars()
            .map(|c| c.to_digit(radix).unwrap() as u16)
            .collect()
    }

    const NIST_KEY_256: &str = "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94";

    /// NIST's FF1 samples for AES-256 (SP 800-38G examples, FF1samples.pdf,
    /// samples 7-9) through the same `FF1<Aes256Enc>` the façade uses.
    #[test]
    fn nist_ff1_aes256_samples() {
        let key = hex(NIST_KEY_256);
        let samples: [(u32, &str, &str, &str); 3] = [
            (10, "", "0123456789", "6657667009"),
            (10, "39383736353433323130", "0123456789", "1001623463"),
            (
                36,
                "3737373770717273373737",
                "0123456789abcdefghi",
                "xs8a0azh2avyalyzuwd",
            ),
        ];
        for (radix, tweak, pt, ct) in samples {
            let ff1 = FF1::<Aes256Enc>::new(&key, radix).unwrap();
            let x = FlexibleNumeralString::from(digits(pt, radix));
            let y = ff1.encrypt(&hex(tweak), &x).unwrap();
            assert_eq!(Vec::<u16>::from(y), digits(ct, radix), "sample {pt}");
            let back = ff1
                .decrypt(&hex(tweak), &FlexibleNumeralString::from(digits(ct, radix)))
                .unwrap();
            assert_eq!(Vec::<u16>::from(back), digits(pt, radix));
        }
    }

    fn bits_of(x: u128) -> Vec<u16> {
        (0..BITS).rev().map(|i| ((x >> i) & 1) as u16).collect()
    }

    /// Our numeral string gives what `fpe`'s general one gives, both ways.
    #[test]
    fn bits122_matches_flexible_numeral_string() {
        let key = [7u8; KEY_LEN];
        let ff1 = FF1::<Aes256Enc>::new(&key, 2).unwrap();
        let mut x: u128 = 0x0123_4567_89ab_cdef_0011_2233_4455_6677;
        for context in [&b""[..], b"orders", &[0xffu8; 40][..]] {
            for _ in 0..200 {
                x = (x.wrapping_mul(0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15) ^ (x >> 29)) >> 6;
                let t = tweak(context);
                let ours = ff1.encrypt(&t, &Bits122(x)).unwrap().0;
                let theirs = ff1
                    .encrypt(&t, &FlexibleNumeralString::from(bits_of(x)))
                    .unwrap();
                assert_eq!(bits_of(ours), Vec::<u16>::from(theirs));
                assert_eq!(ff1.decrypt(&t, &Bits122(ours)).unwrap().0, x);
            }
        }
    }

    #[test]
    fn pack_takes_every_bit_but_version_and_variant() {
        let all = [0xffu8; 16];
        assert_eq!(pack(&all), (1u128 << BITS) - 1);
        assert_eq!(pack(&[0u8; 16]), 0);
        assert_eq!(unpack((1u128 << BITS) - 1, 7), {
            let mut b = all;
            b[6] = 0x7f;
            b[8] = 0xbf;
            b
        });
        let id = crate::v7::from_parts(0x0123_4567_89ab, 0xcde, 0xf, 0x0123_4567_89ab_cdef);
        assert_eq!(unpack(pack(&id), 7), id);
    }

    #[test]
    fn refuses_other_versions() {
        let f = Facade::new(&[1u8; KEY_LEN]);
        let v4 = layout::set_version([0x55; 16], 4);
        let v7 = layout::set_version([0x55; 16], 7);
        assert_eq!(f.to_facade(&v4, b""), None);
        assert_eq!(f.to_v7(&v7, b""), None);
        // A v7's bits with the NCS variant: not an RFC 9562 UUIDv7.
        let mut ncs = v7;
        ncs[8] &= 0x3f;
        assert_eq!(f.to_facade(&ncs, b""), None);
        assert!(f.to_facade(&v7, b"").is_some());
    }
}
