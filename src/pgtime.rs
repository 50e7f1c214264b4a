//! PostgreSQL's time (microseconds since 2000-01-01) against Unix time.

use pgrx::datum::{Timestamp, TimestampWithTimeZone};

use crate::error;

/// Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch.
pub const PG_EPOCH_UNIX_US: i64 = 946_684_800_000_000;

/// Unix microseconds of a finite timestamptz; `None` for ±infinity.
pub fn unix_us_of_timestamptz(ts: TimestampWithTimeZone) -> Option<i64> {
    ts.is_finite().then(|| i64::from(ts) + PG_EPOCH_UNIX_US)
}

/// Unix microseconds of a finite timestamp read as UTC; `None` for ±infinity.
pub fn unix_us_of_timestamp(ts: Timestamp) -> Option<i64> {
    ts.is_finite().then(|| i64::from(ts) + PG_EPOCH_UNIX_US)
}

/// The UUIDv7 millisecond of a Unix time, or 22008.
pub fn v7_ms(unix_us: Option<i64>) -> u64 {
    unix_us
        .and_then(uuid_ext_core::time::v7_ms_of_unix_us)
        .unwrap_or_else(|| error::v7_timestamp_out_of_range())
}

pub fn timestamptz_of_unix_us(unix_us: i64) -> TimestampWithTimeZone {
    // Every time a UUID can carry (1582 to 10889) is a valid timestamptz.
    TimestampWithTimeZone::try_from(unix_us - PG_EPOCH_UNIX_US)
        .unwrap_or_else(|_| error::v7_timestamp_out_of_range())
}

pub fn timestamp_of_unix_us(unix_us: i64) -> Timestamp {
    Timestamp::try_from(unix_us - PG_EPOCH_UNIX_US)
        .unwrap_or_else(|_| error::v7_timestamp_out_of_range())
}
