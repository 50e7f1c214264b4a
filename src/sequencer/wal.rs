//! Writing the sequencer's WAL records (the records' format is the core's,
//! `uuid_ext_core::sequencer::wal`; their resource manager, registered whenever the
//! library is preloaded, and their redo are `redo.rs`: a server that
//! replays one without the library stops with `resource manager with ID 197
//! not registered`). Records are written only with
//! `uuid_ext.durable_wal = on`, and only where WAL can be written (never
//! during recovery):
//!
//! - a horizon record each time a word's durable limit is raised, after the
//!   file and before the limit is published, flushed before any value uses
//!   it; its redo raises the words and limits and writes the replaying
//!   server's own file (`horizon::replay`);
//! - a watermark record from the horizon worker when the commit watermark
//!   moves; its redo is what `uuid_v7_watermark()` answers on a standby;
//! - a reset record from `uuid_ext_sequencer_reset()`, flushed before the
//!   words are lowered; its redo lowers the replaying server's words and
//!   limits to the record's and forgets its replayed watermark
//!   (`reset::replay`).

use std::sync::atomic::{AtomicI32, Ordering};

use pgrx::pg_sys;
use uuid_ext_core::sequencer::horizon::Limits;
use uuid_ext_core::sequencer::wal::{self, Record};

use crate::guc;

/// Whether records are written now: the setting, on a server that is not
/// in recovery (a standby, or a server still replaying, writes no WAL).
pub fn logging() -> bool {
    guc::durable_wal() && !in_recovery()
}

/// The process (`MyProcPid`) that saw recovery end. Recovery never starts
/// again in a process that saw it end (PostgreSQL keeps the same fact in
/// `LocalRecoveryInProgress`); a child forked after must ask for itself.
/// Asking goes through pgrx's FFI guard, a large share of the cost of a
/// `uuid_v7_watermark()` call (a plain static, not a thread-local: those
/// cost a `__tls_get_addr` call in a shared library).
static RECOVERY_ENDED_IN: AtomicI32 = AtomicI32::new(0);

/// Whether this server is in recovery (a standby, or still replaying).
pub fn in_recovery() -> bool {
    // SAFETY: MyProcPid is set at process start and only read here.
    let me = unsafe { pg_sys::MyProcPid };
    if me != 0 && RECOVERY_ENDED_IN.load(Ordering::Relaxed) == me {
        return false;
    }
    // SAFETY: a plain question to the WAL machinery, valid in any backend.
    let in_recovery = unsafe { pg_sys::RecoveryInProgress() };
    if !in_recovery {
        RECOVERY_ENDED_IN.store(me, Ordering::Relaxed);
    }
    in_recovery
}

/// `XLOG_MARK_UNIMPORTANT` (xlog.h): the records do not count as activity,
/// so a server that only hands out UUIDs to read-only queries does not force
/// checkpoints or `archive_timeout` segment switches.
const XLOG_MARK_UNIMPORTANT: u8 = 0x02;

/// Inserts `record`; returns where it ends.
fn insert(record: &Record) -> pg_sys::XLogRecPtr {
    let data = record.encode();
    // SAFETY: the insert protocol (begin, flags, data, insert), from a
    // process that may write WAL (callers check `logging()`); the data is
    // copied before XLogInsert returns.
    unsafe {
        pg_sys::XLogBeginInsert();
        pg_sys::XLogSetRecordFlags(XLOG_MARK_UNIMPORTANT);
        pg_sys::XLogRegisterData(data.as_ptr() as _, data.len() as _);
        pg_sys::XLogInsert(wal::RMGR_ID, record.info())
    }
}

/// A horizon record for `limits`, flushed, when records are written now.
pub fn log_horizon(limits: &Limits) {
    if logging() {
        let at = insert(&Record::Horizon(*limits));
        // SAFETY: flushes the WAL up to our record (a primary, not in recovery).
        unsafe { pg_sys::XLogFlush(at) };
    }
}

/// A reset record for the limits after it, flushed, when records are
/// written now.
pub fn log_reset(limits: &Limits) {
    if logging() {
        let at = insert(&Record::Reset(*limits));
        // SAFETY: flushes the WAL up to our record (a primary, not in recovery).
        unsafe { pg_sys::XLogFlush(at) };
    }
}

/// A watermark record, when records are written now; returns where it ends.
/// Not flushed here: the WAL writer flushes it within `wal_writer_delay`, or
/// the next commit does.
pub fn log_watermark(value: u64) -> Option<u64> {
    if logging() {
        let at = insert(&Record::Watermark(value));
        // SAFETY: asks the WAL writer to flush up to `at`, as an
        // asynchronous commit does.
        unsafe { pg_sys::XLogSetAsyncXactLSN(at) };
        return Some(at);
    }
    None
}

/// Where the next WAL record will go.
pub fn insert_position() -> u64 {
    // SAFETY: a read of the insert position under PostgreSQL's spinlock.
    unsafe { pg_sys::GetXLogInsertRecPtr() }
}
