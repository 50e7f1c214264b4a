//! How far a sequencer word runs ahead of the clock: measured, bounded, and
//! reported (docs/design.md#the-lead-over-the-clock).
//!
//! A word never goes back (see [`crate::sequencer`]): after a clock that ran
//! ahead is corrected, every new UUID carries the word's later time until the
//! clock catches up. Draws put a word ahead too, but only by what they draw
//! beyond 65,536 values a millisecond (UUIDv7) or 16 a 100 ns tick (UUIDv6).
//!
//! **The bound.** A draw never takes a word more than a bound ahead of a
//! [`Reference`]: a clock that never steps back, `max(wall, offset +
//! monotonic)`, where `offset` is the largest `wall - monotonic` seen. When
//! the wall clock steps back, the reference does not, so a word that is
//! legitimately ahead of the wall clock (the clock lied) keeps being drawn
//! from; only draws faster than the clock meet the bound, and wait for the
//! clock ([`Ceiling`], `Stop::Ahead`). The draw compares with the wall
//! clock's candidate plus the bound first (a lower value, known without
//! reading the monotonic clock), and reads the reference only for a value
//! above that.
//!
//! [`Watch`] turns the lead measured each round into a warning when it
//! passes a threshold, repeated at a bounded rate while it lasts, and a note
//! when it ends.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::timestamp::{self, NS_PER_MS};
use crate::{v6, v7};

/// How many milliseconds the UUIDv7 word's time is ahead of `now_ns`
/// (0 when it is not ahead).
pub fn v7_ms(word: u64, now_ns: u64) -> u64 {
    (word / v7::WORD_UNITS_PER_MS).saturating_sub(now_ns / NS_PER_MS)
}

/// How many milliseconds the UUIDv6 word's time (its 100 ns tick since
/// 1582-10-15) is ahead of `now_ns` (0 when it is not ahead).
pub fn v6_ms(word: u64, now_ns: u64) -> u64 {
    let lead_ns = u128::from(v6_ns(word)).saturating_sub(u128::from(now_ns));
    u64::try_from(lead_ns / u128::from(NS_PER_MS)).unwrap_or(u64::MAX)
}

/// The Unix nanoseconds a UUIDv7 word's time means (its millisecond and
/// fraction), saturated at `u64::MAX`.
pub fn v7_ns(word: u64) -> u64 {
    let ms = u128::from(word / v7::WORD_UNITS_PER_MS);
    let fraction = u128::from((word >> v7::COUNTER_BITS) & 0xfff);
    let ns = ms * u128::from(NS_PER_MS) + fraction * u128::from(NS_PER_MS) / 4096;
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// The Unix nanoseconds a UUIDv6 word's tick means (0 before 1970).
pub fn v6_ns(word: u64) -> u64 {
    let ticks = v6::time_of_word(word).saturating_sub(timestamp::GREGORIAN_TO_UNIX_100NS);
    ticks.saturating_mul(100)
}

/// A bound in milliseconds as UUIDv7 word units (65,536 a millisecond).
pub fn v7_units(ms: u64) -> u64 {
    ms.saturating_mul(v7::WORD_UNITS_PER_MS)
}

/// A bound in milliseconds as UUIDv6 word units (16 a 100 ns tick).
pub fn v6_units(ms: u64) -> u64 {
    ms.saturating_mul(10_000 * v6::WORD_UNITS_PER_TICK)
}

/// A clock that never steps back, kept as the largest `wall - monotonic`
/// seen (nanoseconds; shared by every process of a server, or kept by one
/// process). All times are passed in: the caller reads the clocks.
#[derive(Clone, Copy, Debug)]
pub struct Reference<'a> {
    pub offset: &'a AtomicU64,
}

impl Reference<'_> {
    /// The reference time at wall clock `wall_ns` and monotonic clock
    /// `mono_ns`: `max(wall, offset + monotonic)`.
    #[inline]
    pub fn now(self, wall_ns: u64, mono_ns: u64) -> u64 {
        wall_ns.max(self.offset.load(Ordering::Acquire).saturating_add(mono_ns))
    }

    /// Makes the reference at least `time_ns` at monotonic time `mono_ns`,
    /// and from then on at least that plus the monotonic time passed: a wall
    /// clock seen, or the time of a word a restart or redo starts from. Only
    /// raises, and writes only when it does (the common call changes nothing).
    #[inline]
    pub fn raise(self, time_ns: u64, mono_ns: u64) {
        let offset = time_ns.saturating_sub(mono_ns);
        if self.offset.load(Ordering::Relaxed) < offset {
            self.offset.fetch_max(offset, Ordering::AcqRel);
        }
    }

    /// Sets the reference back to `time_ns` at `mono_ns` (a reset that
    /// brought the words back to the clock).
    pub fn set(self, time_ns: u64, mono_ns: u64) {
        self.offset
            .store(time_ns.saturating_sub(mono_ns), Ordering::Release);
    }
}

