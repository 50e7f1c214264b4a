//! Time to UUID bounds (docs/reference.md#time-to-uuid-bounds), for index and partition range scans,
//! and the conversions between UUIDv1 and UUIDv6.

use pgrx::datum::{TimestampWithTimeZone, Uuid};
use pgrx::prelude::*;
use uuid_ext_core::{layout, v6, v7};

use crate::{error, pgtime};

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

fn v6_bound(ts: TimestampWithTimeZone, bound: fn(i64) -> Option<[u8; 16]>) -> Uuid {
    pgtime::unix_us_of_timestamptz(ts)
        .and_then(bound)
        .map(Uuid::from_bytes)
        .unwrap_or_else(|| error::v6_timestamp_out_of_range())
}

/// The smallest UUIDv6 of the microsecond holding `ts`.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_v6_lower_bound(ts: TimestampWithTimeZone) -> Uuid {
    v6_bound(ts, v6::lower_bound)
}

/// The largest UUIDv6 of the microsecond holding `ts`.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_v6_upper_bound(ts: TimestampWithTimeZone) -> Uuid {
    v6_bound(ts, v6::upper_bound)
}

/// A UUIDv1 with its time fields reordered into a UUIDv6 (RFC 9562 §5.6).
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_v1_to_v6(id: Uuid) -> Uuid {
    v6::from_v1(id.as_bytes())
        .map(Uuid::from_bytes)
        .unwrap_or_else(|| error::wrong_version("uuid_v1_to_v6", 1, layout::version(id.as_bytes())))
}

/// A UUIDv6 with its time fields reordered back into a UUIDv1.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_v6_to_v1(id: Uuid) -> Uuid {
    v6::to_v1(id.as_bytes())
        .map(Uuid::from_bytes)
        .unwrap_or_else(|| error::wrong_version("uuid_v6_to_v1", 6, layout::version(id.as_bytes())))
}
