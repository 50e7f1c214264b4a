//! The server-wide sequencer's pure parts, one file each as the glue's
//! `src/sequencer/` has them (docs/design.md#the-sequencer-word):
//!
//! - [`word`] (re-exported here): the lock-free `max(candidate, last + 1)`
//!   state machine over any word
//! - [`horizon`]: the durable limit no value passes, and its file
//!   (docs/design.md#the-horizon)
//! - [`wal`]: the WAL records: horizon, watermark, reset
//!   (docs/design.md#the-wal-records)
//! - [`watermark`]: announcements and the commit watermark
//!   (docs/design.md#the-commit-watermark)
//! - [`reset`]: bringing the words back to the clock, every session
//!   following (docs/design.md#the-reset)
//! - [`lead`]: how far a word runs ahead of the clock, and when to warn

pub mod horizon;
pub mod lead;
pub mod reset;
pub mod wal;
pub mod watermark;
pub mod word;

pub use word::*;
