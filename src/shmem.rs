//! Where the sequencer words live. Today: process-local atomics, so UUIDs
//! are ordered within each backend. (The shared-memory words come with the
//! preloaded library.)

use std::sync::atomic::AtomicU64;

static LOCAL_V7: AtomicU64 = AtomicU64::new(0);

/// The word the next UUIDv7 is drawn from.
#[inline]
pub fn v7_word() -> &'static AtomicU64 {
    &LOCAL_V7
}

/// Tests build the word at its edge rather than wait 8,000 years.
#[cfg(any(test, feature = "pg_test"))]
pub fn set_local_v7_for_test(value: u64) {
    LOCAL_V7.store(value, std::sync::atomic::Ordering::Relaxed);
}
