//! Durable order (docs/design.md#the-horizon): the horizon file in the data directory.
//!
//! With the library preloaded and `uuid_ext.durable_margin` above 0, no
//! value of a shared word is handed out above its *limit*, and every limit
//! is in `uuid_ext.horizon` before anyone uses it (the rule is the core's,
//! `uuid_ext_core::sequencer::horizon`). The postmaster reads the file when it creates
//! shared memory, so the words start above everything handed out before a
//! clean restart, a crash of every server process, or of the machine, even
//! when the clock has stepped back meanwhile. It writes the exact words when
//! shared memory goes (a clean shutdown or a crash restart), so a restart
//! does not start a margin ahead of the last value.
//!
//! The file is replaced as PostgreSQL's `durable_rename` does: written to a
//! temporary file, fsynced, renamed, the directory fsynced. With the server's
//! `fsync = off` the fsyncs are skipped, as PostgreSQL skips its own.
//!
//! Who raises a limit: the horizon worker, ahead of use ([`extend_ahead`]),
//! and a call whose value would pass it, inline (a burst faster than the
//! worker). Either way the file is written first, then, with
//! `uuid_ext.durable_wal`, a WAL record is inserted and flushed (`wal.rs`),
//! and only then is the limit published. Redo of such a record raises the
//! words and limits of the server that replays it and writes its file
//! ([`replay`]).
//!
//! A draw respects a [`Limit`]: its word's, when the word is shared and
//! persistence is on, else none; `draw.rs` hands a draw its word and limit.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use pgrx::pg_sys;
use uuid_ext_core::sequencer::horizon::{self, Horizon, Limits};
use uuid_ext_core::{v6, v7};

use super::locks::{with_lock, HORIZON_LOCK};
use super::{clock, shmem, wal};
use crate::datadir::data_dir;
use crate::{error, guc};

/// The file's name in the data directory.
pub const FILE_NAME: &str = "uuid_ext.horizon";
const TEMP_NAME: &str = "uuid_ext.horizon.tmp";
/// Whether limits are kept now (`uuid_ext.durable_margin` above 0).
#[inline]
pub fn enabled() -> bool {
    guc::durable_margin_ms() > 0
}

pub fn file_path() -> PathBuf {
    data_dir().join(FILE_NAME)
}

/// A write of the file that failed: which file, and why.
#[derive(Debug)]
pub struct WriteError {
    pub path: PathBuf,
    pub cause: io::Error,
}

/// Replaces the file with `limits`, durably.
pub fn write(limits: &Limits) -> Result<(), WriteError> {
    let dir = data_dir();
    let temp = dir.join(TEMP_NAME);
    let file = dir.join(FILE_NAME);
    // SAFETY: a setting PostgreSQL reads and sets only while loading its configuration.
    let fsync = unsafe { pg_sys::enableFsync };
    let at = |path: &PathBuf| {
        let path = path.clone();
        move |cause| WriteError { path, cause }
    };
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(crate::datadir::file_create_mode())
        .open(&temp)
        .map_err(at(&temp))?;
    f.write_all(horizon::encode(limits).as_bytes())
        .map_err(at(&temp))?;
    if fsync {
        f.sync_all().map_err(at(&temp))?;
    }
    drop(f);
    fs::rename(&temp, &file).map_err(at(&file))?;
    if fsync {
        File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(at(&dir))?;
    }
    Ok(())
}

/// At start, in the postmaster: the limits on disk. None when there is no
/// file (the first start, or persistence was off); a file that cannot be
/// read or is damaged is reported as a WARNING and ignored.
pub fn read() -> Option<Limits> {
    let path = file_path();
    let data = match fs::read(&path) {
        Ok(data) => data,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => {
            pgrx::warning!(
                "uuid_ext: could not read \"{}\": {}; the sequencers start from the clock",
                path.display(),
                error::io_cause(&e)
            );
            return None;
        }
    };
    match horizon::decode(&data) {
        Ok(limits) => Some(limits),
        Err(e) => {
            pgrx::warning!(
                "uuid_ext: ignoring damaged sequencer horizon file \"{}\" ({e}); the sequencers start from the clock",
                path.display()
            );
            None
        }
    }
}

/// With persistence off at start: a file left from before is not revived
/// by a later change of the setting.
pub fn remove() {
    let path = file_path();
    if let Err(e) = fs::remove_file(&path) {
        if e.kind() != io::ErrorKind::NotFound {
            pgrx::warning!(
                "uuid_ext: could not remove \"{}\": {}",
                path.display(),
                error::io_cause(&e)
            );
        }
    }
}