/// The candidate of a word at the reference time `reference_ns`, through
/// `to_candidate` (`v7::candidate`, `v6::candidate`): `u64::MAX` when the
/// reference is beyond what 64-bit nanoseconds hold (after 2554: a word
/// restored there, which no clock reaches), so such a word meets no ceiling.
#[inline]
pub fn candidate_at(reference_ns: u64, to_candidate: fn(u64) -> u64) -> u64 {
    if reference_ns == u64::MAX {
        u64::MAX
    } else {
        to_candidate(reference_ns)
    }
}

/// How far a draw may take a word: no value above the ceiling is handed
/// out (the draw stops with `Stop::Ahead` and waits for the clock).
pub trait Ceiling {
    /// A value at or below the ceiling, known cheaply: the wall clock's
    /// candidate plus the bound.
    fn quick(&self) -> u64;
    /// The ceiling itself: the [`Reference`]'s candidate plus the bound.
    /// Asked only for a value above [`Ceiling::quick`].
    fn exact(&self) -> u64;
}

/// No ceiling (the bound turned off, and the core's own tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct Open;

impl Ceiling for Open {
    #[inline]
    fn quick(&self) -> u64 {
        u64::MAX
    }
    #[inline]
    fn exact(&self) -> u64 {
        u64::MAX
    }
}

/// A word's ceiling for one draw: `bound` word units above the candidate of
/// the wall clock (`quick`), and of the reference (`exact`, which reads the
/// monotonic clock through `reference_candidate` only when asked).
#[derive(Clone, Copy, Debug)]
pub struct Bounded<F: Fn() -> u64> {
    quick: u64,
    bound: u64,
    reference_candidate: F,
}

impl<F: Fn() -> u64> Bounded<F> {
    /// The ceiling for a draw whose wall clock gave `candidate`, `bound`
    /// units ahead of the reference, whose candidate `reference_candidate`
    /// computes.
    #[inline]
    pub fn new(candidate: u64, bound: u64, reference_candidate: F) -> Self {
        Bounded {
            quick: candidate.saturating_add(bound),
            bound,
            reference_candidate,
        }
    }
}

impl<F: Fn() -> u64> Ceiling for Bounded<F> {
    #[inline]
    fn quick(&self) -> u64 {
        self.quick
    }
    /// Asked only of a draw above the wall clock's candidate plus the
    /// bound: out of every other draw's way.
    #[cold]
    fn exact(&self) -> u64 {
        (self.reference_candidate)().saturating_add(self.bound)
    }
}

/// Whether a draw that stopped `over` word units above its ceiling, `bound`
/// units above the reference, met a reference that went back rather than a
/// fast caller. No draw takes a word above its ceiling, so a word more than
/// the bound above it was not drawn against this reference: both clocks
/// stepped back (the wall clock and the monotonic one the reference is
/// carried on by, as a host whose clocks are set back may do), or the bound
/// was lowered. Waiting for the clock would then take as long as the step
/// (years, for a clock that was years ahead), so the draw does not wait:
/// the reference follows the word, as it does the word a start begins from.
#[inline]
pub fn reference_went_back(over: u64, bound: u64) -> bool {
    over > bound
}

