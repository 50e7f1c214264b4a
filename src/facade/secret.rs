//! The type of a façade key's 32 bytes in the key table,
//! `uuid_facade_secret` (docs/facade.md#who-may-call-what): its text and
//! binary forms show the bytes to superusers only.
//!
//! The table is readable by the extension's owner and by
//! `pg_read_all_data`, so that their `pg_dump` works (its condition dumps
//! the rows for superusers only: sql/facade.sql). Every way SQL has to see
//! a value's bytes goes through the type's output or send function (a
//! select, a cast to text, a row's text, COPY, an error's row), and the
//! type has no operator, cast or other function: so a role that may select
//! the table sees the ids, states and dates, and a 42501 for the key.
//! Logical decoding (a walsender or a decoding function, whose role has
//! REPLICATION and could read the WAL anyway) sees them too, so a
//! publication of the table replicates.
//!
//! Input is a superuser's too: PostgreSQL compares two rows byte by byte
//! (`*<`, `record_image_lt`) without the type's functions, so a role that
//! could make a value of bytes it chose could compare it with a stored key
//! and find the key bit by bit. PUBLIC has no USAGE on the type either,
//! nor on the key tables' row types, which would carry it as a field
//! (sql/facade.sql): no other role keeps a copy of a key in a table, a view
//! or a default of its own.

use std::ffi::CStr;

use pgrx::pg_sys;
use pgrx::prelude::*;
use uuid_ext_core::facade::KEY_LEN;

use super::error;

/// Whether this role may see a key's bytes: a superuser, or logical
/// decoding (a historic snapshot is active only there).
fn may_see() -> bool {
    // SAFETY: reads the current role's superuser flag and the snapshot
    // manager's state.
    unsafe { pg_sys::superuser() || pg_sys::HistoricSnapshotActive() }
}

/// Whether this role may make a value of the type: a superuser.
fn may_make() -> bool {
    // SAFETY: reads the current role's superuser flag.
    unsafe { pg_sys::superuser() }
}

/// A new by-reference datum holding `key`.
unsafe fn datum_of(key: &[u8; KEY_LEN]) -> pg_sys::Datum {
    // SAFETY: a palloc'd copy of 32 bytes, the type's internal length.
    unsafe {
        let p = pg_sys::palloc(KEY_LEN).cast::<u8>();
        std::ptr::copy_nonoverlapping(key.as_ptr(), p, KEY_LEN);
        pg_sys::Datum::from(p)
    }
}

/// The 32 bytes a datum of the type points to.
unsafe fn bytes_of<'a>(fcinfo: pg_sys::FunctionCallInfo) -> &'a [u8; KEY_LEN] {
    // SAFETY: the function's one argument is a non-null value of the type.
    unsafe { &*pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0).cast_mut_ptr::<[u8; KEY_LEN]>() }
}

/// `\x` and 64 hexadecimal digits, as bytea's hex output writes 32 bytes.
fn parse_text(text: &[u8]) -> Option<zeroize::Zeroizing<[u8; KEY_LEN]>> {
    let hex = text.strip_prefix(b"\\x")?;
    if hex.len() != 2 * KEY_LEN {
        return None;
    }
    let mut key = zeroize::Zeroizing::new([0u8; KEY_LEN]);
    for (i, pair) in hex.chunks(2).enumerate() {
        let digit = |c: u8| (c as char).to_digit(16);
        key[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Some(key)
}

/// The records that say the functions below use PostgreSQL's version-1
/// calling convention.
macro_rules! v1 {
    ($($finfo:ident),*) => {$(
        #[unsafe(no_mangle)]
        #[doc(hidden)]
        pub extern "C" fn $finfo() -> &'static pg_sys::Pg_finfo_record {
            const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
            &V1
        }
    )*};
}
v1!(
    pg_finfo_uuid_facade_secret_in,
    pg_finfo_uuid_facade_secret_out,
    pg_finfo_uuid_facade_secret_recv,
    pg_finfo_uuid_facade_secret_send
);

/// Text input, for superusers only (42501): `\x` followed by 64
/// hexadecimal digits; else 22P02.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn uuid_facade_secret_in(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    if !may_make() {
        error::facade_secret_input();
    }
    // SAFETY: called by PostgreSQL as the type's input function, with a
    // non-null C string (sql/facade.sql).
    unsafe {
        let text = CStr::from_ptr(
            pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0).cast_mut_ptr::<std::ffi::c_char>(),
        );
        match parse_text(text.to_bytes()) {
            Some(key) => datum_of(&key),
            None => error::facade_secret_text(),
        }
    }
}

/// Text output, for superusers (and logical decoding) only; else 42501.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn uuid_facade_secret_out(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    if !may_see() {
        error::facade_secret_hidden();
    }
    // SAFETY: called by PostgreSQL as the type's output function.
    unsafe {
        let key = bytes_of(fcinfo);
        let mut text = zeroize::Zeroizing::new(String::with_capacity(2 + 2 * KEY_LEN + 1));
        text.push_str("\\x");
        for b in key {
            text.push_str(&format!("{b:02x}"));
        }
        text.push('\0');
        pg_sys::Datum::from(pg_sys::pstrdup(text.as_ptr().cast()))
    }
}

