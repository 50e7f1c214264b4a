//! Reading UUIDs back: version, time, every field (docs/reference.md#reading).

use std::ffi::CStr;

use pgrx::datum::{TimestampWithTimeZone, Uuid};
use pgrx::prelude::*;
use pgrx::{direct_function_call, IntoDatum};
use uuid_ext_core::{inspect, layout, parse, timestamp};

use crate::{error, pgtime};

extension_sql_file!("../sql/uuid_fields.sql", name = "uuid_fields", bootstrap);

/// The time in a UUIDv1, v6 (to the microsecond) or v7 (to the millisecond);
/// NULL for other versions and variants.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn uuid_extract_timestamp(id: Uuid) -> Option<TimestampWithTimeZone> {
    timestamp::unix_us(id.as_bytes()).map(pgtime::timestamptz_of_unix_us)
}

/// The same reading of a UUID given as text, for callers that pass text,
/// such as pg_partman's `decoder(col::text)`. Core `uuid`'s own input
/// function parses it, so it takes exactly what a `uuid` column takes;
/// malformed text is core's 22P02. Text longer than the longest form core
/// accepts is refused here, in core's words, before anything is copied.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_extract_timestamp_text(id: &str) -> Option<TimestampWithTimeZone> {
    if id.len() > parse::LONGEST {
        error::invalid_core_uuid_text(id);
    }
    // The text and its NUL on the stack. A text value never holds a NUL
    // byte, so uuid_in reads all of it.
    let mut c = [0u8; parse::LONGEST + 1];
    c[..id.len()].copy_from_slice(id.as_bytes());
    let c = CStr::from_bytes_until_nul(&c).expect("the buffer ends with a NUL");
    // SAFETY: uuid_in reads a NUL-terminated string and returns a palloc'd
    // uuid, or raises an ERROR, which pgrx turns into a Rust panic that
    // unwinds to the function's boundary and is raised again there.
    let parsed = unsafe { direct_function_call::<Uuid>(pg_sys::uuid_in, &[c.into_datum()]) }
        .expect("uuid_in returns a uuid or raises an ERROR");
    uuid_extract_timestamp(parsed)
}

/// Every field of a UUID, by name (the row type `uuid_fields`).
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_inspect(
    id: Uuid,
    fcinfo: pg_sys::FunctionCallInfo,
) -> pgrx::composite_type!('static, "uuid_fields") {
    let f = inspect::inspect(id.as_bytes());
    // The row type by the function's own result type: found wherever the
    // extension's schema is, on the search path or not.
    // SAFETY: PostgreSQL calls this with a valid fcinfo whose flinfo names
    // this function.
    let row_type = unsafe { pg_sys::get_func_rettype((*(*fcinfo).flinfo).fn_oid) };
    let mut row = PgHeapTuple::new_composite_type_by_oid(row_type)
        .expect("uuid_inspect returns the composite type uuid_fields");
    let node = f.node.map(|n| {
        n.iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(":")
    });
    put(&mut row, "version", f.version.map(i16::from));
    put(&mut row, "variant", f.variant.name());
    put(
        &mut row,
        "ts",
        f.unix_us.map(pgtime::timestamptz_of_unix_us),
    );
    put(
        &mut row,
        "ts_exact",
        f.unix_ns.map(timestamp::format_unix_ns),
    );
    put(&mut row, "rand_a", f.rand_a.map(i32::from));
    put(
        &mut row,
        "sub_ms_fraction",
        f.rand_a.map(|r| f64::from(r) / 4096.0),
    );
    put(&mut row, "clock_seq", f.clock_seq.map(i32::from));
    put(&mut row, "node", node);
    put(&mut row, "is_nil", f.is_nil);
    put(&mut row, "is_max", f.is_max);
    row
}

fn put<T: IntoDatum>(row: &mut PgHeapTuple<'static, AllocatedByRust>, field: &str, value: T) {
    // Only a mismatch between this file and sql/uuid_fields.sql fails here.
    row.set_by_name(field, value)
        .unwrap_or_else(|e| panic!("uuid_fields.{field}: {e}"));
}

/// The version nibble under the RFC 9562 variant, else NULL.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_extract_version(id: Uuid) -> Option<i16> {
    layout::version(id.as_bytes()).map(i16::from)
}
