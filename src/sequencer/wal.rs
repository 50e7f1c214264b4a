//! The sequencer's custom WAL resource manager (issue 15; the records'
//! format is the core's, `uuid_ext_core::wal`).
//!
//! Registered whenever the library is preloaded (PostgreSQL 15 and later),
//! so that every server that replays WAL holding these records can: a
//! server that replays one without the library stops with `resource manager
//! with ID 197 not registered`. Records are written only with
//! `uuid_ext.durable_wal = on`, and only where WAL can be written (never
//! during recovery):
//!
//! - a horizon record each time a word's durable limit is raised, after the
//!   file and before the limit is published, flushed before any value uses
//!   it; its redo raises the words and limits and writes the replaying
//!   server's own file ([`super::horizon::replay`]);
//! - a watermark record from the horizon worker when the commit watermark
//!   moves; its redo is what `uuid_v7_watermark()` answers on a standby;
//! - a reset record from `uuid_ext_sequencer_reset()`, flushed before the
//!   words are lowered; its redo lowers the replaying server's words and
//!   limits to the record's and forgets its replayed watermark
//!   ([`super::reset::replay`]).

use std::sync::atomic::{AtomicI32, Ordering};

use pgrx::pg_sys;
use pgrx::prelude::*;
use uuid_ext_core::horizon::Limits;
#[cfg(not(any(feature = "pg13", feature = "pg14")))]
use uuid_ext_core::wal::{self, Record};

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

#[cfg(not(any(feature = "pg13", feature = "pg14")))]
mod rmgr {
    use super::*;
    use std::ffi::{c_char, CStr, CString};

    /// `XLOG_MARK_UNIMPORTANT` (xlog.h): the records do not count as
    /// activity, so a server that only hands out UUIDs to read-only queries
    /// does not force checkpoints or `archive_timeout` segment switches.
    const XLOG_MARK_UNIMPORTANT: u8 = 0x02;

    /// The table entry PostgreSQL copies at registration.
    struct Entry(pg_sys::RmgrData);
    // SAFETY: read-only after construction; its pointers are to statics.
    unsafe impl Sync for Entry {}

    static ENTRY: Entry = Entry(pg_sys::RmgrData {
        rm_name: wal::RMGR_NAME.as_ptr(),
        rm_redo: Some(redo),
        rm_desc: Some(desc),
        rm_identify: Some(identify),
        rm_startup: None,
        rm_cleanup: None,
        rm_mask: None,
        rm_decode: None,
    });

    pub fn register() {
        // SAFETY: from _PG_init while preloading, the only time PostgreSQL
        // accepts it; the entry is copied into its table. (The argument is
        // `*mut` on 15, `*const` on 16 and later.)
        unsafe { pg_sys::RegisterCustomRmgr(wal::RMGR_ID, &raw const ENTRY.0 as _) };
    }

