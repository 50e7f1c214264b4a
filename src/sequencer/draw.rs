//! Where a draw's word and limit come from (docs/design.md#the-sequencer-word):
//! the shared word with its durable limit (`horizon.rs`) when this session
//! uses it (`shmem.rs` says when), else this process's own word, with no
//! limit. The process's own words live here, one per version, and are
//! forgotten once after each reset of the shared ones.

use std::sync::atomic::{AtomicU64, Ordering};

use super::horizon::{Limit, Shared};
use super::shmem;

static LOCAL_V7: AtomicU64 = AtomicU64::new(0);
static LOCAL_V6: AtomicU64 = AtomicU64::new(0);
/// The shared reset count this process's own words last followed.
static LOCAL_RESETS: AtomicU64 = AtomicU64::new(0);

/// This process's own words, forgotten once after each reset of the shared
/// ones: a reset brings back every sequence of the server.
#[inline]
fn local(word: &'static AtomicU64) -> (&'static AtomicU64, Limit) {
    let resets = shmem::shared().map(|w| &w.resets);
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
    match shmem::words() {
        Some(w) => (&w.v7, Limit::Shared(Shared::of(w, 7))),
        None => local(&LOCAL_V7),
    }
}

/// The word the next UUIDv6 is drawn from, and the limit it must respect.
#[inline]
pub fn v6_word() -> (&'static AtomicU64, Limit) {
    match shmem::words() {
        Some(w) => (&w.v6, Limit::Shared(Shared::of(w, 6))),
        None => local(&LOCAL_V6),
    }
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
