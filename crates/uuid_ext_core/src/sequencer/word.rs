//! The sequencer (docs/design.md#the-sequencer-word): a 64-bit word advanced lock-free by
//! compare-and-swap to `max(candidate, last + 1)`.
//!
//! The word's home is the caller's business: a shared-memory atomic every
//! backend of the server uses, or a process-local one. [`Word`] is the only
//! thing the algorithm needs of it. A [`Session`] also remembers the last
//! value it was given and never asks for less, so switching between words
//! never goes backwards.
//!
//! The value only grows: when the clock steps back, or when more values are
//! asked for in a millisecond than it holds, the word runs ahead of the clock
//! until the clock catches up. At the word's maximum it stops with
//! [`Exhausted`] instead of wrapping. With a [`Horizon`] it also never
//! passes a limit that is on disk (durable order, [`crate::sequencer::horizon`]),
//! and with a [`Ceiling`] never more than a bound ahead of a clock that
//! never steps back ([`crate::sequencer::lead`]).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::sequencer::horizon::{Horizon, Unbounded};
use crate::sequencer::lead::{Ceiling, Open};
use crate::sequencer::reset;

/// Where a sequencer word lives.
pub trait Word {
    fn load(&self) -> u64;
    /// Stores `new` if the word still holds `current`; otherwise returns what it holds.
    fn compare_exchange_weak(&self, current: u64, new: u64) -> Result<u64, u64>;
}

impl Word for AtomicU64 {
    #[inline]
    fn load(&self) -> u64 {
        // Acquire: a draw that loads a value at or after a reset's lowering
        // store sees the reset counted (crate::sequencer::reset).
        AtomicU64::load(self, Ordering::Acquire)
    }

    #[inline]
    fn compare_exchange_weak(&self, current: u64, new: u64) -> Result<u64, u64> {
        // One location's modification order is total whatever the ordering.
        // Release makes a commit-watermark announcement stored before the
        // advance visible to a reader that sees the new value (watermark.rs);
        // on x86 every compare-and-swap is a full barrier anyway.
        AtomicU64::compare_exchange_weak(self, current, new, Ordering::AcqRel, Ordering::Acquire)
    }
}

/// The word can go no higher: the time field is at its last value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted;

/// Why a sequencer gave no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop<E> {
    /// The word is at its maximum.
    Exhausted,
    /// The next value is above the durable limit, which could not be raised.
    Horizon(E),
    /// A reset began or ended since the count the caller saw
    /// ([`crate::sequencer::reset`]): read the count and the clock again, and retry.
    Reset,
    /// The next value is this many word units above the [`Ceiling`]: wait
    /// for the clock to move on, read it again, and retry
    /// ([`crate::sequencer::lead`]).
    Ahead(u64),
}

impl<E> From<Exhausted> for Stop<E> {
    fn from(_: Exhausted) -> Self {
        Stop::Exhausted
    }
}

/// Advances `word` to `max(floor, word + 1)` and returns the new value, which
/// no other caller of the same word is ever given. Fails, leaving the word as
/// it is, when that would exceed `max`.
#[inline]
pub fn advance<W: Word + ?Sized>(word: &W, floor: u64, max: u64) -> Result<u64, Exhausted> {
    advance_within(word, &Unbounded, floor, max).map_err(|_| Exhausted)
}

/// [`advance`], never past `horizon`'s limit: a value above it first waits
/// for the limit to be raised (and made durable) past it. Retries across
/// resets with the same `floor`.
#[inline]
pub fn advance_within<W: Word + ?Sized, H: Horizon + ?Sized>(
    word: &W,
    horizon: &H,
    floor: u64,
    max: u64,
) -> Result<u64, Stop<H::Error>> {
    loop {
        let seen = reset::settled(|| horizon.resets());
        match advance_seen(word, horizon, &Open, seen, floor, max) {
            Err(Stop::Reset) => continue,
            other => return other,
        }
    }
}

