//! Time scales: Unix time, the Gregorian 100 ns count of UUIDv1/v6, and the
//! 48-bit millisecond field of UUIDv7.

/// 100 ns intervals from 1582-10-15 00:00 UTC (the Gregorian reform, RFC 9562
/// §5.1) to the Unix epoch.
pub const GREGORIAN_TO_UNIX_100NS: u64 = 0x01B2_1DD2_1381_4000;

/// The last millisecond a UUIDv7's 48-bit `unix_ts_ms` holds:
/// 10889-08-02 05:31:50.655 UTC.
pub const MAX_UNIX_MS: u64 = (1 << 48) - 1;

pub const NS_PER_MS: u64 = 1_000_000;
pub const US_PER_MS: i64 = 1_000;

/// The UUIDv7 millisecond holding the Unix time `unix_us` (microseconds, may
/// be negative): `None` before 1970 or after [`MAX_UNIX_MS`].
pub fn v7_ms_of_unix_us(unix_us: i64) -> Option<u64> {
    let ms = unix_us.div_euclid(US_PER_MS);
    u64::try_from(ms).ok().filter(|&ms| ms <= MAX_UNIX_MS)
}

/// Unix microseconds at the start of a UUIDv7 millisecond (always in range:
/// 2^48 ms is far inside i64 microseconds).
pub fn unix_us_of_v7_ms(ms: u64) -> i64 {
    debug_assert!(ms <= MAX_UNIX_MS);
    ms as i64 * US_PER_MS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gregorian_offset_is_the_days_between_the_epochs() {
        // 141427 days from 1582-10-15 to 1970-01-01.
        assert_eq!(GREGORIAN_TO_UNIX_100NS, 141_427 * 86_400 * 10_000_000);
    }

    #[test]
    fn v7_ms_range() {
        assert_eq!(v7_ms_of_unix_us(0), Some(0));
        assert_eq!(v7_ms_of_unix_us(999), Some(0));
        assert_eq!(v7_ms_of_unix_us(1000), Some(1));
        assert_eq!(v7_ms_of_unix_us(-1), None);
        let last = MAX_UNIX_MS as i64 * 1000;
        assert_eq!(v7_ms_of_unix_us(last + 999), Some(MAX_UNIX_MS));
        assert_eq!(v7_ms_of_unix_us(last + 1000), None);
        assert_eq!(v7_ms_of_unix_us(i64::MAX), None);
        assert_eq!(v7_ms_of_unix_us(i64::MIN), None);
        assert_eq!(unix_us_of_v7_ms(MAX_UNIX_MS), last);
    }
}
