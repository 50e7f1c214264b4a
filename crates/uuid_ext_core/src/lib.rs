//! The generator core of `uuid_ext`: pure Rust, no PostgreSQL.
//!
//! Everything here takes time and randomness as arguments, so every RFC 9562
//! vector and every edge (a clock stepping back, the last representable
//! millisecond) is a plain unit test. The PostgreSQL glue reads the clock,
//! finds the sequencer's word (shared memory or process-local) and calls in.
//!
//! - [`layout`]: version and variant bits, Nil and Max (RFC 9562 §4, §5.9, §5.10)
//! - [`timestamp`]: reading a UUID's time: what a UUIDv1, v6 or v7 carries, and
//!   the scales it is read in (Unix, UUIDv7's 48-bit millisecond, the 60-bit
//!   Gregorian time of v1 and v6, PostgreSQL's; RFC 9562 §5.1, §5.6, §5.7)
//! - [`v7`]: the UUIDv7 layout and its 64-bit sequence word (RFC 9562 §5.7, §6.2)
//! - [`v4`]: the UUIDv4 layout, 122 random bits (RFC 9562 §5.4)
//! - [`v6`]: the UUIDv6 layout, its 60-bit sequence word, bounds, and v1 ↔ v6 (RFC 9562 §5.6)
//! - [`v5`], [`v8`], [`namespace`]: name-based UUIDv5 (SHA-1), UUIDv8 (custom and
//!   SHA-2 name-based, RFC 9562 §5.8, App. B), the namespace IDs (§6.6)
//! - [`inspect`]: every field of a UUID, by name
//! - [`parse`]: UUID text, read exactly as PostgreSQL's `uuid` reads it
//! - [`sequencer`]: the server-wide sequencer's pure parts: the lock-free
//!   `max(candidate, last + 1)` word, the durable horizon and its file, the
//!   WAL records, the commit watermark, the reset, the lead over the clock
//!   (docs/design.md#the-sequencer-word)
//! - [`rng`]: the fork-safe, buffered ChaCha generator (docs/design.md#randomness)
//! - [`text`]: compact text forms: hex, base32hex, Crockford (ULID), base58, base64url
//! - [`facade`]: the façade's frozen mapping; [`keyset`]: its key set as it
//!   travels to the other nodes of a Citus cluster, sealed and opened

pub mod facade;
pub mod inspect;
pub mod keyset;
pub mod layout;
pub mod namespace;
pub mod parse;
pub mod rng;
pub mod sequencer;
pub mod text;
pub mod timestamp;
pub mod v4;
pub mod v5;
pub mod v6;
pub mod v7;
pub mod v8;

/// A UUID as its 16 bytes in network order.
pub type Bytes = [u8; 16];
