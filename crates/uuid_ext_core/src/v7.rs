//! UUIDv7 (RFC 9562 §5.7) as uuid_ext lays it out:
//!
//! | bits    | RFC field    | here                                                   |
//! |---------|--------------|--------------------------------------------------------|
//! | 0-47    | `unix_ts_ms` | milliseconds since 1970-01-01 UTC                      |
//! | 48-51   | `ver`        | 7                                                      |
//! | 52-63   | `rand_a`     | sub-millisecond fraction in 1/4096 ms (§6.2 Method 3)  |
//! | 64-65   | `var`        | `10`                                                   |
//! | 66-69   | `rand_b`     | 4-bit counter (§6.2: counter bits after extra precision)|
//! | 70-127  | `rand_b`     | 58 CSPRNG bits                                         |
//!
//! The 64 bits that order a UUIDv7 form its *sequence word*,
//! `ms << 16 | fraction << 4 | counter`; the sequencer hands these out and
//! [`from_word`] lays one out with its random bits. Byte order is the word's
//! order, so UUIDs compare as their words do.

use crate::{layout, timestamp, Bytes};

pub const VERSION: u8 = 7;
pub const FRACTION_BITS: u32 = 12;
pub const COUNTER_BITS: u32 = 4;
pub const RANDOM_BITS: u32 = 58;
/// Sequence-word units in one millisecond: 4096 fractions of 16 counter steps.
pub const WORD_UNITS_PER_MS: u64 = 1 << (FRACTION_BITS + COUNTER_BITS);
/// The last word: the last counter step of the last fraction of
/// [`timestamp::MAX_UNIX_MS`]. One more is out of range, never a wrap.
pub const MAX_WORD: u64 = u64::MAX;

const RANDOM_MASK: u64 = (1 << RANDOM_BITS) - 1;
/// The 80 bits after `unix_ts_ms`.
const TAIL_MASK: u128 = (1 << 80) - 1;

/// The word the clock asks for at `unix_ns` nanoseconds since 1970: its
/// millisecond, its sub-millisecond fraction, counter 0.
pub fn candidate(unix_ns: u64) -> u64 {
    // u64 nanoseconds end in 2554, well inside the 48-bit millisecond field.
    let ms = unix_ns / timestamp::NS_PER_MS;
    let fraction = (unix_ns % timestamp::NS_PER_MS) * (1 << FRACTION_BITS) / timestamp::NS_PER_MS;
    (ms << (FRACTION_BITS + COUNTER_BITS)) | (fraction << COUNTER_BITS)
}

/// Lays out a sequence word and 58 random bits (the low 58 of `random`).
pub fn from_word(word: u64, random: u64) -> Bytes {
    let ms = word >> (FRACTION_BITS + COUNTER_BITS);
    let fraction = (word >> COUNTER_BITS) & ((1 << FRACTION_BITS) - 1);
    let counter = word & ((1 << COUNTER_BITS) - 1);
    let v = (u128::from(ms) << 80)
        | (u128::from(VERSION) << 76)
        | (u128::from(fraction) << 64)
        | (0b10 << 62)
        | (u128::from(counter) << RANDOM_BITS)
        | u128::from(random & RANDOM_MASK);
    v.to_be_bytes()
}

/// Lays out the fields one by one; values wider than their field are cut to it.
pub fn from_parts(unix_ms: u64, fraction: u16, counter: u8, random: u64) -> Bytes {
    let word = ((unix_ms & timestamp::MAX_UNIX_MS) << (FRACTION_BITS + COUNTER_BITS))
        | ((u64::from(fraction) & 0xfff) << COUNTER_BITS)
        | (u64::from(counter) & 0xf);
    from_word(word, random)
}

/// The sequence word of a UUIDv7 laid out by [`from_word`].
pub fn word(b: &Bytes) -> u64 {
    let v = u128::from_be_bytes(*b);
    let ms = (v >> 80) as u64;
    let fraction = ((v >> 64) & 0xfff) as u64;
    let counter = ((v >> RANDOM_BITS) & 0xf) as u64;
    (ms << (FRACTION_BITS + COUNTER_BITS)) | (fraction << COUNTER_BITS) | counter
}

/// A UUIDv7 of millisecond `unix_ms` whose other 74 free bits are taken from
/// `tail` (its low 80 bits; version and variant are written over).
pub fn from_ms_and_tail(unix_ms: u64, tail: u128) -> Bytes {
    debug_assert!(unix_ms <= timestamp::MAX_UNIX_MS);
    let v = (u128::from(unix_ms) << 80) | (tail & TAIL_MASK);
    layout::set_version(v.to_be_bytes(), VERSION)
}

