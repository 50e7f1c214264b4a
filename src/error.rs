//! Every ERROR the extension raises, with its SQLSTATE (SPEC §6), in one place.

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

/// The range a UUIDv7's 48-bit millisecond field holds, for error details.
pub const V7_RANGE: &str =
    "A UUIDv7 holds times from 1970-01-01 00:00:00 UTC to 10889-08-02 05:31:50.655 UTC.";

#[track_caller]
fn raise(code: PgSqlErrorCode, message: String, detail: Option<&str>, hint: Option<&str>) -> ! {
    let mut report = ErrorReport::new(code, message, "uuid_ext");
    if let Some(d) = detail {
        report = report.set_detail(d);
    }
    if let Some(h) = hint {
        report = report.set_hint(h);
    }
    report.report(PgLogLevel::ERROR);
    unreachable!("ERROR does not return")
}

/// 22008: a timestamp given to a UUIDv7 function is outside what it holds.
#[track_caller]
pub fn v7_timestamp_out_of_range() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        "timestamp out of range for a UUIDv7".into(),
        Some(V7_RANGE),
        None,
    )
}

/// 22008: `uuid_generate_v7(shift)` would leave the UUIDv7 time range.
#[track_caller]
pub fn v7_shift_out_of_range() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        "shifted time out of range for a UUIDv7".into(),
        Some(V7_RANGE),
        Some("Use a finite shift that keeps the time within that range."),
    )
}

/// 22008: the sequencer reached the last value its time field holds.
#[track_caller]
pub fn sequence_exhausted(version: u8) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        format!("UUIDv{version} time field exhausted: no later UUIDv{version} can be made"),
        Some(V7_RANGE),
        Some("Check the system clock; the sequencer never wraps around."),
    )
}

/// XX000: the operating system would not seed the random generator.
#[track_caller]
pub fn random_unavailable(cause: &uuid_ext_core::rng::SeedError) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
        "could not generate random values".into(),
        Some(&cause.to_string()),
        None,
    )
}
