//! The commit watermark (docs/design.md#the-commit-watermark): the smallest sequencer value a
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
//! A slot also holds the database of the transaction that announced and the
//! time it announced, both stored before the value, so a reader that loads
//! the value sees them. A reader can count only the announcements of one
//! database ([`Scope::Database`]): the word is shared, but a value drawn in
//! another database is a row of that database, which this reader never
//! polls. (A slot reused by another backend between the reader's two loads
//! can only be counted for the wrong database after the first announcement
//! was withdrawn, that is after its transaction ended.)
//!
//! A transaction that prepares (two-phase commit) moves its announcement to
//! a slot for prepared transactions, first storing it there and only then
//! withdrawing it from its own; readers read the backends' slots before the
//! prepared ones, so one of the two loads sees it.
//!
//! **A transaction that draws from a word of its own** (a session with
//! `uuid_ext.monotonicity = backend`) is covered too
//! ([`Slot::announce_for_own_word`]): it announces as above, then loads the
//! shared word again and draws nothing at or below that second load. Why a
//! reader cannot miss it: the announcement's store, its second load, the
//! reader's load of the word and its load of the slot are all `SeqCst`. A
//! reader that did not see the announcement read the slot before it in the
//! single total order of those operations, so its load of the word, earlier
//! still, precedes the writer's second load, which therefore reads the
//! reader's word or a later one (else it would be coherence-ordered before
//! it, and so earlier in that order): every value the writer draws is above
//! the reader's word, so not below its watermark. The watermark passes such
//! a transaction's keys, once it ended, when the shared word passes them
//! (the next draw from it after them, by any session).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// An empty slot's value (and its time).
pub const NONE: u64 = u64::MAX;

/// Whose announcements a reader counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Those made in this database (an OID).
    Database(u32),
    /// Every database's.
    Server,
}

impl Scope {
    #[inline]
    fn covers(self, database: u32) -> bool {
        match self {
            Scope::Database(d) => d == database,
            Scope::Server => true,
        }
    }
}

/// One transaction's announcement: the value, when it was made (Unix
/// milliseconds) and the database it was made in. A view of three atomics
/// that live in shared memory.
#[derive(Clone, Copy, Debug)]
pub struct Slot<'a> {
    pub value: &'a AtomicU64,
    pub since_ms: &'a AtomicU64,
    pub database: &'a AtomicU32,
}

impl Slot<'_> {
    /// Announces for a transaction of `database` about to draw from `word`
    /// at `now_ms`: a value no greater than any the word will give it (the
    /// next one is at least `word + 1`). Stored with `fetch_min`, so that a
    /// parallel worker announcing into its leader's slot never raises what
    /// the leader announced; the database and the time are written only
    /// into an empty slot (a worker's leader announced earlier, in the same
    /// database), before the value, so a reader that sees the value sees
    /// them.
    #[inline]
    pub fn announce(self, word: &AtomicU64, database: u32, now_ms: u64) -> u64 {
        if self.value.load(Ordering::Relaxed) == NONE {
            self.database.store(database, Ordering::Relaxed);
            self.since_ms.store(now_ms, Ordering::Relaxed);
        }
        let value = word.load(Ordering::Acquire).saturating_add(1);
        self.value.fetch_min(value, Ordering::SeqCst);
        value
    }

    /// [`Slot::announce`] for a transaction that draws from a word of its
    /// own rather than from the shared `word`: announces, then loads `word`
    /// again, and returns the floor of every value the transaction may draw,
    /// that second load plus one (see the module's comment for why a reader
    /// then never misses one of its keys).
    #[inline]
    pub fn announce_for_own_word(self, word: &AtomicU64, database: u32, now_ms: u64) -> u64 {
        self.announce(word, database, now_ms);
        word.load(Ordering::SeqCst).saturating_add(1)
    }

    /// Withdraws the announcement, once the transaction's end is visible
    /// (the time and database stay until the next announcement replaces
    /// them; no reader looks at them in an empty slot).
    #[inline]
    pub fn withdraw(self) {
        self.value.store(NONE, Ordering::Release);
    }

    /// Whether the slot holds an announcement.
    #[inline]
    pub fn is_announced(self) -> bool {
        self.value.load(Ordering::Relaxed) != NONE
    }

    /// Takes `other`'s announcement (a prepared transaction's move): the
    /// database and time first, the value last.
    pub fn take(self, other: Slot<'_>) {
        self.database
            .store(other.database.load(Ordering::Relaxed), Ordering::Relaxed);
        self.since_ms
            .store(other.since_ms.load(Ordering::Relaxed), Ordering::Relaxed);
        self.value
            .store(other.value.load(Ordering::Acquire), Ordering::Release);
    }

    /// The announcement, if there is one and `scope` counts it: its value
    /// and when it was made.
    #[inline]
    pub fn counted(self, scope: Scope) -> Option<(u64, u64)> {
        let value = self.value.load(Ordering::SeqCst);
        if value == NONE || !scope.covers(self.database.load(Ordering::Relaxed)) {
            return None;
        }
        Some((value, self.since_ms.load(Ordering::Relaxed)))
    }
}

