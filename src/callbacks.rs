//! Every callback uuid_ext registers with PostgreSQL, in one place
//! (docs/design.md#callbacks): registered once from `_PG_init`, in the
//! postmaster when preloaded (every backend inherits them), else in the
//! backend that loads the library. uuid_ext installs no hook on
//! PostgreSQL's planner, executor or utility statements, so a server
//! pays nothing per statement for loading it, and its place in
//! `shared_preload_libraries` beside Citus's does not matter.
//!
//! In the order PostgreSQL runs them, at the end of a transaction:
//!
//! 1. the transaction callback, at PREPARE TRANSACTION and at the end of a
//!    parallel worker's part: the façade forgets what it kept for the
//!    transaction, the generators drop their leases, then the commit
//!    watermark moves a prepared transaction's announcement to a prepared
//!    slot (the façade's and the generators' parts run at COMMIT and ABORT
//!    too);
//! 2. the resource-release callback, after every transaction callback of
//!    every library (Citus commits a distributed transaction's parts on
//!    the workers in its own): the commit watermark withdraws the
//!    transaction's announcement.
//!
//! And whenever a relation's cache entry is invalidated: the façade drops
//! its keys if they were the key table's.

use std::ffi::c_void;

use pgrx::pg_sys;
use pgrx::prelude::*;

use crate::facade::keys;
use crate::generate;
use crate::sequencer::watermark;

/// From `_PG_init`.
pub fn register() {
    // SAFETY: registers plain functions for the life of the process, once
    // (PostgreSQL has a fixed number of relcache callback slots).
    unsafe {
        pg_sys::RegisterXactCallback(Some(on_transaction), std::ptr::null_mut());
        pg_sys::RegisterResourceReleaseCallback(Some(on_release), std::ptr::null_mut());
        pg_sys::CacheRegisterRelcacheCallback(Some(on_relcache), pg_sys::Datum::from(0));
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn on_transaction(event: pg_sys::XactEvent::Type, _arg: *mut c_void) {
    use pg_sys::XactEvent::*;
    match event {
        XACT_EVENT_COMMIT | XACT_EVENT_ABORT => {
            keys::transaction_ended();
            generate::transaction_ended();
        }
        XACT_EVENT_PARALLEL_COMMIT | XACT_EVENT_PARALLEL_ABORT => {
            keys::transaction_ended();
            generate::transaction_ended();
            watermark::at_parallel_end();
        }
        XACT_EVENT_PREPARE => {
            keys::transaction_ended();
            generate::transaction_ended();
            watermark::at_prepare();
        }
        _ => {}
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn on_release(
    phase: pg_sys::ResourceReleasePhase::Type,
    _is_commit: bool,
    is_top_level: bool,
    _arg: *mut c_void,
) {
    if is_top_level && phase == pg_sys::ResourceReleasePhase::RESOURCE_RELEASE_AFTER_LOCKS {
        watermark::at_release();
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn on_relcache(_arg: pg_sys::Datum, relid: pg_sys::Oid) {
    keys::relcache_changed(relid);
}
