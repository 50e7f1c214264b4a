//! The server-wide sequencer's glue (SPEC §4): everything that makes the
//! core's pure algorithm one ordered sequence for the whole server.
//!
//! - [`shmem`]: where the words live (shared memory when preloaded, else
//!   process-local), and the carry across a crash restart
//! - [`horizon`]: durable order: the limit no value passes, the
//!   `uuid_ext.horizon` file, and the extension lock
//! - [`watermark`]: announcements and `uuid_v7_watermark()`

pub mod horizon;
pub mod shmem;
pub mod watermark;

/// From `_PG_init` while the postmaster loads `shared_preload_libraries`.
pub fn init_preloaded() {
    shmem::init_preloaded();
    watermark::init_preloaded();
}
