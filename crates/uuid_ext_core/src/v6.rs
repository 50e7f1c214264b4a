//! UUIDv6 (RFC 9562 §5.6) as uuid_ext lays it out, and its conversions
//! to and from UUIDv1:
//!
//! | bits   | RFC field   | here                                                   |
//! |--------|-------------|--------------------------------------------------------|
//! | 0-47   | `time_high`, `time_mid` | the 48 most significant bits of the 60-bit time |
//! | 48-51  | `ver`       | 6                                                      |
//! | 52-63  | `time_low`  | the 12 least significant bits of the time              |
//! | 64-65  | `var`       | `10`                                                   |
//! | 66-79  | `clock_seq` | 14 CSPRNG bits, fresh for each UUID                    |
//! | 80-127 | `node`      | 48 CSPRNG bits, fresh for each UUID, multicast bit set (§6.10) |
//!
//! The time is the count of 100 ns intervals since 1582-10-15 00:00 UTC
//! ([`crate::timestamp`]). That 60-bit count is UUIDv6's *sequence word*:
//! the sequencer hands it out, one tick per UUID, and the most significant
//! bits come first, so UUIDs compare as their words do.

use crate::timestamp::{self, GREGORIAN_TO_UNIX_100NS};
use crate::{layout, Bytes};

pub const VERSION: u8 = 6;
/// The last 60-bit time, 5236-03-31 21:21:00.6846975 UTC. One more is out of
/// range, never a wrap.
pub const MAX_WORD: u64 = (1 << 60) - 1;
/// Ticks of 100 ns in a microsecond.
const TICKS_PER_US: i64 = 10;
/// The multicast bit of the node's first octet (RFC 9562 §6.10): set, so a
/// random node can never be mistaken for a real IEEE 802 address.
const MULTICAST: u128 = 0x01 << 40;
const CLOCK_SEQ_AND_NODE: u128 = (1 << 62) - 1;

/// The word the clock asks for at `unix_ns` nanoseconds since 1970.
pub fn candidate(unix_ns: u64) -> u64 {
    // u64 nanoseconds end in 2554, well inside the 60-bit field.
    unix_ns / 100 + GREGORIAN_TO_UNIX_100NS
}

/// Lays out a 60-bit time and the 62 bits of `clock_seq` and `node` (the low
/// 62 bits of `random`); the node's multicast bit is set.
pub fn from_word(word: u64, random: u64) -> Bytes {
    debug_assert!(word <= MAX_WORD);
    let v = (u128::from(word >> 12) << 80)
        | (u128::from(VERSION) << 76)
        | (u128::from(word & 0xfff) << 64)
        | (0b10 << 62)
        | (u128::from(random) & CLOCK_SEQ_AND_NODE)
        | MULTICAST;
    v.to_be_bytes()
}

/// Lays out the fields one by one, as given (no multicast bit is forced):
/// the time's high bits beyond 60, the clock sequence's beyond 14 and the
/// node's beyond 48 are cut.
pub fn from_parts(time_100ns: u64, clock_seq: u16, node: u64) -> Bytes {
    let time = time_100ns & MAX_WORD;
    let v = (u128::from(time >> 12) << 80)
        | (u128::from(VERSION) << 76)
        | (u128::from(time & 0xfff) << 64)
        | (0b10 << 62)
        | (u128::from(clock_seq & 0x3fff) << 48)
        | u128::from(node & 0xffff_ffff_ffff);
    v.to_be_bytes()
}

/// The 60-bit time (the sequence word) of a UUIDv6.
pub fn word(b: &Bytes) -> u64 {
    timestamp::v6_time(b)
}

/// The ticks of the microsecond holding Unix time `unix_us`: its first and
/// its last (the last cut to [`MAX_WORD`]); `None` when the microsecond starts
/// before 1582-10-15 or after the 60-bit field's end.
fn ticks_of_us(unix_us: i64) -> Option<(u64, u64)> {
    let first =
        i128::from(unix_us) * i128::from(TICKS_PER_US) + i128::from(GREGORIAN_TO_UNIX_100NS);
    let first = u64::try_from(first).ok().filter(|&t| t <= MAX_WORD)?;
    Some((first, (first + 9).min(MAX_WORD)))
}

/// The smallest UUIDv6 of the microsecond holding `unix_us`: its first
/// tick, clock sequence and node 0.
pub fn lower_bound(unix_us: i64) -> Option<Bytes> {
    ticks_of_us(unix_us).map(|(first, _)| from_parts(first, 0, 0))
}

/// The largest UUIDv6 of that microsecond: its last tick, every free bit 1.
pub fn upper_bound(unix_us: i64) -> Option<Bytes> {
    ticks_of_us(unix_us).map(|(_, last)| from_parts(last, 0x3fff, 0xffff_ffff_ffff))
}

/// The UUIDv6 of a UUIDv1: the time's fields reordered, most significant
/// first; variant, clock sequence and node unchanged (RFC 9562 §5.6).
/// `None` when `b` is not a UUIDv1.
pub fn from_v1(b: &Bytes) -> Option<Bytes> {
    (layout::version(b) == Some(1))
        .then(|| with_time(b, v6_time_fields(timestamp::v1_time(b)), VERSION))
}

