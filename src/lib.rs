//! `uuid_ext`: RFC 9562 UUIDs for PostgreSQL. This crate is the PostgreSQL
//! glue only; the generator core is `crates/uuid_ext_core`.

use pgrx::prelude::*;

mod bounds;
mod callbacks;
mod compat_pg18;
mod compat_pg_uuidv7;
mod datadir;
mod error;
mod extract;
mod facade;
mod generate;
mod guc;
mod info;
mod name_based;
mod now;
mod pgtime;
mod sequencer;
mod text;
mod types;

::pgrx::pg_module_magic!(name, version);

/// Runs once in each process that loads the library: in the postmaster when
/// preloaded (and every backend inherits what it did), else in each backend
/// at its first call. Nothing here speaks: it runs on every connection.
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    guc::register();
    sequencer::watermark::define_setting();
    facade::cluster::define_settings();
    guc::reserve_prefix();
    callbacks::register();
    // SAFETY: a flag PostgreSQL sets while it loads shared_preload_libraries.
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        sequencer::init_preloaded();
        // Every backend forks from this seeded state, so the re-seed after
        // fork is what keeps their random streams apart.
        generate::seed_random();
    }
}

#[cfg(any(test, feature = "pg_test"))]
mod pg_tests;

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec!["shared_preload_libraries = 'uuid_ext'"]
    }
}
