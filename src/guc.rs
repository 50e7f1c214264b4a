//! The settings: `uuid_ext.monotonicity`, which sequencer word a
//! session uses; and for the shared sequencer (docs/reference.md#configuration)
//! `uuid_ext.durable_margin`, how far ahead of what it hands out its horizon
//! on disk runs, `uuid_ext.commit_watermark`, `uuid_ext.watermark_scope`,
//! `uuid_ext.durable_wal`, `uuid_ext.watermark_interval`,
//! `uuid_ext.clock_ahead_warning` and `uuid_ext.max_lead`; `uuid_ext.cache`,
//! how many values a session leases at once (docs/ordering.md#leases).

use std::ffi::{c_char, CString};

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting, GucValue, PostgresGucEnum};
use pgrx::pg_sys;

#[derive(PostgresGucEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum Monotonicity {
    /// The server-wide word when the library is preloaded, else the
    /// backend's own (silently: `uuid_ext_info()` shows which).
    #[name = c"shared"]
    Shared,
    /// The backend's own word: ordered within the session only.
    #[name = c"backend"]
    Backend,
}

static MONOTONICITY: GucSetting<Monotonicity> =
    GucSetting::<Monotonicity>::new(Monotonicity::Shared);

/// The largest lease: 1,000 UUIDv7 values are 15 us of the sequencer's time.
pub const MAX_CACHE: i32 = 1_000;
static CACHE: GucSetting<i32> = GucSetting::<i32>::new(1);

/// Whose open transactions hold back a session's `uuid_v7_watermark()`.
#[derive(PostgresGucEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum WatermarkScope {
    /// The announcements of transactions in the caller's database.
    #[name = c"database"]
    Database,
    /// Every database's: for writers that draw keys in one database for
    /// rows of another (postgres_fdw, dblink).
    #[name = c"server"]
    Server,
}

static WATERMARK_SCOPE: GucSetting<WatermarkScope> =
    GucSetting::<WatermarkScope>::new(WatermarkScope::Database);

/// The default margin: one second of generation per write of the horizon.
pub const DEFAULT_DURABLE_MARGIN_MS: i32 = 1_000;
static DURABLE_MARGIN_MS: GucSetting<i32> = GucSetting::<i32>::new(DEFAULT_DURABLE_MARGIN_MS);
static COMMIT_WATERMARK: GucSetting<bool> = GucSetting::<bool>::new(true);
static DURABLE_WAL: GucSetting<bool> = GucSetting::<bool>::new(false);
/// The default: at most 50 watermark records a second.
pub const DEFAULT_WATERMARK_INTERVAL_MS: i32 = 20;
static WATERMARK_INTERVAL_MS: GucSetting<i32> =
    GucSetting::<i32>::new(DEFAULT_WATERMARK_INTERVAL_MS);
/// The default: a minute, which no burst reaches (65,536 UUIDv7 a
/// millisecond before the sequencer runs ahead at all).
pub const DEFAULT_CLOCK_AHEAD_WARNING_MS: i32 = 60_000;
static CLOCK_AHEAD_WARNING_MS: GucSetting<i32> =
    GucSetting::<i32>::new(DEFAULT_CLOCK_AHEAD_WARNING_MS);
/// The default: 100 ms. With 65,536 UUIDv7 and 16 UUIDv6 values per unit of
/// their clocks (a millisecond's 4,096th, a 100 ns tick), reaching it takes
/// 6.5 million UUIDv7 or 16 million UUIDv6 beyond what the clock allows;
/// the fastest loads measured do not run ahead at all
/// (docs/design.md#the-lead-over-the-clock).
pub const DEFAULT_MAX_LEAD_MS: i32 = 100;
static MAX_LEAD_MS: GucSetting<i32> = GucSetting::<i32>::new(DEFAULT_MAX_LEAD_MS);

