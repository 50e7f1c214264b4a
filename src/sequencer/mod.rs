//! The server-wide sequencer's glue (docs/design.md#the-sequencer-word): everything that makes the
//! core's pure algorithm one ordered sequence for the whole server.
//!
//! - [`shmem`]: where the shared words live
//! - [`setup`]: the postmaster's hooks that make them, and the carry across a
//!   crash restart
//! - [`horizon`]: durable order: the limit no value passes, raised under the
//!   horizon lock, the `uuid_ext.horizon` file, and the redo of its record
//! - [`draw`]: where a draw's word and limit come from: the shared word and
//!   its limit, or this process's own word
//! - [`wal`]: writing the WAL records (horizon, watermark, reset)
//! - [`worker`]: the background worker that keeps the horizon ahead of use
//!   and logs the watermark
//! - [`watermark`]: announcements and `uuid_v7_watermark()`
//! - [`clock`]: how far the words run ahead of the clock, and the WARNING
//! - [`reset`]: `uuid_ext_sequencer_reset()` and the redo of its record
//! - [`locks`]: the extension's locks (one for the horizon, one for prepared transactions)
//! - [`redo`]: the resource manager recovery calls: registration, redo, description

pub mod clock;
pub mod draw;
pub mod horizon;
pub mod locks;
pub mod redo;
pub mod reset;
pub mod setup;
pub mod shmem;
pub mod wal;
pub mod watermark;
pub mod worker;

/// From `_PG_init` while the postmaster loads `shared_preload_libraries`.
pub fn init_preloaded() {
    setup::init_preloaded();
    redo::register();
    worker::register();
}
