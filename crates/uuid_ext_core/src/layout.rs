//! Version and variant bits (RFC 9562 §4.1, §4.2).
//!
//! Bits are numbered from the most significant bit of byte 0: the version is
//! bits 48-51 (the high nibble of byte 6), the variant starts at bit 64 (the
//! top of byte 8).

use crate::Bytes;

/// The Nil UUID, all zero bits (RFC 9562 §5.9).
pub const NIL: Bytes = [0x00; 16];
/// The Max UUID, all one bits (RFC 9562 §5.10).
pub const MAX: Bytes = [0xff; 16];

/// The variant field (RFC 9562 §4.1, Table 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `0xxx`: reserved, NCS backward compatibility (also the Nil UUID).
    Ncs,
    /// `10xx`: the variant of RFC 9562 (and RFC 4122 before it).
    Rfc9562,
    /// `110x`: reserved, Microsoft backward compatibility.
    Microsoft,
    /// `111x`: reserved for future definition (also the Max UUID).
    Future,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Ncs => "NCS",
            Variant::Rfc9562 => "RFC 9562",
            Variant::Microsoft => "Microsoft",
            Variant::Future => "future",
        }
    }
}

pub fn variant(b: &Bytes) -> Variant {
    match b[8] >> 5 {
        0b000..=0b011 => Variant::Ncs,
        0b100 | 0b101 => Variant::Rfc9562,
        0b110 => Variant::Microsoft,
        _ => Variant::Future,
    }
}

/// The version nibble, when the variant is RFC 9562's; otherwise the nibble
/// means nothing and the answer is `None` (as PostgreSQL 17's
/// `uuid_extract_version`).
pub fn version(b: &Bytes) -> Option<u8> {
    (variant(b) == Variant::Rfc9562).then_some(b[6] >> 4)
}

/// Writes `version` into bits 48-51 and the RFC 9562 variant `10` into bits
/// 64-65, keeping every other bit.
pub fn set_version(mut b: Bytes, version: u8) -> Bytes {
    debug_assert!(version <= 0xf);
    b[6] = (b[6] & 0x0f) | (version << 4);
    b[8] = (b[8] & 0x3f) | 0x80;
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_of_each_pattern() {
        let with8 = |x: u8| {
            let mut b = NIL;
            b[8] = x;
            b
        };
        assert_eq!(variant(&with8(0x00)), Variant::Ncs);
        assert_eq!(variant(&with8(0x7f)), Variant::Ncs);
        assert_eq!(variant(&with8(0x80)), Variant::Rfc9562);
        assert_eq!(variant(&with8(0xbf)), Variant::Rfc9562);
        assert_eq!(variant(&with8(0xc0)), Variant::Microsoft);
        assert_eq!(variant(&with8(0xdf)), Variant::Microsoft);
        assert_eq!(variant(&with8(0xe0)), Variant::Future);
        assert_eq!(variant(&MAX), Variant::Future);
    }

    #[test]
    fn version_needs_the_rfc_variant() {
        assert_eq!(version(&NIL), None);
        assert_eq!(version(&MAX), None);
        let b = set_version(MAX, 7);
        assert_eq!(version(&b), Some(7));
        assert_eq!(b[6], 0x7f);
        assert_eq!(b[8], 0xbf);
        let b = set_version(NIL, 8);
        assert_eq!(b[6], 0x80);
        assert_eq!(b[8], 0x80);
        assert_eq!(version(&b), Some(8));
    }
}
