//! The extension's lightweight locks, a named tranche in shared memory that
//! the postmaster sets up with the words (`shmem.rs`).

use std::ffi::CStr;
use std::sync::atomic::{AtomicPtr, Ordering};

use pgrx::pg_sys;

/// The extension's locks: under the first, one process at a time raises a
/// limit; under the second, prepared transactions take commit-watermark
/// slots (watermark.rs).
pub const TRANCHE: &CStr = c"uuid_ext";
pub const N_LOCKS: i32 = 2;
pub const HORIZON_LOCK: usize = 0;
pub const PREPARED_LOCK: usize = 1;

/// The locks, in shared memory (set by the postmaster, inherited).
static LOCKS: AtomicPtr<pg_sys::LWLockPadded> = AtomicPtr::new(std::ptr::null_mut());

pub fn set_locks(locks: *mut pg_sys::LWLockPadded) {
    LOCKS.store(locks, Ordering::Release);
}

/// Runs `f` holding lock `which` exclusively. An ERROR inside releases it
/// (LWLockReleaseAll at abort).
pub fn with_lock<T>(which: usize, f: impl FnOnce() -> T) -> T {
    let locks = LOCKS.load(Ordering::Acquire);
    debug_assert!(!locks.is_null() && which < N_LOCKS as usize);
    // SAFETY: the locks live in shared memory, set up by the postmaster with
    // the words, so they exist wherever a shared word does.
    let lock = unsafe { &raw mut (*locks.add(which)).lock };
    // SAFETY: a lock of our tranche, acquired and released by this process.
    unsafe { pg_sys::LWLockAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE) };
    let result = f();
    // SAFETY: acquired above.
    unsafe { pg_sys::LWLockRelease(lock) };
    result
}
