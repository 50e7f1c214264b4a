//! The postmaster's hooks that set up shared memory when the library is
//! preloaded: they ask for the words, the commit-watermark slots and the
//! locks, make them (the words from the horizon file and what the
//! postmaster carried across a crash restart, and the reference of the bound
//! on their lead from the words' time), and, as shared memory is torn
//! down, carry the words and write them to the horizon file exactly
//! (`shmem.rs` says where the words live; the horizon and its file are
//! `horizon.rs`).

use std::sync::atomic::{AtomicU64, Ordering};

use pgrx::pg_sys;
use pgrx::prelude::*;

use uuid_ext_core::sequencer::horizon::Limits;

use super::{clock, horizon, locks, shmem, watermark};

/// The postmaster's copies of the words, taken as shared memory is torn down.
static CARRIED_V7: AtomicU64 = AtomicU64::new(0);
static CARRIED_V6: AtomicU64 = AtomicU64::new(0);

const SEGMENT_NAME: &std::ffi::CStr = c"uuid_ext sequencer";

static mut PREV_SHMEM_STARTUP_HOOK: pg_sys::shmem_startup_hook_type = None;
static mut PREV_SHMEM_REQUEST_HOOK: pg_sys::shmem_request_hook_type = None;

/// Asks for the shared words; from `_PG_init` in the postmaster while it
/// loads `shared_preload_libraries`.
pub fn init_preloaded() {
    shmem::mark_preloaded();
    // SAFETY: _PG_init runs once in the postmaster before any backend
    // exists; the hooks are chained, the previous ones called first.
    unsafe {
        PREV_SHMEM_REQUEST_HOOK = pg_sys::shmem_request_hook;
        pg_sys::shmem_request_hook = Some(shmem_request);
        PREV_SHMEM_STARTUP_HOOK = pg_sys::shmem_startup_hook;
        pg_sys::shmem_startup_hook = Some(shmem_startup);
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn shmem_request() {
    // SAFETY: called by the postmaster during its shared-memory request phase.
    unsafe {
        if let Some(prev) = PREV_SHMEM_REQUEST_HOOK {
            prev();
        }
        pg_sys::RequestAddinShmemSpace(std::mem::size_of::<shmem::SharedWords>());
        pg_sys::RequestAddinShmemSpace(watermark::shmem_size());
        pg_sys::RequestNamedLWLockTranche(locks::TRANCHE.as_ptr(), locks::N_LOCKS);
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn shmem_startup() {
    // SAFETY: called by the postmaster each time it (re)creates shared
    // memory, after the space asked for was reserved. AddinShmemInitLock is
    // MainLWLockArray[21] in PostgreSQL 15 to 19 (storage/lwlocklist.h).
    unsafe {
        if let Some(prev) = PREV_SHMEM_STARTUP_HOOK {
            prev();
        }
        let lock = &raw mut (*pg_sys::MainLWLockArray.add(21)).lock;
        pg_sys::LWLockAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
        let mut found = false;
        let words = pg_sys::ShmemInitStruct(
            SEGMENT_NAME.as_ptr(),
            std::mem::size_of::<shmem::SharedWords>(),
            &mut found,
        )
        .cast::<shmem::SharedWords>();
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
                clock::warn_at_start(l);
            }
            let on_disk = on_disk.unwrap_or_default();
            let v7 = CARRIED_V7.load(Ordering::Relaxed).max(on_disk.v7);
            let v6 = CARRIED_V6.load(Ordering::Relaxed).max(on_disk.v6);
            // The bound on the lead counts from the words' time when they
            // start ahead of the clock (a clock that stepped back while the
            // server was down): they are not ahead because of draws.
            let reference = clock::starting_offset(&Limits { v7, v6 });
            words.write(shmem::SharedWords::new(v7, v6, reference));
        }
        locks::set_locks(pg_sys::GetNamedLWLockTranche(locks::TRANCHE.as_ptr()));
        watermark::shmem_startup();
        pg_sys::LWLockRelease(lock);
        shmem::publish(words);
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
    let words = shmem::unpublish();
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
