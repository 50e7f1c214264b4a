//! The commit watermark (docs/design.md#the-commit-watermark): `uuid_v7_watermark()`, and the
//! announcements that make it safe (the rule and its ordering argument are
//! the core's, `uuid_ext_core::sequencer::watermark`).
//!
//! Shared memory holds one slot per backend (indexed by the backend's place
//! in PostgreSQL's array of processes; a parallel worker uses its leader's)
//! and one per prepared transaction. Each announcement carries its database
//! (`MyDatabaseId`), so `uuid_v7_watermark()` counts only its own
//! database's by default (`uuid_ext.watermark_scope`). A backend announces in its slot before
//! its transaction first draws a UUIDv7, whichever word it draws from: a
//! session with `uuid_ext.monotonicity = backend` announces too, and draws
//! its process's own word from a floor above the shared word it loaded after
//! announcing (the argument is the core's). A transaction
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
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use pgrx::datum::Uuid;
use pgrx::pg_sys;
use pgrx::prelude::*;
use uuid_ext_core::sequencer::watermark::{self, Board, Scope, Slot, NONE};
use uuid_ext_core::v7;

use super::{draw, locks, shmem, wal};
use crate::now::clock_ns;
use crate::{error, guc};

/// A prepared transaction's announcement: its XID (0: free), database,
/// value and time.
#[repr(C)]
struct PreparedSlot {
    xid: AtomicU32,
    database: AtomicU32,
    value: AtomicU64,
    since_ms: AtomicU64,
}

impl PreparedSlot {
    fn slot(&self) -> Slot<'_> {
        Slot {
            value: &self.value,
            since_ms: &self.since_ms,
            database: &self.database,
        }
    }
}

const SEGMENT_NAME: &std::ffi::CStr = c"uuid_ext commit watermark";

/// The segment: the backends' values, their times, their databases (as
/// three arrays, see `Board`), then the prepared transactions' slots.
static SEGMENT: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static N_BACKENDS: AtomicUsize = AtomicUsize::new(0);
static N_PREPARED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The reset count under which this process announced in its current
    /// transaction, whether it took a floor for draws from its own word
    /// then, and that floor (0: none, it draws from the shared word); None:
    /// it has not announced. One thread-local, read once a draw.
    static ANNOUNCED: Cell<Option<(u64, bool, u64)>> = const { Cell::new(None) };
}

/// Slots for every regular backend, autovacuum worker, background worker
/// and WAL sender: PostgreSQL's MaxBackends, the first entries of its array
/// of processes (the auxiliary processes after them never run SQL; one that
/// drew a UUID would get `no_watermark_slot`, not a wrong answer). A reader
/// scans every slot, so none is kept for nothing. An even count, so that
/// the databases' array (4 bytes each) ends 8-byte aligned.
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
    (
        usize::try_from(backends).unwrap_or(0).next_multiple_of(2),
        prepared,
    )
}

/// Where each part of the segment starts, and its size.
struct Layout {
    since_ms: usize,
    databases: usize,
    prepared: usize,
    size: usize,
}

fn layout(backends: usize, prepared: usize) -> Layout {
    let words = backends * std::mem::size_of::<AtomicU64>();
    let databases = 2 * words;
    let prepared_at = databases + backends * std::mem::size_of::<AtomicU32>();
    Layout {
        since_ms: words,
        databases,
        prepared: prepared_at,
        size: prepared_at + prepared * std::mem::size_of::<PreparedSlot>(),
    }
}

/// The shared memory to ask for (from the shmem_request hook).
pub fn shmem_size() -> usize {
    let (b, p) = counts();
    layout(b, p).size
}