/// Many slots, as three parallel arrays: the values contiguous, so that a
/// reader's pass over them costs what a pass over an array of words does
/// (most slots are empty; their time and database are never read).
#[derive(Clone, Copy, Debug)]
pub struct Board<'a> {
    values: &'a [AtomicU64],
    since_ms: &'a [AtomicU64],
    databases: &'a [AtomicU32],
}

impl<'a> Board<'a> {
    /// The board over three arrays of one length.
    pub fn new(
        values: &'a [AtomicU64],
        since_ms: &'a [AtomicU64],
        databases: &'a [AtomicU32],
    ) -> Self {
        let n = values.len().min(since_ms.len()).min(databases.len());
        Board {
            values: &values[..n],
            since_ms: &since_ms[..n],
            databases: &databases[..n],
        }
    }

    /// Slot `i`.
    #[inline]
    pub fn slot(&self, i: usize) -> Option<Slot<'a>> {
        Some(Slot {
            value: self.values.get(i)?,
            since_ms: self.since_ms.get(i)?,
            database: self.databases.get(i)?,
        })
    }

    /// The smallest announcement that `scope` counts (NONE when there is
    /// none).
    pub fn min_announced(&self, scope: Scope) -> u64 {
        // First the smallest of all, as one pass over an array of words
        // takes it (no branch per slot): usually NONE, most slots empty.
        // SeqCst: a writer on a word of its own relies on it (see the
        // module's comment); on x86 it is the same plain load.
        let all = self
            .values
            .iter()
            .map(|v| v.load(Ordering::SeqCst))
            .min()
            .unwrap_or(NONE);
        match scope {
            _ if all == NONE => NONE,
            Scope::Server => all,
            // Then, only when something is announced, those of one
            // database. Each load still comes after the reader's load of
            // the word, which is all the ordering argument needs.
            Scope::Database(_) => self
                .announcements(scope)
                .map(|(value, _)| value)
                .min()
                .unwrap_or(NONE),
        }
    }

    /// When the oldest announcement that `scope` counts was made (Unix ms;
    /// NONE when there is none).
    pub fn oldest_since(&self, scope: Scope) -> u64 {
        self.announcements(scope)
            .map(|(_, since)| since)
            .min()
            .unwrap_or(NONE)
    }

    /// How many announcements that `scope` counts were made at or before
    /// `at_ms` (a reset's pollers wait for those: see [`crate::sequencer::reset`]).
    pub fn made_by(&self, scope: Scope, at_ms: u64) -> usize {
        self.announcements(scope)
            .filter(|&(_, since)| since <= at_ms)
            .count()
    }

    /// Every announcement that `scope` counts, as [`Slot::counted`] reads it.
    fn announcements(&self, scope: Scope) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.values
            .iter()
            .zip(self.since_ms)
            .zip(self.databases)
            .filter_map(move |((value, since_ms), database)| {
                Slot {
                    value,
                    since_ms,
                    database,
                }
                .counted(scope)
            })
    }
}

/// The watermark from a word read *before* the slots and the smallest
/// announcement read after it: every value below it belongs to a
/// transaction that has ended.
pub fn watermark(word_before: u64, min_announced: u64) -> u64 {
    word_before.saturating_add(1).min(min_announced)
}

