//! Where the sequencer words live (docs/design.md#the-sequencer-word).
//!
//! With `shared_preload_libraries = 'uuid_ext'` the postmaster places one
//! word per version in shared memory, and every backend and parallel worker
//! (all forked from it) advances the same word: UUIDs are ordered across the
//! whole server. Otherwise, and when a session sets
//! `uuid_ext.monotonicity = backend`, each process uses a word of its own
//! (`draw.rs` hands a draw its word and limit).
//!
//! The postmaster makes the segment, and carries the words across a crash
//! restart (`setup.rs`). Across a full restart the horizon file carries
//! them, and to standbys and restores the WAL does (`horizon.rs`, `wal.rs`).

use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU64, Ordering};

use uuid_ext_core::sequencer::horizon::Limits;

use crate::guc::{self, Monotonicity};

/// The words in shared memory.
#[repr(C)]
pub struct SharedWords {
    /// How many times a reset began and ended (odd while one lowers the
    /// words; `uuid_ext_core::sequencer::reset`). Beside the v7 word: a draw reads both.
    pub resets: AtomicU64,
    pub v7: AtomicU64,
    /// UUIDv6's 60-bit time (its own sequence).
    pub v6: AtomicU64,
    /// The durable limits no value of each word passes (`horizon.rs`).
    pub v7_limit: AtomicU64,
    pub v6_limit: AtomicU64,
    /// The largest wall-clock minus monotonic-clock time seen (ns): the
    /// reference `uuid_ext.max_lead` counts from is `max(wall, this +
    /// monotonic)`, a clock that never steps back (`draw.rs`,
    /// `uuid_ext_core::sequencer::lead`).
    pub reference: AtomicU64,
    /// The last commit watermark replayed from the WAL (0: none since this
    /// server started), which a standby answers (`watermark.rs`).
    pub replayed_watermark: AtomicU64,
    /// The horizon worker's process ID while it runs (0: none; `worker.rs`).
    pub worker_pid: AtomicI32,
    /// How many times the horizon was written by the worker, and by a call
    /// that passed it, since shared memory was made.
    pub writes: HorizonWrites,
    /// The last reset since shared memory was made (`reset.rs`).
    pub last_reset: LastReset,
}

/// The last reset: when (Unix ms; 0: none yet), and each word before and
/// after it, for `uuid_ext_info()` and the pollers that follow a reset.
#[repr(C)]
#[derive(Default)]
pub struct LastReset {
    pub at_ms: AtomicU64,
    pub v7_before: AtomicU64,
    pub v7_after: AtomicU64,
    pub v6_before: AtomicU64,
    pub v6_after: AtomicU64,
    /// Whether it was replayed from the WAL rather than called here.
    pub replayed: AtomicBool,
}

/// Counts of horizon writes, for `uuid_ext_info()`.
#[repr(C)]
#[derive(Default)]
pub struct HorizonWrites {
    pub by_worker: AtomicU64,
    pub inline: AtomicU64,
}

/// Null until this process can reach the shared words: set in the postmaster
/// by the startup hook, inherited by every process forked from it. This is
/// the flag of whether shared memory exists (pgrx's `PgAtomic` raises an
/// ERROR when touched without preloading).
static SHARED: AtomicPtr<SharedWords> = AtomicPtr::new(null_mut());
/// Whether `_PG_init` ran while preloading.
static PRELOADED: AtomicBool = AtomicBool::new(false);
impl SharedWords {
    /// A new segment's words at `v7` and `v6`, their limits there (the next
    /// value of either passes them, so the first draw of each writes the
    /// horizon file), and the reference's offset (`clock::starting_offset`).
    pub fn new(v7: u64, v6: u64, reference: u64) -> Self {
        SharedWords {
            resets: AtomicU64::new(0),
            v7: AtomicU64::new(v7),
            v6: AtomicU64::new(v6),
            v7_limit: AtomicU64::new(v7),
            v6_limit: AtomicU64::new(v6),
            reference: AtomicU64::new(reference),
            replayed_watermark: AtomicU64::new(0),
            worker_pid: AtomicI32::new(0),
            writes: HorizonWrites::default(),
            last_reset: LastReset::default(),
        }
    }
}

/// In the postmaster (`setup.rs`): the library is preloaded.
pub fn mark_preloaded() {
    PRELOADED.store(true, Ordering::Relaxed);
}

/// In the postmaster, once the segment is made: every process forked after
/// reaches the words.
pub fn publish(words: *mut SharedWords) {
    SHARED.store(words, Ordering::Release);
}

/// In the postmaster, as the segment goes: the words, for the last time.
pub fn unpublish() -> *mut SharedWords {
    SHARED.swap(null_mut(), Ordering::AcqRel)
}

pub fn shared() -> Option<&'static SharedWords> {
    // SAFETY: non-null only once the postmaster placed the words in a
    // segment that stays mapped for this process's life.
    unsafe { SHARED.load(Ordering::Acquire).as_ref() }
}

pub fn preloaded() -> bool {
    PRELOADED.load(Ordering::Relaxed)
}

/// What this session draws from now: `true` for the shared words.
pub fn uses_shared() -> bool {
    guc::monotonicity() == Monotonicity::Shared && shared().is_some()
}

/// The words this session draws from now.
#[inline]
pub fn words() -> Option<&'static SharedWords> {
    shared().filter(|_| guc::monotonicity() == Monotonicity::Shared)
}

/// The reset count once no reset is lowering the words (0 without shared
/// memory); read before the clock, for a draw (`uuid_ext_core::sequencer::reset`).
#[inline]
pub fn settled_resets() -> u64 {
    match shared() {
        Some(w) => uuid_ext_core::sequencer::reset::settled(|| w.resets.load(Ordering::Acquire)),
        None => 0,
    }
}

/// The reset count now (odd while a reset lowers the words).
pub fn resets() -> Option<&'static AtomicU64> {
    shared().map(|w| &w.resets)
}

/// The offset of the reference the lead over the clock is bounded from.
pub fn reference() -> Option<&'static AtomicU64> {
    shared().map(|w| &w.reference)
}

/// The last watermark replayed from the WAL (0: none).
pub fn replayed_watermark() -> Option<&'static AtomicU64> {
    shared().map(|w| &w.replayed_watermark)
}

/// The last reset.
pub fn last_reset() -> Option<&'static LastReset> {
    shared().map(|w| &w.last_reset)
}

/// The counts of horizon writes.
pub fn horizon_writes() -> Option<&'static HorizonWrites> {
    shared().map(|w| &w.writes)
}

/// The horizon worker's process ID slot.
pub fn worker_pid() -> Option<&'static AtomicI32> {
    shared().map(|w| &w.worker_pid)
}

/// The shared words' values now (None without shared memory).
pub fn words_now() -> Option<Limits> {
    shared().map(|w| Limits {
        v7: w.v7.load(Ordering::Relaxed),
        v6: w.v6.load(Ordering::Relaxed),
    })
}

/// The durable limits of the shared words now (None without shared memory).
pub fn limits() -> Option<Limits> {
    shared().map(|w| Limits {
        v7: w.v7_limit.load(Ordering::Acquire),
        v6: w.v6_limit.load(Ordering::Acquire),
    })
}
