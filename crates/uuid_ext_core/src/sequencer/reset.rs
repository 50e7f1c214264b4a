//! Bringing sequencer words back to the clock (a *reset*), and making every
//! session follow.
//!
//! A word never goes back by itself ([`crate::sequencer`]): after a clock
//! that ran ahead was corrected, every new value carries the word's later
//! time until the clock catches up, years perhaps. A reset lowers the words
//! to the clock's candidate, as `setval` does for a sequence. Every session
//! must then forget its own last value, or it would push the word back up.
//!
//! A *reset count* shared by every user of the words orders the two. It is
//! odd while a reset lowers the words and even otherwise; a reset adds one
//! before it lowers the words and one after. A draw:
//!
//! 1. reads an even count ([`settled`]), and forgets its session's last
//!    value when the count moved since its previous draw;
//! 2. loads the word, checks the count again, and only then compares and
//!    swaps; a changed count sends it back to 1.
//!
//! Why no value drawn before a reset survives into the words after it: a
//! draw whose compare-and-swap lands after the reset's lowering store in the
//! word's modification order loaded, as its expected value, that store or a
//! later value (every later change is a read-modify-write, so the store
//! heads a release sequence). Its `Acquire` load then synchronizes with the
//! store, which the first increment precedes: the check in 2 sees the count
//! moved, and the draw retries with a forgotten last value. A draw whose
//! compare-and-swap lands before the lowering store is simply a draw made
//! before the reset. A draw that read the final, even count synchronizes
//! with the second increment and sees the lowered words.
//!
//! The caller holds its own lock around a reset (one at a time, and none
//! while a limit is raised: a raise checks the count under that lock, so a
//! value from before a reset never reaches the disk after it).

use std::sync::atomic::{AtomicU64, Ordering};