/// What a reference that went back moves up by beyond the draw's excess: a
/// microsecond, more than a candidate's rounding (a UUIDv7's time is kept
/// to a 4,096th of a millisecond, a UUIDv6's to 100 ns).
pub const FOLLOW_SLACK_NS: u64 = 1_000;

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
    use crate::sequencer::horizon::Unbounded;
    use crate::sequencer::{Session, Stop};
    use std::convert::Infallible;

    const HOUR_NS: u64 = 3_600 * 1_000_000_000;
    /// A monotonic clock's reading: the machine booted a day ago.
    const MONO_NS: u64 = 86_400 * 1_000_000_000;

    /// A fake clock and one word, drawn from as the glue draws: the wall
    /// clock observed (the reference raised to it), then a ceiling `bound`
    /// units above the candidates.
    struct Rig {
        word: AtomicU64,
        offset: AtomicU64,
        session: Session,
        wall_ns: u64,
        mono_ns: u64,
        bound: u64,
        candidate: fn(u64) -> u64,
        lead: fn(u64, u64) -> u64,
        max: u64,
    }

    impl Rig {
        fn v7(bound_ms: u64) -> Self {
            Rig::new(v7::candidate, v7_ms, v7_units(bound_ms), v7::MAX_WORD)
        }
        fn v6(bound_ms: u64) -> Self {
            Rig::new(v6::candidate, v6_ms, v6_units(bound_ms), v6::MAX_WORD)
        }
        fn new(candidate: fn(u64) -> u64, lead: fn(u64, u64) -> u64, bound: u64, max: u64) -> Self {
            Rig {
                word: AtomicU64::new(0),
                offset: AtomicU64::new(0),
                session: Session::new(),
                wall_ns: NOW_NS,
                mono_ns: MONO_NS,
                bound,
                candidate,
                lead,
                max,
            }
        }
        /// How far the word is ahead of the wall clock.
        fn lead_ms(&self) -> u64 {
            (self.lead)(self.word.load(Ordering::Relaxed), self.wall_ns)
        }
        /// Both clocks move on by `ns`.
        fn pass(&mut self, ns: u64) {
            self.wall_ns += ns;
            self.mono_ns += ns;
        }
        fn draw(&mut self) -> Result<u64, Stop<Infallible>> {
            let reference = Reference {
                offset: &self.offset,
            };
            reference.raise(self.wall_ns, self.mono_ns);
            let (wall, mono, candidate) = (self.wall_ns, self.mono_ns, self.candidate);
            let c = candidate(wall);
            let ceiling = Bounded::new(c, self.bound, || {
                candidate_at(reference.now(wall, mono), candidate)
            });
            self.session
                .next_in(&self.word, &Unbounded, &ceiling, 0, c, self.max)
        }
        /// Draws until the bound stops it; how many were drawn.
        fn draw_to_the_bound(&mut self) -> u64 {
            let mut n = 0;
            loop {
                match self.draw() {
                    Ok(_) => n += 1,
                    Err(Stop::Ahead(over)) => {
                        assert_eq!(over, 1);
                        return n;
                    }
                    Err(e) => panic!("{e:?}"),
                }
            }
        }
    }

    #[test]
    fn the_reference_never_steps_back() {
        let offset = AtomicU64::new(0);
        let r = Reference { offset: &offset };
        // Never observed: the wall clock.
        assert_eq!(r.now(NOW_NS, MONO_NS), NOW_NS);
        r.raise(NOW_NS, MONO_NS);
        // The wall clock steps back an hour, a second later: the reference
        // is a second on.
        assert_eq!(
            r.now(NOW_NS - HOUR_NS, MONO_NS + 1_000_000_000),
            NOW_NS + 1_000_000_000
        );
        // Seeing the stepped-back clock lowers nothing.
        r.raise(NOW_NS - HOUR_NS, MONO_NS + 1_000_000_000);
        assert_eq!(
            r.now(NOW_NS - HOUR_NS, MONO_NS + 2_000_000_000),
            NOW_NS + 2_000_000_000
        );
        // A clock ahead of it wins, and stays won after it is corrected.
        r.raise(NOW_NS + 10 * HOUR_NS, MONO_NS + 3_000_000_000);
        assert_eq!(
            r.now(NOW_NS, MONO_NS + 4_000_000_000),
            NOW_NS + 10 * HOUR_NS + 1_000_000_000
        );
        // A reset sets it back to the clock.
        r.set(NOW_NS + 5, MONO_NS + 5_000_000_000);
        assert_eq!(r.now(NOW_NS + 5, MONO_NS + 5_000_000_000), NOW_NS + 5);
        // A word's time (a restart from the horizon, redo) raises it.
        r.raise(
            v7_ns(v7::candidate(NOW_NS + HOUR_NS)),
            MONO_NS + 5_000_000_000,
        );
        assert_eq!(r.now(NOW_NS, MONO_NS + 5_000_000_000), NOW_NS + HOUR_NS);
        // Monotonic time beyond the wall clock (a wall clock before 1970).
        let zero = AtomicU64::new(0);
        Reference { offset: &zero }.raise(5, MONO_NS);
        assert_eq!(zero.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn word_times_in_nanoseconds() {
        assert_eq!(v7_ns(v7::candidate(NOW_NS)), NOW_NS);
        assert_eq!(v7_ns(v7::candidate(NOW_NS + 500_000)), NOW_NS + 500_000);
        // The fraction is 1/4096 ms: the nanoseconds within it are cut.
        assert!(NOW_NS + 123_456 - v7_ns(v7::candidate(NOW_NS + 123_456)) < 245);
        assert_eq!(v6_ns(v6::candidate(NOW_NS + 1_234_500)), NOW_NS + 1_234_500);
        assert_eq!(v6_ns(v6::candidate(NOW_NS) | 0xf), NOW_NS);
        assert_eq!(v6_ns(0), 0);
        assert_eq!(v7_ns(v7::MAX_WORD), u64::MAX);
        assert_eq!(v7_units(1), 65_536);
        assert_eq!(v6_units(1), 160_000);
    }

    #[test]
    fn draws_faster_than_the_clock_stop_at_the_bound() {
        // UUIDv7, a bound of 1 ms, the clock stopped: the values of this
        // fraction and of the next millisecond, then no more.
        let mut rig = Rig::v7(1);
        let start = v7::candidate(NOW_NS);
        assert_eq!(rig.draw_to_the_bound(), v7_units(1) + 1);
        let top = rig.word.load(Ordering::Relaxed);
        assert_eq!(top, start + v7_units(1));
        assert_eq!(v7_ms(top, NOW_NS), 1);
        // Stopped, the word and the session are as they were.
        assert_eq!(rig.draw(), Err(Stop::Ahead(1)));
        assert_eq!(rig.word.load(Ordering::Relaxed), top);
        assert_eq!(rig.session.last(), top);
        // As the clock moves on, so do the values, at the clock's pace.
        rig.pass(NS_PER_MS / 2);
        assert_eq!(rig.draw_to_the_bound(), v7_units(1) / 2);
        assert_eq!(v7_ms(rig.word.load(Ordering::Relaxed), rig.wall_ns), 1);

        // UUIDv6: 16 a tick; a bound of 1 ms is 160,000 values.
        let mut rig = Rig::v6(1);
        assert_eq!(rig.draw_to_the_bound(), v6_units(1) + 1);
        assert_eq!(v6_ms(rig.word.load(Ordering::Relaxed), NOW_NS), 1);
        rig.pass(100);
        assert_eq!(rig.draw_to_the_bound(), 16);
    }

    #[test]
    fn a_clock_that_steps_back_an_hour_never_stalls() {
        for mut rig in [Rig::v7(100), Rig::v6(100)] {
            let before = rig.draw().unwrap();
            // The wall clock steps back an hour; a microsecond passes.
            rig.wall_ns -= HOUR_NS;
            rig.pass(1_000);
            let after: Vec<u64> = (0..10_000).map(|_| rig.draw().unwrap()).collect();
            assert_eq!(after[0], before + 1);
            assert!(after.windows(2).all(|w| w[0] < w[1]));
            // An hour ahead of the wall clock, and still within the bound
            // of the reference: only draws faster than the clock stop.
            let n = rig.draw_to_the_bound();
            assert!(n > 1_000_000, "{n}");
            assert_eq!(rig.lead_ms(), 3_600_100);
            // Time passing lets the draws go on, an hour ahead of the wall clock.
            rig.pass(10 * NS_PER_MS);
            assert!(rig.draw().is_ok());
        }
    }

    #[test]
    fn words_restored_ahead_of_the_clock_are_drawn_from() {
        // A restart (or a promoted standby) whose words are a day ahead of
        // its clock: the reference starts at their time, so draws go on.
        let mut rig = Rig::v7(100);
        let restored = v7::candidate(NOW_NS + 24 * HOUR_NS);
        rig.word.store(restored, Ordering::Relaxed);
        Reference {
            offset: &rig.offset,
        }
        .raise(v7_ns(restored), rig.mono_ns);
        assert_eq!(rig.draw(), Ok(restored + 1));
        // Without it, the first draw would wait a day.
        let mut stalled = Rig::v7(100);
        stalled.word.store(restored, Ordering::Relaxed);
        assert!(matches!(stalled.draw(), Err(Stop::Ahead(_))));
        // The same for UUIDv6.
        let mut rig = Rig::v6(100);
        let restored = v6::from_persisted(v6::persisted(v6::candidate(NOW_NS + 24 * HOUR_NS)));
        rig.word.store(restored, Ordering::Relaxed);
        Reference {
            offset: &rig.offset,
        }
        .raise(v6_ns(restored), rig.mono_ns);
        assert_eq!(rig.draw(), Ok(restored + 1));
    }

    #[test]
    fn both_clocks_stepped_back_are_told_from_a_fast_caller() {
        // Both clocks ten years ahead for a while (libfaketime without
        // FAKETIME_DONT_FAKE_MONOTONIC, a host whose clocks were set wrong):
        // the words follow them, and the reference is raised there.
        let ten_years = 3_650 * 24 * HOUR_NS;
        let mut rig = Rig::v7(100);
        rig.pass(ten_years);
        for _ in 0..10 {
            rig.draw().unwrap();
        }
        // Both step back: the reference (wall, or offset + monotonic)
        // steps back with them, and the next draw stops ten years above
        // its ceiling, far more than the bound: not a fast caller.
        rig.wall_ns -= ten_years;
        rig.mono_ns -= ten_years;
        let Err(Stop::Ahead(over)) = rig.draw() else {
            panic!("the draw was not stopped")
        };
        assert!(reference_went_back(over, rig.bound));
        // The reference moves up by what stopped the draw (the glue's
        // rule, whatever value stopped it: the word, or a session's floor):
        // the draw goes on.
        let word = rig.word.load(Ordering::Relaxed);
        let reference = Reference {
            offset: &rig.offset,
        };
        let over_ns = (u128::from(over) * u128::from(NS_PER_MS))
            .div_ceil(u128::from(v7::WORD_UNITS_PER_MS)) as u64;
        reference.raise(
            reference.now(rig.wall_ns, rig.mono_ns) + over_ns + FOLLOW_SLACK_NS,
            rig.mono_ns,
        );
        assert_eq!(rig.draw(), Ok(word + 1));
        // A fast caller meets the ceiling a unit at a time, within the bound:
        // it waits for the clock.
        let mut fast = Rig::v7(1);
        fast.draw_to_the_bound();
        let Err(Stop::Ahead(over)) = fast.draw() else {
            panic!("the fast caller was not stopped")
        };
        assert!(!reference_went_back(over, fast.bound));
        assert!(!reference_went_back(fast.bound, fast.bound));
    }

    #[test]
    fn a_word_beyond_the_clocks_reach_meets_no_ceiling() {
        // The last words, restored (a test, or a file from 10889): their
        // time does not fit in 64-bit nanoseconds; the reference saturates
        // and the ceiling is none, so the draw reaches the last value and
        // then 22008's Exhausted, never a wait.
        for (mut rig, last) in [(Rig::v7(100), v7::MAX_WORD), (Rig::v6(100), v6::MAX_WORD)] {
            rig.word.store(last - 1, Ordering::Relaxed);
            let ns = if last == v7::MAX_WORD {
                v7_ns(last - 1)
            } else {
                v6_ns(last - 1)
            };
            assert_eq!(ns, u64::MAX);
            Reference {
                offset: &rig.offset,
            }
            .raise(ns, rig.mono_ns);
            assert_eq!(rig.draw(), Ok(last));
            assert_eq!(rig.draw(), Err(Stop::Exhausted));
        }
        assert_eq!(candidate_at(u64::MAX, v7::candidate), u64::MAX);
        assert_eq!(candidate_at(NOW_NS, v7::candidate), v7::candidate(NOW_NS));
    }

    #[test]
    fn the_bound_is_checked_cheaply_first() {
        // Below the wall clock's candidate plus the bound, the reference is
        // never read.
        let read = std::cell::Cell::new(0);
        let c = Bounded::new(1_000, 10, || {
            read.set(read.get() + 1);
            5_000
        });
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        for _ in 0..11 {
            s.next_in(&word, &Unbounded, &c, 0, 1_000, u64::MAX)
                .unwrap();
        }
        assert_eq!((word.load(Ordering::Relaxed), read.get()), (1_010, 0));
        // Above it, the reference decides.
        assert_eq!(
            s.next_in(&word, &Unbounded, &c, 0, 1_000, u64::MAX),
            Ok::<u64, Stop<Infallible>>(1_011)
        );
        assert_eq!(read.get(), 1);
        assert_eq!(Open.quick(), u64::MAX);
    }

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
