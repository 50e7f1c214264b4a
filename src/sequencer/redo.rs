//! The sequencer's custom WAL resource manager as recovery sees it: its
//! registration, and the redo, description and name of each record (the
//! records' format is the core's, `uuid_ext_core::sequencer::wal`; `wal.rs` writes
//! them). Redo of a horizon record raises the words and limits
//! ([`super::horizon::replay`]), of a watermark record sets what a standby
//! answers ([`super::watermark::replay`]), of a reset record brings them
//! back ([`super::reset::replay`]).

use std::ffi::{c_char, CStr, CString};

use pgrx::pg_sys;
use pgrx::prelude::*;
use uuid_ext_core::sequencer::wal::{self, Record};

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

/// From `_PG_init` while preloading.
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
unsafe extern "C-unwind" fn desc(buf: pg_sys::StringInfo, record: *mut pg_sys::XLogReaderState) {
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
