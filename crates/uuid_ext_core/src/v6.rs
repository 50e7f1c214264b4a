//! UUIDv6 (RFC 9562 §5.6) as uuid_ext lays it out, and its conversions
//! to and from UUIDv1:
//!
//! | bits    | RFC field   | here                                                   |
//! |---------|-------------|--------------------------------------------------------|
//! | 0-47    | `time_high`, `time_mid` | the 48 most significant bits of the 60-bit time |
//! | 48-51   | `ver`       | 6                                                      |
//! | 52-63   | `time_low`  | the 12 least significant bits of the time              |
//! | 64-65   | `var`       | `10`                                                   |
//! | 66-69   | `clock_seq` | its top 4 bits: a counter within the 100 ns tick (§6.2 allows counter bits right after the time) |
//! | 70-79   | `clock_seq` | its other 10 bits: CSPRNG bits, fresh for each UUID    |
//! | 80-127  | `node`      | 48 CSPRNG bits, fresh for each UUID, multicast bit set (§6.10) |
//!
//! The time is the count of 100 ns intervals since 1582-10-15 00:00 UTC
//! ([`crate::timestamp`]). UUIDv6's *sequence word* is that 60-bit count
//! followed by the 4-bit counter, `time << 4 | counter`: the sequencer hands
//! it out, 16 UUIDs a tick (160 million a second) before the time runs ahead
//! of the clock, and the most significant bits come first, so UUIDs compare
//! as their words do. The horizon file and the WAL records keep the 60-bit
//! time alone, as 0.8.0 and earlier did ([`persisted`], [`from_persisted`]).

use crate::timestamp::{self, GREGORIAN_TO_UNIX_100NS};
use crate::{layout, Bytes};

pub const VERSION: u8 = 6;
/// The last 60-bit time, 5236-03-31 21:21:00.6846975 UTC.
pub const MAX_TIME: u64 = (1 << 60) - 1;
/// The bits of the counter within a tick, at the top of `clock_seq`.
pub const COUNTER_BITS: u32 = 4;
/// Sequence-word units in one 100 ns tick.
pub const WORD_UNITS_PER_TICK: u64 = 1 << COUNTER_BITS;
/// The last sequence word: the last counter step of [`MAX_TIME`]. One more
/// is out of range, never a wrap.
pub const MAX_WORD: u64 = u64::MAX;
/// Ticks of 100 ns in a microsecond.
const TICKS_PER_US: i64 = 10;
/// The multicast bit of the node's first octet (RFC 9562 §6.10): set, so a
/// random node can never be mistaken for a real IEEE 802 address.
const MULTICAST: u128 = 0x01 << 40;
/// The random bits after the counter: `clock_seq`'s other 10 and the node's 48.
const RANDOM_BITS: u32 = 58;
const RANDOM_MASK: u128 = (1 << RANDOM_BITS) - 1;

/// The word the clock asks for at `unix_ns` nanoseconds since 1970: its
/// tick, counter 0.
pub fn candidate(unix_ns: u64) -> u64 {
    // u64 nanoseconds end in 2554, well inside the 60-bit field.
    (unix_ns / 100 + GREGORIAN_TO_UNIX_100NS) << COUNTER_BITS
}

/// The 60-bit time (100 ns since 1582-10-15) of a sequence word.
pub fn time_of_word(word: u64) -> u64 {
    word >> COUNTER_BITS
}

/// Lays out a sequence word and 58 random bits (the low 58 of `random`): the
/// time, the counter at the top of `clock_seq`, then `clock_seq`'s other 10
/// bits and the node from `random`; the node's multicast bit is set.
pub fn from_word(word: u64, random: u64) -> Bytes {
    let time = time_of_word(word);
    let counter = word & (WORD_UNITS_PER_TICK - 1);
    let v = (u128::from(time >> 12) << 80)
        | (u128::from(VERSION) << 76)
        | (u128::from(time & 0xfff) << 64)
        | (0b10 << 62)
        | (u128::from(counter) << RANDOM_BITS)
        | (u128::from(random) & RANDOM_MASK)
        | MULTICAST;
    v.to_be_bytes()
}

/// What the horizon file and the WAL records keep for a sequence word: its
/// 60-bit time, the unit of 0.8.0 and earlier, so that either release reads
/// what the other wrote (docs/design.md#the-horizon).
pub fn persisted(word: u64) -> u64 {
    time_of_word(word)
}

/// The sequence word a kept time stands for: the last one of its tick. A
/// kept time means "UUIDv6s up to this tick may have been handed out",
/// whatever their `clock_seq` (0.8.0 filled it with random bits), so the
/// next word after it is the next tick's first: above every such UUID.
pub fn from_persisted(time: u64) -> u64 {
    debug_assert!(time <= MAX_TIME);
    (time << COUNTER_BITS) | (WORD_UNITS_PER_TICK - 1)
}

