//! The horizon worker (docs/design.md#the-horizon): a background worker that keeps each shared
//! word's durable horizon ahead of use, so that a call that follows the
//! clock never waits for a write and its fsyncs, and that writes the commit
//! watermark to the WAL for standbys.
//!
//! Registered while preloading, started by the postmaster once recovery has
//! finished: on a primary at start, on a standby at its promotion, never
//! while a server replays. Each round it raises a word's horizon when it is
//! less than half a margin ahead of the word and of the clock (the core's
//! `horizon::ahead`), under the same lock as a foreground call that passes
//! the horizon (a burst faster than the worker still extends inline, as
//! before). A failure (the file cannot be written) is logged and retried
//! the next round; the foreground keeps its guarantee and its errors. With
//! `uuid_ext.durable_wal` it also logs the watermark when it has moved, and
//! again every [`RELOG_EVERY`] while other WAL is written, so a new standby
//! soon has one.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use pgrx::bgworkers::{
    BackgroundWorker, BackgroundWorkerBuilder, BgWorkerStartTime, SignalWakeFlags,
};
use pgrx::pg_sys;
use pgrx::prelude::*;

use uuid_ext_core::sequencer::watermark::Scope;

use super::{clock, horizon, locks, shmem, wal, watermark};
use crate::{error, guc, now};

/// From `_PG_init` while preloading.
pub fn register() {
    BackgroundWorkerBuilder::new("uuid_ext horizon worker")
        .set_type("uuid_ext horizon worker")
        .set_library("uuid_ext")
        .set_function("uuid_ext_horizon_worker_main")
        // None: `Some(f)` would replace the startup hook shmem.rs installs.
        .enable_shmem_access(None)
        // A connection to no database: enough to appear in pg_stat_activity.
        .enable_spi_access()
        .set_start_time(BgWorkerStartTime::RecoveryFinished)
        .set_restart_time(Some(Duration::from_secs(1)))
        .load();
}

/// How long to sleep between rounds.
fn round_interval() -> Duration {
    let ms = if guc::durable_wal() && guc::commit_watermark() {
        guc::watermark_interval_ms()
    } else {
        // A quarter margin: the horizon is re-checked twice before the
        // clock can catch up with half a margin of headroom.
        (guc::durable_margin_ms() / 4).clamp(10, 1_000)
    };
    Duration::from_millis(ms)
}

/// How often the worker logs the watermark again although it did not move,
/// when other WAL was written since: a standby that started since then
/// (which replays nothing from before its base backup) gets one.
const RELOG_EVERY: Duration = Duration::from_secs(10);

/// What the worker remembers between rounds.
#[derive(Default)]
struct State {
    /// The last watermark logged (0: none yet in this process), when, and
    /// where its record ended.
    logged_watermark: u64,
    logged_at: Option<Instant>,
    logged_end: u64,
    /// The last failure reported, so a lasting one is not logged each round.
    last_failure: Option<String>,
    /// The reset count when the watermark was last logged.
    logged_resets: u64,
    /// The words' lead over the clock.
    watcher: clock::Watcher,
}

impl State {
    fn round(&mut self) {
        let now = now::clock_ns();
        if let Some(words) = shmem::words_now() {
            self.watcher.round(&words, now);
        }
        match horizon::extend_ahead(now) {
            Ok(_) => {
                if self.last_failure.take().is_some() {
                    pgrx::log!("uuid_ext: the horizon worker writes the horizon again");
                }
            }
            Err(e) => {
                let text = format!(
                    "could not write \"{}\": {}",
                    e.path.display(),
                    error::io_cause(&e.cause)
                );
                if self.last_failure.as_deref() != Some(&text) {
                    pgrx::warning!(
                        "uuid_ext: the horizon worker {text}; retrying (a UUID that passes the horizon meanwhile writes it itself, or fails)"
                    );
                }
                self.last_failure = Some(text);
            }
        }
        if guc::commit_watermark() && wal::logging() {
            // Under the horizon lock: a watermark read before a reset is
            // never logged after the reset's record (a standby would answer
            // it, above every key made after the reset).
            locks::with_lock(locks::HORIZON_LOCK, || self.log_watermark());
        }
    }

    fn log_watermark(&mut self) {
        let resets = shmem::resets().map_or(0, |r| r.load(std::sync::atomic::Ordering::Acquire));
        if resets != self.logged_resets {
            // A reset lowered the word: the next watermark is below the
            // last one logged, and must be logged all the same.
            self.logged_watermark = 0;
            self.logged_resets = resets;
        }
        if let Some(w) = watermark::current(Scope::Server) {
            // The next record starts at the end of ours rounded up to 8
            // bytes (or past a page header): only more than that is other
            // WAL. An idle server gets no record.
            let stale = self.logged_at.is_none_or(|t| t.elapsed() >= RELOG_EVERY)
                && wal::insert_position() > self.logged_end.next_multiple_of(8);
            if w > self.logged_watermark || stale {
                if let Some(end) = wal::log_watermark(w) {
                    self.logged_watermark = w;
                    self.logged_at = Some(Instant::now());
                    self.logged_end = end;
                }
            }
        }
    }
}

/// The worker's main function (found by name by the postmaster).
#[pg_guard]
#[no_mangle]
pub extern "C-unwind" fn uuid_ext_horizon_worker_main(_arg: pg_sys::Datum) {
    BackgroundWorker::attach_signal_handlers(SignalWakeFlags::SIGHUP | SignalWakeFlags::SIGTERM);
    // Shared catalogs only; it reads none, but is listed in pg_stat_activity
    // (backend_type "uuid_ext horizon worker") with its wait events.
    BackgroundWorker::connect_worker_to_spi(None, None);
    let pid = shmem::worker_pid();
    // SAFETY: MyProcPid is set at process start.
    let me = unsafe { pg_sys::MyProcPid };
    if let Some(pid) = pid {
        pid.store(me, Ordering::Relaxed);
    }
    let mut state = State::default();
    loop {
        if BackgroundWorker::sighup_received() {
            // SAFETY: re-reads postgresql.conf, as every process does on SIGHUP.
            unsafe { pg_sys::ProcessConfigFile(pg_sys::GucContext::PGC_SIGHUP) };
        }
        state.round();
        if !BackgroundWorker::wait_latch(Some(round_interval())) {
            break;
        }
    }
    if let Some(pid) = pid {
        let _ = pid.compare_exchange(me, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}
