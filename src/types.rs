//! The `uuid7` and `uuid6` types (docs/design.md#the-types): the C functions behind their
//! text and binary input, the validating cast from `uuid`, and the
//! transition functions of `min()` and `max()`. Their SQL (types, operators,
//! operator classes, casts, aggregates) is hand-written in `sql/`; what core
//! `uuid` already does for the same 16 bytes (output, send, comparison,
//! hashing, sort support) is core's own functions, declared `LANGUAGE
//! internal` there.

use std::ffi::CStr;

use pgrx::datum::{Internal, Uuid};
use pgrx::prelude::*;
use uuid_ext_core::{layout, parse};

use crate::error;

// In the order PostgreSQL needs them, and one chain: each file requires the
// one before it, so the install script has them in one order whatever order
// pgrx's schema generator meets them in (with two files hanging off the
// types, it placed the casts differently from one run to the next).
extension_sql_file!("../sql/types.sql", name = "uuid_types");
extension_sql_file!(
    "../sql/operators.sql",
    name = "uuid_operators",
    requires = ["uuid_types"]
);
extension_sql_file!(
    "../sql/opclasses.sql",
    name = "uuid_opclasses",
    requires = ["uuid_operators"]
);
extension_sql_file!(
    "../sql/casts.sql",
    name = "uuid_casts",
    requires = ["uuid_opclasses"]
);
extension_sql_file!(
    "../sql/aggregates.sql",
    name = "uuid_aggregates",
    requires = ["uuid_casts"]
);

/// `b`, when it is a UUID of `version` under the RFC 9562 variant; else the
/// 22P02 naming the version it is. `shown` is how the user gave it.
fn checked(b: [u8; 16], version: u8, shown: &dyn Fn() -> String) -> Uuid {
    if layout::version(&b) == Some(version) {
        Uuid::from_bytes(b)
    } else {
        error::wrong_version_for_type(
            version,
            layout::version(&b),
            layout::variant(&b).name(),
            &shown(),
        )
    }
}

/// Text read where it is, never copied: `parse::uuid` refuses anything
/// longer than core's longest form unread, and the error quotes a prefix.
fn text_input(input: &CStr, version: u8) -> Uuid {
    let text = input.to_bytes();
    let b = parse::uuid(text).unwrap_or_else(|| error::invalid_type_text(version, text));
    checked(b, version, &|| input.to_string_lossy().into_owned())
}

fn binary_input(buf: Internal, version: u8) -> Uuid {
    // SAFETY: PostgreSQL calls a receive function with a StringInfo whose
    // data holds `len` bytes, `cursor` of them already read.
    unsafe {
        let datum = buf.unwrap().expect("a receive function gets a buffer");
        let si = datum.cast_mut_ptr::<pg_sys::StringInfoData>();
        let left = (*si).len - (*si).cursor;
        if left != 16 {
            error::invalid_type_binary(version, left);
        }
        let mut b = [0u8; 16];
        let start = (*si).data.add((*si).cursor as usize).cast::<u8>();
        b.copy_from_slice(std::slice::from_raw_parts(start, 16));
        (*si).cursor += 16;
        checked(b, version, &|| Uuid::from_bytes(b).to_string())
    }
}

#[pg_extern(sql = false, immutable, strict, parallel_safe)]
fn uuid7_in(input: &CStr) -> Uuid {
    text_input(input, 7)
}

#[pg_extern(sql = false, immutable, strict, parallel_safe)]
fn uuid6_in(input: &CStr) -> Uuid {
    text_input(input, 6)
}

#[pg_extern(sql = false, immutable, strict, parallel_safe)]
fn uuid7_recv(buf: Internal) -> Uuid {
    binary_input(buf, 7)
}

#[pg_extern(sql = false, immutable, strict, parallel_safe)]
fn uuid6_recv(buf: Internal) -> Uuid {
    binary_input(buf, 6)
}

/// The casts `uuid → uuid7` and `uuid → uuid6` run once per row of an insert
/// into such a column with `DEFAULT uuid_generate_v7()`: they check the 16
/// bytes where they are and return the very datum they were given (the
/// layouts are the same), with no copy, no allocation, and not pgrx's
/// argument and result conversion. Declared in sql/casts.sql as
/// `uuid7(uuid)` and `uuid6(uuid)`, STRICT (never called with NULL).
///
/// # Safety
///
/// PostgreSQL calls these with a valid `fcinfo` holding one non-null `uuid`
/// argument: a pointer to 16 bytes.
unsafe fn cast_checked(fcinfo: pg_sys::FunctionCallInfo, version: u8) -> pg_sys::Datum {
    // SAFETY: as the function's contract says.
    unsafe {
        let datum = pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0);
        let b = *datum.cast_mut_ptr::<[u8; 16]>();
        if layout::version(&b) != Some(version) {
            checked(b, version, &|| Uuid::from_bytes(b).to_string());
        }
        datum
    }
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_uuid7_of_uuid() -> &'static pg_sys::Pg_finfo_record {
    const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
    &V1
}

#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn uuid7_of_uuid(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: called by PostgreSQL as the cast function (sql/casts.sql).
    unsafe { cast_checked(fcinfo, 7) }
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_uuid6_of_uuid() -> &'static pg_sys::Pg_finfo_record {
    const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
    &V1
}

#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn uuid6_of_uuid(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: called by PostgreSQL as the cast function (sql/casts.sql).
    unsafe { cast_checked(fcinfo, 6) }
}

/// The greater of two UUIDs as unsigned octet strings (`max()` of either
/// type: their bytes compare alike).
#[pg_extern(sql = false, immutable, strict, parallel_safe)]
fn uuid_bytes_larger(a: Uuid, b: Uuid) -> Uuid {
    if a.as_bytes() >= b.as_bytes() {
        a
    } else {
        b
    }
}

#[pg_extern(sql = false, immutable, strict, parallel_safe)]
fn uuid_bytes_smaller(a: Uuid, b: Uuid) -> Uuid {
    if a.as_bytes() <= b.as_bytes() {
        a
    } else {
        b
    }
}
