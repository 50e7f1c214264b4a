//! The commit watermark (SPEC §4): `uuid_v7_watermark()`, and the
//! announcements that make it safe (the rule and its ordering argument are
//! the core's, `uuid_ext_core::watermark`).
//!
//! Shared memory holds one slot per backend (indexed by the backend's place
//! in PostgreSQL's array of processes; a parallel worker uses its leader's)
//! and one per prepared transaction. Each announcement carries its database
//! (`MyDatabaseId`), so `uuid_v7_watermark()` counts only its own
//! database's by default (`uuid_ext.watermark_scope`). A backend announces in its slot before
//! its transaction first advances the shared v7 word, and a transaction
//! callback withdraws the announcement at commit or abort, events PostgreSQL
//! fires after the transaction has left the proc array, so its end is
//! visible to any snapshot taken after. At PREPARE TRANSACTION the
//! announcement moves to a prepared slot that holds the transaction's XID; a
//! prepared slot counts while that XID is in progress, which it is until
//! COMMIT PREPARED or ROLLBACK PREPARED ends it. A crash restart rebuilds
//! shared memory with every slot empty (every transaction is gone).
//!
//! A standby has none of the primary's announcements. With
//! `uuid_ext.durable_wal` the primary's horizon worker logs the watermark
//! when it moves, read after the transactions it covers ended, so their
//! commits come before it in the WAL; a standby answers the last one it
//! replayed (`wal.rs`, `worker.rs`).

use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize, Ordering};

use pgrx::datum::Uuid;
use pgrx::pg_sys;
use pgrx::prelude::*;
use uuid_ext_core::v7;
use uuid_ext_core::watermark::{self, Scope, Slot, NONE};

use super::{horizon, shmem, wal};
use crate::{error, guc};

/// A prepared transaction's announcement: its XID (0: free) and the slot.
#[repr(C)]
struct PreparedSlot {
    xid: AtomicU32,
    slot: Slot,
}

const SEGMENT_NAME: &std::ffi::CStr = c"uuid_ext commit watermark";

static BACKENDS: AtomicPtr<Slot> = AtomicPtr::new(std::ptr::null_mut());
static N_BACKENDS: AtomicUsize = AtomicUsize::new(0);
static PREPARED: AtomicPtr<PreparedSlot> = AtomicPtr::new(std::ptr::null_mut());
static N_PREPARED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this process announced in its current transaction.
    static ANNOUNCED: Cell<bool> = const { Cell::new(false) };
}

/// Slots for every regular backend, autovacuum worker, background worker
/// and WAL sender (PostgreSQL's MaxBackends), and the auxiliary processes
/// after them in its array (a margin: they never generate).
fn counts() -> (usize, usize) {
    // SAFETY: MaxBackends and the settings are known before shared memory is
    // sized (shmem_request); the setting's text is read at once.
    let (backends, prepared) = unsafe {
        let text = pg_sys::GetConfigOption(c"max_prepared_transactions".as_ptr(), false, false);
        let prepared = std::ffi::CStr::from_ptr(text)
            .to_str()
            .ok()
            .and_then(|t| t.parse::<usize>().ok());
        (pg_sys::MaxBackends, prepared.unwrap_or(0))
    };
    (usize::try_from(backends).unwrap_or(0) + 64, prepared)
}

fn size_of_segment(backends: usize, prepared: usize) -> usize {
    backends * std::mem::size_of::<Slot>() + prepared * std::mem::size_of::<PreparedSlot>()
}

/// The shared memory to ask for (from the shmem_request hook).
pub fn shmem_size() -> usize {
    let (b, p) = counts();
    size_of_segment(b, p)
}

/// Finds or creates the slots (from the shmem_startup hook, under
/// AddinShmemInitLock), every one empty when created.
///
/// # Safety
/// Called only from the shmem_startup hook, holding AddinShmemInitLock.
pub unsafe fn shmem_startup() {
    let (b, p) = counts();
    let mut found = false;
    // SAFETY: the space was requested in shmem_request with the same counts.
    let base = unsafe {
        pg_sys::ShmemInitStruct(SEGMENT_NAME.as_ptr(), size_of_segment(b, p), &mut found)
    }
    .cast::<u8>();
    let backends = base.cast::<Slot>();
    // SAFETY: the prepared slots follow the backends' within the segment;
    // both are 8-byte aligned (ShmemInitStruct aligns the segment, and a
    // Slot's size is a multiple of 8).
    let prepared = unsafe { base.add(b * std::mem::size_of::<Slot>()) }.cast::<PreparedSlot>();
    if !found {
        for i in 0..b {
            // SAFETY: within the segment, not yet seen by any other process.
            unsafe { backends.add(i).write(Slot::new()) };
        }
        for i in 0..p {
            // SAFETY: as above.
            unsafe {
                prepared.add(i).write(PreparedSlot {
                    xid: AtomicU32::new(0),
                    slot: Slot::new(),
                })
            };
        }
    }
    N_BACKENDS.store(b, Ordering::Relaxed);
    N_PREPARED.store(p, Ordering::Relaxed);
    BACKENDS.store(backends, Ordering::Release);
    PREPARED.store(prepared, Ordering::Release);
}

