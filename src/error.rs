//! Every ERROR the extension raises, with its SQLSTATE (docs/reference.md#errors), in one place;
//! the façade's are in `facade/error.rs` (docs/facade.md#errors).

use std::borrow::Cow;
use std::fmt;

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{PgLogLevel, PgSqlErrorCode};

/// The range a UUIDv7's 48-bit millisecond field holds, for error details.
pub const V7_RANGE: &str =
    "A UUIDv7 holds times from 1970-01-01 00:00:00 UTC to 10889-08-02 05:31:50.655 UTC.";
/// The range a UUIDv6's 60-bit time holds.
pub const V6_RANGE: &str =
    "A UUIDv6 holds times from 1582-10-15 00:00:00 UTC to 5236-03-31 21:21:00.684697 UTC.";

#[track_caller]
pub(crate) fn raise(
    code: PgSqlErrorCode,
    message: String,
    detail: Option<&str>,
    hint: Option<&str>,
) -> ! {
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

/// How many characters of an input a message quotes. A message is a Rust
/// `String`, and Rust aborts the whole process when an allocation fails (under
/// `vm.overcommit_memory = 2` or a `ulimit -v`, a server crash): no message
/// grows with the input.
pub const QUOTED: usize = 64;

/// An input as a message quotes it: all of it when it has at most [`QUOTED`]
/// characters (the message is as it always was), else its first [`QUOTED`]
/// characters and `...`, and then `cut` is its length in bytes, for the detail.
pub struct Quoted<'a> {
    text: Cow<'a, str>,
    pub cut: Option<usize>,
}

impl<'a> Quoted<'a> {
    pub fn of(given: &'a str) -> Self {
        match given.char_indices().nth(QUOTED) {
            Some((at, _)) => Quoted {
                text: Cow::Borrowed(&given[..at]),
                cut: Some(given.len()),
            },
            None => Quoted {
                text: Cow::Borrowed(given),
                cut: None,
            },
        }
    }

    /// The same for bytes that may not be UTF-8 (a `cstring`), each invalid
    /// sequence shown as U+FFFD. Only a prefix is read: [`QUOTED`] characters
    /// take at most 4 bytes each, and a character cut at the end of the
    /// prefix lies after them.
    pub fn of_bytes(given: &'a [u8]) -> Self {
        let head = String::from_utf8_lossy(&given[..given.len().min(4 * QUOTED + 4)]);
        let Some(at) = head.char_indices().nth(QUOTED).map(|(at, _)| at) else {
            return Quoted {
                text: head,
                cut: None,
            };
        };
        let text = match head {
            Cow::Borrowed(s) => Cow::Borrowed(&s[..at]),
            Cow::Owned(mut s) => {
                s.truncate(at);
                Cow::Owned(s)
            }
        };
        Quoted {
            text,
            cut: Some(given.len()),
        }
    }
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)?;
        if self.cut.is_some() {
            f.write_str("...")?;
        }
        Ok(())
    }
}

/// Whether a message would quote only part of `given`: then it is longer
/// than any valid form of anything the extension reads as text.
pub fn too_long_to_quote(given: &str) -> bool {
    given.char_indices().nth(QUOTED).is_some()
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

/// 22008 in core 18's words (its `uuidv7(interval)`, uuid.c): our
/// `uuidv7(interval)` given an infinite interval.
#[track_caller]
pub fn core_v7_infinite_shift() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        "interval out of range for UUID version 7".into(),
        Some("UUID version 7 does not support infinite intervals."),
        None,
    )
}

/// 22008 in core 18's words: our `uuidv7(interval)` shifted out of the
/// UUIDv7 range.
#[track_caller]
pub fn core_v7_shift_out_of_range() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        "timestamp out of range for UUID version 7".into(),
        Some("UUID version 7 supports timestamps from 1970-01-01 to approximately year 10889."),
        None,
    )
}

/// 22008: a timestamp given to a UUIDv6 function is outside what it holds.
#[track_caller]
pub fn v6_timestamp_out_of_range() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        "timestamp out of range for a UUIDv6".into(),
        Some(V6_RANGE),
        None,
    )
}

/// 22008: the sequencer reached the last value its time field holds.
#[track_caller]
pub fn sequence_exhausted(version: u8) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
        format!("UUIDv{version} time field exhausted: no later UUIDv{version} can be made"),
        Some(if version == 6 { V6_RANGE } else { V7_RANGE }),
        Some("Check the system clock; the sequencer never wraps around."),
    )
}