/// One shared word, its limit, and the other word and its limit (the file
/// and the WAL record hold both).
pub struct Shared {
    pub version: u8,
    pub word: &'static AtomicU64,
    pub limit: &'static AtomicU64,
    pub other_word: &'static AtomicU64,
    pub other_limit: &'static AtomicU64,
    /// The reset count (`reset.rs`).
    pub resets: &'static AtomicU64,
}

impl Shared {
    /// The shared words of `version` (7 or 6) and their limits.
    pub fn of(w: &'static shmem::SharedWords, version: u8) -> Shared {
        let (word, limit, other_word, other_limit) = if version == 7 {
            (&w.v7, &w.v7_limit, &w.v6, &w.v6_limit)
        } else {
            (&w.v6, &w.v6_limit, &w.v7, &w.v7_limit)
        };
        Shared {
            version,
            word,
            limit,
            other_word,
            other_limit,
            resets: &w.resets,
        }
    }

    /// The margin in this word's units, and its last value.
    fn margin_and_max(&self) -> (u64, u64) {
        let margin_ms = guc::durable_margin_ms();
        match self.version {
            7 => (horizon::v7_margin(margin_ms), v7::MAX_WORD),
            _ => (horizon::v6_margin(margin_ms), v6::MAX_WORD),
        }
    }

    /// Makes `new` this word's limit everywhere it must be before anyone
    /// uses it ([`persist`]); the other word's limit is written as it is.
    /// Called under the horizon lock.
    fn persist(&self, new: u64) -> Result<(), WriteError> {
        // The other word's value may have run past its limit while
        // persistence was off: the file keeps the larger.
        let other = self
            .other_limit
            .load(Ordering::Acquire)
            .max(self.other_word.load(Ordering::Relaxed));
        persist(&if self.version == 7 {
            Limits { v7: new, v6: other }
        } else {
            Limits { v7: other, v6: new }
        })
    }

    /// The worker's plan for this word: raise its limit to a margin ahead
    /// when it is less than `headroom` ahead of the word and the clock.
    fn plan(&self, clock_ns: u64, headroom_ms: u64) -> Option<(u64, u64)> {
        let (margin, max) = self.margin_and_max();
        let (clock, idle, headroom) = match self.version {
            7 => (
                v7::candidate(clock_ns),
                horizon::v7_margin(IDLE_MS),
                horizon::v7_margin(headroom_ms),
            ),
            _ => (
                v6::candidate(clock_ns),
                horizon::v6_margin(IDLE_MS),
                horizon::v6_margin(headroom_ms),
            ),
        };
        let word = self.word.load(Ordering::Relaxed);
        let limit = self.limit.load(Ordering::Acquire);
        horizon::ahead(word, clock, limit, margin, headroom, idle, max)
    }
}

/// The shared words of `version` whatever this session's mode (for the
/// worker and for redo); None without shared memory.
pub fn shared_words(version: u8) -> Option<Shared> {
    shmem::shared().map(|w| Shared::of(w, version))
}

/// Makes `limits` durable everywhere they must be before anyone uses them:
/// first the file (fsynced), then, with `uuid_ext.durable_wal` on a primary,
/// a WAL record, flushed. The file comes first so that a record a
/// checkpoint's redo point passes (and that recovery therefore never
/// replays) is always in the file already: the file is the checkpoint-proof
/// copy, also in a base backup, which copies the data directory after its
/// checkpoint began. Called under the horizon lock.
fn persist(limits: &Limits) -> Result<(), WriteError> {
    write(limits)?;
    wal::log_horizon(limits);
    Ok(())
}

/// For the horizon worker: when either word's limit is less than half a
/// margin ahead of its word and of the clock (and the word was used in the
/// last [`IDLE_MS`]), raises it to a margin ahead, and the other word's too
/// when in use, with one write for both. Returns whether it wrote.
pub fn extend_ahead(clock_ns: u64) -> Result<bool, WriteError> {
    let (Some(v7s), Some(v6s)) = (shared_words(7), shared_words(6)) else {
        return Ok(false);
    };
    if !enabled() {
        return Ok(false);
    }
    // Plans made from words a reset lowers meanwhile are dropped under the
    // lock: a limit from before a reset never reaches the disk after it.
    let seen = v7s.resets.load(Ordering::Acquire);
    let half = guc::durable_margin_ms() / 2;
    let due = [v7s.plan(clock_ns, half), v6s.plan(clock_ns, half)];
    if due.iter().all(Option::is_none) {
        return Ok(false);
    }
    let full = guc::durable_margin_ms();
    let plans = [
        due[0].or_else(|| v7s.plan(clock_ns, full)),
        due[1].or_else(|| v6s.plan(clock_ns, full)),
    ];
    let wrote = with_lock(HORIZON_LOCK, || {
        if v7s.resets.load(Ordering::Acquire) != seen {
            return Ok(false);
        }
        horizon::raise_all_locked([(v7s.limit, plans[0]), (v6s.limit, plans[1])], |[v7, v6]| {
            // Either word may have run past its limit while persistence
            // was off: the file keeps the larger.
            persist(&Limits {
                v7: v7.max(v7s.word.load(Ordering::Relaxed)),
                v6: v6.max(v6s.word.load(Ordering::Relaxed)),
            })
        })
    })?;
    if wrote {
        count(|w| &w.by_worker);
    }
    Ok(wrote)
}

