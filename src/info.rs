//! `uuid_ext_info()` (docs/reference.md#configuration) and the install-time NOTICE about preloading.

use pgrx::datum::JsonB;
use pgrx::prelude::*;

use uuid_ext_core::sequencer::horizon as core_horizon;

use crate::sequencer::{clock, draw, horizon, reset, shmem, wal, watermark};
use crate::{guc, now};

/// What this session runs on: the library's version, the server's, the
/// PostgreSQL whose headers the library was compiled against, whether
/// the library is preloaded, which sequencer this session uses now, and
/// whether its order is durable, with the horizons on disk, and whether
/// the commit watermark is kept, with how far back its oldest announcement is.
#[pg_extern(stable, parallel_safe)]
fn uuid_ext_info() -> JsonB {
    // SAFETY: server_version always exists; the returned string is owned by
    // the GUC machinery and read at once.
    let server = unsafe {
        let v = pg_sys::GetConfigOption(c"server_version".as_ptr(), false, false);
        std::ffi::CStr::from_ptr(v).to_string_lossy().into_owned()
    };
    // The horizons this server has on disk (the limits of the shared words).
    let horizon = shmem::limits().filter(|_| horizon::enabled()).map(|l| {
        let writes = shmem::horizon_writes();
        let n = |f: fn(&shmem::HorizonWrites) -> &std::sync::atomic::AtomicU64| {
            writes.map_or(0, |w| f(w).load(std::sync::atomic::Ordering::Relaxed))
        };
        serde_json::json!({
            "v7": core_horizon::v7_time(l.v7),
            "v6": core_horizon::v6_time(l.v6),
            "file": horizon_file_shown(),
            "writes_by_worker": n(|w| &w.by_worker),
            "writes_inline": n(|w| &w.inline),
        })
    });
    // How far the words this session draws from are ahead of the clock.
    let now = now::clock_ns();
    let words = core_horizon::Limits {
        v7: draw::v7_word().0.load(std::sync::atomic::Ordering::Relaxed),
        v6: draw::v6_word().0.load(std::sync::atomic::Ordering::Relaxed),
    };
    let leads = clock::leads(&words, now);
    let worker = shmem::worker_pid()
        .map(|p| p.load(std::sync::atomic::Ordering::Relaxed))
        .filter(|&p| p != 0);
    JsonB(serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "postgres": server,
        "built_for": built_for(),
        "preloaded": shmem::preloaded(),
        "sequencer": if shmem::uses_shared() { "shared" } else { "backend" },
        "durable": shmem::uses_shared() && horizon::enabled(),
        "durable_margin_ms": guc::durable_margin_ms(),
        "durable_wal": shmem::preloaded() && guc::durable_wal(),
        "horizon_worker_pid": worker,
        "in_recovery": wal::in_recovery(),
        "horizon": horizon,
        // Every session announces, whichever word it draws from.
        "commit_watermark": shmem::shared().is_some() && guc::commit_watermark(),
        "oldest_announcement_age_ms": shmem::preloaded()
            .then(|| watermark::oldest_announcement_age_ms(now / 1_000_000))
            .flatten(),
        "ahead_of_clock_ms": {"v7": leads.v7_ms, "v6": leads.v6_ms},
        "clock_ahead_warning_ms": guc::clock_ahead_warning_ms(),
        "last_reset": reset::last_reset_json(),
    }))
}

/// The PostgreSQL release whose headers the library was compiled against
/// (`PG_VERSION` of its `pg_config.h`): a library loads into that minor and
/// every later one of its major, so this may name an earlier minor than
/// `postgres` (docs/operations.md#installing).
fn built_for() -> String {
    String::from_utf8_lossy(pg_sys::PG_VERSION.to_bytes()).into_owned()
}

/// The horizon file as this role may see it: its full path for roles that
/// may read `data_directory` (superusers and members of
/// `pg_read_all_settings`), else its name in the data directory.
fn horizon_file_shown() -> String {
    // SAFETY: plain catalog questions about the current user, in a
    // transaction (a SQL function runs in one).
    let privileged = unsafe {
        pg_sys::has_privs_of_role(
            pg_sys::GetUserId(),
            pg_sys::Oid::from(pg_sys::ROLE_PG_READ_ALL_SETTINGS),
        )
    };
    if privileged {
        horizon::file_path().display().to_string()
    } else {
        horizon::FILE_NAME.to_string()
    }
}

// One NOTICE, at CREATE EXTENSION only (never per connection), when the
// library is not preloaded. PostgreSQL runs extension scripts with
// client_min_messages raised to WARNING, which would swallow a NOTICE; the
// script lowers it for this one message and raises it again (the rest of
// the script stays quiet). Hardened as sql/opclasses.sql's block is: search_path
// pinned and restored, every name schema-qualified, ours through the
// schema pg_extension records.
extension_sql!(
    r#"
DO $$
DECLARE
  saved pg_catalog.text := pg_catalog.current_setting('search_path');
  ext pg_catalog.text := (SELECT e.extnamespace::pg_catalog.regnamespace::pg_catalog.text
                          FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'uuid_ext');
  preloaded pg_catalog.bool;
  quiet pg_catalog.text := pg_catalog.current_setting('client_min_messages');
BEGIN
  PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
  EXECUTE pg_catalog.format('SELECT (%s.uuid_ext_info() OPERATOR(pg_catalog.->>) %L::pg_catalog.text)::pg_catalog.bool', ext, 'preloaded')
    INTO preloaded;
  IF NOT preloaded THEN
    PERFORM pg_catalog.set_config('client_min_messages', 'notice', true);
    RAISE NOTICE 'uuid_ext is not in shared_preload_libraries: UUIDs are ordered within each session, not across the server'
      USING HINT = 'Add uuid_ext to shared_preload_libraries in postgresql.conf and restart PostgreSQL to order them across every session.';
    PERFORM pg_catalog.set_config('client_min_messages', quiet, true);
  END IF;
  PERFORM pg_catalog.set_config('search_path', saved, true);
END
$$;
"#,
    name = "preload_notice",
    requires = [uuid_ext_info],
);