/// An operating-system error as PostgreSQL words one (`Permission denied`),
/// without Rust's ` (os error 13)`.
pub fn io_cause(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The horizon file could not be written: no UUID above the horizon on disk
/// is handed out. The SQLSTATE follows the cause, as PostgreSQL's
/// `errcode_for_file_access` chooses it. The client sees the file's name in
/// the data directory (as PostgreSQL's own messages name files); the full
/// path goes to the server log only, since roles without
/// `pg_read_all_settings` may not learn where the data directory is.
#[track_caller]
pub fn horizon_unwritable(path: &std::path::Path, cause: &std::io::Error) -> ! {
    let shown = crate::datadir::in_data_dir(path);
    let code = match cause.raw_os_error() {
        Some(libc::EACCES | libc::EPERM | libc::EROFS) => {
            PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE
        }
        Some(libc::ENOSPC | libc::EDQUOT) => PgSqlErrorCode::ERRCODE_DISK_FULL,
        Some(libc::EMFILE | libc::ENFILE) => PgSqlErrorCode::ERRCODE_INSUFFICIENT_RESOURCES,
        Some(libc::ENOENT) => PgSqlErrorCode::ERRCODE_UNDEFINED_FILE,
        Some(libc::EISDIR | libc::ENOTDIR | libc::ENAMETOOLONG) => {
            PgSqlErrorCode::ERRCODE_WRONG_OBJECT_TYPE
        }
        _ => PgSqlErrorCode::ERRCODE_IO_ERROR,
    };
    ErrorReport::new(
        code,
        format!(
            "uuid_ext: could not write \"{}\": {}",
            path.display(),
            io_cause(cause)
        ),
        "uuid_ext",
    )
    .report(PgLogLevel::LOG_SERVER_ONLY);
    raise(
        code,
        format!(
            "could not write the UUID sequencer horizon \"{}\" in the data directory: {}",
            shown.display(),
            io_cause(cause)
        ),
        Some(
            "uuid_ext writes how far its shared sequencer may go to this file, and fsyncs it, \
             before it hands out a UUIDv7 or UUIDv6 beyond the last horizon, so that order \
             survives a restart. No UUID was made.",
        ),
        Some(
            "Free disk space or fix the permissions in the data directory; \
             or set uuid_ext.durable_margin = 0 to order by the clock alone after a restart.",
        ),
    )
}

/// 55000: `uuid_v7_watermark()` where there is no server-wide order to watch.
#[track_caller]
pub fn watermark_unavailable(why: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!("uuid_v7_watermark() needs the shared sequencer: {why}"),
        Some(
            "The watermark watches the one server-wide UUIDv7 sequence and the transactions \
             that drew from it.",
        ),
        Some(
            "Set shared_preload_libraries = 'uuid_ext' (a restart), uuid_ext.monotonicity = shared \
             and uuid_ext.commit_watermark = on.",
        ),
    )
}

/// 55000: `uuid_v7_watermark()` on a standby that has replayed no watermark.
#[track_caller]
pub fn standby_watermark_unavailable() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        "uuid_v7_watermark() on a standby needs the primary's watermark in the WAL: none has been replayed"
            .into(),
        Some(
            "A standby does not see the primary's open transactions; it answers the last watermark \
             the primary wrote to the WAL. The primary writes one when its watermark moves, with \
             uuid_ext.durable_wal = on and uuid_ext.commit_watermark = on.",
        ),
        Some(
            "Set uuid_ext.durable_wal = on on the primary (ALTER SYSTEM, then pg_reload_conf()); \
             after a restart of this standby, the next UUIDv7 made on the primary brings one.",
        ),
    )
}

/// 55000: `uuid_ext_sequencer_reset()` without the shared sequencer.
#[track_caller]
pub fn reset_unavailable() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        "uuid_ext_sequencer_reset() needs the shared sequencer: uuid_ext is not in shared_preload_libraries"
            .into(),
        Some(
            "Without preloading each session orders its own UUIDs from the clock, and a new \
             session starts from the clock: there is nothing server-wide to reset.",
        ),
        Some("Start a new session to follow the clock."),
    )
}

/// 25006: `uuid_ext_sequencer_reset()` on a standby.
#[track_caller]
pub fn reset_in_recovery() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_READ_ONLY_SQL_TRANSACTION,
        "cannot reset the UUID sequencer during recovery".into(),
        Some("A standby follows its primary's sequencer through the WAL."),
        Some(
            "Reset it on the primary; with uuid_ext.durable_wal = on every standby replays the \
             reset. A promoted standby can reset its own.",
        ),
    )
}

