//! How far the shared words run ahead of the clock, and the WARNING when
//! that is more than `uuid_ext.clock_ahead_warning` (docs/operations.md,
//! "When the clock lies"): at start, when the horizon read from the file is
//! that far ahead, and from the horizon worker, when a word first gets that
//! far ahead and again every [`REPEAT_MS`] while it stays (the rule is the
//! core's, `uuid_ext_core::sequencer::lead`). Also the monotonic clock and
//! the times of words, from which the reference that `uuid_ext.max_lead`
//! counts from is kept (`draw.rs`; docs/design.md#the-lead-over-the-clock).

use std::sync::atomic::AtomicU64;

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};
use uuid_ext_core::sequencer::horizon::{self as core_horizon, Limits};
use uuid_ext_core::sequencer::lead::{self, Reference, Say, Watch};
use uuid_ext_core::timestamp::NS_PER_MS;

use crate::{guc, now};

/// The monotonic clock in nanoseconds (`CLOCK_MONOTONIC`: it never steps,
/// and NTP slews it as it slews the wall clock). Read only when the wall
/// clock shows a new millisecond, and by a draw that meets the bound.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    match (u64::try_from(ts.tv_sec), u64::try_from(ts.tv_nsec)) {
        (Ok(s), Ok(ns)) => s.saturating_mul(1_000_000_000).saturating_add(ns),
        _ => 0,
    }
}

/// The later of the times two words mean, in Unix nanoseconds.
pub fn words_ns(words: &Limits) -> u64 {
    lead::v7_ns(words.v7).max(lead::v6_ns(words.v6))
}

/// The reference offset for words that start at `words` (a new shared
/// memory segment): at least the clock, and at least the words' times.
pub fn starting_offset(words: &Limits) -> u64 {
    let at = now::clock_ns().max(words_ns(words));
    at.saturating_sub(monotonic_ns())
}

/// Raises the reference kept in `offset` to at least `words`' time
/// (redo of a horizon record: what a promoted standby draws from).
pub fn raise_reference(offset: &AtomicU64, words: &Limits) {
    Reference { offset }.raise(words_ns(words), monotonic_ns());
}

/// Sets the reference kept in `offset` back to the clock, or to `words`'
/// time when that is later (a reset, or the redo of one).
pub fn set_reference(offset: &AtomicU64, words: &Limits) {
    let at = now::clock_ns().max(words_ns(words));
    Reference { offset }.set(at, monotonic_ns());
}

/// How often a lead that lasts is reported again.
pub const REPEAT_MS: u64 = 300_000;

/// How far each word is ahead of the clock at `now_ns`, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Leads {
    pub v7_ms: u64,
    pub v6_ms: u64,
}

pub fn leads(words: &Limits, now_ns: u64) -> Leads {
    Leads {
        v7_ms: lead::v7_ms(words.v7, now_ns),
        v6_ms: lead::v6_ms(words.v6, now_ns),
    }
}

/// The WARNING for one word `lead_ms` ahead of the clock at `now_ns`;
/// `source` says where the value was seen.
fn warn(version: u8, lead_ms: u64, word: u64, now_ns: u64, source: &str) {
    let carried = match version {
        7 => core_horizon::v7_time(word),
        _ => core_horizon::v6_time(word),
    };
    let clock = uuid_ext_core::timestamp::format_unix_ns(i128::from(now_ns));
    ErrorReport::new(
        PgSqlErrorCode::ERRCODE_WARNING,
        format!(
            "uuid_ext: the UUIDv{version} sequencer{source} is {} ahead of the clock",
            lead::format_ms(lead_ms)
        ),
        "uuid_ext",
    )
    .set_detail(format!(
        "New UUIDv{version} values carry {carried}; the clock reads {clock}. \
         The sequencer never goes back by itself: its values keep that time until the clock catches up."
    ))
    .set_hint(
        "If the clock was wrong and is right now, a superuser can bring the sequencer back to it \
         with SELECT * FROM uuid_ext_sequencer_reset(); see \"When the clock lies\" in uuid_ext's \
         docs/operations.md.",
    )
    .report(PgLogLevel::WARNING);
}

/// At start, in the postmaster: the horizon read from the file (what the
/// words start from) against the clock.
pub fn warn_at_start(on_disk: &Limits) {
    let threshold = guc::clock_ahead_warning_ms();
    if threshold == 0 {
        return;
    }
    let now = now::clock_ns();
    let l = leads(on_disk, now);
    let source = " horizon read from \"uuid_ext.horizon\"";
    if l.v7_ms > threshold {
        warn(7, l.v7_ms, on_disk.v7, now, source);
    }
    if l.v6_ms > threshold {
        warn(6, l.v6_ms, on_disk.v6, now, source);
    }
}

/// The horizon worker's watch over both shared words.
#[derive(Default)]
pub struct Watcher {
    v7: Watch,
    v6: Watch,
}

impl Watcher {
    /// One round over the shared words' values `words` at `now_ns`: a
    /// WARNING for each word over the threshold (first, then every
    /// [`REPEAT_MS`]), a LOG line when it is back under it.
    pub fn round(&mut self, words: &Limits, now_ns: u64) {
        let threshold = guc::clock_ahead_warning_ms();
        let now_ms = now_ns / NS_PER_MS;
        let l = leads(words, now_ns);
        let watched = [
            (7, words.v7, l.v7_ms, &mut self.v7),
            (6, words.v6, l.v6_ms, &mut self.v6),
        ];
        for (version, word, lead_ms, watch) in watched {
            match watch.observe(lead_ms, threshold, now_ms, REPEAT_MS) {
                Say::Nothing => {}
                Say::Ahead { .. } => warn(version, lead_ms, word, now_ns, ""),
                Say::Back => pgrx::log!(
                    "uuid_ext: the UUIDv{version} sequencer is back within uuid_ext.clock_ahead_warning of the clock"
                ),
            }
        }
    }
}