/// Finds or creates the slots (from the shmem_startup hook, under
/// AddinShmemInitLock), every one empty when created.
///
/// # Safety
/// Called only from the shmem_startup hook, holding AddinShmemInitLock.
pub unsafe fn shmem_startup() {
    let (b, p) = counts();
    let at = layout(b, p);
    let mut found = false;
    // SAFETY: the space was requested in shmem_request with the same counts.
    let base =
        unsafe { pg_sys::ShmemInitStruct(SEGMENT_NAME.as_ptr(), at.size, &mut found) }.cast::<u8>();
    if !found {
        // SAFETY: every part lies within the segment, at an offset aligned
        // for its type (ShmemInitStruct aligns the segment; the counts are
        // even), and no other process sees the segment yet.
        unsafe {
            for i in 0..b {
                base.cast::<AtomicU64>().add(i).write(AtomicU64::new(NONE));
                base.add(at.since_ms)
                    .cast::<AtomicU64>()
                    .add(i)
                    .write(AtomicU64::new(NONE));
                base.add(at.databases)
                    .cast::<AtomicU32>()
                    .add(i)
                    .write(AtomicU32::new(0));
            }
            for i in 0..p {
                base.add(at.prepared)
                    .cast::<PreparedSlot>()
                    .add(i)
                    .write(PreparedSlot {
                        xid: AtomicU32::new(0),
                        database: AtomicU32::new(0),
                        value: AtomicU64::new(NONE),
                        since_ms: AtomicU64::new(NONE),
                    });
            }
        }
    }
    N_BACKENDS.store(b, Ordering::Relaxed);
    N_PREPARED.store(p, Ordering::Relaxed);
    SEGMENT.store(base, Ordering::Release);
}

/// The backends' slots (none without shared memory).
fn board() -> Board<'static> {
    let base = SEGMENT.load(Ordering::Acquire);
    if base.is_null() {
        return Board::new(&[], &[], &[]);
    }
    let b = N_BACKENDS.load(Ordering::Relaxed);
    let at = layout(b, 0);
    // SAFETY: set once by the postmaster to a segment laid out by `layout`
    // with these counts, mapped for this process's life.
    unsafe {
        Board::new(
            std::slice::from_raw_parts(base.cast::<AtomicU64>(), b),
            std::slice::from_raw_parts(base.add(at.since_ms).cast::<AtomicU64>(), b),
            std::slice::from_raw_parts(base.add(at.databases).cast::<AtomicU32>(), b),
        )
    }
}

fn prepared_slots() -> &'static [PreparedSlot] {
    let base = SEGMENT.load(Ordering::Acquire);
    if base.is_null() {
        return &[];
    }
    let (b, p) = (
        N_BACKENDS.load(Ordering::Relaxed),
        N_PREPARED.load(Ordering::Relaxed),
    );
    // SAFETY: as in board().
    unsafe { std::slice::from_raw_parts(base.add(layout(b, p).prepared).cast::<PreparedSlot>(), p) }
}

/// This process's slot: its own, or its leader's in a parallel worker.
fn my_slot() -> Option<Slot<'static>> {
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
        board().slot(index)
    }
}

/// This backend's database.
#[inline]
fn my_database() -> u32 {
    // SAFETY: set before a backend runs SQL, never changed after.
    unsafe { pg_sys::MyDatabaseId }.into()
}

/// How many announcements this process has made: a lease of the sequencer
/// is given only under the announcement it was taken under
/// (docs/ordering.md#leases-uuid_extcache).
static ANNOUNCEMENTS: AtomicU64 = AtomicU64::new(0);

/// [`ANNOUNCEMENTS`], read at every leased draw.
#[inline]
pub fn announcements() -> u64 {
    ANNOUNCEMENTS.load(Ordering::Relaxed)
}

/// Before this transaction first draws a UUIDv7 under the reset count
/// `resets`, at `clock_ns`: announce, when the library is preloaded and
/// `uuid_ext.commit_watermark` is on, whichever word the session draws from.
/// Returns the floor of the draw: 0 for one from the shared word; for one
/// from the process's own word (`uuid_ext.monotonicity = backend`), above
/// the shared word as loaded after the announcement, so that no reader that
/// missed the announcement can place the key below its watermark
/// (`uuid_ext_core::sequencer::watermark`). A transaction that announced
/// before a reset announces again (lower: the reset brought the word back),
/// so its announcement stays no greater than what it gets; one that
/// announced for the shared word and then switches to its own within the
/// transaction announces again, for its own word (the value announced stays
/// the smaller), to take the floor.
#[inline]
pub fn before_draw(clock_ns: u64, resets: u64, own_word: bool) -> u64 {
    if let Some((seen, floored, floor)) = ANNOUNCED.get() {
        if seen == resets && (floored || !own_word) {
            return floor;
        }
    }
    if !guc::commit_watermark() {
        return 0;
    }
    let Some(shared) = shmem::shared() else {
        return 0;
    };
    match my_slot() {
        Some(slot) => {
            let (database, now_ms) = (my_database(), clock_ns / 1_000_000);
            let floor = if own_word {
                slot.announce_for_own_word(&shared.v7, database, now_ms)
            } else {
                slot.announce(&shared.v7, database, now_ms);
                0
            };
            ANNOUNCED.set(Some((resets, own_word, floor)));
            ANNOUNCEMENTS.fetch_add(1, Ordering::Relaxed);
            floor
        }
        // No process that runs SQL lacks a slot (an auxiliary process would):
        // on its own word it draws unannounced, as the error's hint says.
        None if own_word => 0,
        None => error::no_watermark_slot(),
    }
}