/// Lays out the fields one by one, as given (no multicast bit is forced):
/// the time's high bits beyond 60, the clock sequence's beyond 14 and the
/// node's beyond 48 are cut.
pub fn from_parts(time_100ns: u64, clock_seq: u16, node: u64) -> Bytes {
    let time = time_100ns & MAX_TIME;
    let v = (u128::from(time >> 12) << 80)
        | (u128::from(VERSION) << 76)
        | (u128::from(time & 0xfff) << 64)
        | (0b10 << 62)
        | (u128::from(clock_seq & 0x3fff) << 48)
        | u128::from(node & 0xffff_ffff_ffff);
    v.to_be_bytes()
}

/// The sequence word of a UUIDv6: its 60-bit time and the top 4 bits of
/// its clock sequence.
pub fn word(b: &Bytes) -> u64 {
    let counter = ((u128::from_be_bytes(*b) >> RANDOM_BITS) & 0xf) as u64;
    (timestamp::v6_time(b) << COUNTER_BITS) | counter
}

/// The ticks of the microsecond holding Unix time `unix_us`: its first and
/// its last (the last cut to [`MAX_TIME`]); `None` when the microsecond starts
/// before 1582-10-15 or after the 60-bit field's end.
fn ticks_of_us(unix_us: i64) -> Option<(u64, u64)> {
    let first =
        i128::from(unix_us) * i128::from(TICKS_PER_US) + i128::from(GREGORIAN_TO_UNIX_100NS);
    let first = u64::try_from(first).ok().filter(|&t| t <= MAX_TIME)?;
    Some((first, (first + 9).min(MAX_TIME)))
}

/// The smallest UUIDv6 of the microsecond holding `unix_us`: its first
/// tick, clock sequence (so the counter too) and node 0.
pub fn lower_bound(unix_us: i64) -> Option<Bytes> {
    ticks_of_us(unix_us).map(|(first, _)| from_parts(first, 0, 0))
}

