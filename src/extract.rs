//! Reading UUIDs back (SPEC §2.2) and pg_uuidv7's readers (SPEC §2.4).

use pgrx::datum::{Timestamp, TimestampWithTimeZone, Uuid};
use pgrx::prelude::*;
use uuid_ext_core::{layout, read};

use crate::pgtime;

/// The time in a UUIDv1, v6 (to the microsecond) or v7 (to the millisecond);
/// NULL for other versions and variants.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_extract_timestamp(id: Uuid) -> Option<TimestampWithTimeZone> {
    read::unix_us(id.as_bytes()).map(pgtime::timestamptz_of_unix_us)
}

/// The version nibble under the RFC 9562 variant, else NULL.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_extract_version(id: Uuid) -> Option<i16> {
    layout::version(id.as_bytes()).map(i16::from)
}

/// pg_uuidv7's name for `uuid_extract_timestamp`; STABLE as pg_uuidv7 has it.
#[pg_extern(stable, strict, parallel_safe)]
fn uuid_v7_to_timestamptz(id: Uuid) -> Option<TimestampWithTimeZone> {
    uuid_extract_timestamp(id)
}

/// pg_uuidv7: the time as a `timestamp` in UTC.
#[pg_extern(stable, strict, parallel_safe)]
fn uuid_v7_to_timestamp(id: Uuid) -> Option<Timestamp> {
    read::unix_us(id.as_bytes()).map(pgtime::timestamp_of_unix_us)
}
