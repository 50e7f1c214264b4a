//! Reading a UUID back: the time it carries, by version.

use crate::{gregorian, layout, time, v7, Bytes};

/// Unix microseconds of the time in a UUIDv1, v6 or v7 (v1 and v6 truncated
/// from 100 ns, v7 at its millisecond). `None` for other versions and for
/// variants other than RFC 9562's, whose bits carry no time.
pub fn unix_us(b: &Bytes) -> Option<i64> {
    match layout::version(b)? {
        1 => Some(gregorian::unix_us(gregorian::v1_time(b))),
        6 => Some(gregorian::unix_us(gregorian::v6_time(b))),
        7 => Some(time::unix_us_of_v7_ms(v7::unix_ms(b))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RFC_US: i64 = 1_645_557_742_000_000; // 2022-02-22 19:22:22 UTC

    #[test]
    fn rfc_vectors_agree() {
        let v1 = 0xC232AB00_9414_11EC_B3C8_9F6BDECED846_u128.to_be_bytes();
        let v6 = 0x1EC9414C_232A_6B00_B3C8_9F6BDECED846_u128.to_be_bytes();
        let v7 = 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F_u128.to_be_bytes();
        assert_eq!(unix_us(&v1), Some(RFC_US));
        assert_eq!(unix_us(&v6), Some(RFC_US));
        assert_eq!(unix_us(&v7), Some(RFC_US));
    }

    #[test]
    fn no_time_in_other_versions_or_variants() {
        let v4 = 0x919108f7_52d1_4320_9bac_f847db4148a8_u128.to_be_bytes();
        assert_eq!(unix_us(&v4), None);
        assert_eq!(unix_us(&layout::NIL), None);
        assert_eq!(unix_us(&layout::MAX), None);
        // A v7 nibble under the Microsoft variant is not a UUIDv7.
        let ms = 0x017F22E2_79B0_7CC3_D8C4_DC0C0C07398F_u128.to_be_bytes();
        assert_eq!(unix_us(&ms), None);
    }
}
