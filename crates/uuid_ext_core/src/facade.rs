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

use std::rc::Rc;

use aes::cipher::{
    BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, Key, KeyInit, KeySizeUser,
};
use aes::Aes256Enc;
use fpe::ff1::{NumeralString, Operations, FF1};
use sha2::{Digest, Sha256};

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

/// An AES-256 key schedule that FF1 may copy for nothing: FF1 (`fpe`)
/// clones its cipher for its PRF and again for each of its ten rounds,
/// and a copy of `aes`'s schedule is 240 bytes, wiped when dropped (its
/// `zeroize` feature). This handle shares one schedule among the copies,
/// which is wiped once, when the last handle (the key's [`Facade`]) goes.
/// The encryption is `aes`'s own, called through it.
#[derive(Clone)]
pub struct Schedule(Rc<Aes256Enc>);

impl KeySizeUser for Schedule {
    type KeySize = <Aes256Enc as KeySizeUser>::KeySize;
}

impl KeyInit for Schedule {
    fn new(key: &Key<Self>) -> Self {
        Schedule(Rc::new(Aes256Enc::new(key)))
    }
}

impl BlockSizeUser for Schedule {
    type BlockSize = <Aes256Enc as BlockSizeUser>::BlockSize;
}

impl BlockCipherEncrypt for Schedule {
    #[inline]
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = Self::BlockSize>) {
        self.0.encrypt_with_backend(f)
    }
}

/// One key's FF1 cipher, its AES-256 key schedule expanded once and wiped
/// when the value is dropped.
pub struct Facade {
    ff1: FF1<Schedule>,
}

/// Why a face or its inverse was not made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The UUID is not of the version the direction takes (a UUIDv7 to
    /// make a face, a UUIDv4 to decode one).
    WrongVersion,
    /// A context too long for the memory there is.
    OutOfMemory,
}

impl Facade {
    pub fn new(key: &[u8; KEY_LEN]) -> Self {
        Facade {
            // Radix 2 is always in FF1's range [2, 2^16].
            ff1: FF1::new(key, 2).expect("radix 2 is valid"),
        }
    }

    /// The face of the UUIDv7 `id` (RFC 9562 variant, version 7) under
    /// `context`.
    pub fn to_facade(&self, id: &Bytes, context: &[u8]) -> Result<Bytes, Refused> {
        if layout::version(id) != Some(7) {
            return Err(Refused::WrongVersion);
        }
        with_tweak(context, |t| {
            let x = self
                .ff1
                .encrypt(t, &Bits122(pack(id)))
                .expect("a 122-bit radix-2 string is valid for FF1");
            unpack(x.0, 4)
        })
    }

    /// The UUIDv7-shaped value whose face under `context` is `face`, a
    /// UUIDv4 (RFC 9562 variant, version 4).
    pub fn to_v7(&self, face: &Bytes, context: &[u8]) -> Result<Bytes, Refused> {
        if layout::version(face) != Some(4) {
            return Err(Refused::WrongVersion);
        }
        with_tweak(context, |t| {
            let x = self
                .ff1
                .decrypt(t, &Bits122(pack(face)))
                .expect("a 122-bit radix-2 string is valid for FF1");
            unpack(x.0, 7)
        })
    }
}

/// `"uuid_ext/facade/1" || 0x00 || context`.
pub fn tweak(context: &[u8]) -> Vec<u8> {
    with_tweak(context, <[u8]>::to_vec).expect("a test's context fits")
}

/// Calls `f` with the tweak of `context`: on the stack for a context of up
/// to a hundred bytes or so, else in an allocation that may fail
/// ([`Refused::OutOfMemory`]) rather than abort the process.
fn with_tweak<R>(context: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<R, Refused> {
    const ON_STACK: usize = 128;
    let len = TWEAK_PREFIX.len() + 1 + context.len();
    let fill = |t: &mut [u8]| {
        t[..TWEAK_PREFIX.len()].copy_from_slice(TWEAK_PREFIX);
        t[TWEAK_PREFIX.len()] = 0;
        t[TWEAK_PREFIX.len() + 1..].copy_from_slice(context);
    };
    if len <= ON_STACK {
        let mut t = [0u8; ON_STACK];
        fill(&mut t[..len]);
        Ok(f(&t[..len]))
    } else {
        let mut t = Vec::new();
        t.try_reserve_exact(len).map_err(|_| Refused::OutOfMemory)?;
        t.resize(len, 0);
        fill(&mut t);
        Ok(f(&t))
    }
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
    /// samples 7-9) through the same `FF1<Schedule>` the façade uses, and
    /// through `FF1<Aes256Enc>`, `aes`'s cipher itself.
    #[test]
    fn nist_ff1_aes256_samples() {
        nist_samples::<Schedule>();
        nist_samples::<Aes256Enc>();
    }

    fn nist_samples<C: KeyInit + BlockCipherEncrypt + Clone>() {
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
            let ff1 = FF1::<C>::new(&key, radix).unwrap();
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
        let ff1 = FF1::<Schedule>::new(&key, 2).unwrap();
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
        assert_eq!(f.to_facade(&v4, b""), Err(Refused::WrongVersion));
        assert_eq!(f.to_v7(&v7, b""), Err(Refused::WrongVersion));
        // A v7's bits with the NCS variant: not an RFC 9562 UUIDv7.
        let mut ncs = v7;
        ncs[8] &= 0x3f;
        assert_eq!(f.to_facade(&ncs, b""), Err(Refused::WrongVersion));
        assert!(f.to_facade(&v7, b"").is_ok());
    }
}