/// At PREPARE TRANSACTION: the announcement moves to a prepared slot with
/// the transaction's XID, stored there before it leaves the backend's slot.
fn move_to_prepared(slot: Slot<'_>) {
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
    let moved = locks::with_lock(locks::PREPARED_LOCK, || {
        let free = prepared_slots().iter().find(|p| {
            let held = p.xid.load(Ordering::Acquire);
            // SAFETY: a plain question to the proc array.
            held == 0 || !unsafe { pg_sys::TransactionIdIsInProgress(held.into()) }
        });
        free.map(|p| {
            p.slot().take(slot);
            p.xid.store(xid.into_inner(), Ordering::Release);
        })
    });
    if moved.is_some() {
        slot.withdraw();
    } else {
        // Not expected: there are max_prepared_transactions slots, and no
        // more transactions than that can be prepared. Should it happen, the
        // announcement stays in the backend's slot only until this
        // session's next transaction ends, which may come before COMMIT
        // PREPARED: say so.
        pgrx::warning!(
            "uuid_ext: no free prepared-transaction slot for the commit watermark; \
             it holds this transaction's keys back only until this session's next transaction ends"
        );
    }
}

/// Withdraws this backend's announcement as its top-level transaction ends.
fn end_of_transaction() {
    // A parallel worker's announcement is its leader's to withdraw.
    // SAFETY: a global PostgreSQL sets at process start.
    if unsafe { pg_sys::ParallelWorkerNumber } < 0 {
        if let Some(slot) = my_slot() {
            if slot.is_announced() {
                slot.withdraw();
            }
        }
    }
    ANNOUNCED.set(None);
}

/// At PREPARE TRANSACTION (`callbacks.rs`): the announcement moves to a
/// prepared slot, where it stays until COMMIT PREPARED or ROLLBACK PREPARED.
pub fn at_prepare() {
    if let Some(slot) = my_slot() {
        move_to_prepared(slot);
    }
    ANNOUNCED.set(None);
}

/// At the end of a parallel worker's part of a transaction: its
/// announcement is its leader's to withdraw.
pub fn at_parallel_end() {
    ANNOUNCED.set(None);
}

/// When a top-level transaction's resources are released after it
/// committed or aborted (`callbacks.rs`), which is after every transaction
/// callback has run: the announcement is withdrawn. Another extension's
/// callback may still finish the transaction's work before that: Citus
/// commits the workers' prepared parts of a distributed transaction in its
/// commit callback, so a withdrawal in a transaction callback could let a
/// poller pass a key whose row a worker has not committed yet
/// (docs/ordering.md#the-commit-watermark).
pub fn at_release() {
    end_of_transaction();
}

