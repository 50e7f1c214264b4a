//! The commit watermark (SPEC §4): the smallest sequencer value a
//! transaction still in progress might commit.
//!
//! Each transaction, before it first advances the shared word, *announces*
//! in a slot of its own a value no greater than any it will get: the word as
//! it reads it, plus one. It withdraws the announcement only once its commit
//! or abort is visible to other sessions. A reader takes the word, then the
//! slots, and the smallest of `word + 1` and every announcement is the
//! watermark: every value below it was handed out to a transaction that has
//! ended.
//!
//! Why a reader cannot miss an announcement it needs: a writer stores its
//! announcement `a` and only then advances the word by compare-and-swap, with
//! `Release`, to a value `v >= a`. A reader that could place `v` below its
//! watermark must have read a word `w >= v` (else `watermark <= w + 1 <= v`).
//! Every change of the word is a read-modify-write, so the writer's CAS heads
//! a release sequence that the reader's `Acquire` load of any later word
//! value synchronizes with: the announcement happens before the reader's
//! loads of the slots, which see it, or its withdrawal, which comes after
//! the transaction ended. Either way `v` is below the watermark only if its
//! transaction ended.
//!
//! A transaction that prepares (two-phase commit) moves its announcement to
//! a slot for prepared transactions, first storing it there and only then
//! withdrawing it from its own; readers read the backends' slots before the
//! prepared ones, so one of the two loads sees it.

use std::sync::atomic::{AtomicU64, Ordering};

/// An empty slot.
pub const NONE: u64 = u64::MAX;

/// The announcement for a transaction about to draw from `word`: no greater
/// than any value the word will give it (the next one is at least
/// `word + 1`). Stored with `fetch_min`, so that a parallel worker announcing
/// into its leader's slot never raises what the leader announced.
#[inline]
pub fn announce(word: &AtomicU64, slot: &AtomicU64) -> u64 {
    let value = word.load(Ordering::Acquire).saturating_add(1);
    slot.fetch_min(value, Ordering::SeqCst);
    value
}

/// Withdraws an announcement, once the transaction's end is visible.
#[inline]
pub fn withdraw(slot: &AtomicU64) {
    slot.store(NONE, Ordering::Release);
}

/// The smallest announcement among `slots` (NONE when there is none).
pub fn min_announced<'a>(slots: impl IntoIterator<Item = &'a AtomicU64>) -> u64 {
    slots
        .into_iter()
        .map(|s| s.load(Ordering::Acquire))
        .min()
        .unwrap_or(NONE)
}

/// The watermark from a word read *before* the slots and the smallest
/// announcement read after it: every value below it belongs to a
/// transaction that has ended.
pub fn watermark(word_before: u64, min_announced: u64) -> u64 {
    word_before.saturating_add(1).min(min_announced)
}

/// Reads `word`, then `backends`, then calls `prepared` for the smallest
/// prepared transaction's announcement (in that order: see the module's
/// comment), and returns the watermark.
pub fn read<'a>(
    word: &AtomicU64,
    backends: impl IntoIterator<Item = &'a AtomicU64>,
    prepared: impl FnOnce() -> u64,
) -> u64 {
    let w = word.load(Ordering::Acquire);
    let b = min_announced(backends);
    watermark(w, b.min(prepared()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sequencer::Session;

    #[test]
    fn no_announcement_gives_the_next_value() {
        let word = AtomicU64::new(41);
        let slots: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(NONE)).collect();
        assert_eq!(read(&word, &slots, || NONE), 42);
    }

    #[test]
    fn an_open_transaction_holds_the_watermark_until_it_withdraws() {
        let word = AtomicU64::new(100);
        let slots: Vec<AtomicU64> = (0..2).map(|_| AtomicU64::new(NONE)).collect();
        let mut t = Session::new();
        assert_eq!(announce(&word, &slots[0]), 101);
        let mine = t.next(&word, 0, u64::MAX).unwrap();
        assert_eq!(mine, 101);
        // Others run the word on; the watermark stays at the open value.
        let mut other = Session::new();
        for _ in 0..10 {
            other.next(&word, 0, u64::MAX).unwrap();
        }
        let wm = read(&word, &slots, || NONE);
        assert!(wm <= mine, "{wm} would let a reader pass {mine}");
        withdraw(&slots[0]);
        assert_eq!(read(&word, &slots, || NONE), 112);
    }

    #[test]
    fn a_worker_never_raises_its_leaders_announcement() {
        let word = AtomicU64::new(10);
        let slot = AtomicU64::new(NONE);
        announce(&word, &slot);
        word.store(50, Ordering::Relaxed);
        announce(&word, &slot); // the worker, later, into the same slot
        assert_eq!(slot.load(Ordering::Relaxed), 11);
    }

    #[test]
    fn a_prepared_transaction_is_seen_while_it_moves() {
        // The move stores into the prepared slot first, then withdraws; a
        // reader reads the backends first. Every interleaving of the
        // reader's two loads with the two stores sees the announcement.
        for reader_after_step in 0..=2 {
            let word = AtomicU64::new(500);
            let backend = [AtomicU64::new(NONE)];
            let prepared = [AtomicU64::new(NONE)];
            let a = announce(&word, &backend[0]);
            word.store(600, Ordering::Relaxed);
            // The reader reads the word and the backends' slot here...
            let w = word.load(Ordering::Acquire);
            let b = if reader_after_step >= 1 {
                prepared[0].store(a, Ordering::Release);
                let b = min_announced(&backend);
                withdraw(&backend[0]);
                b
            } else {
                let b = min_announced(&backend);
                prepared[0].store(a, Ordering::Release);
                withdraw(&backend[0]);
                b
            };
            // ... and the prepared slots after.
            let wm = watermark(w, b.min(min_announced(&prepared)));
            assert_eq!(wm, a, "interleaving {reader_after_step}");
        }
    }

    #[test]
    fn threads_never_see_a_value_below_the_watermark_that_is_still_open() {
        // Writers: announce, draw, hold, publish the value as ended, withdraw.
        // A reader: every value below the watermark it computes must be
        // marked ended by then.
        use std::sync::atomic::AtomicBool;
        let word = AtomicU64::new(0);
        let slots: Vec<AtomicU64> = (0..3).map(|_| AtomicU64::new(NONE)).collect();
        let ended: Vec<AtomicBool> = (0..200_000).map(|_| AtomicBool::new(false)).collect();
        let given = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            for slot in &slots {
                let (word, ended, given) = (&word, &ended, &given);
                scope.spawn(move || {
                    let mut s = Session::new();
                    for _ in 0..20_000 {
                        announce(word, slot);
                        let v = s.next(word, 0, u64::MAX).unwrap();
                        given.fetch_max(v, Ordering::Relaxed);
                        std::hint::spin_loop();
                        ended[v as usize].store(true, Ordering::Release);
                        withdraw(slot);
                    }
                });
            }
            let (word, slots, ended, stop) = (&word, &slots, &ended, &stop);
            scope.spawn(move || {
                let mut checked = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let wm = read(word, slots, || NONE);
                    for v in checked.max(1)..wm {
                        assert!(
                            ended[v as usize].load(Ordering::Acquire),
                            "{v} < {wm} still open"
                        );
                    }
                    checked = checked.max(wm);
                }
            });
            while given.load(Ordering::Relaxed) < 60_000 {
                std::thread::yield_now();
            }
            stop.store(true, Ordering::Relaxed);
        });
    }
}
