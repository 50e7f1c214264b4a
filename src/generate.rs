//! The generators: read the clock, draw from the sequencer and the random
//! generator, lay out the bits (all of which the core does).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use pgrx::datum::{Interval, TimestampWithTimeZone, Uuid};
use pgrx::prelude::*;
use pgrx::{PgSqlErrorCode, PgTryBuilder};
use uuid_ext_core::rng::ForkSafeRng;
use uuid_ext_core::sequencer::lead::{self, Ceiling};
use uuid_ext_core::sequencer::{Lease, Session, Stop};
use uuid_ext_core::{timestamp, v6, v7};

use crate::error;
use crate::guc;
use crate::now::clock_ns;
use crate::sequencer::horizon::Limit;
use crate::sequencer::{draw, horizon, shmem, watermark};

/// This backend's generator state. PostgreSQL runs each backend in one
/// thread, so a thread-local is a process-local.
struct Generator {
    v7: Session,
    v6: Session,
    rng: ForkSafeRng,
}

thread_local! {
    static GENERATOR: RefCell<Generator> = const {
        RefCell::new(Generator { v7: Session::new(), v6: Session::new(), rng: ForkSafeRng::new() })
    };
}

/// This process's transactions, counted as they end: a lease lives in the
/// one it was taken in (docs/ordering.md#leases), so that the commit
/// watermark, which a transaction announces before its first draw, is below
/// every value of it.
static TRANSACTIONS_ENDED: AtomicU64 = AtomicU64::new(0);

/// At the end of each transaction (`callbacks.rs`): what is left of the
/// leases is dropped.
pub fn transaction_ended() {
    TRANSACTIONS_ENDED.fetch_add(1, Ordering::Relaxed);
}

/// The lease of a draw of `version` from the shared word under
/// `uuid_ext.cache`: its size, the millisecond its values may lag the clock,
/// and its epoch, which moves when a transaction ends and when the commit
/// watermark is announced again (a new transaction's first UUIDv7, a reset,
/// a switch of word), so that no value is given under an announcement made
/// after its block was taken.
#[inline]
fn lease(size: u64, version: u8) -> Lease {
    Lease {
        size,
        stale: if version == v7::VERSION {
            lead::v7_units(1)
        } else {
            lead::v6_units(1)
        },
        epoch: TRANSACTIONS_ENDED
            .load(Ordering::Relaxed)
            .wrapping_add(watermark::announcements()),
    }
}

/// One attempt at a draw of `version` for `session` from `word`: leased
/// under `uuid_ext.cache` when the word is the shared one (a block of a
/// process's own word given as the shared word's would repeat another
/// session's keys), else one value.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn draw_from<C: Ceiling>(
    session: &mut Session,
    word: &AtomicU64,
    limit: &Limit,
    ceiling: &C,
    resets: u64,
    candidate: u64,
    max: u64,
    version: u8,
) -> Result<u64, Stop<horizon::WriteError>> {
    match if limit.own_word() { 1 } else { guc::cache() } {
        1 => session.next_in(word, limit, ceiling, resets, candidate, max),
        size => {
            let lease = lease(size, version);
            session.next_leased(word, limit, ceiling, resets, candidate, max, lease)
        }
    }
}

/// The process drawing random numbers, as PostgreSQL knows it (set after
/// every fork; cheaper than `getpid()`).
#[inline]
fn my_pid() -> i32 {
    // SAFETY: MyProcPid is set by PostgreSQL at process start and only read here.
    unsafe { pg_sys::MyProcPid }
}

/// Seeds the random generator now (from `_PG_init` in the postmaster), so
/// every backend forked from it inherits a seeded state and must re-seed.
pub fn seed_random() {
    GENERATOR.with_borrow_mut(|g| {
        if let Err(e) = g.rng.seed(my_pid()) {
            pgrx::warning!("uuid_ext: {e}");
        }
    })
}

/// The ERROR for a sequencer that gave no value.
fn stopped(version: u8, stop: Stop<horizon::WriteError>) -> ! {
    match stop {
        Stop::Exhausted => error::sequence_exhausted(version),
        Stop::Horizon(e) => error::horizon_unwritable(&e.path, &e.cause),
        // Retried by the callers below, never passed here.
        Stop::Reset | Stop::Ahead(_) => unreachable!("a reset and the bound are retried"),
    }
}

/// The next UUIDv7 sequence word and 64 random bits. The reset count is read
/// before the clock, and both again when a reset comes between
/// (uuid_ext_core::sequencer::reset), or after waiting for the clock when the
/// draw would lead it by more than `uuid_ext.max_lead` (`draw.rs`). The
/// backend's generator is borrowed once for the whole draw, random bits
/// included.
#[inline]
fn next_v7() -> (u64, u64) {
    let pid = my_pid();
    GENERATOR.with_borrow_mut(|g| {
        let word = loop {
            let resets = shmem::settled_resets();
            let now = clock_ns();
            let (word, limit) = draw::v7_word();
            let floor = watermark::before_draw(now, resets, limit.own_word());
            let candidate = v7::candidate(now);
            let ceiling = draw::v7_ceiling(candidate, now);
            let drawn = draw_from(
                &mut g.v7,
                word,
                &limit,
                &ceiling,
                resets,
                candidate.max(floor),
                v7::MAX_WORD,
                v7::VERSION,
            );
            match drawn {
                Ok(word) => break word,
                Err(Stop::Reset) => continue,
                Err(Stop::Ahead(over)) => {
                    if !draw::follow_if_went_back(v7::VERSION, over) {
                        draw::wait_for_clock(v7::VERSION, over);
                    }
                }
                Err(e) => stopped(v7::VERSION, e),
            }
        };
        let random = g
            .rng
            .next_u64(pid)
            .unwrap_or_else(|e| error::random_unavailable(&e));
        (word, random)
    })
}

