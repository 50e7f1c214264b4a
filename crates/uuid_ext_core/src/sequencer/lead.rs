//! How far a sequencer word runs ahead of the clock, and when to say so.
//!
//! A word never goes back (see [`crate::sequencer`]): after a clock that ran
//! ahead is corrected, every new UUID carries the word's later time until the
//! clock catches up. Bursts put a word ahead too, but only by what they draw
//! beyond 65,536 values a millisecond (UUIDv7) or 1 a 100 ns tick (UUIDv6):
//! a lead of a minute is no burst. [`Watch`] turns the lead measured each
//! round into a warning when it passes a threshold, repeated at a bounded
//! rate while it lasts, and a note when it ends.

use crate::timestamp::{self, NS_PER_MS};
use crate::v7;

/// How many milliseconds the UUIDv7 word's time is ahead of `now_ns`
/// (0 when it is not ahead).
pub fn v7_ms(word: u64, now_ns: u64) -> u64 {
    (word / v7::WORD_UNITS_PER_MS).saturating_sub(now_ns / NS_PER_MS)
}

/// How many milliseconds the UUIDv6 word's time (100 ns ticks since
/// 1582-10-15) is ahead of `now_ns` (0 when it is not ahead).
pub fn v6_ms(word: u64, now_ns: u64) -> u64 {
    let word_ns = u128::from(word.saturating_sub(timestamp::GREGORIAN_TO_UNIX_100NS)) * 100;
    let lead_ns = word_ns.saturating_sub(u128::from(now_ns));
    u64::try_from(lead_ns / u128::from(NS_PER_MS)).unwrap_or(u64::MAX)
}

/// A lead as a person reads it, as PostgreSQL prints an interval:
/// `3650 days 00:00:04.235`, `00:01:05.000`.
pub fn format_ms(ms: u64) -> String {
    let (days, rest) = (ms / 86_400_000, ms % 86_400_000);
    let clock = format!(
        "{:02}:{:02}:{:02}.{:03}",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1_000 % 60,
        rest % 1_000
    );
    match days {
        0 => clock,
        1 => format!("1 day {clock}"),
        d => format!("{d} days {clock}"),
    }
}

/// What a round of watching should say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Say {
    Nothing,
    /// The lead passed the threshold (`first`: it was not reported before in
    /// this stretch).
    Ahead {
        first: bool,
    },
    /// The lead is back under the threshold after a report.
    Back,
}

/// One word's watch: reports a lead over `threshold_ms` when it first
/// passes it and then once every `repeat_ms` while it lasts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Watch {
    /// When (ms) the current stretch was last reported; None: no stretch.
    reported_at: Option<u64>,
}

impl Watch {
    pub const fn new() -> Self {
        Watch { reported_at: None }
    }