/// XX000: a process with no commit-watermark slot drew from the shared word.
#[track_caller]
pub fn no_watermark_slot() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
        "uuid_ext: this process has no commit-watermark slot".into(),
        None,
        Some("Set uuid_ext.commit_watermark = off, or uuid_ext.monotonicity = backend in this session."),
    )
}

/// 22023: an argument that is not one of the values a function knows.
#[track_caller]
pub fn unknown_value(what: &str, given: &str, valid: &str) -> ! {
    let given = Quoted::of(given);
    let detail = match given.cut {
        None => format!("Valid values: {valid}."),
        Some(bytes) => format!("Valid values: {valid}. The value given is {bytes} bytes long."),
    };
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        format!("unknown {what} \"{given}\""),
        Some(&detail),
        None,
    )
}

/// 22023: `uuid_generate_v8(bytea)` given other than 16 bytes.
#[track_caller]
pub fn not_16_bytes(found: usize) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        format!("a UUIDv8 is made of exactly 16 bytes, not {found}"),
        Some("Pass a bytea of 16 bytes; its version and variant bits are written over."),
        None,
    )
}

/// 22023: a conversion given a UUID of another version than it converts.
#[track_caller]
pub fn wrong_version(function: &str, wanted: u8, found: Option<u8>) -> ! {
    let found = match found {
        Some(v) => format!("a UUIDv{v}"),
        None => "a UUID whose variant is not RFC 9562's".into(),
    };
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        format!("{function}() converts a UUIDv{wanted}, not {found}"),
        Some(&format!(
            "Its argument must be a UUIDv{wanted} (version {wanted}, variant RFC 9562)."
        )),
        None,
    )
}

/// 22P02: text that is no UUID in the compact form it was said to be in.
/// `why` begins in lower case; the detail makes it a sentence, after the
/// input's length where the message quotes only part of it.
#[track_caller]
pub fn invalid_text(format: &str, given: &str, why: &str) -> ! {
    let given = Quoted::of(given);
    let detail = match given.cut {
        None => sentence(why),
        Some(bytes) => format!("The input is {bytes} bytes long; {why}."),
    };
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        format!("invalid input syntax for a {format} UUID: \"{given}\""),
        Some(&detail),
        None,
    )
}

/// `why` as a detail message: a capitalised sentence with its full stop.
fn sentence(why: &str) -> String {
    let mut chars = why.chars();
    chars.next().map_or_else(String::new, |first| {
        format!("{}{}.", first.to_uppercase(), chars.as_str())
    })
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

/// 22P02: text that is no UUID, given to `uuid7` or `uuid6` (a `cstring`,
/// in the database's encoding).
#[track_caller]
pub fn invalid_type_text(version: u8, given: &[u8]) -> ! {
    invalid_uuid_text(&format!("uuid{version}"), Quoted::of_bytes(given))
}

/// 22P02 in core's words for its `uuid` type: text that is no UUID.
#[track_caller]
pub fn invalid_core_uuid_text(given: &str) -> ! {
    invalid_uuid_text("uuid", Quoted::of(given))
}

/// `invalid input syntax for type T`, as core's `uuid_in` says it; an input
/// too long to quote whole is longer than the longest form core accepts.
#[track_caller]
fn invalid_uuid_text(type_name: &str, given: Quoted<'_>) -> ! {
    let detail = given.cut.map(|bytes| {
        format!(
            "The input is {bytes} bytes long; a {type_name} is at most {} characters.",
            uuid_ext_core::parse::LONGEST
        )
    });
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        format!("invalid input syntax for type {type_name}: \"{given}\""),
        detail.as_deref(),
        None,
    )
}

/// 22P02: a UUID of another version or variant, given to `uuid7` or `uuid6`
/// (text, binary or cast); the message names what it is.
#[track_caller]
pub fn wrong_version_for_type(version: u8, found: Option<u8>, variant: &str, given: &str) -> ! {
    let found = match found {
        Some(v) => format!("a UUIDv{v}"),
        None => format!("a UUID of the {variant} variant"),
    };
    let given = Quoted::of(given);
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        format!("a uuid{version} holds UUIDv{version}s only, not {found}: \"{given}\""),
        None,
        Some(&format!(
            "Make one with uuid_generate_v{version}(), or keep UUIDs of other versions in a uuid column."
        )),
    )
}

/// 22P03: binary input of `uuid7` or `uuid6` that is not 16 bytes.
#[track_caller]
pub fn invalid_type_binary(version: u8, found: i32) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_BINARY_REPRESENTATION,
        format!("invalid binary input for type uuid{version}: {found} bytes, not 16"),
        None,
        None,
    )
}
