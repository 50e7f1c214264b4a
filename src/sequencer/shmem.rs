//! Where the sequencer words live (SPEC §4).
//!
//! With `shared_preload_libraries = 'uuid_ext'` the postmaster places one
//! word per version in shared memory, and every backend and parallel worker
//! (all forked from it) advances the same word: UUIDs are ordered across the
//! whole server. Otherwise, and when a session sets
//! `uuid_ext.monotonicity = backend`, each process uses a word of its own.
//!
//! A crash restart rebuilds shared memory. Before the old segment goes, the
//! postmaster copies the words into its own memory (an `on_shmem_exit`
//! callback, which runs in the postmaster while the segment is still
//! attached) and the rebuilt segment starts from them, so values stay above
//! everything given before the crash even when the words had run ahead of
//! the clock. Across a full restart the horizon file carries them, and to
//! standbys and restores the WAL does (`horizon.rs`, `wal.rs`).

use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU64, Ordering};

use pgrx::pg_sys;
use pgrx::prelude::*;

use uuid_ext_core::horizon::Limits;

use super::horizon::{self, Limit};
use super::{locks, watermark};
use crate::guc::{self, Monotonicity};

/// The words in shared memory.
#[repr(C)]
struct SharedWords {
    /// How many times a reset began and ended (odd while one lowers the
    /// words; `uuid_ext_core::reset`). Beside the v7 word: a draw reads both.
    resets: AtomicU64,
    v7: AtomicU64,
    /// UUIDv6's 60-bit time (its own sequence).
    v6: AtomicU64,
    /// The durable limits no value of each word passes (`horizon.rs`).
    v7_limit: AtomicU64,
    v6_limit: AtomicU64,
    /// The last commit watermark replayed from the WAL (0: none since this
    /// server started), which a standby answers (`watermark.rs`).
    replayed_watermark: AtomicU64,
    /// The horizon worker's process ID while it runs (0: none; `worker.rs`).
    worker_pid: AtomicI32,
    /// How many times the horizon was written by the worker, and by a call
    /// that passed it, since shared memory was made.
    writes: HorizonWrites,
    /// The last reset since shared memory was made (`reset.rs`).
    last_reset: LastReset,
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
/// The postmaster's copies of the words, taken as shared memory is torn down.
static CARRIED_V7: AtomicU64 = AtomicU64::new(0);
static CARRIED_V6: AtomicU64 = AtomicU64::new(0);

static LOCAL_V7: AtomicU64 = AtomicU64::new(0);
static LOCAL_V6: AtomicU64 = AtomicU64::new(0);
/// The shared reset count this process's own words last followed.
static LOCAL_RESETS: AtomicU64 = AtomicU64::new(0);

const SEGMENT_NAME: &std::ffi::CStr = c"uuid_ext sequencer";

static mut PREV_SHMEM_STARTUP_HOOK: pg_sys::shmem_startup_hook_type = None;
#[cfg(not(any(feature = "pg13", feature = "pg14")))]
static mut PREV_SHMEM_REQUEST_HOOK: pg_sys::shmem_request_hook_type = None;

/// Asks for the shared words; from `_PG_init` in the postmaster while it
/// loads `shared_preload_libraries`.
pub fn init_preloaded() {
    PRELOADED.store(true, Ordering::Relaxed);
    // SAFETY: _PG_init runs once in the postmaster before any backend
    // exists; the hooks are chained, the previous ones called first.
    unsafe {
        #[cfg(any(feature = "pg13", feature = "pg14"))]
        {
            pg_sys::RequestAddinShmemSpace(std::mem::size_of::<SharedWords>());
            pg_sys::RequestNamedLWLockTranche(locks::TRANCHE.as_ptr(), locks::N_LOCKS);
        }
        #[cfg(not(any(feature = "pg13", feature = "pg14")))]
        {
            PREV_SHMEM_REQUEST_HOOK = pg_sys::shmem_request_hook;
            pg_sys::shmem_request_hook = Some(shmem_request);
        }
        PREV_SHMEM_STARTUP_HOOK = pg_sys::shmem_startup_hook;
        pg_sys::shmem_startup_hook = Some(shmem_startup);
    }
}

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
#[pg_guard]
unsafe extern "C-unwind" fn shmem_request() {
    // SAFETY: called by the postmaster during its shared-memory request phase.
    unsafe {
        if let Some(prev) = PREV_SHMEM_REQUEST_HOOK {
            prev();
        }
        pg_sys::RequestAddinShmemSpace(std::mem::size_of::<SharedWords>());
        pg_sys::RequestAddinShmemSpace(watermark::shmem_size());
        pg_sys::RequestNamedLWLockTranche(locks::TRANCHE.as_ptr(), locks::N_LOCKS);
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn shmem_startup() {
    // SAFETY: called by the postmaster each time it (re)creates shared
    // memory, after the space asked for was reserved. AddinShmemInitLock is
    // MainLWLockArray[21] in PostgreSQL 13 to 19 (storage/lwlocklist.h).
    unsafe {
        if let Some(prev) = PREV_SHMEM_STARTUP_HOOK {
            prev();
        }
        let lock = &raw mut (*pg_sys::MainLWLockArray.add(21)).lock;
        pg_sys::LWLockAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
        let mut found = false;
        let words = pg_sys::ShmemInitStruct(
            SEGMENT_NAME.as_ptr(),
            std::mem::size_of::<SharedWords>(),
            &mut found,
        )
        .cast::<SharedWords>();
        if !found {
            // Each word starts at the larger of what the postmaster carried
            // (a crash restart) and what the file holds (any restart); the
            // clock is the floor of every draw anyway. The limits start
            // there: the next value of either word passes them, so the first
            // draw of each writes the file.
            let on_disk = if horizon::enabled() {
                horizon::read()
            } else {
                horizon::remove();
                None
            };
            if let Some(l) = &on_disk {
                super::clock::warn_at_start(l);
            }
            let on_disk = on_disk.unwrap_or_default();
            let v7 = CARRIED_V7.load(Ordering::Relaxed).max(on_disk.v7);
            let v6 = CARRIED_V6.load(Ordering::Relaxed).max(on_disk.v6);
            words.write(SharedWords {
                resets: AtomicU64::new(0),
                v7: AtomicU64::new(v7),
                v6: AtomicU64::new(v6),
                v7_limit: AtomicU64::new(v7),
                v6_limit: AtomicU64::new(v6),
                replayed_watermark: AtomicU64::new(0),
                worker_pid: AtomicI32::new(0),
                writes: HorizonWrites::default(),
                last_reset: LastReset::default(),
            });
        }
        locks::set_locks(pg_sys::GetNamedLWLockTranche(locks::TRANCHE.as_ptr()));
        #[cfg(not(any(feature = "pg13", feature = "pg14")))]
        watermark::shmem_startup();
        pg_sys::LWLockRelease(lock);
        SHARED.store(words, Ordering::Release);
        if !pg_sys::IsUnderPostmaster {
            // The list of exit callbacks is emptied each time it runs: add
            // ours again for each new segment.
            pg_sys::on_shmem_exit(Some(carry_words), pg_sys::Datum::from(0usize));
        }
    }
}

/// In the postmaster, as shared memory is torn down (a crash restart, or the
/// end): keep the words' values for the next segment, and write them to the
/// horizon file exactly (every backend is gone: nothing passes them now).
#[pg_guard]
unsafe extern "C-unwind" fn carry_words(_code: std::ffi::c_int, _arg: pg_sys::Datum) {
    let words = SHARED.swap(null_mut(), Ordering::AcqRel);
    // SAFETY: exit callbacks run before the segment is detached (PostgreSQL
    // runs them in reverse order of registration, and the detach was
    // registered when the segment was created, before this one).
    if let Some(words) = unsafe { words.as_ref() } {
        // The segment's words started at least at what was carried before,
        // and went down only by a reset, which must stay down: a store.
        CARRIED_V7.store(words.v7.load(Ordering::Relaxed), Ordering::Relaxed);
        CARRIED_V6.store(words.v6.load(Ordering::Relaxed), Ordering::Relaxed);
        if horizon::enabled() {
            let exact = Limits {
                v7: CARRIED_V7.load(Ordering::Relaxed),
                v6: CARRIED_V6.load(Ordering::Relaxed),
            };
            if let Err(e) = horizon::write(&exact) {
                pgrx::warning!(
                    "uuid_ext: could not write \"{}\": {}; the horizon written before stays",
                    e.path.display(),
                    crate::error::io_cause(&e.cause)
                );
            }
        }
    }
}

fn shared() -> Option<&'static SharedWords> {
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
fn words() -> Option<&'static SharedWords> {
    shared().filter(|_| guc::monotonicity() == Monotonicity::Shared)
}

/// The shared words of `version` (7 or 6) and their limits.
fn shared_of(w: &'static SharedWords, version: u8) -> horizon::Shared {
    let (word, limit, other_word, other_limit) = if version == 7 {
        (&w.v7, &w.v7_limit, &w.v6, &w.v6_limit)
    } else {
        (&w.v6, &w.v6_limit, &w.v7, &w.v7_limit)
    };
    horizon::Shared {
        version,
        word,
        limit,
        other_word,
        other_limit,
        resets: &w.resets,
    }
}

/// The reset count once no reset is lowering the words (0 without shared
/// memory); read before the clock, for a draw (`uuid_ext_core::reset`).
#[inline]
pub fn settled_resets() -> u64 {
    match shared() {
        Some(w) => uuid_ext_core::reset::settled(|| w.resets.load(Ordering::Acquire)),
        None => 0,
    }
}

/// The reset count now (odd while a reset lowers the words).
pub fn resets() -> Option<&'static AtomicU64> {
    shared().map(|w| &w.resets)
}

/// This process's own words, forgotten once after each reset of the shared
/// ones: a reset brings back every sequence of the server.
#[inline]
fn local(word: &'static AtomicU64) -> (&'static AtomicU64, Limit) {
    let resets = shared().map(|w| &w.resets);
    if let Some(r) = resets {
        let now = r.load(Ordering::Acquire);
        if LOCAL_RESETS.load(Ordering::Relaxed) != now {
            LOCAL_V7.store(0, Ordering::Relaxed);
            LOCAL_V6.store(0, Ordering::Relaxed);
            LOCAL_RESETS.store(now, Ordering::Relaxed);
        }
    }
    (word, Limit::Off(resets))
}

/// The word the next UUIDv7 is drawn from, and the limit it must respect.
#[inline]
pub fn v7_word() -> (&'static AtomicU64, Limit) {
    match words() {
        Some(w) => (&w.v7, Limit::Shared(shared_of(w, 7))),
        None => local(&LOCAL_V7),
    }
}

/// The word the next UUIDv6 is drawn from, and the limit it must respect.
#[inline]
pub fn v6_word() -> (&'static AtomicU64, Limit) {
    match words() {
        Some(w) => (&w.v6, Limit::Shared(shared_of(w, 6))),
        None => local(&LOCAL_V6),
    }
}

/// The shared words of `version` whatever this session's mode (for the
/// worker and for redo); None without shared memory.
pub fn shared_words(version: u8) -> Option<horizon::Shared> {
    shared().map(|w| shared_of(w, version))
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

/// Tests build the word at its edge rather than wait 8,000 years.
#[cfg(any(test, feature = "pg_test"))]
pub fn set_local_v7_for_test(value: u64) {
    LOCAL_V7.store(value, Ordering::Relaxed);
}

#[cfg(any(test, feature = "pg_test"))]
pub fn set_local_v6_for_test(value: u64) {
    LOCAL_V6.store(value, Ordering::Relaxed);
}
