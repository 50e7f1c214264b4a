//! `uuid_ext_sequencer_reset()`: the shared words brought back to the clock
//! after a clock that ran ahead was corrected, and the redo of its WAL
//! record (docs/operations.md, "When the clock lies"; the ordering argument
//! is the core's, `uuid_ext_core::sequencer::reset`).
//!
//! Under the horizon lock, so no limit is raised meanwhile:
//!
//! 1. the horizon file gets the new limits (the clock plus a margin), or is
//!    removed with persistence off: a restart starts from the clock;
//! 2. with `uuid_ext.durable_wal`, a reset record is flushed: standbys, crash
//!    recovery and point-in-time recovery follow it;
//! 3. the words are lowered, and the limits with them, between the two
//!    increments of the reset count, and the reference that
//!    `uuid_ext.max_lead` counts from is set back to the clock; every
//!    session then forgets its own last value at its next draw, and every
//!    process its own words.
//!
//! A failure in 1 changes nothing. A crash between 1 and 3 leaves the file
//! already reset, which is what was asked for.

use std::sync::atomic::Ordering;

use pgrx::datum::{TimestampWithTimeZone, Uuid};
use pgrx::prelude::*;
use uuid_ext_core::sequencer::horizon::{self as core_horizon, Limits};
use uuid_ext_core::sequencer::reset::{self, Moved};
use uuid_ext_core::{timestamp, v6, v7};

use super::horizon;
use super::locks::{with_lock, HORIZON_LOCK};
use super::{clock, shmem, wal, watermark};
use crate::{error, guc, now, pgtime};

/// The limits a reset leaves for words brought back to `targets`: a margin
/// ahead with persistence on, else the targets themselves.
fn limits_after(targets: Limits) -> Limits {
    if !horizon::enabled() {
        return targets;
    }
    let margin = guc::durable_margin_ms();
    Limits {
        v7: core_horizon::target(targets.v7, core_horizon::v7_margin(margin), v7::MAX_WORD),
        v6: core_horizon::target(targets.v6, core_horizon::v6_margin(margin), v6::MAX_WORD),
    }
}

/// Lowers both shared words to `words` and sets their limits to `limits`,
/// under the horizon lock; records the reset. Returns how each moved.
fn lower_locked(words: Limits, limits: Limits, replayed: bool) -> [Moved; 2] {
    let (v7s, v6s, resets) = match (
        horizon::shared_words(7),
        horizon::shared_words(6),
        shmem::resets(),
    ) {
        (Some(a), Some(b), Some(r)) => (a, b, r),
        _ => error::reset_unavailable(),
    };
    let moved = reset::reset(resets, [(v7s.word, words.v7), (v6s.word, words.v6)], |_| {
        v7s.limit.store(limits.v7, Ordering::Release);
        v6s.limit.store(limits.v6, Ordering::Release);
        // The bound on the lead counts from the clock again (or from the
        // replayed words, when later).
        if let Some(reference) = shmem::reference() {
            clock::set_reference(reference, &words);
        }
    });
    if let Some(last) = shmem::last_reset() {
        last.v7_before.store(moved[0].before, Ordering::Relaxed);
        last.v7_after.store(moved[0].after, Ordering::Relaxed);
        last.v6_before.store(moved[1].before, Ordering::Relaxed);
        last.v6_after.store(moved[1].after, Ordering::Relaxed);
        last.replayed.store(replayed, Ordering::Relaxed);
        last.at_ms
            .store(now::clock_ns() / 1_000_000, Ordering::Release);
    }
    moved
}

/// The time a UUIDv7 word carries.
fn v7_time(word: u64) -> TimestampWithTimeZone {
    let unix_us = timestamp::unix_us(&v7::from_word(word, 0)).unwrap_or(0);
    pgtime::timestamptz_of_unix_us(unix_us)
}

/// The time a UUIDv6 word carries.
fn v6_time(word: u64) -> TimestampWithTimeZone {
    let unix_us = timestamp::unix_us(&v6::from_word(word, 0)).unwrap_or(0);
    pgtime::timestamptz_of_unix_us(unix_us)
}

/// The role calling, for the server log.
fn caller() -> String {
    // SAFETY: inside a transaction (a SQL function runs in one); the name is
    // palloc'd and read at once.
    unsafe {
        let name = pg_sys::GetUserNameFromId(pg_sys::GetUserId(), true);
        if name.is_null() {
            return "?".into();
        }
        std::ffi::CStr::from_ptr(name)
            .to_string_lossy()
            .into_owned()
    }
}