/// The count once no reset is lowering the words: spins, then yields, while
/// one is (a few atomic stores).
pub fn settled(read: impl Fn() -> u64) -> u64 {
    let mut spins = 0u32;
    loop {
        let count = read();
        if count.is_multiple_of(2) {
            return count;
        }
        spins = spins.saturating_add(1);
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// One word's value before and after a reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    pub before: u64,
    pub after: u64,
}

/// Lowers each word to its target when it is above it (a word at or below
/// its target stays), between the two increments of `count`; `also` runs
/// while the count is odd, with what each word became (the caller lowers
/// its limits there). Called under the caller's lock.
pub fn reset<const N: usize>(
    count: &AtomicU64,
    words: [(&AtomicU64, u64); N],
    also: impl FnOnce(&[Moved; N]),
) -> [Moved; N] {
    let begun = count.fetch_add(1, Ordering::SeqCst);
    debug_assert!(begun.is_multiple_of(2), "a reset began inside another");
    let moved = words.map(|(word, to)| lower(word, to));
    also(&moved);
    count.fetch_add(1, Ordering::SeqCst);
    moved
}

/// Lowers `word` to `to` when it holds more.
fn lower(word: &AtomicU64, to: u64) -> Moved {
    let mut current = word.load(Ordering::Acquire);
    loop {
        if current <= to {
            return Moved {
                before: current,
                after: current,
            };
        }
        match word.compare_exchange_weak(current, to, Ordering::SeqCst, Ordering::Acquire) {
            Ok(_) => {
                return Moved {
                    before: current,
                    after: to,
                }
            }
            Err(actual) => current = actual,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sequencer::horizon::Horizon;
    use crate::sequencer::lead::Open;
    use crate::sequencer::{Session, Stop};
    use std::sync::atomic::AtomicBool;

    /// No durable limit, but resets counted.
    struct Counted<'a>(&'a AtomicU64);

    impl Horizon for Counted<'_> {
        type Error = ();
        fn limit(&self) -> u64 {
            u64::MAX
        }
        fn extend(&self, _needed: u64, _seen: u64) -> Result<bool, ()> {
            Ok(true)
        }
        fn resets(&self) -> u64 {
            self.0.load(Ordering::Acquire)
        }
    }

    const AHEAD: u64 = 1_000_000_000;
    const CLOCK: u64 = 1_000;

    #[test]
    fn a_reset_brings_the_word_and_every_session_back_to_the_clock() {
        let (word, count) = (AtomicU64::new(0), AtomicU64::new(0));
        let h = Counted(&count);
        let (mut a, mut b) = (Session::new(), Session::new());
        // The clock ran ahead: both sessions drew there.
        assert_eq!(a.next_within(&word, &h, AHEAD, u64::MAX), Ok(AHEAD));
        assert_eq!(b.next_within(&word, &h, AHEAD, u64::MAX), Ok(AHEAD + 1));
        let mut lowered = None;
        let moved = reset(&count, [(&word, CLOCK)], |m| lowered = Some(*m));
        assert_eq!(
            moved,
            [Moved {
                before: AHEAD + 1,
                after: CLOCK
            }]
        );
        assert_eq!(lowered, Some(moved));
        assert_eq!(count.load(Ordering::Relaxed), 2);
        // Neither session's own last value takes it back up.
        assert_eq!(a.next_within(&word, &h, CLOCK, u64::MAX), Ok(CLOCK + 1));
        assert_eq!(b.next_within(&word, &h, CLOCK, u64::MAX), Ok(CLOCK + 2));
        assert_eq!(
            a.next_within(&word, &h, CLOCK + 10, u64::MAX),
            Ok(CLOCK + 10)
        );
    }

    #[test]
    fn a_word_at_or_below_the_clock_stays() {
        let (word, count) = (AtomicU64::new(500), AtomicU64::new(0));
        let moved = reset(&count, [(&word, CLOCK)], |_| {});
        assert_eq!(
            moved,
            [Moved {
                before: 500,
                after: 500
            }]
        );
        assert_eq!(word.load(Ordering::Relaxed), 500);
    }

    #[test]
    fn a_draw_that_meets_a_reset_in_progress_says_so() {
        let (word, count) = (AtomicU64::new(AHEAD), AtomicU64::new(0));
        let h = Counted(&count);
        let mut s = Session::new();
        count.store(1, Ordering::SeqCst);
        // Seen as 0 by the caller, the count is 1 now: retry, nothing drawn.
        assert_eq!(
            s.next_in(&word, &h, &Open, 0, CLOCK, u64::MAX),
            Err(Stop::Reset)
        );
        assert_eq!(word.load(Ordering::Relaxed), AHEAD);
        count.store(2, Ordering::SeqCst);
        assert_eq!(settled(|| count.load(Ordering::Acquire)), 2);
    }

    #[test]
    fn no_draw_begun_after_a_reset_returns_gets_a_value_from_before_it() {
        // Four threads draw with a clock far ahead; the clock is corrected and
        // a reset brings the word back. Each draw reads the count, then the
        // clock, as the glue does. Every draw that began after the reset
        // returned must be just above the clock, and no value is given twice.
        for _ in 0..20 {
            let (word, count) = (AtomicU64::new(0), AtomicU64::new(0));
            let clock = AtomicU64::new(AHEAD);
            let done = AtomicBool::new(false);
            let h = Counted(&count);
            let per_thread = 4_000u64;
            let draw = |s: &mut Session| loop {
                let seen = settled(|| count.load(Ordering::Acquire));
                let candidate = clock.load(Ordering::SeqCst);
                match s.next_in(&word, &h, &Open, seen, candidate, u64::MAX) {
                    Err(Stop::Reset) => continue,
                    other => break other.unwrap(),
                }
            };
            let drawn: Vec<Vec<(bool, u64)>> = std::thread::scope(|scope| {
                let drawers: Vec<_> = (0..4)
                    .map(|_| {
                        scope.spawn(|| {
                            let mut s = Session::new();
                            (0..per_thread)
                                .map(|_| (done.load(Ordering::SeqCst), draw(&mut s)))
                                .collect()
                        })
                    })
                    .collect();
                std::thread::yield_now();
                clock.store(CLOCK, Ordering::SeqCst);
                reset(&count, [(&word, CLOCK)], |_| {});
                done.store(true, Ordering::SeqCst);
                drawers.into_iter().map(|d| d.join().unwrap()).collect()
            });
            let after: Vec<u64> = drawn
                .iter()
                .flatten()
                .filter(|d| d.0)
                .map(|d| d.1)
                .collect();
            let most = CLOCK + 4 * per_thread;
            assert!(
                after.iter().all(|&v| v >= CLOCK && v <= most),
                "a value from before the reset after it: {:?}",
                after
                    .iter()
                    .filter(|&&v| v > most)
                    .take(3)
                    .collect::<Vec<_>>()
            );
            for thread in &drawn {
                // Each thread's values rise, except once, across the reset.
                let falls = thread.windows(2).filter(|w| w[1].1 <= w[0].1).count();
                assert!(falls <= 1, "{falls} falls in one thread");
            }
            let mut all: Vec<u64> = drawn.iter().flatten().map(|d| d.1).collect();
            let n = all.len();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), n, "no value given twice");
        }
    }
}