/// The announcements of prepared transactions still in progress that
/// `scope` counts.
fn prepared_announcements(scope: Scope) -> impl Iterator<Item = (u64, u64)> {
    prepared_slots().iter().filter_map(move |p| {
        let xid = p.xid.load(Ordering::Acquire);
        // SAFETY: a plain question to the proc array.
        if xid != 0 && unsafe { pg_sys::TransactionIdIsInProgress(xid.into()) } {
            p.slot().counted(scope)
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
    shmem::shared().map(|w| {
        watermark::read(&w.v7, &board(), scope, || {
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

/// Redo of a reset: the watermark replayed before it is above every key
/// made after it; a standby answers none until the primary logs the next.
pub fn forget_replayed() {
    if let Some(replayed) = shmem::replayed_watermark() {
        replayed.store(0, Ordering::Release);
    }
}

/// How many announcements that this session's watermark counts were made at
/// or before `at_ms` and are still open: after a reset at `at_ms`, the
/// transactions that may still commit keys from before it.
pub fn open_since_before(at_ms: u64) -> usize {
    let scope = scope();
    board().made_by(scope, at_ms)
        + prepared_announcements(scope)
            .filter(|&(_, since)| since <= at_ms)
            .count()
}

/// The smallest UUIDv7 that a transaction still in progress in this
/// database (in any, with `uuid_ext.watermark_scope = server`) might commit,
/// or the next the sequencer will give when none is in progress: every
/// UUIDv7 below it that will ever be visible here already is. On a standby,
/// the last watermark replayed from the primary's WAL (server-wide).
#[pg_extern(volatile, parallel_safe)]
fn uuid_v7_watermark() -> Uuid {
    match now() {
        Ok(u) => u,
        Err(Unavailable::Standby) => error::standby_watermark_unavailable(),
        Err(Unavailable::Because(why)) => error::watermark_unavailable(why),
    }
}

/// Why there is no watermark here.
pub enum Unavailable {
    /// A standby that has replayed none.
    Standby,
    /// What the shared sequencer lacks.
    Because(&'static str),
}

/// The watermark now: `uuid_v7_watermark()`, and `SHOW uuid_ext.watermark`
/// (what a Citus cluster's watermark asks each node: a name no role can
/// plant, docs/ordering.md#on-a-citus-cluster), which must not raise.
pub fn now() -> Result<Uuid, Unavailable> {
    if !shmem::preloaded() {
        return Err(Unavailable::Because(
            "uuid_ext is not in shared_preload_libraries",
        ));
    }
    if wal::in_recovery() {
        // The standby's own sequencer knows nothing of the primary's open
        // transactions: only what the primary logged counts.
        let replayed = shmem::replayed_watermark().map_or(0, |r| r.load(Ordering::Acquire));
        if replayed == 0 {
            return Err(Unavailable::Standby);
        }
        return Ok(Uuid::from_bytes(v7::from_word(replayed, 0)));
    }
    if !shmem::uses_shared() {
        return Err(Unavailable::Because(
            "uuid_ext.monotonicity is backend in this session",
        ));
    }
    if !guc::commit_watermark() {
        return Err(Unavailable::Because("uuid_ext.commit_watermark is off"));
    }
    raise_to_clock();
    current(scope())
        .map(|value| Uuid::from_bytes(v7::from_word(value, 0)))
        .ok_or(Unavailable::Because("no shared memory"))
}

static mut WATERMARK: *mut std::ffi::c_char = std::ptr::null_mut();

/// `uuid_ext.watermark`, read with SHOW (`_PG_init`).
pub fn define_setting() {
    guc::define_hidden(
        c"uuid_ext.watermark",
        c"uuid_v7_watermark(), as SHOW reads it: what a Citus cluster's watermark asks each node.",
        &raw mut WATERMARK,
        None,
        Some(show_watermark),
    );
}

#[pg_guard]
unsafe extern "C-unwind" fn show_watermark() -> *const std::ffi::c_char {
    guc::shown(shown())
}

/// `SHOW uuid_ext.watermark`: the watermark, or why there is none, as text.
fn shown() -> String {
    match now() {
        Ok(u) => u.to_string(),
        Err(Unavailable::Standby) => {
            "unavailable: this standby has replayed no watermark of the primary".into()
        }
        Err(Unavailable::Because(why)) => format!("unavailable: {why}"),
    }
}

/// Raises the shared UUIDv7 word to the clock, as a draw would but drawing
/// nothing, so that a watermark with no transaction in progress follows the
/// clock and not this server's last draw: on a Citus cluster the lowest of
/// the nodes' watermarks would otherwise stay at the last key of a node
/// that draws none (docs/ordering.md#on-a-citus-cluster). Through the
/// durable horizon, as a draw: every later key is above the word, after a
/// crash too. A reset meanwhile, or a horizon that cannot be raised, leaves
/// the word, and the watermark is the last draw's, as without it.
fn raise_to_clock() {
    let resets = shmem::settled_resets();
    let (word, limit) = draw::v7_word();
    let _ = uuid_ext_core::sequencer::word::raise(word, &limit, resets, v7::candidate(clock_ns()));
}

/// For `uuid_ext_info()`: how long ago the oldest open announcement that
/// this session's watermark counts was made, at `now_ms` (None when there
/// is none).
pub fn oldest_announcement_age_ms(now_ms: u64) -> Option<u64> {
    let scope = scope();
    let oldest = board().oldest_since(scope).min(
        prepared_announcements(scope)
            .map(|(_, t)| t)
            .min()
            .unwrap_or(NONE),
    );
    (oldest != NONE).then(|| now_ms.saturating_sub(oldest))
}

// The watermark of a Citus cluster, uuid_v7_cluster_watermark(): hand-written.
extension_sql_file!(
    "../../sql/cluster_watermark.sql",
    name = "cluster_watermark",
    requires = [uuid_v7_watermark],
);