/// One attempt of [`advance_within`] for the reset count `seen`: stops with
/// [`Stop::Reset`] once the count differs, and with [`Stop::Ahead`] for a
/// value above `ceiling`, before the word is changed. Inlined into every
/// draw: as a call, with its six arguments and its result passed through
/// memory, it cost a UUIDv7 about 55 more instructions (callgrind).
#[inline(always)]
fn advance_seen<W: Word + ?Sized, H: Horizon + ?Sized, C: Ceiling + ?Sized>(
    word: &W,
    horizon: &H,
    ceiling: &C,
    seen: u64,
    floor: u64,
    max: u64,
) -> Result<u64, Stop<H::Error>> {
    let mut current = word.load();
    loop {
        // After the load of `current`, before the swap (crate::sequencer::reset).
        if horizon.resets() != seen {
            return Err(Stop::Reset);
        }
        let next = if current < floor {
            floor
        } else {
            current.checked_add(1).ok_or(Exhausted)?
        };
        if next > max {
            return Err(Stop::Exhausted);
        }
        // The cheap comparison first; the reference only above it.
        if next > ceiling.quick() {
            let exact = ceiling.exact();
            if next > exact {
                return Err(Stop::Ahead(next - exact));
            }
        }
        if next > horizon.limit() {
            if !horizon.extend(next, seen).map_err(Stop::Horizon)? {
                return Err(Stop::Reset);
            }
            current = word.load();
            continue;
        }
        match word.compare_exchange_weak(current, next) {
            Ok(_) => return Ok(next),
            Err(actual) => current = actual,
        }
    }
}

/// Raises `word` to `floor` when it holds less, never past `horizon`'s
/// limit (raised first, as a draw raises it), and returns what the word
/// holds then. Nothing is drawn: a word at or above `floor` stays as it is.
/// For the commit watermark of a node that draws nothing
/// (docs/ordering.md#on-a-citus-cluster): every later draw is above the
/// value returned, so a watermark read after it follows the clock, not the
/// last draw. Stops with [`Stop::Reset`] once the reset count is no longer
/// `seen`, before the word is changed.
pub fn raise<W: Word + ?Sized, H: Horizon + ?Sized>(
    word: &W,
    horizon: &H,
    seen: u64,
    floor: u64,
) -> Result<u64, Stop<H::Error>> {
    let mut current = word.load();
    loop {
        if horizon.resets() != seen {
            return Err(Stop::Reset);
        }
        if current >= floor {
            return Ok(current);
        }
        if floor > horizon.limit() {
            if !horizon.extend(floor, seen).map_err(Stop::Horizon)? {
                return Err(Stop::Reset);
            }
            current = word.load();
            continue;
        }
        match word.compare_exchange_weak(current, floor) {
            Ok(_) => return Ok(floor),
            Err(actual) => current = actual,
        }
    }
}

/// One session's view of a sequence: the last value it was given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Session {
    last: u64,
    /// The reset count of the last draw (crate::sequencer::reset).
    resets: u64,
}

impl Session {
    pub const fn new() -> Self {
        Session { last: 0, resets: 0 }
    }

    /// The last value this session was given (0 before the first).
    pub fn last(&self) -> u64 {
        self.last
    }

    /// The next value from `word` for a clock reading `candidate`: strictly
    /// above this session's last value and above every value `word` gave.
    #[inline]
    pub fn next<W: Word + ?Sized>(
        &mut self,
        word: &W,
        candidate: u64,
        max: u64,
    ) -> Result<u64, Exhausted> {
        self.next_within(word, &Unbounded, candidate, max)
            .map_err(|_| Exhausted)
    }

    /// [`Session::next`], never past `horizon`'s durable limit; across a
    /// reset with the same `candidate` (a caller that reads the clock should
    /// use [`Session::next_in`] and read it again).
    #[inline]
    pub fn next_within<W: Word + ?Sized, H: Horizon + ?Sized>(
        &mut self,
        word: &W,
        horizon: &H,
        candidate: u64,
        max: u64,
    ) -> Result<u64, Stop<H::Error>> {
        loop {
            let seen = reset::settled(|| horizon.resets());
            match self.next_in(word, horizon, &Open, seen, candidate, max) {
                Err(Stop::Reset) => continue,
                other => return other,
            }
        }
    }

