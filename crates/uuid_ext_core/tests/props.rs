//! Properties of the layouts and the sequencer over arbitrary inputs.

use proptest::prelude::*;
use std::sync::atomic::AtomicU64;
use uuid_ext_core::{layout, sequencer, timestamp, v7};

proptest! {
    #[test]
    fn v7_word_round_trips(word in any::<u64>(), random in any::<u64>()) {
        let b = v7::from_word(word, random);
        prop_assert_eq!(v7::word(&b), word);
        prop_assert_eq!(layout::version(&b), Some(7));
        prop_assert_eq!(layout::variant(&b), layout::Variant::Rfc9562);
        prop_assert_eq!(timestamp::v7_unix_ms(&b), word >> 16);
    }

    #[test]
    fn v7_bytes_order_as_words(a in any::<u64>(), b in any::<u64>(), ra in any::<u64>(), rb in any::<u64>()) {
        prop_assume!(a != b);
        prop_assert_eq!(a < b, v7::from_word(a, ra) < v7::from_word(b, rb));
    }

    #[test]
    fn v7_candidate_is_monotonic_in_the_clock(t in any::<u64>(), d in 0u64..10_000_000) {
        let u = t.saturating_add(d);
        prop_assert!(v7::candidate(t) <= v7::candidate(u));
        prop_assert_eq!(v7::candidate(t) & 0xf, 0);
    }

    #[test]
    fn v7_bounds_enclose_every_uuid_of_the_ms(word in any::<u64>(), random in any::<u64>()) {
        let b = v7::from_word(word, random);
        let ms = word >> 16;
        prop_assert!(v7::lower_bound(ms) <= b && b <= v7::upper_bound(ms));
        if ms < timestamp::MAX_UNIX_MS {
            prop_assert!(b < v7::lower_bound(ms + 1));
        }
    }

    #[test]
    fn v7_shift_there_and_back(word in any::<u64>(), ms in -1_000_000_000_000i64..1_000_000_000_000) {
        if let Some(s) = v7::shift(word, ms * 1000) {
            prop_assert_eq!(s & 0xffff, word & 0xffff);
            prop_assert_eq!(v7::shift(s, -ms * 1000), Some(word));
        }
    }

    #[test]
    fn set_version_touches_only_its_bits(bytes in any::<[u8; 16]>(), version in 0u8..16) {
        let b = layout::set_version(bytes, version);
        prop_assert_eq!(layout::version(&b), Some(version));
        let mask: u128 = !((0xf << 76) | (0b11 << 62));
        prop_assert_eq!(u128::from_be_bytes(b) & mask, u128::from_be_bytes(bytes) & mask);
    }

    #[test]
    fn gregorian_time_is_truncated_not_rounded(t in 0u64..(1 << 60)) {
        let us = timestamp::unix_us_of_gregorian(t);
        let back = (us + (timestamp::GREGORIAN_TO_UNIX_100NS / 10) as i64) as u64 * 10;
        prop_assert!(back <= t && t < back + 10);
    }

    /// Whatever the clock does, a session's values strictly increase and
    /// never fall below the clock.
    #[test]
    fn sequencer_strictly_increases(steps in prop::collection::vec(-5_000_000i64..5_000_000, 1..200)) {
        let word = AtomicU64::new(0);
        let mut s = sequencer::Session::new();
        let mut clock: u64 = 1_700_000_000_000_000_000;
        let mut last = 0;
        for step in steps {
            clock = clock.wrapping_add_signed(step);
            let c = v7::candidate(clock);
            let v = s.next(&word, c, v7::MAX_WORD).unwrap();
            prop_assert!(v > last);
            prop_assert!(v >= c);
            last = v;
        }
    }
}