/// The UUIDv1 of a UUIDv6, the inverse of [`from_v1`]. `None` when `b` is
/// not a UUIDv6.
pub fn to_v1(b: &Bytes) -> Option<Bytes> {
    (layout::version(b) == Some(VERSION))
        .then(|| with_time(b, v1_time_fields(timestamp::v6_time(b)), 1))
}

/// The first 64 bits of a UUIDv6 (time and version 0) for a 60-bit time.
fn v6_time_fields(time: u64) -> u64 {
    ((time >> 12) << 16) | (time & 0xfff)
}

/// The first 64 bits of a UUIDv1 (version 0): time_low, time_mid, time_high.
fn v1_time_fields(time: u64) -> u64 {
    ((time & 0xffff_ffff) << 32) | (((time >> 32) & 0xffff) << 16) | (time >> 48)
}

/// `b` with its first 64 bits replaced by `fields` and version `version`.
fn with_time(b: &Bytes, fields: u64, version: u8) -> Bytes {
    let mut out = *b;
    out[..8].copy_from_slice(&fields.to_be_bytes());
    out[6] |= version << 4;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 9562 Appendix A.1 and A.5: both 2022-02-22 19:22:22 UTC.
    const RFC_V1: Bytes = 0xC232AB00_9414_11EC_B3C8_9F6BDECED846_u128.to_be_bytes();
    const RFC_V6: Bytes = 0x1EC9414C_232A_6B00_B3C8_9F6BDECED846_u128.to_be_bytes();
    const RFC_TIME: u64 = 0x1EC_9414_C232_AB00;

    #[test]
    fn rfc_vector_from_its_parts() {
        assert_eq!(from_parts(RFC_TIME, 0x33C8, 0x9F6B_DECE_D846), RFC_V6);
        assert_eq!(word(&RFC_V6), RFC_TIME);
    }

    #[test]
    fn rfc_vectors_convert_into_each_other() {
        assert_eq!(from_v1(&RFC_V1), Some(RFC_V6));
        assert_eq!(to_v1(&RFC_V6), Some(RFC_V1));
        assert_eq!(from_v1(&RFC_V6), None);
        assert_eq!(to_v1(&RFC_V1), None);
        assert_eq!(to_v1(&layout::NIL), None);
        // A v1 nibble under another variant is no UUIDv1.
        let mut microsoft = RFC_V1;
        microsoft[8] = 0xC3;
        assert_eq!(from_v1(&microsoft), None);
    }

    #[test]
    fn word_layout_and_multicast_bit() {
        let b = from_word(RFC_TIME, u64::MAX);
        assert_eq!(layout::version(&b), Some(6));
        assert_eq!(word(&b), RFC_TIME);
        assert_eq!(&b[8..], &[0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        let b = from_word(RFC_TIME, 0);
        assert_eq!(
            &b[8..],
            &[0x80, 0, 0x01, 0, 0, 0, 0, 0],
            "node's multicast bit set"
        );
        assert_eq!(word(&from_word(MAX_WORD, 0)), MAX_WORD);
    }

    #[test]
    fn words_order_as_uuids() {
        let a = from_word(RFC_TIME, u64::MAX);
        let b = from_word(RFC_TIME + 1, 0);
        assert!(a < b);
        let c = from_word(RFC_TIME + (1 << 12), 0);
        assert!(b < c);
    }

    #[test]
    fn candidate_is_the_gregorian_tick() {
        assert_eq!(candidate(0), GREGORIAN_TO_UNIX_100NS);
        assert_eq!(candidate(1_645_557_742_000_000_099), RFC_TIME);
        assert_eq!(candidate(1_645_557_742_000_000_100), RFC_TIME + 1);
        assert!(candidate(u64::MAX) < MAX_WORD);
    }

    #[test]
    fn bounds_of_a_microsecond() {
        let us = 1_645_557_742_000_000;
        assert_eq!(lower_bound(us), Some(from_parts(RFC_TIME, 0, 0)));
        assert_eq!(
            upper_bound(us),
            Some(from_parts(RFC_TIME + 9, 0x3fff, 0xffff_ffff_ffff))
        );
        assert!(lower_bound(us).unwrap() <= RFC_V6 && RFC_V6 <= upper_bound(us).unwrap());
        assert!(upper_bound(us).unwrap() < lower_bound(us + 1).unwrap());
    }

    #[test]
    fn bounds_at_the_edges() {
        let first_us = -(GREGORIAN_TO_UNIX_100NS as i64) / 10;
        assert_eq!(lower_bound(first_us), Some(from_parts(0, 0, 0)));
        assert_eq!(lower_bound(first_us - 1), None);
        // The last microsecond has 6 ticks only: its upper bound is the last tick.
        let last_us = (MAX_WORD - GREGORIAN_TO_UNIX_100NS) as i64 / 10;
        assert_eq!(
            upper_bound(last_us),
            Some(from_parts(MAX_WORD, 0x3fff, 0xffff_ffff_ffff))
        );
        assert_eq!(lower_bound(last_us + 1), None);
        assert_eq!(upper_bound(i64::MAX), None);
        assert_eq!(lower_bound(i64::MIN), None);
    }
}
