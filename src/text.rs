//! Compact text forms of a UUID (docs/reference.md#compact-text-forms): `uuid_encode` and
//! `uuid_decode`. The alphabets, widths and order live in the core.

use pgrx::datum::Uuid;
use pgrx::prelude::*;
use uuid_ext_core::text::{self, Format};

use crate::error;

fn format(name: &str) -> Format {
    Format::parse(name)
        .unwrap_or_else(|| error::unknown_value("UUID text format", name, text::VALID_FORMATS))
}

/// The 16 bytes of `id` in `format`.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_encode(id: Uuid, format: &str) -> String {
    text::encode(id.as_bytes(), self::format(format))
}

/// The UUID `data` encodes in `format`: the inverse of `uuid_encode`.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_decode(data: &str, format: &str) -> Uuid {
    let f = self::format(format);
    // Every form is ASCII of one length: an input too long to quote whole is
    // none, and is refused without being read through.
    if data.len() > f.len() && error::too_long_to_quote(data) {
        error::invalid_text(
            f.name(),
            data,
            &format!("a {f} UUID is {} characters", f.len()),
        );
    }
    text::decode(data, f)
        .map(Uuid::from_bytes)
        .unwrap_or_else(|e| error::invalid_text(f.name(), data, &e.to_string()))
}