pub fn register() {
    GucRegistry::define_enum_guc(
        c"uuid_ext.monotonicity",
        c"Which sequencer orders this session's UUIDv7 and UUIDv6: shared or backend.",
        c"shared: one sequence for the whole server when uuid_ext is in shared_preload_libraries, \
          else this backend's own. backend: this backend's own sequence. A session never goes \
          below its own last value when it switches.",
        &MONOTONICITY,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"uuid_ext.cache",
        c"How many values of the sequencer a session takes at once, as a sequence's CACHE; 1: each draw its own, strictly in call order across the server.",
        c"Above 1, a session's UUIDv7 and UUIDv6 come from a block it took with one move of the \
          sequencer, for the rest of its transaction and while the clock has moved less than a \
          millisecond past them: concurrent sessions no longer contend for every key, and insert at \
          places of their own in an index. Every key stays unique and each session's increasing; keys \
          of different sessions are ordered to within 2 ms. Only the shared \
          sequencer leases. Superusers set it, for a role or a database (ALTER ROLE ... SET).",
        &CACHE,
        1,
        MAX_CACHE,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_enum_guc(
        c"uuid_ext.watermark_scope",
        c"Whose open transactions hold back this session's uuid_v7_watermark(): database or server.",
        c"database: the transactions of this database (and its prepared transactions), so no other \
          database's can hold it back. server: every database's, for writers that draw keys in one \
          database for rows of another (postgres_fdw, dblink). On a standby the watermark is the \
          primary's server-wide one either way.",
        &WATERMARK_SCOPE,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"uuid_ext.durable_margin",
        c"How far ahead of the UUIDs it hands out the shared sequencer's horizon on disk runs; 0 turns it off.",
        c"With uuid_ext preloaded, no UUIDv7 or UUIDv6 is handed out above a horizon already written \
          and fsynced to uuid_ext.horizon in the data directory, so order survives restarts and \
          machine crashes even when the clock steps back. Each write moves the horizon this far \
          ahead. 0: no file; after a restart the sequencer starts from the clock.",
        &DURABLE_MARGIN_MS,
        0,
        3_600_000,
        GucContext::Sighup,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_bool_guc(
        c"uuid_ext.commit_watermark",
        c"Whether transactions announce their first UUIDv7, so uuid_v7_watermark() can tell what may still commit.",
        c"on: a transaction that draws from the shared UUIDv7 sequencer announces, once, a value no \
          greater than any it gets, and withdraws it when it ends; uuid_v7_watermark() is the smallest \
          announcement. off: no announcements, and uuid_v7_watermark() raises an error.",
        &COMMIT_WATERMARK,
        GucContext::Sighup,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"uuid_ext.durable_wal",
        c"Whether the shared sequencer's horizon and commit watermark are also written to the WAL.",
        c"on: each raise of the horizon is WAL-logged (after the file, flushed before use), and the \
          horizon worker logs the commit watermark when it moves, so standbys, point-in-time \
          restores and crash recovery replay them. Every server that replays this WAL must then \
          have uuid_ext in shared_preload_libraries. off: no new records.",
        &DURABLE_WAL,
        GucContext::Sighup,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"uuid_ext.watermark_interval",
        c"How often, at most, the horizon worker writes the commit watermark to the WAL.",
        c"With uuid_ext.durable_wal on, the worker writes the watermark when it has moved, at \
          most once per interval; a standby's uuid_v7_watermark() lags the primary's by about this \
          much plus the replication delay.",
        &WATERMARK_INTERVAL_MS,
        1,
        10_000,
        GucContext::Sighup,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"uuid_ext.clock_ahead_warning",
        c"How far ahead of the clock the shared sequencer may run before the server log gets a WARNING; 0 turns it off.",
        c"The sequencer never goes back: after a clock that ran ahead is corrected, new UUIDs keep \
          the later time. Past this lead the horizon worker logs a WARNING, then again every five \
          minutes while it lasts, and the server logs one at start when the horizon file is that \
          far ahead. uuid_ext_sequencer_reset() brings the sequencer back to the clock.",
        &CLOCK_AHEAD_WARNING_MS,
        0,
        i32::MAX,
        GucContext::Sighup,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"uuid_ext.max_lead",
        c"How far ahead of the clock UUID generation may take a sequencer; a draw beyond it waits for the clock. 0 turns the bound off.",
        c"Counted from a clock that never steps back (the wall clock, carried on by the monotonic clock \
          after it steps back, and by the words a start or a standby's replay begins from), so a \
          sequencer ahead of a clock that lied keeps working. Only draws faster than the clock \
          allows (65,536 UUIDv7 a millisecond, 16 UUIDv6 per 100 ns) meet it; the call then sleeps \
          until the clock has moved on.",
        &MAX_LEAD_MS,
        0,
        3_600_000,
        GucContext::Sighup,
        GucFlags::UNIT_MS,
    );
}

/// After every `uuid_ext.*` setting is defined (`_PG_init`): a misspelt
/// one is an error, not a silent placeholder.
pub fn reserve_prefix() {
    // SAFETY: called from _PG_init, after our settings are defined.
    unsafe {
        pg_sys::MarkGUCPrefixReserved(c"uuid_ext".as_ptr());
    }
}

/// A setting's value, read straight from its storage: without `get()`'s
/// check of the calling thread, which finds the thread through a
/// thread-local (a call of `__tls_get_addr` from a shared library, about 25
/// instructions a read). The settings a draw reads are read this way.
#[inline]
fn read<T: GucValue>(setting: &GucSetting<T>) -> T {
    // SAFETY: PostgreSQL writes a setting only in this backend's one
    // thread (SET, a function's SET clause, a reload at a safe point), and
    // every caller runs in that thread: reading it here is reading a value
    // nobody writes meanwhile, which PostgreSQL checked when it was set (an
    // enum's raw value is one of its ordinals).
    unsafe { T::from_raw(*setting.as_ptr()) }
}

/// `uuid_ext.cache`, read at every draw: values taken at once (1: none leased).
#[inline]
pub fn cache() -> u64 {
    u64::try_from(read(&CACHE)).unwrap_or(1)
}

/// `uuid_ext.monotonicity`, read at every draw.
#[inline]
pub fn monotonicity() -> Monotonicity {
    read(&MONOTONICITY)
}

#[inline]
pub fn watermark_scope() -> WatermarkScope {
    WATERMARK_SCOPE.get()
}

/// `uuid_ext.durable_margin` in milliseconds (0: persistence off), read at
/// every draw from the shared words (the horizon's limit counts only when
/// it is above 0).
#[inline]
pub fn durable_margin_ms() -> u64 {
    u64::try_from(read(&DURABLE_MARGIN_MS)).unwrap_or(0)
}

/// `uuid_ext.commit_watermark`, read before a transaction's first UUIDv7.
#[inline]
pub fn commit_watermark() -> bool {
    read(&COMMIT_WATERMARK)
}

/// `uuid_ext.durable_wal`.
#[inline]
pub fn durable_wal() -> bool {
    DURABLE_WAL.get()
}

/// `uuid_ext.clock_ahead_warning` in milliseconds (0: off).
pub fn clock_ahead_warning_ms() -> u64 {
    u64::try_from(CLOCK_AHEAD_WARNING_MS.get()).unwrap_or(0)
}

/// `uuid_ext.max_lead` in milliseconds (0: no bound), read at every draw.
#[inline]
pub fn max_lead_ms() -> u64 {
    u64::try_from(read(&MAX_LEAD_MS)).unwrap_or(0)
}

/// `uuid_ext.watermark_interval` in milliseconds.
pub fn watermark_interval_ms() -> u64 {
    u64::try_from(WATERMARK_INTERVAL_MS.get()).unwrap_or(1)
}

// The settings that are not settings: values the library computes, read
// with SHOW behind a name no role can plant (a function's or an
// operator's could be), and the channel a Citus coordinator's keys reach a
// worker by (docs/facade.md#on-a-citus-cluster). Hidden from SHOW ALL and
// pg_settings, which would compute them for every reader. Each is defined
// by the module whose value it is, through [`define_hidden`].

/// Defines a hidden string setting: read-only (`PGC_INTERNAL`) with a show
/// hook, or settable by anyone with a check hook; `storage` is its own
/// static, which PostgreSQL owns from then on.
pub fn define_hidden(
    name: &'static std::ffi::CStr,
    description: &'static std::ffi::CStr,
    storage: *mut *mut c_char,
    check: pg_sys::GucStringCheckHook,
    show: pg_sys::GucShowHook,
) {
    let flags = (pg_sys::GUC_NO_SHOW_ALL
        | pg_sys::GUC_NOT_IN_SAMPLE
        | pg_sys::GUC_DISALLOW_IN_FILE
        | pg_sys::GUC_NO_RESET_ALL) as i32;
    let context = if check.is_some() {
        pg_sys::GucContext::PGC_USERSET
    } else {
        pg_sys::GucContext::PGC_INTERNAL
    };
    // SAFETY: defines a setting from _PG_init with storage of its own.
    unsafe {
        pg_sys::DefineCustomStringVariable(
            name.as_ptr(),
            description.as_ptr(),
            std::ptr::null(),
            storage,
            c"".as_ptr(),
            context,
            flags,
            check,
            None,
            show,
        );
    }
}

/// A palloc'd copy of `s`, as a show hook returns it.
pub fn shown(s: String) -> *const c_char {
    let c = CString::new(s).expect("no NUL in what is shown");
    // SAFETY: a palloc'd copy in the statement's memory.
    unsafe { pg_sys::pstrdup(c.as_ptr()) }
}
