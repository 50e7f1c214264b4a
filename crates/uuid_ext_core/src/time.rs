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

/// `unix_ns` (nanoseconds since 1970, may be negative) as UTC text with
/// every digit down to the nanosecond: `2022-02-22 19:22:22.000787353+00`.
/// (PostgreSQL's `timestamptz` stops at the microsecond.)
pub fn format_unix_ns(unix_ns: i128) -> String {
    const NS_PER_S: i128 = 1_000_000_000;
    let secs = unix_ns.div_euclid(NS_PER_S);
    let ns = unix_ns.rem_euclid(NS_PER_S);
    let days = secs.div_euclid(86_400);
    let s = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{ns:09}+00",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, exact for every date a UUID can carry).
fn civil_from_days(days: i128) -> (i128, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i128::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_every_nanosecond() {
        assert_eq!(format_unix_ns(0), "1970-01-01 00:00:00.000000000+00");
        assert_eq!(format_unix_ns(-1), "1969-12-31 23:59:59.999999999+00");
        assert_eq!(
            format_unix_ns(1_645_557_742_000_787_353),
            "2022-02-22 19:22:22.000787353+00"
        );
        assert_eq!(
            format_unix_ns(951_782_400 * 1_000_000_000),
            "2000-02-29 00:00:00.000000000+00"
        );
        // The Gregorian epoch of UUIDv1/v6, and UUIDv7's last millisecond.
        assert_eq!(
            format_unix_ns(-(GREGORIAN_TO_UNIX_100NS as i128) * 100),
            "1582-10-15 00:00:00.000000000+00"
        );
        assert_eq!(
            format_unix_ns(MAX_UNIX_MS as i128 * 1_000_000),
            "10889-08-02 05:31:50.655000000+00"
        );
    }

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