    /// One attempt of [`Session::next_within`] for the even reset count
    /// `seen` ([`reset::settled`], read before the clock), never above
    /// `ceiling`: a session that drew before a later reset forgets its last
    /// value; [`Stop::Reset`] when the count moves meanwhile, [`Stop::Ahead`]
    /// when the value would pass the ceiling (read the clock again, later).
    /// Inlined, as [`advance_seen`].
    #[inline(always)]
    pub fn next_in<W: Word + ?Sized, H: Horizon + ?Sized, C: Ceiling + ?Sized>(
        &mut self,
        word: &W,
        horizon: &H,
        ceiling: &C,
        seen: u64,
        candidate: u64,
        max: u64,
    ) -> Result<u64, Stop<H::Error>> {
        if seen != self.resets {
            self.last = 0;
            self.resets = seen;
        }
        let floor = candidate.max(self.last.checked_add(1).ok_or(Exhausted)?);
        let value = advance_seen(word, horizon, ceiling, seen, floor, max)?;
        self.last = value;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{timestamp, v6, v7};

    #[test]
    fn raise_lifts_a_word_below_and_leaves_one_above() {
        let word = AtomicU64::new(100);
        assert_eq!(raise(&word, &Unbounded, 0, 500), Ok(500));
        assert_eq!(word.load(Ordering::Relaxed), 500);
        // At or above: nothing drawn, nothing moved.
        assert_eq!(raise(&word, &Unbounded, 0, 500), Ok(500));
        assert_eq!(raise(&word, &Unbounded, 0, 200), Ok(500));
        assert_eq!(word.load(Ordering::Relaxed), 500);
        // The next draw is above what raise returned.
        let mut s = Session::new();
        assert_eq!(s.next(&word, 0, u64::MAX), Ok(501));
    }

    #[test]
    fn follows_the_clock_when_it_moves_forward() {
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        assert_eq!(s.next(&word, 100, u64::MAX), Ok(100));
        assert_eq!(s.next(&word, 200, u64::MAX), Ok(200));
        assert_eq!(word.load(Ordering::Relaxed), 200);
    }

    #[test]
    fn same_candidate_counts_up() {
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        assert_eq!(s.next(&word, 100, u64::MAX), Ok(100));
        assert_eq!(s.next(&word, 100, u64::MAX), Ok(101));
        assert_eq!(s.next(&word, 100, u64::MAX), Ok(102));
    }

    #[test]
    fn clock_stepping_back_one_hour_never_goes_back() {
        let hour_ns = 3_600 * 1_000_000_000u64;
        let now = 1_645_557_742_000u64 * 1_000_000;
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        let before = s.next(&word, v7::candidate(now), v7::MAX_WORD).unwrap();
        let after = s
            .next(&word, v7::candidate(now - hour_ns), v7::MAX_WORD)
            .unwrap();
        assert_eq!(after, before + 1);
        // Once the clock passes the word again, the clock wins.
        let later = s
            .next(&word, v7::candidate(now + 1_000_000), v7::MAX_WORD)
            .unwrap();
        assert_eq!(later, v7::candidate(now + 1_000_000));
    }

    #[test]
    fn counter_and_fraction_carry_into_the_millisecond() {
        // The last counter step of the last fraction of a millisecond: the
        // next value is the next millisecond's first, ahead of the clock.
        let ms = 1_645_557_742_000u64;
        let edge = (ms << 16) | (0xfff << 4) | 0xf;
        let word = AtomicU64::new(edge);
        let mut s = Session::new();
        let next = s.next(&word, ms << 16, v7::MAX_WORD).unwrap();
        assert_eq!(next, (ms + 1) << 16);
        let b = v7::from_word(next, 0);
        assert_eq!(timestamp::v7_unix_ms(&b), ms + 1);
        assert!(v7::from_word(edge, u64::MAX) < b);
    }

    #[test]
    fn last_millisecond_is_exhausted_never_a_wrap() {
        let word = AtomicU64::new(v7::MAX_WORD - 1);
        let mut s = Session::new();
        assert_eq!(s.next(&word, 0, v7::MAX_WORD), Ok(v7::MAX_WORD));
        assert_eq!(s.next(&word, 0, v7::MAX_WORD), Err(Exhausted));
        assert_eq!(word.load(Ordering::Relaxed), v7::MAX_WORD);
        // A fresh session on the exhausted word fails too.
        assert_eq!(Session::new().next(&word, 5, v7::MAX_WORD), Err(Exhausted));
        // A smaller maximum stops below u64::MAX.
        let word = AtomicU64::new((1 << 60) - 1);
        assert_eq!(Session::new().next(&word, 0, (1 << 60) - 1), Err(Exhausted));
        assert_eq!(
            Session::new().next(&AtomicU64::new(0), 1 << 60, (1 << 60) - 1),
            Err(Exhausted)
        );
    }

    #[test]
    fn v6_counter_carries_into_the_next_tick() {
        // One step from the counter's end within a tick: the last step of
        // the tick, then the next tick's first, ahead of the clock.
        let tick = 0x1EC_9414_C232_AB00u64;
        let word = AtomicU64::new((tick << 4) | 0xe);
        let mut s = Session::new();
        let candidate = tick << 4;
        assert_eq!(
            s.next(&word, candidate, v6::MAX_WORD),
            Ok((tick << 4) | 0xf)
        );
        let next = s.next(&word, candidate, v6::MAX_WORD).unwrap();
        assert_eq!(next, (tick + 1) << 4);
        let (a, b) = (
            v6::from_word((tick << 4) | 0xf, u64::MAX),
            v6::from_word(next, 0),
        );
        assert!(a < b);
        assert_eq!(timestamp::v6_time(&b), tick + 1);
        // Sixteen UUIDv6 from one clock reading share its tick.
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        let got: Vec<u64> = (0..17)
            .map(|_| s.next(&word, candidate, v6::MAX_WORD).unwrap())
            .collect();
        assert!(got[..16].iter().all(|&w| v6::time_of_word(w) == tick));
        assert_eq!(v6::time_of_word(got[16]), tick + 1);
    }

    #[test]
    fn v6_last_tick_is_exhausted_never_a_wrap() {
        let word = AtomicU64::new(v6::MAX_WORD - 1);
        let mut s = Session::new();
        assert_eq!(s.next(&word, 0, v6::MAX_WORD), Ok(v6::MAX_WORD));
        assert_eq!(
            timestamp::v6_time(&v6::from_word(v6::MAX_WORD, 0)),
            v6::MAX_TIME
        );
        assert_eq!(s.next(&word, 0, v6::MAX_WORD), Err(Exhausted));
        assert_eq!(word.load(Ordering::Relaxed), v6::MAX_WORD);
        assert_eq!(
            Session::new().next(&word, v6::candidate(0), v6::MAX_WORD),
            Err(Exhausted)
        );
    }

    #[test]
    fn session_never_goes_below_its_own_last_when_switching_words() {
        let shared = AtomicU64::new(0);
        let local = AtomicU64::new(0);
        let mut s = Session::new();
        let a = s.next(&shared, 1_000, u64::MAX).unwrap();
        // Others run the shared word far ahead; this session follows it.
        shared.store(5_000, Ordering::Relaxed);
        let b = s.next(&shared, 1_000, u64::MAX).unwrap();
        assert_eq!(b, 5_001);
        // Switching to the local word (still 0) stays above b.
        let c = s.next(&local, 1_000, u64::MAX).unwrap();
        assert_eq!(c, 5_002);
        assert!(a < b && b < c);
        // Back on the shared word, which is now behind the session.
        let d = s.next(&shared, 1_000, u64::MAX).unwrap();
        assert_eq!(d, 5_003);
    }

    #[test]
    fn threads_on_one_word_never_share_a_value() {
        let word = AtomicU64::new(0);
        let per_thread = 20_000;
        let values: Vec<Vec<u64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        let mut s = Session::new();
                        (0..per_thread)
                            .map(|i| s.next(&word, i / 8, u64::MAX).unwrap())
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for v in &values {
            assert!(
                v.windows(2).all(|w| w[0] < w[1]),
                "each thread strictly increasing"
            );
        }
        let mut all: Vec<u64> = values.concat();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "no value given twice");
    }
}