/// Brings the shared UUIDv7 and UUIDv6 sequencers back to the clock (a word
/// not ahead of it stays), and returns each one's time before and after.
/// Superuser only: EXECUTE is revoked from PUBLIC.
#[pg_extern(volatile, parallel_unsafe)]
fn uuid_ext_sequencer_reset() -> TableIterator<
    'static,
    (
        name!(version, i32),
        name!(before, TimestampWithTimeZone),
        name!(after, TimestampWithTimeZone),
    ),
> {
    if !shmem::preloaded() || shmem::resets().is_none() {
        error::reset_unavailable();
    }
    if wal::in_recovery() {
        error::reset_in_recovery();
    }
    let moved = with_lock(HORIZON_LOCK, || {
        let now = now::clock_ns();
        let targets = Limits {
            v7: v7::candidate(now),
            v6: v6::candidate(now),
        };
        let limits = limits_after(targets);
        if horizon::enabled() {
            if let Err(e) = horizon::write(&limits) {
                error::horizon_unwritable(&e.path, &e.cause);
            }
        } else {
            horizon::remove();
        }
        wal::log_reset(&limits);
        lower_locked(targets, limits, false)
    });
    pgrx::log!(
        "uuid_ext: the UUID sequencer was reset to the clock by role \"{}\": UUIDv7 from {} to {}, UUIDv6 from {} to {}",
        caller(),
        core_horizon::v7_time(moved[0].before),
        core_horizon::v7_time(moved[0].after),
        core_horizon::v6_time(moved[1].before),
        core_horizon::v6_time(moved[1].after)
    );
    TableIterator::new(vec![
        (7, v7_time(moved[0].before), v7_time(moved[0].after)),
        (6, v6_time(moved[1].before), v6_time(moved[1].after)),
    ])
}

// Superusers only, and whom they grant it to: a database owner who installs
// the trusted extension gets no EXECUTE on it.
extension_sql!(
    "REVOKE EXECUTE ON FUNCTION uuid_ext_sequencer_reset() FROM PUBLIC;\n",
    name = "reset_superuser_only",
    requires = [uuid_ext_sequencer_reset],
);

/// Redo of a reset record: this server's words and limits become the
/// record's (its file first), its replayed watermark is forgotten.
pub fn replay(record: &Limits) {
    if shmem::resets().is_none() {
        return;
    }
    let moved = with_lock(HORIZON_LOCK, || {
        if horizon::enabled() {
            if let Err(e) = horizon::write(record) {
                pgrx::warning!(
                    "uuid_ext: could not write \"{}\" while replaying a sequencer reset: {}",
                    e.path.display(),
                    error::io_cause(&e.cause)
                );
            }
        }
        let moved = lower_locked(*record, *record, true);
        // As a horizon record leaves them: the words at the limits.
        if let (Some(v7s), Some(v6s)) = (horizon::shared_words(7), horizon::shared_words(6)) {
            v7s.word.fetch_max(record.v7, Ordering::AcqRel);
            v6s.word.fetch_max(record.v6, Ordering::AcqRel);
        }
        moved
    });
    watermark::forget_replayed();
    pgrx::log!(
        "uuid_ext: replayed a UUID sequencer reset: UUIDv7 from {} to {}, UUIDv6 from {} to {}",
        core_horizon::v7_time(moved[0].before),
        core_horizon::v7_time(record.v7),
        core_horizon::v6_time(moved[1].before),
        core_horizon::v6_time(record.v6)
    );
}

/// For `uuid_ext_info()`: the last reset since the server started (None:
/// none), with the keys a poller needs and how many transactions from
/// before it are still open.
pub fn last_reset_json() -> Option<serde_json::Value> {
    let last = shmem::last_reset()?;
    let at_ms = last.at_ms.load(Ordering::Acquire);
    if at_ms == 0 {
        return None;
    }
    let v7_before = last.v7_before.load(Ordering::Relaxed);
    let v7_after = last.v7_after.load(Ordering::Relaxed);
    let key = |word, random| Uuid::from_bytes(v7::from_word(word, random)).to_string();
    let replayed = last.replayed.load(Ordering::Relaxed);
    Some(serde_json::json!({
        "at": uuid_ext_core::timestamp::format_unix_ns(i128::from(at_ms) * 1_000_000),
        "replayed": replayed,
        "v7_before": core_horizon::v7_time(v7_before),
        "v7_after": core_horizon::v7_time(v7_after),
        "v6_before": core_horizon::v6_time(last.v6_before.load(Ordering::Relaxed)),
        "v6_after": core_horizon::v6_time(last.v6_after.load(Ordering::Relaxed)),
        "v7_before_key": key(v7_before, u64::MAX),
        "v7_after_key": key(v7_after, 0),
        // A standby sees none of the primary's transactions.
        "open_from_before": (!replayed).then(|| watermark::open_since_before(at_ms)),
    }))
}