/// Binary input, for superusers only (42501): exactly 32 bytes; else 22P03.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn uuid_facade_secret_recv(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    if !may_make() {
        error::facade_secret_input();
    }
    // SAFETY: called by PostgreSQL as the type's receive function, with a
    // StringInfo whose data holds `len` bytes, `cursor` of them read.
    unsafe {
        let si =
            pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0).cast_mut_ptr::<pg_sys::StringInfoData>();
        let left = (*si).len - (*si).cursor;
        if left != KEY_LEN as i32 {
            error::facade_secret_binary(left);
        }
        let start = (*si).data.add((*si).cursor as usize).cast::<u8>();
        (*si).cursor += KEY_LEN as i32;
        let key = &*start.cast::<[u8; KEY_LEN]>();
        datum_of(key)
    }
}

/// Binary output, for superusers (and logical decoding) only; else 42501.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn uuid_facade_secret_send(
    fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    if !may_see() {
        error::facade_secret_hidden();
    }
    // SAFETY: called by PostgreSQL as the type's send function: a bytea
    // of the 32 bytes.
    unsafe {
        let key = bytes_of(fcinfo);
        let out = pg_sys::palloc(pg_sys::VARHDRSZ + KEY_LEN).cast::<u8>();
        pgrx::set_varsize_4b(out.cast(), (pg_sys::VARHDRSZ + KEY_LEN) as i32);
        std::ptr::copy_nonoverlapping(key.as_ptr(), out.add(pg_sys::VARHDRSZ), KEY_LEN);
        pg_sys::Datum::from(out)
    }
}

/// A key's bytes handed to SQL as a `bytea` (the export functions, for
/// superusers): PostgreSQL gets its own copy, and this one is wiped when
/// the value is dropped.
pub struct SecretBytes(pub zeroize::Zeroizing<[u8; KEY_LEN]>);

use pgrx::datum::IntoDatum;

impl IntoDatum for SecretBytes {
    fn into_datum(self) -> Option<pg_sys::Datum> {
        (&self.0[..]).into_datum()
    }

    fn type_oid() -> pg_sys::Oid {
        pg_sys::BYTEAOID
    }
}

// SAFETY: the datum returned is the function's result.
unsafe impl pgrx::callconv::BoxRet for SecretBytes {
    unsafe fn box_into<'fcx>(
        self,
        fcinfo: &mut pgrx::callconv::FcInfo<'fcx>,
    ) -> pgrx::datum::Datum<'fcx> {
        // SAFETY: as pgrx's own results.
        unsafe { fcinfo.return_optional_datum(self.into_datum()) }
    }
}

// SAFETY: the SQL type is bytea, as `[u8]`'s, whose datum it makes.
unsafe impl pgrx::pgrx_sql_entity_graph::metadata::SqlTranslatable for SecretBytes {
    const TYPE_IDENT: &'static str =
        <[u8] as pgrx::pgrx_sql_entity_graph::metadata::SqlTranslatable>::TYPE_IDENT;
    const TYPE_ORIGIN: pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin =
        pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin::External;
    const ARGUMENT_SQL: Result<
        pgrx::pgrx_sql_entity_graph::metadata::SqlMappingRef,
        pgrx::pgrx_sql_entity_graph::metadata::ArgumentError,
    > = <[u8] as pgrx::pgrx_sql_entity_graph::metadata::SqlTranslatable>::ARGUMENT_SQL;
    const RETURN_SQL: Result<
        pgrx::pgrx_sql_entity_graph::metadata::ReturnsRef,
        pgrx::pgrx_sql_entity_graph::metadata::ReturnsError,
    > = <[u8] as pgrx::pgrx_sql_entity_graph::metadata::SqlTranslatable>::RETURN_SQL;
}

/// 42501 unless the current user is a superuser, naming `function`: the key
/// functions that move key material (docs/facade.md#who-may-call-what).
pub(super) fn superuser_only(function: &str) {
    // SAFETY: reads the current user's superuser flag.
    if !unsafe { pg_sys::superuser() } {
        error::facade_superuser_only(function);
    }
}

#[cfg(test)]
mod tests {
    use super::parse_text;

    #[test]
    fn text_form() {
        let hex = format!("\\x{}", "0a".repeat(32));
        assert_eq!(*parse_text(hex.as_bytes()).unwrap(), [10u8; 32]);
        assert_eq!(
            *parse_text(hex.to_uppercase().replace("\\X", "\\x").as_bytes()).unwrap(),
            [10u8; 32]
        );
        for bad in [
            "",
            "\\x",
            &"0a".repeat(32),
            &format!("\\x{}", "0a".repeat(31)),
            &format!("{hex}00"),
            &format!("\\x{}zz", "0a".repeat(31)),
        ] {
            assert!(parse_text(bad.as_bytes()).is_none(), "{bad}");
        }
    }
}
