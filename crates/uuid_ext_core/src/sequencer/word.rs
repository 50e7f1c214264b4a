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
    advance_block(word, horizon, ceiling, seen, floor, max, 1, 0).map(|(first, _)| first)
}

/// [`advance_seen`] for a block of up to `size` values at once (a lease):
/// the word moves to the block's last value, which the ceiling and the
/// durable limit are checked against. The block ends at `reach` at most (a
/// word that far ahead of the clock gives smaller ones, down to a single
/// value), and at `max`.
/// Returns the block's first and last values, which no other caller of the
/// word is ever given.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn advance_block<W: Word + ?Sized, H: Horizon + ?Sized, C: Ceiling + ?Sized>(
    word: &W,
    horizon: &H,
    ceiling: &C,
    seen: u64,
    floor: u64,
    max: u64,
    size: u64,
    reach: u64,
) -> Result<(u64, u64), Stop<H::Error>> {
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
        // A block ends at `reach` at most: a word already there gets
        // smaller blocks, down to one value, so leases never run the word
        // further ahead of the clock than that.
        let last = next
            .saturating_add(size.max(1) - 1)
            .min(next.max(reach))
            .min(max);
        // The cheap comparison first; the reference only above it.
        if last > ceiling.quick() {
            let exact = ceiling.exact();
            if last > exact {
                return Err(Stop::Ahead(last - exact));
            }
        }
        if last > horizon.limit() {
            if !horizon.extend(last, seen).map_err(Stop::Horizon)? {
                return Err(Stop::Reset);
            }
            current = word.load();
            continue;
        }
        match word.compare_exchange_weak(current, last) {
            Ok(_) => return Ok((next, last)),
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

/// One session's view of a sequence: the last value it was given, and the
/// values of its lease not yet given ([`Session::next_leased`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Session {
    last: u64,
    /// The reset count of the last draw (crate::sequencer::reset).
    resets: u64,
    /// The last value of the lease; `last` is the one given before the
    /// next (none left when `last >= lease_last`).
    lease_last: u64,
    /// The caller's epoch the lease was taken in (a transaction).
    lease_epoch: u64,
}

/// How a session leases blocks of values ([`Session::next_leased`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lease {
    /// Values taken from the word at once (1: none leased, every value
    /// drawn from the word itself).
    pub size: u64,
    /// A value of the lease is given only while the clock's candidate is at
    /// most this many word units above it; past that, the rest is dropped
    /// and a new block taken at the clock.
    pub stale: u64,
    /// The lease lives in one epoch (the caller's transaction): a draw in
    /// another drops what is left.
    pub epoch: u64,
}

impl Session {
    pub const fn new() -> Self {
        Session {
            last: 0,
            resets: 0,
            lease_last: 0,
            lease_epoch: 0,
        }
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
        self.follow_resets(seen);
        let floor = candidate.max(self.last.checked_add(1).ok_or(Exhausted)?);
        let value = advance_seen(word, horizon, ceiling, seen, floor, max)?;
        self.last = value;
        Ok(value)
    }