/// The smallest UUIDv7 of a millisecond: every free bit 0.
pub fn lower_bound(unix_ms: u64) -> Bytes {
    from_ms_and_tail(unix_ms, 0)
}

/// The largest UUIDv7 of a millisecond: every free bit 1.
pub fn upper_bound(unix_ms: u64) -> Bytes {
    from_ms_and_tail(unix_ms, TAIL_MASK)
}

/// Moves a sequence word by `delta_us` microseconds (a millisecond is
/// [`WORD_UNITS_PER_MS`] units; a whole number of milliseconds keeps the
/// fraction and counter as they are, a finer shift moves the fraction too).
/// `None` when the result leaves 1970-01-01 .. the last millisecond.
pub fn shift(word: u64, delta_us: i64) -> Option<u64> {
    let delta = (i128::from(delta_us) * i128::from(WORD_UNITS_PER_MS)).div_euclid(1000);
    u64::try_from(i128::from(word) + delta).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9562 Appendix A.6: 2022-02-22 19:22:22 UTC.
    const RFC_V7: Bytes = 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F_u128.to_be_bytes();

    #[test]
    fn rfc_vector_fields() {
        assert_eq!(timestamp::v7_unix_ms(&RFC_V7), 1_645_557_742_000);
        assert_eq!(layout::version(&RFC_V7), Some(7));
        // rand_a = 0xCC3, rand_b = 0x18C4DC0C0C07398F: counter 0b0110, then 58 bits.
        assert_eq!(
            word(&RFC_V7),
            (1_645_557_742_000 << 16) | (0xCC3 << 4) | 0x6
        );
        assert_eq!(
            from_parts(1_645_557_742_000, 0xCC3, 0x6, 0x00C4_DC0C_0C07_398F),
            RFC_V7
        );
        assert_eq!(from_word(word(&RFC_V7), 0x00C4_DC0C_0C07_398F), RFC_V7);
    }

    #[test]
    fn candidate_takes_ms_and_fraction() {
        let ms = 1_645_557_742_000u64;
        assert_eq!(candidate(ms * 1_000_000), ms << 16);
        // Half a millisecond is fraction 2048; the counter stays 0.
        assert_eq!(
            candidate(ms * 1_000_000 + 500_000),
            (ms << 16) | (2048 << 4)
        );
        // The last nanosecond of a millisecond is fraction 4095, not the next ms.
        assert_eq!(
            candidate(ms * 1_000_000 + 999_999),
            (ms << 16) | (4095 << 4)
        );
        assert_eq!(candidate(u64::MAX) >> 16, u64::MAX / 1_000_000);
    }

    #[test]
    fn bounds_of_a_millisecond() {
        let lo = lower_bound(1_645_557_742_000);
        let hi = upper_bound(1_645_557_742_000);
        assert_eq!(
            u128::from_be_bytes(lo),
            0x017F22E2_79B0_7000_8000_000000000000
        );
        assert_eq!(
            u128::from_be_bytes(hi),
            0x017F22E2_79B0_7FFF_BFFF_FFFFFFFFFFFF
        );
        assert!(lo < RFC_V7 && RFC_V7 < hi);
        assert_eq!(
            u128::from_be_bytes(upper_bound(timestamp::MAX_UNIX_MS)),
            0xFFFFFFFF_FFFF_7FFF_BFFF_FFFFFFFFFFFF
        );
        assert_eq!(
            u128::from_be_bytes(lower_bound(0)),
            0x00000000_0000_7000_8000_000000000000
        );
    }

    #[test]
    fn shift_whole_milliseconds_keeps_fraction_and_counter() {
        let w = word(&RFC_V7);
        let s = shift(w, 3_600_000_000).unwrap();
        assert_eq!(s >> 16, (w >> 16) + 3_600_000);
        assert_eq!(s & 0xffff, w & 0xffff);
        assert_eq!(shift(s, -3_600_000_000), Some(w));
        // Half a millisecond is 2048 fractions.
        assert_eq!(shift(w, 500), Some(w + (2048 << 4)));
    }

    #[test]
    fn shift_out_of_range_is_none_never_a_wrap() {
        assert_eq!(shift(0, -1), None);
        assert_eq!(shift(15, -1), None); // -65.536 units floors to -66
        assert_eq!(shift(66, -1), Some(0));
        assert_eq!(shift(MAX_WORD, 1), None);
        assert_eq!(shift(MAX_WORD - 65_535, 1000), None);
        assert_eq!(shift(MAX_WORD - 65_536, 1000), Some(MAX_WORD));
        assert_eq!(shift(MAX_WORD, i64::MIN), None);
        assert_eq!(shift(0, i64::MAX), None);
    }
}
