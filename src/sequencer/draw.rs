//! Where a draw's word, limit and ceiling come from
//! (docs/design.md#the-sequencer-word): the shared word with its durable
//! limit (`horizon.rs`) when this session uses it (`shmem.rs` says when),
//! else this process's own word, with no limit. The process's own words live
//! here, one per version, and are forgotten once after each reset of the
//! shared ones.
//!
//! The ceiling (docs/design.md#the-lead-over-the-clock): no draw takes a
//! word, shared or this process's, more than `uuid_ext.max_lead` ahead of a
//! reference that never steps back, `max(wall, offset + monotonic)`. The
//! offset is the shared one when there is shared memory (so a session that
//! switches modes keeps one reference), else this process's; each process
//! raises it when it first sees a new period of the wall clock (2^20 ns,
//! about a millisecond). A draw
//! above the ceiling waits here, in short interruptible sleeps, until the
//! clock has moved on; one further above it than the bound itself met a
//! reference that went back (both clocks stepped back), and does not wait:
//! the reference moves up to it.

use std::sync::atomic::{AtomicU64, Ordering};

use pgrx::pg_sys;
use uuid_ext_core::sequencer::lead::{self, Bounded, Reference};
use uuid_ext_core::{v6, v7};

use super::horizon::{Limit, Shared};
use super::{clock, shmem};
use crate::guc;

static LOCAL_V7: AtomicU64 = AtomicU64::new(0);
static LOCAL_V6: AtomicU64 = AtomicU64::new(0);
/// The shared reset count this process's own words last followed.
static LOCAL_RESETS: AtomicU64 = AtomicU64::new(0);
/// The reference's offset without shared memory (`SharedWords::reference`).
static LOCAL_REFERENCE: AtomicU64 = AtomicU64::new(0);

/// The period of the wall clock (2^20 ns, about a millisecond) in which
/// this process last raised the reference (a backend is one thread: a
/// process-wide static, cheaper to reach than a thread-local from a shared
/// library).
static SEEN_PERIOD: AtomicU64 = AtomicU64::new(u64::MAX);
/// Nanoseconds of a period, as a shift.
const PERIOD_SHIFT: u32 = 20;

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

/// The offset of the reference this process's draws are bounded from.
#[inline]
fn reference() -> Reference<'static> {
    Reference {
        offset: shmem::reference().unwrap_or(&LOCAL_REFERENCE),
    }
}

/// Raises the reference to the wall clock `now_ns`, in `period`.
#[cold]
#[inline(never)]
fn observe(now_ns: u64, period: u64) {
    SEEN_PERIOD.store(period, Ordering::Relaxed);
    reference().raise(now_ns, clock::monotonic_ns());
}

/// The ceiling of a draw whose wall clock read `now_ns` and gave
/// `candidate`, `bound` word units ahead of the reference (`u64::MAX`: no
/// bound), whose candidate `to_candidate` computes. Raises the reference
/// first when `now_ns` is in a new period (about a millisecond) for this
/// process: a shift and a compare otherwise; the reference itself is read
/// only for a value above the wall clock's candidate plus the bound.
#[inline]
fn ceiling(
    candidate: u64,
    now_ns: u64,
    bound: u64,
    to_candidate: fn(u64) -> u64,
) -> Bounded<impl Fn() -> u64> {
    let period = now_ns >> PERIOD_SHIFT;
    if SEEN_PERIOD.load(Ordering::Relaxed) != period {
        observe(now_ns, period);
    }
    Bounded::new(candidate, bound, move || {
        lead::candidate_at(reference().now(now_ns, clock::monotonic_ns()), to_candidate)
    })
}

/// `uuid_ext.max_lead` in word units (`u64::MAX`: off).
#[inline]
fn bound(units: fn(u64) -> u64) -> u64 {
    match guc::max_lead_ms() {
        0 => u64::MAX,
        ms => units(ms),
    }
}

/// The ceiling of a UUIDv7 draw ([`ceiling`]).
#[inline]
pub fn v7_ceiling(candidate: u64, now_ns: u64) -> Bounded<impl Fn() -> u64> {
    ceiling(candidate, now_ns, bound(lead::v7_units), v7::candidate)
}

/// The ceiling of a UUIDv6 draw ([`ceiling`]).
#[inline]
pub fn v6_ceiling(candidate: u64, now_ns: u64) -> Bounded<impl Fn() -> u64> {
    ceiling(candidate, now_ns, bound(lead::v6_units), v6::candidate)
}

/// The longest single sleep of a draw that waits for the clock: the call
/// answers a cancel within about this long.
const MAX_SLEEP_US: u64 = 1_000;

/// A draw of `version` was `over` word units above its ceiling: sleeps until
/// the clock has moved that far (at most [`MAX_SLEEP_US`] at a time), then
/// lets a cancel or a termination in. The caller reads the clock again and
/// retries.
#[cold]
pub fn wait_for_clock(version: u8, over: u64) {
    let us = over_ns(version, over)
        .div_ceil(1_000)
        .clamp(1, MAX_SLEEP_US);
    pgrx::check_for_interrupts!();
    // SAFETY: a plain sleep; PostgreSQL's signal handlers end it early.
    unsafe { pg_sys::pg_usleep(us as std::ffi::c_long) };
    pgrx::check_for_interrupts!();
}

/// Whether a draw of `version` that stopped `over` units above its ceiling
/// met a reference that went back (`lead::reference_went_back`); then the
/// reference moves ahead by that much, as it follows the words a start
/// begins from, and the caller draws again at once (an interrupt first
/// gets its chance).
#[cold]
pub fn follow_if_went_back(version: u8, over: u64) -> bool {
    let bound = match version {
        7 => bound(lead::v7_units),
        _ => bound(lead::v6_units),
    };
    if !lead::reference_went_back(over, bound) {
        return false;
    }
    let (r, mono) = (reference(), clock::monotonic_ns());
    r.raise(
        r.now(crate::now::clock_ns(), mono)
            .saturating_add(over_ns(version, over))
            .saturating_add(lead::FOLLOW_SLACK_NS),
        mono,
    );
    pgrx::check_for_interrupts!();
    true
}

/// `over` word units of `version` as nanoseconds, rounded up.
fn over_ns(version: u8, over: u64) -> u64 {
    let ns = match version {
        7 => (u128::from(over) * 1_000_000).div_ceil(u128::from(v7::WORD_UNITS_PER_MS)),
        _ => (u128::from(over) * 100).div_ceil(u128::from(v6::WORD_UNITS_PER_TICK)),
    };
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// Tests build the word at its edge rather than wait 8,000 years; the
/// reference of the bound follows it, as it follows the words a start or a
/// standby's replay begins from (a word beyond the clock's reach, after
/// 2554, leaves no bound).
#[cfg(any(test, feature = "pg_test"))]
pub fn set_local_v7_for_test(value: u64) {
    LOCAL_V7.store(value, Ordering::Relaxed);
    reference().raise(lead::v7_ns(value), clock::monotonic_ns());
}

#[cfg(any(test, feature = "pg_test"))]
pub fn set_local_v6_for_test(value: u64) {
    LOCAL_V6.store(value, Ordering::Relaxed);
    reference().raise(lead::v6_ns(value), clock::monotonic_ns());
}
