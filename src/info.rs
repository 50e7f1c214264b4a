//! `uuid_ext_info()` (SPEC §3) and the install-time NOTICE about preloading.

use pgrx::datum::JsonB;
use pgrx::prelude::*;

use crate::shmem;

/// What this session runs on: the extension's version, the server's, whether
/// the library is preloaded, and which sequencer this session uses now.
#[pg_extern(stable, parallel_safe)]
fn uuid_ext_info() -> JsonB {
    // SAFETY: server_version always exists; the returned string is owned by
    // the GUC machinery and read at once.
    let server = unsafe {
        let v = pg_sys::GetConfigOption(c"server_version".as_ptr(), false, false);
        std::ffi::CStr::from_ptr(v).to_string_lossy().into_owned()
    };
    JsonB(serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "postgres": server,
        "preloaded": shmem::preloaded(),
        "sequencer": if shmem::uses_shared() { "shared" } else { "backend" },
    }))
}

// One NOTICE, at CREATE EXTENSION only (never per connection), when the
// library is not preloaded. PostgreSQL runs extension scripts with
// client_min_messages raised to WARNING, which would swallow a NOTICE; the
// script lowers it for this one message (the setting is restored when the
// script ends).
extension_sql!(
    r#"
DO $$
BEGIN
  IF NOT (uuid_ext_info() ->> 'preloaded')::boolean THEN
    PERFORM set_config('client_min_messages', 'notice', true);
    RAISE NOTICE 'uuid_ext is not in shared_preload_libraries: UUIDs are ordered within each session, not across the server'
      USING HINT = 'Add uuid_ext to shared_preload_libraries in postgresql.conf and restart PostgreSQL to order them across every session.';
  END IF;
END
$$;
"#,
    name = "preload_notice",
    requires = [uuid_ext_info],
);