fn backend_slots() -> &'static [Slot] {
    let ptr = BACKENDS.load(Ordering::Acquire);
    if ptr.is_null() {
        return &[];
    }
    // SAFETY: set once by the postmaster to N_BACKENDS slots in shared
    // memory mapped for this process's life.
    unsafe { std::slice::from_raw_parts(ptr, N_BACKENDS.load(Ordering::Relaxed)) }
}

fn prepared_slots() -> &'static [PreparedSlot] {
    let ptr = PREPARED.load(Ordering::Acquire);
    if ptr.is_null() {
        return &[];
    }
    // SAFETY: as in backend_slots.
    unsafe { std::slice::from_raw_parts(ptr, N_PREPARED.load(Ordering::Relaxed)) }
}

/// This process's slot: its own, or its leader's in a parallel worker.
fn my_slot() -> Option<&'static Slot> {
    // SAFETY: MyProc and ProcGlobal are set for every backend and worker
    // before it runs SQL; a parallel worker's lockGroupLeader is its
    // leader's PGPROC, in the same array.
    unsafe {
        let me = pg_sys::MyProc;
        if me.is_null() || pg_sys::ProcGlobal.is_null() {
            return None;
        }
        let leader = (*me).lockGroupLeader;
        let owner = if pg_sys::ParallelWorkerNumber >= 0 && !leader.is_null() {
            leader
        } else {
            me
        };
        let index = usize::try_from(owner.offset_from((*pg_sys::ProcGlobal).allProcs)).ok()?;
        backend_slots().get(index)
    }
}

/// Whether announcements are made now: the shared word in use and
/// `uuid_ext.commit_watermark` on.
#[inline]
fn active() -> bool {
    guc::commit_watermark() && shmem::uses_shared()
}

/// This backend's database.
#[inline]
fn my_database() -> u32 {
    // SAFETY: set before a backend runs SQL, never changed after.
    unsafe { pg_sys::MyDatabaseId }.into()
}

/// Before this transaction first advances the shared v7 `word`, at
/// `clock_ns`: announce.
#[inline]
pub fn before_draw(word: &std::sync::atomic::AtomicU64, clock_ns: u64) {
    if ANNOUNCED.get() || !active() {
        return;
    }
    match my_slot() {
        Some(slot) => {
            slot.announce(word, my_database(), clock_ns / 1_000_000);
            ANNOUNCED.set(true);
        }
        None => error::no_watermark_slot(),
    }
}

/// At PREPARE TRANSACTION: the announcement moves to a prepared slot with
/// the transaction's XID, stored there before it leaves the backend's slot.
fn move_to_prepared(slot: &Slot) {
    if !slot.is_announced() {
        return;
    }
    // SAFETY: at XACT_EVENT_PREPARE the transaction still has its XID.
    let xid = unsafe { pg_sys::GetTopTransactionIdIfAny() };
    if xid == pg_sys::TransactionId::INVALID {
        // It wrote nothing: no row of it can commit later.
        slot.withdraw();
        return;
    }
    let moved = horizon::with_lock(horizon::PREPARED_LOCK, || {
        let free = prepared_slots().iter().find(|p| {
            let held = p.xid.load(Ordering::Acquire);
            // SAFETY: a plain question to the proc array.
            held == 0 || !unsafe { pg_sys::TransactionIdIsInProgress(held.into()) }
        });
        free.map(|p| {
            p.slot.take(slot);
            p.xid.store(xid.into_inner(), Ordering::Release);
        })
    });
    if moved.is_some() {
        slot.withdraw();
    } else {
        // Kept in the backend's slot instead, until its next transaction
        // ends: the watermark waits longer, never less.
        pgrx::warning!(
            "uuid_ext: no free prepared-transaction slot for the commit watermark; \
             it waits for this session's next transaction instead"
        );
    }
}

