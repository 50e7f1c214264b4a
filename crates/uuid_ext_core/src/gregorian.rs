//! The 60-bit timestamp of UUIDv1 and UUIDv6: 100 ns intervals since
//! 1582-10-15 00:00 UTC (RFC 9562 §5.1, §5.6).
//!
//! | version | bits 0-47                         | 48-51 | 52-63            |
//! |---------|-----------------------------------|-------|------------------|
//! | v1      | time_low (32) + time_mid (16)     | 1     | time_high (12)   |
//! | v6      | the 48 most significant time bits | 6     | the 12 least     |

use crate::{time::GREGORIAN_TO_UNIX_100NS, Bytes};

fn fields(b: &Bytes) -> (u64, u64, u64) {
    let v = u128::from_be_bytes(*b);
    let first32 = (v >> 96) as u64;
    let next16 = ((v >> 80) & 0xffff) as u64;
    let last12 = ((v >> 64) & 0x0fff) as u64;
    (first32, next16, last12)
}

/// The 60-bit time of a UUIDv1 (time_high, time_mid, time_low reassembled).
pub fn v1_time(b: &Bytes) -> u64 {
    let (time_low, time_mid, time_high) = fields(b);
    (time_high << 48) | (time_mid << 32) | time_low
}

/// The 60-bit time of a UUIDv6 (most significant bits first).
pub fn v6_time(b: &Bytes) -> u64 {
    let (high32, mid16, low12) = fields(b);
    (high32 << 28) | (mid16 << 12) | low12
}

/// Unix microseconds of a 60-bit Gregorian time, truncated as PostgreSQL 18's
/// `uuid_extract_timestamp` does (the count is divided by 10 before the epoch
/// moves, so times before 1970 truncate towards 1582, as core's).
pub fn unix_us(time_100ns: u64) -> i64 {
    (time_100ns / 10) as i64 - (GREGORIAN_TO_UNIX_100NS / 10) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 9562 Appendix A.1 and A.5: both 2022-02-22 19:22:22 UTC.
    const RFC_V1: Bytes = 0xC232AB00_9414_11EC_B3C8_9F6BDECED846_u128.to_be_bytes();
    const RFC_V6: Bytes = 0x1EC9414C_232A_6B00_B3C8_9F6BDECED846_u128.to_be_bytes();
    const RFC_TIME: u64 = 0x1EC_9414_C232_AB00;

    #[test]
    fn rfc_vectors() {
        assert_eq!(v1_time(&RFC_V1), RFC_TIME);
        assert_eq!(v6_time(&RFC_V6), RFC_TIME);
        assert_eq!(unix_us(RFC_TIME), 1_645_557_742_000_000);
    }

    #[test]
    fn epoch_edges() {
        assert_eq!(unix_us(GREGORIAN_TO_UNIX_100NS), 0);
        assert_eq!(unix_us(0), -12_219_292_800_000_000);
        assert_eq!(unix_us(GREGORIAN_TO_UNIX_100NS + 19), 1);
        assert_eq!(
            unix_us((1 << 60) - 1),
            ((1u64 << 60) - 1) as i64 / 10 - 12_219_292_800_000_000
        );
    }
}
