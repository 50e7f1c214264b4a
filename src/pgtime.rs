//! PostgreSQL's `timestamp` and `timestamptz` against Unix time (the
//! arithmetic is the core's, `uuid_ext_core::timestamp`).

use pgrx::datum::{Timestamp, TimestampWithTimeZone};
use uuid_ext_core::timestamp;

use crate::error;

/// Unix microseconds of a finite timestamptz; `None` for ±infinity.
pub fn unix_us_of_timestamptz(ts: TimestampWithTimeZone) -> Option<i64> {
    ts.is_finite()
        .then(|| timestamp::unix_us_of_pg_us(i64::from(ts)))
}

/// Unix microseconds of a finite timestamp read as UTC; `None` for ±infinity.
pub fn unix_us_of_timestamp(ts: Timestamp) -> Option<i64> {
    ts.is_finite()
        .then(|| timestamp::unix_us_of_pg_us(i64::from(ts)))
}

/// The UUIDv7 millisecond of a Unix time, or 22008.
pub fn v7_ms(unix_us: Option<i64>) -> u64 {
    unix_us
        .and_then(timestamp::v7_ms_of_unix_us)
        .unwrap_or_else(|| error::v7_timestamp_out_of_range())
}

pub fn timestamptz_of_unix_us(unix_us: i64) -> TimestampWithTimeZone {
    // Every time a UUID can carry (1582 to 10889) is a valid timestamptz.
    TimestampWithTimeZone::try_from(timestamp::pg_us_of_unix_us(unix_us))
        .unwrap_or_else(|_| error::v7_timestamp_out_of_range())
}

pub fn timestamp_of_unix_us(unix_us: i64) -> Timestamp {
    Timestamp::try_from(timestamp::pg_us_of_unix_us(unix_us))
        .unwrap_or_else(|_| error::v7_timestamp_out_of_range())
}