    /// [`Session::next_in`] with a lease (docs/ordering.md#leases): the word
    /// is moved `lease.size` values at a time, with one compare-and-swap,
    /// and this session gives the block's values one by one. A value of
    /// the block is given only in the epoch the block was taken in, under
    /// the same reset count, and while the clock's `candidate` is at most
    /// `lease.stale` above it; otherwise what is left is dropped and a new
    /// block taken, as a draw would (at the clock or above the word). So
    /// every value is still given once, each session's values still
    /// increase, the durable limit and the ceiling cover the whole block
    /// before any value of it is given, and no value given is more than
    /// `stale` behind the clock.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn next_leased<W: Word + ?Sized, H: Horizon + ?Sized, C: Ceiling + ?Sized>(
        &mut self,
        word: &W,
        horizon: &H,
        ceiling: &C,
        seen: u64,
        candidate: u64,
        max: u64,
        lease: Lease,
    ) -> Result<u64, Stop<H::Error>> {
        self.follow_resets(seen);
        if self.last < self.lease_last
            && self.lease_epoch == lease.epoch
            && candidate <= (self.last + 1).saturating_add(lease.stale)
        {
            self.last += 1;
            return Ok(self.last);
        }
        let floor = candidate.max(self.last.checked_add(1).ok_or(Exhausted)?);
        let (first, last) = advance_block(
            word,
            horizon,
            ceiling,
            seen,
            floor,
            max,
            lease.size,
            candidate.saturating_add(lease.stale),
        )?;
        self.last = first;
        self.lease_last = last;
        self.lease_epoch = lease.epoch;
        Ok(first)
    }

    /// A session that drew before the reset count `seen` forgets its last
    /// value and its lease: a reset brought the word back.
    #[inline(always)]
    fn follow_resets(&mut self, seen: u64) {
        if seen != self.resets {
            self.last = 0;
            self.lease_last = 0;
            self.resets = seen;
        }
    }

    /// Drops what is left of the lease: the next draw takes from the word.
    pub fn end_lease(&mut self) {
        self.lease_last = 0;
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

    /// Asserts that each thread's values strictly increase and that no value
    /// was given twice; returns every value, sorted.
    fn each_increasing_none_twice(values: &[Vec<u64>]) -> Vec<u64> {
        for v in values {
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
        all
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
        each_increasing_none_twice(&values);
    }

    const LEASE: Lease = Lease {
        size: 100,
        stale: 1_000,
        epoch: 1,
    };

    fn leased(s: &mut Session, word: &AtomicU64, candidate: u64, lease: Lease) -> u64 {
        s.next_leased(word, &Unbounded, &Open, 0, candidate, u64::MAX, lease)
            .unwrap()
    }

    #[test]
    fn a_lease_takes_a_block_with_one_move_of_the_word() {
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        assert_eq!(leased(&mut s, &word, 1_000, LEASE), 1_000);
        // The word holds the block's last value: no one else gets any of it.
        assert_eq!(word.load(Ordering::Relaxed), 1_099);
        let rest: Vec<u64> = (0..99)
            .map(|_| leased(&mut s, &word, 1_000, LEASE))
            .collect();
        assert_eq!(rest, (1_001..1_100).collect::<Vec<_>>());
        assert_eq!(word.load(Ordering::Relaxed), 1_099, "drawn from the block");
        // The block used up: the next is a new block above the word.
        assert_eq!(leased(&mut s, &word, 1_100, LEASE), 1_100);
        assert_eq!(word.load(Ordering::Relaxed), 1_199);
        // Another session draws above every block given.
        let mut other = Session::new();
        assert_eq!(other.next(&word, 0, u64::MAX), Ok(1_200));
    }

    #[test]
    fn a_lease_of_one_is_a_plain_draw() {
        let (a, b) = (AtomicU64::new(0), AtomicU64::new(0));
        let (mut s, mut t) = (Session::new(), Session::new());
        let one = Lease { size: 1, ..LEASE };
        for c in [5, 5, 5, 9, 3, 3, 20] {
            assert_eq!(leased(&mut s, &a, c, one), t.next(&b, c, u64::MAX).unwrap());
            assert_eq!(a.load(Ordering::Relaxed), b.load(Ordering::Relaxed));
        }
    }

    #[test]
    fn a_stale_lease_is_dropped_for_the_clock() {
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        assert_eq!(leased(&mut s, &word, 1_000, LEASE), 1_000);
        // Within the bound of the next value (1,001 + 1,000): from the block.
        assert_eq!(leased(&mut s, &word, 2_001, LEASE), 1_001);
        // Past it: the rest is dropped, a new block at the clock.
        assert_eq!(leased(&mut s, &word, 2_003, LEASE), 2_003);
        assert_eq!(word.load(Ordering::Relaxed), 2_102);
    }

    #[test]
    fn a_lease_lives_in_its_epoch_and_its_reset_count() {
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        assert_eq!(leased(&mut s, &word, 1_000, LEASE), 1_000);
        // Another epoch (transaction): a new block, above the old one.
        let next = Lease { epoch: 2, ..LEASE };
        assert_eq!(leased(&mut s, &word, 1_100, next), 1_100);
        assert_eq!(leased(&mut s, &word, 1_100, next), 1_101);
        assert_eq!(word.load(Ordering::Relaxed), 1_199);
        // Ended by hand: the same.
        s.end_lease();
        assert_eq!(leased(&mut s, &word, 1_200, next), 1_200);
        // Another reset count: the session forgets its lease (and its last
        // value: a reset brought the word back).
        struct Reset2;
        impl Horizon for Reset2 {
            type Error = std::convert::Infallible;
            fn limit(&self) -> u64 {
                u64::MAX
            }
            fn extend(&self, _: u64, _: u64) -> Result<bool, Self::Error> {
                Ok(true)
            }
            fn resets(&self) -> u64 {
                2
            }
        }
        word.store(500, Ordering::Relaxed);
        assert_eq!(
            s.next_leased(&word, &Reset2, &Open, 2, 501, u64::MAX, next),
            Ok(501)
        );
        assert_eq!(word.load(Ordering::Relaxed), 600);
    }

    #[test]
    fn a_block_is_checked_whole_against_the_ceiling_and_the_maximum() {
        struct At(u64);
        impl Ceiling for At {
            fn quick(&self) -> u64 {
                self.0
            }
            fn exact(&self) -> u64 {
                self.0
            }
        }
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        // The block's last value (1,099) is 49 above the ceiling: nothing taken.
        assert_eq!(
            s.next_leased(&word, &Unbounded, &At(1_050), 0, 1_000, u64::MAX, LEASE),
            Err(Stop::Ahead(49))
        );
        assert_eq!(word.load(Ordering::Relaxed), 0);
        // Near the maximum, the block ends there.
        assert_eq!(
            s.next_leased(&word, &Unbounded, &Open, 0, 1_000, 1_010, LEASE),
            Ok(1_000)
        );
        assert_eq!(word.load(Ordering::Relaxed), 1_010);
    }

    #[test]
    fn a_block_is_made_durable_whole_before_any_value_of_it_is_given() {
        use std::cell::Cell;
        struct Disk {
            limit: Cell<u64>,
            asked: Cell<u64>,
        }
        impl Horizon for Disk {
            type Error = std::convert::Infallible;
            fn limit(&self) -> u64 {
                self.limit.get()
            }
            fn extend(&self, needed: u64, _: u64) -> Result<bool, Self::Error> {
                self.asked.set(needed);
                self.limit.set(needed + 10);
                Ok(true)
            }
        }
        let disk = Disk {
            limit: Cell::new(1_050),
            asked: Cell::new(0),
        };
        let word = AtomicU64::new(0);
        let mut s = Session::new();
        assert_eq!(
            s.next_leased(&word, &disk, &Open, 0, 1_000, u64::MAX, LEASE),
            Ok(1_000)
        );
        // The limit was below the block's last value: raised past it first.
        assert_eq!(disk.asked.get(), 1_099);
        assert!(disk.limit.get() >= word.load(Ordering::Relaxed));
    }

    #[test]
    fn a_word_ahead_of_the_clock_gets_smaller_blocks() {
        let word = AtomicU64::new(1_950);
        let mut s = Session::new();
        // The clock's candidate 1,000, stale 1,000: a block to 2,000 at most,
        // from 1,951.
        assert_eq!(leased(&mut s, &word, 1_000, LEASE), 1_951);
        assert_eq!(word.load(Ordering::Relaxed), 2_000);
        // A word that far ahead or more: one value at a time.
        let word = AtomicU64::new(5_000);
        let mut t = Session::new();
        assert_eq!(leased(&mut t, &word, 1_000, LEASE), 5_001);
        assert_eq!(word.load(Ordering::Relaxed), 5_001);
        assert_eq!(leased(&mut t, &word, 1_000, LEASE), 5_002);
        assert_eq!(word.load(Ordering::Relaxed), 5_002);
    }

    #[test]
    fn leasing_threads_never_share_a_value() {
        let word = AtomicU64::new(0);
        let per_thread = 20_000u64;
        let values: Vec<Vec<u64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4u64)
                .map(|t| {
                    let word = &word;
                    scope.spawn(move || {
                        let mut s = Session::new();
                        // Epochs change now and then, as transactions end.
                        (0..per_thread)
                            .map(|i| {
                                let lease = Lease {
                                    epoch: (i / 250) * 4 + t,
                                    ..LEASE
                                };
                                // The clock where the word is.
                                leased(&mut s, word, word.load(Ordering::Relaxed), lease)
                            })
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let all = each_increasing_none_twice(&values);
        assert!(word.load(Ordering::Relaxed) >= *all.last().unwrap());
    }
}