    /// One observation at `now_ms` of a lead of `lead_ms`. A threshold of 0
    /// watches nothing.
    pub fn observe(&mut self, lead_ms: u64, threshold_ms: u64, now_ms: u64, repeat_ms: u64) -> Say {
        if threshold_ms == 0 || lead_ms <= threshold_ms {
            return match self.reported_at.take() {
                Some(_) => Say::Back,
                None => Say::Nothing,
            };
        }
        match self.reported_at {
            None => {
                self.reported_at = Some(now_ms);
                Say::Ahead { first: true }
            }
            // The clock may step back under the watch: a report time in the
            // future counts as due.
            Some(at) if now_ms.saturating_sub(at) >= repeat_ms || now_ms < at => {
                self.reported_at = Some(now_ms);
                Say::Ahead { first: false }
            }
            Some(_) => Say::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v6;

    const NOW_NS: u64 = 1_764_017_455_000 * NS_PER_MS; // 2025-11-24 20:50:55 UTC
    const TEN_YEARS_MS: u64 = 3_650 * 86_400_000;

    #[test]
    fn leads_of_both_words_in_milliseconds() {
        let now_ms = NOW_NS / NS_PER_MS;
        assert_eq!(v7_ms(v7::candidate(NOW_NS), NOW_NS), 0);
        assert_eq!(v7_ms((now_ms + TEN_YEARS_MS) << 16, NOW_NS), TEN_YEARS_MS);
        // A word behind the clock (it follows the clock at the next draw).
        assert_eq!(v7_ms((now_ms - 5) << 16, NOW_NS), 0);
        assert_eq!(v6_ms(v6::candidate(NOW_NS), NOW_NS), 0);
        assert_eq!(
            v6_ms(v6::candidate(NOW_NS + 1_500 * NS_PER_MS), NOW_NS),
            1_500
        );
        assert_eq!(v6_ms(v6::candidate(NOW_NS - NS_PER_MS), NOW_NS), 0);
        assert_eq!(v6_ms(0, NOW_NS), 0);
        assert_eq!(v7_ms(v7::MAX_WORD, 0), timestamp::MAX_UNIX_MS);
    }

    #[test]
    fn a_burst_of_a_second_at_full_speed_is_far_under_a_minute() {
        // 65,536 values a millisecond for a whole second, drawn in 1 ms of
        // clock: the word runs 999 ms ahead.
        let start = v7::candidate(NOW_NS);
        let word = start + 1_000 * v7::WORD_UNITS_PER_MS;
        assert_eq!(v7_ms(word, NOW_NS + NS_PER_MS), 999);
    }

    #[test]
    fn reports_once_then_at_the_repeat_rate_then_when_it_ends() {
        let mut w = Watch::new();
        let (threshold, repeat) = (60_000, 300_000);
        assert_eq!(w.observe(0, threshold, 0, repeat), Say::Nothing);
        assert_eq!(w.observe(60_000, threshold, 1, repeat), Say::Nothing);
        assert_eq!(
            w.observe(60_001, threshold, 2, repeat),
            Say::Ahead { first: true }
        );
        assert_eq!(
            w.observe(TEN_YEARS_MS, threshold, 1_000, repeat),
            Say::Nothing
        );
        assert_eq!(
            w.observe(TEN_YEARS_MS, threshold, 300_001, repeat),
            Say::Nothing
        );
        assert_eq!(
            w.observe(TEN_YEARS_MS, threshold, 300_002, repeat),
            Say::Ahead { first: false }
        );
        assert_eq!(
            w.observe(TEN_YEARS_MS, threshold, 600_001, repeat),
            Say::Nothing
        );
        assert_eq!(w.observe(5, threshold, 600_002, repeat), Say::Back);
        assert_eq!(w.observe(5, threshold, 600_003, repeat), Say::Nothing);
        assert_eq!(
            w.observe(TEN_YEARS_MS, threshold, 600_004, repeat),
            Say::Ahead { first: true }
        );
    }

    #[test]
    fn a_clock_that_steps_back_under_the_watch_still_gets_reports() {
        let mut w = Watch::new();
        assert_eq!(
            w.observe(TEN_YEARS_MS, 1, 1_000_000, 10),
            Say::Ahead { first: true }
        );
        assert_eq!(
            w.observe(TEN_YEARS_MS, 1, 5, 10),
            Say::Ahead { first: false }
        );
    }

    #[test]
    fn leads_read_as_intervals() {
        assert_eq!(format_ms(0), "00:00:00.000");
        assert_eq!(format_ms(65_000), "00:01:05.000");
        assert_eq!(format_ms(86_400_000 + 1), "1 day 00:00:00.001");
        assert_eq!(format_ms(TEN_YEARS_MS + 4_235), "3650 days 00:00:04.235");
    }

    #[test]
    fn threshold_zero_watches_nothing() {
        let mut w = Watch::new();
        assert_eq!(w.observe(TEN_YEARS_MS, 0, 0, 1), Say::Nothing);
        assert_eq!(w.observe(TEN_YEARS_MS, 0, 10, 1), Say::Nothing);
    }
}