/// How long after the last UUID of a word the worker keeps its horizon ahead
/// of the clock: a server that makes no UUIDs writes nothing after that.
pub const IDLE_MS: u64 = 60_000;

/// The limit a draw from a word must respect (`draw.rs` hands it out with
/// the word).
pub enum Limit {
    /// A process-local word (with the shared reset count, when there is
    /// shared memory: a reset brings back every sequence of the server).
    Off(Option<&'static AtomicU64>),
    /// A shared word (its limit counts only with persistence on).
    Shared(Shared),
}

impl Limit {
    /// Whether the draw is from a process-local word.
    #[inline]
    pub fn own_word(&self) -> bool {
        matches!(self, Limit::Off(_))
    }
}

impl Horizon for Limit {
    type Error = WriteError;

    #[inline]
    fn limit(&self) -> u64 {
        match self {
            Limit::Shared(s) if enabled() => s.limit.load(Ordering::Acquire),
            _ => u64::MAX,
        }
    }

    fn extend(&self, needed: u64, seen: u64) -> Result<bool, WriteError> {
        let Limit::Shared(s) = self else {
            return Ok(true);
        };
        let (margin, max) = s.margin_and_max();
        let wrote = with_lock(HORIZON_LOCK, || {
            if s.resets.load(Ordering::Acquire) != seen {
                return Ok(None);
            }
            horizon::extend_locked(s.limit, needed, margin, max, |new| s.persist(new)).map(Some)
        })?;
        match wrote {
            None => Ok(false),
            Some(wrote) => {
                if wrote {
                    count(|w| &w.inline);
                }
                Ok(true)
            }
        }
    }

    #[inline]
    fn resets(&self) -> u64 {
        match self {
            Limit::Shared(s) => s.resets.load(Ordering::Acquire),
            Limit::Off(Some(r)) => r.load(Ordering::Acquire),
            Limit::Off(None) => 0,
        }
    }
}

fn count(which: impl FnOnce(&shmem::HorizonWrites) -> &AtomicU64) {
    if let Some(w) = shmem::horizon_writes() {
        which(w).fetch_add(1, Ordering::Relaxed);
    }
}

/// Redo of a horizon record (crash recovery, a standby, a restore): raises
/// both words and both limits to at least the record's, and writes this
/// server's own file first when they moved, so that a restart after a
/// restartpoint, or a base backup taken from this server, starts above them
/// too; and raises the reference the bound on the lead counts from to the
/// record's time, so a promoted standby whose clock is behind the old
/// primary's draws on (`draw.rs`). Redo only raises: replaying a record
/// twice, or an old one, changes nothing.
pub fn replay(record: &Limits) {
    let (Some(v7s), Some(v6s)) = (shared_words(7), shared_words(6)) else {
        return;
    };
    with_lock(HORIZON_LOCK, || {
        let now = Limits {
            v7: v7s.limit.load(Ordering::Acquire),
            v6: v6s.limit.load(Ordering::Acquire),
        };
        let raised = now.max(*record);
        if raised != now && enabled() {
            if let Err(e) = write(&raised) {
                // Order holds while this server runs (shared memory has
                // it); only a restart that skips the record could lose it.
                pgrx::warning!(
                    "uuid_ext: could not write \"{}\" while replaying a horizon record: {}",
                    e.path.display(),
                    error::io_cause(&e.cause)
                );
            }
        }
        v7s.limit.fetch_max(raised.v7, Ordering::AcqRel);
        v6s.limit.fetch_max(raised.v6, Ordering::AcqRel);
    });
    v7s.word.fetch_max(record.v7, Ordering::AcqRel);
    v6s.word.fetch_max(record.v6, Ordering::AcqRel);
    if let Some(reference) = shmem::reference() {
        clock::raise_reference(reference, record);
    }
}
