//! PostgreSQL 18's generator names, `uuidv7()`, `uuidv7(shift interval)`
//! and `uuidv4()`, with core 18's signatures and labels, so SQL written for
//! 18 runs unchanged on 15, 16 and 17. They are uuid_ext's generators under
//! those names: the v7 pair draws from the same sequencer as
//! `uuid_generate_v7`. On 18 they exist too, but core's in `pg_catalog`
//! answer unqualified calls; ours answer schema-qualified ones.

use pgrx::datum::{Interval, Uuid};
use pgrx::prelude::*;
use uuid_ext_core::v4;

use crate::generate;

/// `uuidv7()`: `uuid_generate_v7()` under PostgreSQL 18's name.
#[pg_extern(volatile, strict, parallel_safe)]
fn uuidv7() -> Uuid {
    generate::uuid_generate_v7()
}

/// `uuidv7(shift interval)`: `uuid_generate_v7(shift)` under PostgreSQL 18's
/// name, refusing a shift out of range with core 18's words (18.6 and later),
/// so that code written for 18 catches the same error on 15, 16 and 17.
#[pg_extern(name = "uuidv7", volatile, strict, parallel_safe)]
fn uuidv7_shifted(shift: Interval) -> Uuid {
    generate::v7_shifted(shift, generate::Words::Core)
}

/// `uuidv4()`: a UUIDv4 (RFC 9562 §5.4), 122 bits from this backend's
/// ChaCha generator (core's `uuidv4()`, like `gen_random_uuid()`, asks the
/// operating system or OpenSSL for each UUID).
#[pg_extern(volatile, strict, parallel_safe)]
fn uuidv4() -> Uuid {
    Uuid::from_bytes(v4::from_random(generate::random_bytes()))
}