/// The largest UUIDv6 of that microsecond: its last tick, every free bit 1
/// (the counter at 15, the rest of the clock sequence and the node all ones).
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
    /// The word of RFC_TIME's tick, counter 0.
    const RFC_WORD: u64 = RFC_TIME << 4;

    #[test]
    fn rfc_vector_from_its_parts() {
        assert_eq!(from_parts(RFC_TIME, 0x33C8, 0x9F6B_DECE_D846), RFC_V6);
        assert_eq!(timestamp::v6_time(&RFC_V6), RFC_TIME);
        // The vector's clock sequence begins with 0xC (0x33C8 = 0b1100_11...):
        // read as a word, that is its counter.
        assert_eq!(word(&RFC_V6), RFC_WORD | 0xC);
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
    fn word_layout_counter_and_multicast_bit() {
        let b = from_word(RFC_WORD | 0x5, u64::MAX);
        assert_eq!(layout::version(&b), Some(6));
        assert_eq!(timestamp::v6_time(&b), RFC_TIME);
        assert_eq!(word(&b), RFC_WORD | 0x5);
        // Variant 10, counter 0101, then ten random ones (10 0101 11 is
        // 0x97); the node all ones.
        assert_eq!(&b[8..], &[0x97, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        let b = from_word(RFC_WORD, 0);
        assert_eq!(
            &b[8..],
            &[0x80, 0, 0x01, 0, 0, 0, 0, 0],
            "counter 0, random bits 0, node's multicast bit set"
        );
        // The random bits never reach the counter: only the low 58 are used.
        assert_eq!(word(&from_word(RFC_WORD, u64::MAX)), RFC_WORD);
        let b = from_word(RFC_WORD | 0xf, 0);
        assert_eq!(b[8], 0xbc);
        // The clock sequence reads as the counter's 4 bits, then 10 random ones.
        let clock_seq =
            (u128::from_be_bytes(from_word(RFC_WORD | 0xa, 0x3ff << 48)) >> 48) & 0x3fff;
        assert_eq!(clock_seq, (0xa << 10) | 0x3ff);
        assert_eq!(word(&from_word(MAX_WORD, 0)), MAX_WORD);
        assert_eq!(timestamp::v6_time(&from_word(MAX_WORD, 0)), MAX_TIME);
    }

    #[test]
    fn words_order_as_uuids() {
        // Within a tick by the counter, whatever the random bits.
        let a = from_word(RFC_WORD, u64::MAX);
        let b = from_word(RFC_WORD + 1, 0);
        assert!(a < b);
        // The last counter step of a tick, then the next tick's first.
        let c = from_word(RFC_WORD | 0xf, u64::MAX);
        let d = from_word((RFC_TIME + 1) << 4, 0);
        assert!(b < c && c < d);
        assert_eq!(timestamp::v6_time(&d), RFC_TIME + 1);
        let e = from_word((RFC_TIME + (1 << 12)) << 4, 0);
        assert!(d < e);
    }

    #[test]
    fn sixteen_words_a_tick() {
        let first = candidate(1_645_557_742_000_000_000);
        assert_eq!(first, RFC_WORD);
        for k in 0..16 {
            assert_eq!(timestamp::v6_time(&from_word(first + k, 0)), RFC_TIME);
        }
        assert_eq!(timestamp::v6_time(&from_word(first + 16, 0)), RFC_TIME + 1);
    }

    #[test]
    fn candidate_is_the_gregorian_tick_counter_0() {
        assert_eq!(candidate(0), GREGORIAN_TO_UNIX_100NS << 4);
        assert_eq!(candidate(1_645_557_742_000_000_099), RFC_WORD);
        assert_eq!(candidate(1_645_557_742_000_000_100), RFC_WORD + 16);
        assert_eq!(
            time_of_word(candidate(u64::MAX)),
            u64::MAX / 100 + GREGORIAN_TO_UNIX_100NS
        );
        assert!(time_of_word(candidate(u64::MAX)) < MAX_TIME);
    }

    #[test]
    fn persisted_as_the_time_read_back_as_its_ticks_last_word() {
        // A word keeps its tick; read back, the tick's last word, so the
        // next word is the next tick's first.
        assert_eq!(persisted(RFC_WORD), RFC_TIME);
        assert_eq!(persisted(RFC_WORD | 0x7), RFC_TIME);
        assert_eq!(persisted(RFC_WORD | 0xf), RFC_TIME);
        assert_eq!(from_persisted(RFC_TIME), RFC_WORD | 0xf);
        // Never below what was kept: a limit with a non-zero counter.
        for w in [
            RFC_WORD,
            RFC_WORD | 1,
            RFC_WORD | 0xf,
            MAX_WORD,
            MAX_WORD - 1,
            0,
            15,
            16,
        ] {
            assert!(from_persisted(persisted(w)) >= w, "{w:#x}");
            assert!(from_persisted(persisted(w)) - w < 16, "{w:#x}");
        }
        // The edges: the last word is the last tick's last.
        assert_eq!(persisted(MAX_WORD), MAX_TIME);
        assert_eq!(from_persisted(MAX_TIME), MAX_WORD);
        assert_eq!(from_persisted(0), 15);
        // What 0.8.0 kept (its word was the tick, clock_seq random) read
        // now: every UUIDv6 of that tick, any clock sequence, is at or
        // below the word, and the next word is above them all.
        let old = from_parts(RFC_TIME, 0x3fff, 0xffff_ffff_ffff);
        assert!(from_word(from_persisted(RFC_TIME), u64::MAX) >= old);
        assert!(from_word(from_persisted(RFC_TIME) + 1, 0) > old);
        // What 0.8.1 keeps read by 0.8.0 (the tick as its word, its next
        // value the next tick): above every UUIDv6 handed out up to it.
        let given = from_word(RFC_WORD | 0xf, u64::MAX);
        assert!(from_parts(persisted(RFC_WORD | 0xf) + 1, 0, 0) > given);
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
        // Every word of the microsecond's ten ticks, counter 0 to 15, any
        // random bits, lies within the bounds.
        let (lo, hi) = (lower_bound(us).unwrap(), upper_bound(us).unwrap());
        for w in [RFC_WORD, RFC_WORD | 0xf, ((RFC_TIME + 9) << 4) | 0xf] {
            for r in [0, u64::MAX] {
                let b = from_word(w, r);
                assert!(lo <= b && b <= hi, "{w:#x}");
            }
        }
        assert!(from_word((RFC_TIME + 10) << 4, 0) > hi);
    }

    #[test]
    fn bounds_at_the_edges() {
        let first_us = -(GREGORIAN_TO_UNIX_100NS as i64) / 10;
        assert_eq!(lower_bound(first_us), Some(from_parts(0, 0, 0)));
        assert_eq!(lower_bound(first_us - 1), None);
        // The last microsecond has 6 ticks only: its upper bound is the last tick.
        let last_us = (MAX_TIME - GREGORIAN_TO_UNIX_100NS) as i64 / 10;
        assert_eq!(
            upper_bound(last_us),
            Some(from_parts(MAX_TIME, 0x3fff, 0xffff_ffff_ffff))
        );
        assert_eq!(upper_bound(last_us), Some(from_word(MAX_WORD, u64::MAX)));
        assert_eq!(lower_bound(last_us + 1), None);
        assert_eq!(upper_bound(i64::MAX), None);
        assert_eq!(lower_bound(i64::MIN), None);
    }
}