/// The next UUIDv6 sequence word (the 60-bit time and a 4-bit counter
/// within its tick) and 64 random bits.
fn next_v6() -> (u64, u64) {
    let pid = my_pid();
    GENERATOR.with_borrow_mut(|g| {
        let word = loop {
            let resets = shmem::settled_resets();
            let now = clock_ns();
            let candidate = v6::candidate(now);
            let (word, limit) = draw::v6_word();
            let ceiling = draw::v6_ceiling(candidate, now);
            let drawn = draw_from(
                &mut g.v6,
                word,
                &limit,
                &ceiling,
                resets,
                candidate,
                v6::MAX_WORD,
                v6::VERSION,
            );
            match drawn {
                Ok(word) => break word,
                Err(Stop::Reset) => continue,
                Err(Stop::Ahead(over)) => {
                    if !draw::follow_if_went_back(v6::VERSION, over) {
                        draw::wait_for_clock(v6::VERSION, over);
                    }
                }
                Err(e) => stopped(v6::VERSION, e),
            }
        };
        let random = g
            .rng
            .next_u64(pid)
            .unwrap_or_else(|e| error::random_unavailable(&e));
        (word, random)
    })
}

/// 16 bytes from this backend's random generator.
pub(crate) fn random_bytes() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    GENERATOR
        .with_borrow_mut(|g| g.rng.fill(my_pid(), &mut bytes))
        .unwrap_or_else(|e| error::random_unavailable(&e));
    bytes
}

/// A UUIDv7 strictly greater than every UUIDv7 this sequencer gave before.
#[pg_extern(volatile, parallel_safe)]
pub(crate) fn uuid_generate_v7() -> Uuid {
    let (word, random) = next_v7();
    Uuid::from_bytes(v7::from_word(word, random))
}

/// A UUIDv7 whose time is moved by `shift`, as `timestamptz + interval` moves
/// it. The sequencer advances as for an unshifted call; the shifted time is
/// never written back to it.
#[pg_extern(name = "uuid_generate_v7", volatile, strict, parallel_safe)]
fn uuid_generate_v7_shifted(shift: Interval) -> Uuid {
    v7_shifted(shift, Words::Ours)
}

/// Whose words a shifted call's errors use: uuid_ext's, or core 18's for the
/// name it shares with core, `uuidv7(interval)` (docs/reference.md#errors).
#[derive(Clone, Copy)]
pub(crate) enum Words {
    Ours,
    Core,
}

fn shift_out_of_range(words: Words) -> ! {
    match words {
        Words::Ours => error::v7_shift_out_of_range(),
        Words::Core => error::core_v7_shift_out_of_range(),
    }
}

/// `uuid_generate_v7(shift)` with the errors in `words`. Core 18 refuses an
/// infinite interval before any arithmetic, lets a sum beyond PostgreSQL's
/// own range fail as `timestamptz + interval` fails, then refuses a time
/// outside UUIDv7's; ours says the one thing for all three.
pub(crate) fn v7_shifted(shift: Interval, words: Words) -> Uuid {
    if matches!(words, Words::Core)
        && timestamp::interval_is_infinite(shift.months(), shift.days(), shift.micros())
    {
        error::core_v7_infinite_shift();
    }
    let (word, random) = next_v7();
    let base_us = timestamp::pg_us_of_unix_us(timestamp::unix_us_of_v7_ms(word >> 16));
    let base =
        TimestampWithTimeZone::try_from(base_us).unwrap_or_else(|_| shift_out_of_range(words));
    let shifted: TimestampWithTimeZone = match words {
        Words::Ours => PgTryBuilder::new(|| base + shift)
            .catch_when(PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW, |_| {
                error::v7_shift_out_of_range()
            })
            .execute(),
        Words::Core => base + shift,
    };
    if !shifted.is_finite() {
        shift_out_of_range(words);
    }
    let shifted = i64::from(shifted)
        .checked_sub(base_us)
        .and_then(|delta_us| v7::shift(word, delta_us))
        .unwrap_or_else(|| shift_out_of_range(words));
    Uuid::from_bytes(v7::from_word(shifted, random))
}

/// A UUIDv6 strictly greater than every UUIDv6 this sequencer gave before;
/// its clock sequence begins with a counter within the 100 ns tick, and its
/// other 10 bits and the node are fresh random bits (RFC 9562 §5.6, §6.2,
/// §6.10).
#[pg_extern(volatile, parallel_safe)]
fn uuid_generate_v6() -> Uuid {
    let (word, random) = next_v6();
    Uuid::from_bytes(v6::from_word(word, random))
}

/// The process the random generator was last seeded for.
#[cfg(any(test, feature = "pg_test"))]
pub fn rng_seeded_for() -> Option<i32> {
    GENERATOR.with_borrow(|g| g.rng.seeded_for())
}
