//! pg_uuidv7 1.6's functions under their names, signatures and labels, so
//! its users can switch (docs/reference.md#pg_uuidv7-compatibility). The
//! `*_to_v7` functions are STABLE, as pg_uuidv7 has them: its users' index
//! scans rely on it; new code uses the IMMUTABLE bounds of bounds.rs. None
//! of them touches the sequencer.

use pgrx::datum::{Timestamp, TimestampWithTimeZone, Uuid};
use pgrx::prelude::*;
use uuid_ext_core::{timestamp, v7};

use crate::extract::uuid_extract_timestamp;
use crate::generate::random_bytes;
use crate::pgtime;

fn v7_at(ms: u64, zero: bool) -> Uuid {
    let tail = if zero {
        0
    } else {
        u128::from_ne_bytes(random_bytes())
    };
    Uuid::from_bytes(v7::from_ms_and_tail(ms, tail))
}

/// pg_uuidv7: a UUIDv7 at the millisecond of `ts`, its other bits random,
/// or 0 with `zero`. Never touches the sequencer. STABLE as pg_uuidv7 has it.
#[pg_extern(stable, strict, parallel_safe)]
fn uuid_timestamptz_to_v7(ts: TimestampWithTimeZone, zero: default!(bool, false)) -> Uuid {
    v7_at(pgtime::v7_ms(pgtime::unix_us_of_timestamptz(ts)), zero)
}

/// pg_uuidv7: as `uuid_timestamptz_to_v7`, the timestamp read as UTC.
#[pg_extern(stable, strict, parallel_safe)]
fn uuid_timestamp_to_v7(ts: Timestamp, zero: default!(bool, false)) -> Uuid {
    v7_at(pgtime::v7_ms(pgtime::unix_us_of_timestamp(ts)), zero)
}

/// pg_uuidv7's name for `uuid_extract_timestamp`; STABLE as pg_uuidv7 has it.
#[pg_extern(stable, strict, parallel_safe)]
fn uuid_v7_to_timestamptz(id: Uuid) -> Option<TimestampWithTimeZone> {
    uuid_extract_timestamp(id)
}

/// pg_uuidv7: the time as a `timestamp` in UTC.
#[pg_extern(stable, strict, parallel_safe)]
fn uuid_v7_to_timestamp(id: Uuid) -> Option<Timestamp> {
    timestamp::unix_us(id.as_bytes()).map(pgtime::timestamp_of_unix_us)
}