/// Reads `word`, then `backends`, then calls `prepared` for the smallest
/// prepared transaction's announcement in `scope` (in that order: see the
/// module's comment), and returns the watermark for `scope`.
pub fn read(
    word: &AtomicU64,
    backends: &Board<'_>,
    scope: Scope,
    prepared: impl FnOnce() -> u64,
) -> u64 {
    let w = word.load(Ordering::SeqCst);
    let b = backends.min_announced(scope);
    watermark(w, b.min(prepared()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sequencer::Session;

    const DB: u32 = 16384;
    const OTHER_DB: u32 = 16385;
    const HERE: Scope = Scope::Database(DB);

    /// Slots as shared memory holds them, owned by the test.
    struct Slots {
        values: Vec<AtomicU64>,
        since_ms: Vec<AtomicU64>,
        databases: Vec<AtomicU32>,
    }

    impl Slots {
        fn new(n: usize) -> Self {
            Slots {
                values: (0..n).map(|_| AtomicU64::new(NONE)).collect(),
                since_ms: (0..n).map(|_| AtomicU64::new(NONE)).collect(),
                databases: (0..n).map(|_| AtomicU32::new(0)).collect(),
            }
        }
        fn board(&self) -> Board<'_> {
            Board::new(&self.values, &self.since_ms, &self.databases)
        }
        fn slot(&self, i: usize) -> Slot<'_> {
            self.board().slot(i).unwrap()
        }
    }

    #[test]
    fn no_announcement_gives_the_next_value() {
        let word = AtomicU64::new(41);
        let slots = Slots::new(4);
        assert_eq!(read(&word, &slots.board(), HERE, || NONE), 42);
        assert_eq!(read(&word, &slots.board(), Scope::Server, || NONE), 42);
    }

    #[test]
    fn an_open_transaction_holds_the_watermark_until_it_withdraws() {
        let word = AtomicU64::new(100);
        let slots = Slots::new(2);
        let mut t = Session::new();
        assert_eq!(slots.slot(0).announce(&word, DB, 5), 101);
        let mine = t.next(&word, 0, u64::MAX).unwrap();
        assert_eq!(mine, 101);
        // Others run the word on; the watermark stays at the open value.
        let mut other = Session::new();
        for _ in 0..10 {
            other.next(&word, 0, u64::MAX).unwrap();
        }
        let wm = read(&word, &slots.board(), HERE, || NONE);
        assert!(wm <= mine, "{wm} would let a reader pass {mine}");
        slots.slot(0).withdraw();
        assert_eq!(read(&word, &slots.board(), HERE, || NONE), 112);
    }

    #[test]
    fn another_databases_transaction_holds_only_a_server_wide_reader() {
        let word = AtomicU64::new(100);
        let slots = Slots::new(2);
        slots.slot(1).announce(&word, OTHER_DB, 5);
        word.store(200, Ordering::Relaxed);
        let b = slots.board();
        assert_eq!(read(&word, &b, HERE, || NONE), 201);
        assert_eq!(read(&word, &b, Scope::Database(OTHER_DB), || NONE), 101);
        assert_eq!(read(&word, &b, Scope::Server, || NONE), 101);
        // One of this database as well: the smallest of its own counts.
        slots.slot(0).announce(&word, DB, 6);
        word.store(300, Ordering::Relaxed);
        assert_eq!(read(&word, &b, HERE, || NONE), 201);
        assert_eq!(read(&word, &b, Scope::Server, || NONE), 101);
        // A larger announcement of this database after another database's
        // smaller one: still found.
        let slots = Slots::new(3);
        word.store(10, Ordering::Relaxed);
        slots.slot(0).announce(&word, OTHER_DB, 1);
        word.store(20, Ordering::Relaxed);
        slots.slot(2).announce(&word, DB, 1);
        assert_eq!(slots.board().min_announced(HERE), 21);
        assert_eq!(slots.board().min_announced(Scope::Server), 11);
    }

    #[test]
    fn the_oldest_announcement_is_dated_when_it_was_made() {
        let word = AtomicU64::new(0);
        let slots = Slots::new(3);
        assert_eq!(slots.board().oldest_since(Scope::Server), NONE);
        // The word's time has nothing to do with it: a word far in the past.
        slots.slot(0).announce(&word, DB, 9_000);
        slots.slot(1).announce(&word, OTHER_DB, 7_000);
        slots.slot(2).announce(&word, DB, 8_000);
        assert_eq!(slots.board().oldest_since(HERE), 8_000);
        assert_eq!(slots.board().oldest_since(Scope::Server), 7_000);
        slots.slot(2).withdraw();
        assert_eq!(slots.board().oldest_since(HERE), 9_000);
        // A new transaction in the slot is dated anew.
        slots.slot(2).announce(&word, DB, 10_000);
        slots.slot(0).withdraw();
        assert_eq!(slots.board().oldest_since(HERE), 10_000);
    }

    #[test]
    fn announcements_made_by_a_time_are_counted_until_withdrawn() {
        let word = AtomicU64::new(100);
        let slots = Slots::new(3);
        slots.slot(0).announce(&word, DB, 1_000);
        slots.slot(1).announce(&word, OTHER_DB, 1_000);
        slots.slot(2).announce(&word, DB, 2_001);
        assert_eq!(slots.board().made_by(HERE, 2_000), 1);
        assert_eq!(slots.board().made_by(Scope::Server, 2_000), 2);
        assert_eq!(slots.board().made_by(Scope::Server, 2_001), 3);
        // A transaction that announces again (after a reset lowered the
        // word) keeps the time of its first announcement.
        word.store(5, Ordering::Relaxed);
        slots.slot(0).announce(&word, DB, 3_000);
        assert_eq!(slots.slot(0).value.load(Ordering::Relaxed), 6);
        assert_eq!(slots.board().made_by(HERE, 2_000), 1);
        slots.slot(0).withdraw();
        assert_eq!(slots.board().made_by(HERE, 2_000), 0);
    }

    #[test]
    fn a_worker_never_raises_its_leaders_announcement() {
        let word = AtomicU64::new(10);
        let slots = Slots::new(1);
        slots.slot(0).announce(&word, DB, 100);
        word.store(50, Ordering::Relaxed);
        slots.slot(0).announce(&word, DB, 200); // the worker, later, into the same slot
        assert_eq!(slots.slot(0).counted(HERE), Some((11, 100)));
    }

    #[test]
    fn a_prepared_transaction_is_seen_while_it_moves() {
        // The move stores into the prepared slot first, then withdraws; a
        // reader reads the backends first. Every interleaving of the
        // reader's two loads with the two stores sees the announcement, in
        // its database and server-wide, and not in another database.
        for scope in [HERE, Scope::Server, Scope::Database(OTHER_DB)] {
            for reader_after_step in 0..=2 {
                let word = AtomicU64::new(500);
                let backend = Slots::new(1);
                let prepared = Slots::new(1);
                let a = backend.slot(0).announce(&word, DB, 1);
                word.store(600, Ordering::Relaxed);
                // The reader reads the word and the backends' slot here...
                let w = word.load(Ordering::Acquire);
                let b = if reader_after_step >= 1 {
                    prepared.slot(0).take(backend.slot(0));
                    let b = backend.board().min_announced(scope);
                    backend.slot(0).withdraw();
                    b
                } else {
                    let b = backend.board().min_announced(scope);
                    prepared.slot(0).take(backend.slot(0));
                    backend.slot(0).withdraw();
                    b
                };
                // ... and the prepared slots after.
                let wm = watermark(w, b.min(prepared.board().min_announced(scope)));
                let expected = if scope == Scope::Database(OTHER_DB) {
                    601
                } else {
                    a
                };
                assert_eq!(wm, expected, "{scope:?}, interleaving {reader_after_step}");
                assert_eq!(prepared.slot(0).counted(Scope::Server), Some((a, 1)));
            }
        }
    }

    #[test]
    fn threads_never_see_a_value_below_the_watermark_that_is_still_open() {
        // Writers in two databases: announce, draw, hold, publish the value
        // as ended, withdraw. A reader in each scope: every value of its
        // scope below the watermark it computes must be marked ended by then.
        use std::sync::atomic::AtomicBool;
        let word = AtomicU64::new(0);
        let slots = Slots::new(3);
        let databases = [DB, OTHER_DB, DB];
        let ended: Vec<AtomicBool> = (0..200_000).map(|_| AtomicBool::new(false)).collect();
        let drawn_in: Vec<AtomicU32> = (0..200_000).map(|_| AtomicU32::new(0)).collect();
        let given = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            for (i, db) in databases.into_iter().enumerate() {
                let slot = slots.slot(i);
                let (word, ended, drawn_in, given) = (&word, &ended, &drawn_in, &given);
                scope.spawn(move || {
                    let mut s = Session::new();
                    for _ in 0..20_000 {
                        slot.announce(word, db, 0);
                        let v = s.next(word, 0, u64::MAX).unwrap();
                        drawn_in[v as usize].store(db, Ordering::Relaxed);
                        given.fetch_max(v, Ordering::Relaxed);
                        std::hint::spin_loop();
                        ended[v as usize].store(true, Ordering::Release);
                        slot.withdraw();
                    }
                });
            }
            for reader in [HERE, Scope::Database(OTHER_DB), Scope::Server] {
                let board = slots.board();
                let (word, ended, drawn_in, stop) = (&word, &ended, &drawn_in, &stop);
                scope.spawn(move || {
                    let mut checked = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        let wm = read(word, &board, reader, || NONE);
                        for v in checked.max(1)..wm {
                            if ended[v as usize].load(Ordering::Acquire) {
                                continue;
                            }
                            // Open: then it must be another database's. Its
                            // writer marks the database right after drawing.
                            let db = loop {
                                match drawn_in[v as usize].load(Ordering::Relaxed) {
                                    0 => std::hint::spin_loop(),
                                    db => break db,
                                }
                            };
                            assert!(!reader.covers(db), "{v} < {wm} still open for {reader:?}");
                        }
                        checked = checked.max(wm);
                    }
                });
            }
            while given.load(Ordering::Relaxed) < 60_000 {
                std::thread::yield_now();
            }
            stop.store(true, Ordering::Relaxed);
        });
    }

    #[test]
    fn a_transaction_on_a_word_of_its_own_is_covered() {
        // One slot: the transaction announces, then draws from its own word,
        // which lags the shared one (its clock is behind, say).
        let shared = AtomicU64::new(1_000);
        let own = AtomicU64::new(10);
        let slots = Slots::new(1);
        let floor = slots.slot(0).announce_for_own_word(&shared, DB, 1);
        assert_eq!(floor, 1_001);
        assert_eq!(slots.slot(0).counted(HERE), Some((1_001, 1)));
        let mut s = Session::new();
        let v = s.next(&own, floor.max(20), u64::MAX).unwrap();
        assert_eq!(v, 1_001);
        // Others draw from the shared word: the watermark stays at the
        // announcement while the transaction is open.
        shared.store(5_000, Ordering::Relaxed);
        assert_eq!(read(&shared, &slots.board(), HERE, || NONE), 1_001);
        slots.slot(0).withdraw();
        assert_eq!(read(&shared, &slots.board(), HERE, || NONE), 5_001);
        // Announced for the shared word first, then on its own word: the
        // second announcement keeps the smaller value and gives the floor.
        let shared = AtomicU64::new(2_000);
        slots.slot(0).announce(&shared, DB, 3);
        shared.store(3_000, Ordering::Relaxed);
        assert_eq!(slots.slot(0).announce_for_own_word(&shared, DB, 4), 3_001);
        assert_eq!(slots.slot(0).counted(HERE), Some((2_001, 3)));
    }

    #[test]
    fn threads_on_words_of_their_own_never_slip_below_the_watermark() {
        // A writer on the shared word and three on words of their own
        // (which lag it: only their floors move them), each publishing the value
        // of its open transaction; readers check, after each watermark they
        // compute, that no open transaction holds a value below it.
        use std::sync::atomic::AtomicBool;
        let shared = AtomicU64::new(0);
        let slots = Slots::new(4);
        let open: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(NONE)).collect();
        let done = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let checked = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for (i, mine) in open.iter().enumerate() {
                let slot = slots.slot(i);
                let (shared, done, checked) = (&shared, &done, &checked);
                scope.spawn(move || {
                    let own = AtomicU64::new(0);
                    let mut s = Session::new();
                    // At least 20,000 transactions, and on until the readers
                    // (which a loaded machine may schedule late) checked
                    // enough watermarks against them.
                    let mut n = 0;
                    while n < 20_000 || checked.load(Ordering::Relaxed) < 1_000 {
                        n += 1;
                        let v = if i == 0 {
                            slot.announce(shared, DB, 0);
                            s.next(shared, 0, u64::MAX).unwrap()
                        } else {
                            let floor = slot.announce_for_own_word(shared, DB, 0);
                            s.next(&own, floor, u64::MAX).unwrap()
                        };
                        mine.store(v, Ordering::SeqCst);
                        std::hint::spin_loop();
                        mine.store(NONE, Ordering::SeqCst);
                        slot.withdraw();
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                });
            }
            for _ in 0..2 {
                let board = slots.board();
                let (shared, open, stop, checked) = (&shared, &open, &stop, &checked);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let wm = read(shared, &board, HERE, || NONE);
                        for (i, o) in open.iter().enumerate() {
                            let v = o.load(Ordering::SeqCst);
                            assert!(
                                v == NONE || v >= wm,
                                "writer {i}'s open value {v} is below the watermark {wm}"
                            );
                        }
                        checked.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
            while done.load(Ordering::Relaxed) < 4 {
                std::thread::yield_now();
            }
            stop.store(true, Ordering::Relaxed);
        });
        assert!(checked.load(Ordering::Relaxed) > 100);
    }
}