/// The transaction callback (registered in the postmaster when preloaded).
#[pg_guard]
unsafe extern "C-unwind" fn on_xact_event(
    event: pg_sys::XactEvent::Type,
    _arg: *mut std::ffi::c_void,
) {
    use pg_sys::XactEvent::*;
    match event {
        XACT_EVENT_COMMIT | XACT_EVENT_ABORT => {
            // A parallel worker's announcement is its leader's to withdraw.
            // SAFETY: a global PostgreSQL sets at process start.
            if unsafe { pg_sys::ParallelWorkerNumber } < 0 {
                if let Some(slot) = my_slot() {
                    if slot.is_announced() {
                        slot.withdraw();
                    }
                }
            }
            ANNOUNCED.set(false);
        }
        XACT_EVENT_PARALLEL_COMMIT | XACT_EVENT_PARALLEL_ABORT => ANNOUNCED.set(false),
        XACT_EVENT_PREPARE => {
            if let Some(slot) = my_slot() {
                move_to_prepared(slot);
            }
            ANNOUNCED.set(false);
        }
        _ => {}
    }
}

/// From `_PG_init` in the postmaster: every backend inherits the callback.
pub fn init_preloaded() {
    // SAFETY: registers a callback with PostgreSQL's transaction manager.
    unsafe { pg_sys::RegisterXactCallback(Some(on_xact_event), std::ptr::null_mut()) };
}

/// The announcements of prepared transactions still in progress that
/// `scope` counts.
fn prepared_announcements(scope: Scope) -> impl Iterator<Item = (u64, u64)> {
    prepared_slots().iter().filter_map(move |p| {
        let xid = p.xid.load(Ordering::Acquire);
        // SAFETY: a plain question to the proc array.
        if xid != 0 && unsafe { pg_sys::TransactionIdIsInProgress(xid.into()) } {
            p.slot.counted(scope)
        } else {
            None
        }
    })
}

/// Whose announcements this session's `uuid_v7_watermark()` counts.
fn scope() -> Scope {
    match guc::watermark_scope() {
        guc::WatermarkScope::Database => Scope::Database(my_database()),
        guc::WatermarkScope::Server => Scope::Server,
    }
}

/// The watermark for `scope` now, from the shared v7 word and the slots
/// (None without shared memory): every v7 word value below it belongs to a
/// transaction that has ended, or to another database's when `scope` is one
/// database.
pub fn current(scope: Scope) -> Option<u64> {
    shmem::shared_words(7).map(|s| {
        watermark::read(s.word, backend_slots(), scope, || {
            prepared_announcements(scope)
                .map(|(v, _)| v)
                .min()
                .unwrap_or(NONE)
        })
    })
}

/// Redo of a watermark record: what a standby answers from now on.
pub fn replay(value: u64) {
    if let Some(replayed) = shmem::replayed_watermark() {
        replayed.fetch_max(value, Ordering::AcqRel);
    }
}

/// The smallest UUIDv7 that a transaction still in progress in this
/// database (in any, with `uuid_ext.watermark_scope = server`) might commit,
/// or the next the sequencer will give when none is in progress: every
/// UUIDv7 below it that will ever be visible here already is. On a standby,
/// the last watermark replayed from the primary's WAL (server-wide).
#[pg_extern(volatile, parallel_safe)]
fn uuid_v7_watermark() -> Uuid {
    if !shmem::preloaded() {
        error::watermark_unavailable("uuid_ext is not in shared_preload_libraries");
    }
    if wal::in_recovery() {
        // The standby's own sequencer knows nothing of the primary's open
        // transactions: only what the primary logged counts.
        let replayed = shmem::replayed_watermark().map_or(0, |r| r.load(Ordering::Acquire));
        if replayed == 0 {
            error::standby_watermark_unavailable();
        }
        return Uuid::from_bytes(v7::from_word(replayed, 0));
    }
    if !shmem::uses_shared() {
        error::watermark_unavailable("uuid_ext.monotonicity is backend in this session");
    }
    if !guc::commit_watermark() {
        error::watermark_unavailable("uuid_ext.commit_watermark is off");
    }
    // The shared word exists (checked above).
    let value =
        current(scope()).unwrap_or_else(|| error::watermark_unavailable("no shared memory"));
    Uuid::from_bytes(v7::from_word(value, 0))
}

/// For `uuid_ext_info()`: how long ago the oldest open announcement that
/// this session's watermark counts was made, at `now_ms` (None when there
/// is none).
pub fn oldest_announcement_age_ms(now_ms: u64) -> Option<u64> {
    let scope = scope();
    let oldest = watermark::oldest_since(backend_slots(), scope).min(
        prepared_announcements(scope)
            .map(|(_, t)| t)
            .min()
            .unwrap_or(NONE),
    );
    (oldest != NONE).then(|| now_ms.saturating_sub(oldest))
}
