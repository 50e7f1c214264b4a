//! Time to UUID bounds (SPEC §2.3), for index and partition range scans.

use pgrx::datum::{TimestampWithTimeZone, Uuid};
use pgrx::prelude::*;
use uuid_ext_core::v7;

use crate::pgtime;

/// The smallest UUIDv7 of the millisecond holding `ts`.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_v7_lower_bound(ts: TimestampWithTimeZone) -> Uuid {
    Uuid::from_bytes(v7::lower_bound(pgtime::v7_ms(
        pgtime::unix_us_of_timestamptz(ts),
    )))
}

/// The largest UUIDv7 of the millisecond holding `ts`.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_v7_upper_bound(ts: TimestampWithTimeZone) -> Uuid {
    Uuid::from_bytes(v7::upper_bound(pgtime::v7_ms(
        pgtime::unix_us_of_timestamptz(ts),
    )))
}
