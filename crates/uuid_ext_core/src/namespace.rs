//! The namespace IDs of name-based UUIDs (RFC 9562 §6.6, Table 3).

use crate::Bytes;

pub const DNS: Bytes = 0x6ba7b810_9dad_11d1_80b4_00c04fd430c8_u128.to_be_bytes();
pub const URL: Bytes = 0x6ba7b811_9dad_11d1_80b4_00c04fd430c8_u128.to_be_bytes();
pub const OID: Bytes = 0x6ba7b812_9dad_11d1_80b4_00c04fd430c8_u128.to_be_bytes();
pub const X500: Bytes = 0x6ba7b814_9dad_11d1_80b4_00c04fd430c8_u128.to_be_bytes();

/// The names [`by_name`] knows, for error messages.
pub const VALID_NAMES: &str = "dns, url, oid, x500";

/// The namespace ID of `name` (`dns`, `url`, `oid`, `x500`, in any case),
/// compared where it is: a name of any length is never copied.
pub fn by_name(name: &str) -> Option<Bytes> {
    [("dns", DNS), ("url", URL), ("oid", OID), ("x500", X500)]
        .into_iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name))
        .map(|(_, id)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_any_case() {
        assert_eq!(by_name("dns"), Some(DNS));
        assert_eq!(by_name("URL"), Some(URL));
        assert_eq!(by_name("Oid"), Some(OID));
        assert_eq!(by_name("x500"), Some(X500));
        assert_eq!(by_name("X.500"), None);
        assert_eq!(by_name(""), None);
        assert_eq!(by_name(" dns"), None);
    }
}