    /// The record's info byte and payload.
    ///
    /// # Safety
    /// `record` is the reader state PostgreSQL passes to redo and desc, with
    /// a decoded record.
    unsafe fn parts<'a>(record: *mut pg_sys::XLogReaderState) -> (u8, &'a [u8]) {
        // SAFETY: XLogRecGetInfo and XLogRecGetData, as the macros read them.
        unsafe {
            let decoded = (*record).record;
            let info = (*decoded).header.xl_info;
            let len = (*decoded).main_data_len as usize;
            let data = if len == 0 || (*decoded).main_data.is_null() {
                &[][..]
            } else {
                std::slice::from_raw_parts((*decoded).main_data.cast::<u8>(), len)
            };
            (info, data)
        }
    }

    #[pg_guard]
    unsafe extern "C-unwind" fn redo(record: *mut pg_sys::XLogReaderState) {
        // SAFETY: called by recovery with a decoded record of ours.
        let (info, data) = unsafe { parts(record) };
        match Record::decode(info, data) {
            Ok(Record::Horizon(limits)) => crate::sequencer::horizon::replay(&limits),
            Ok(Record::Watermark(w)) => crate::sequencer::watermark::replay(w),
            Ok(Record::Reset(limits)) => crate::sequencer::reset::replay(&limits),
            Err(e) => pgrx::error!(
                "uuid_ext: malformed WAL record (info {info:#04x}, {} bytes): {e}",
                data.len()
            ),
        }
    }

    #[pg_guard]
    unsafe extern "C-unwind" fn desc(
        buf: pg_sys::StringInfo,
        record: *mut pg_sys::XLogReaderState,
    ) {
        // SAFETY: as in redo; `buf` is PostgreSQL's to append to.
        unsafe {
            let (info, data) = parts(record);
            let text = CString::new(wal::describe(info, data)).unwrap_or_default();
            pg_sys::appendStringInfoString(buf, text.as_ptr());
        }
    }

    #[pg_guard]
    unsafe extern "C-unwind" fn identify(info: u8) -> *const c_char {
        wal::identify(info).map_or(std::ptr::null(), CStr::as_ptr)
    }

    /// Inserts `record`; returns where it ends.
    pub fn insert(record: &Record) -> pg_sys::XLogRecPtr {
        let data = record.encode();
        // SAFETY: the insert protocol (begin, flags, data, insert), from a
        // process that may write WAL (callers check `logging()`); the data
        // is copied before XLogInsert returns.
        unsafe {
            pg_sys::XLogBeginInsert();
            pg_sys::XLogSetRecordFlags(XLOG_MARK_UNIMPORTANT);
            pg_sys::XLogRegisterData(data.as_ptr() as _, data.len() as _);
            pg_sys::XLogInsert(wal::RMGR_ID, record.info())
        }
    }
}

/// From `_PG_init` while preloading.
pub fn register() {
    #[cfg(not(any(feature = "pg13", feature = "pg14")))]
    rmgr::register();
}

/// A horizon record for `limits`, flushed, when records are written now.
pub fn log_horizon(limits: &Limits) {
    #[cfg(not(any(feature = "pg13", feature = "pg14")))]
    if logging() {
        let at = rmgr::insert(&Record::Horizon(*limits));
        // SAFETY: flushes the WAL up to our record (a primary, not in recovery).
        unsafe { pg_sys::XLogFlush(at) };
    }
    #[cfg(any(feature = "pg13", feature = "pg14"))]
    let _ = limits;
}

/// A reset record for the limits after it, flushed, when records are
/// written now.
pub fn log_reset(limits: &Limits) {
    #[cfg(not(any(feature = "pg13", feature = "pg14")))]
    if logging() {
        let at = rmgr::insert(&Record::Reset(*limits));
        // SAFETY: flushes the WAL up to our record (a primary, not in recovery).
        unsafe { pg_sys::XLogFlush(at) };
    }
    #[cfg(any(feature = "pg13", feature = "pg14"))]
    let _ = limits;
}

/// A watermark record, when records are written now; returns where it ends.
/// Not flushed here: the WAL writer flushes it within `wal_writer_delay`, or
/// the next commit does.
pub fn log_watermark(value: u64) -> Option<u64> {
    #[cfg(not(any(feature = "pg13", feature = "pg14")))]
    if logging() {
        let at = rmgr::insert(&Record::Watermark(value));
        // SAFETY: asks the WAL writer to flush up to `at`, as an
        // asynchronous commit does.
        unsafe { pg_sys::XLogSetAsyncXactLSN(at) };
        return Some(at);
    }
    #[cfg(any(feature = "pg13", feature = "pg14"))]
    let _ = value;
    None
}

/// Where the next WAL record will go.
pub fn insert_position() -> u64 {
    // SAFETY: a read of the insert position under PostgreSQL's spinlock.
    unsafe { pg_sys::GetXLogInsertRecPtr() }
}
