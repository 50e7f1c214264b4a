//! `uuid_ext.monotonicity` (SPEC §3): which sequencer word a session uses.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting, PostgresGucEnum};
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
    // A misspelt uuid_ext.* setting is an error, not a silent placeholder.
    #[cfg(not(any(feature = "pg13", feature = "pg14")))]
    // SAFETY: called from _PG_init, after our settings are defined.
    unsafe {
        pg_sys::MarkGUCPrefixReserved(c"uuid_ext".as_ptr());
    }
}

#[inline]
pub fn monotonicity() -> Monotonicity {
    MONOTONICITY.get()
}
