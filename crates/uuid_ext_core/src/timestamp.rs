//! A UUID's time, read, and the time scales it is read in: Unix time, the
//! 48-bit millisecond of UUIDv7 (RFC 9562 §5.7), the 60-bit count of 100 ns
//! since 1582-10-15 00:00 UTC of UUIDv1 and UUIDv6 (§5.1, §5.6), and
//! PostgreSQL's microseconds since 2000-01-01.
//!
//! Where the time lies in each version:
//!
//! | version | bits 0-47                         | 48-51 | 52-63            |
//! |---------|-----------------------------------|-------|------------------|
//! | v1      | time_low (32) + time_mid (16)     | 1     | time_high (12)   |
//! | v6      | the 48 most significant time bits | 6     | the 12 least     |
//! | v7      | `unix_ts_ms`                      | 7     | `rand_a`         |

use crate::{layout, Bytes};

/// 100 ns intervals from 1582-10-15 00:00 UTC (the Gregorian reform, RFC 9562
/// §5.1) to the Unix epoch.
pub const GREGORIAN_TO_UNIX_100NS: u64 = 0x01B2_1DD2_1381_4000;

/// The last millisecond a UUIDv7's 48-bit `unix_ts_ms` holds:
/// 10889-08-02 05:31:50.655 UTC.
pub const MAX_UNIX_MS: u64 = (1 << 48) - 1;

pub const NS_PER_MS: u64 = 1_000_000;
pub const US_PER_MS: i64 = 1_000;

/// Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch.
pub const PG_EPOCH_UNIX_US: i64 = 946_684_800_000_000;

// --- the time a UUID carries ---------------------------------------------------

/// Unix microseconds of the time in a UUIDv1, v6 or v7 (v1 and v6 truncated
/// from 100 ns, v7 at its millisecond). `None` for other versions and for
/// variants other than RFC 9562's, whose bits carry no time.
pub fn unix_us(b: &Bytes) -> Option<i64> {
    match layout::version(b)? {
        1 => Some(unix_us_of_gregorian(v1_time(b))),
        6 => Some(unix_us_of_gregorian(v6_time(b))),
        7 => Some(unix_us_of_v7_ms(v7_unix_ms(b))),
        _ => None,
    }
}

/// The time of a UUIDv1, v6 or v7 to every digit it holds, in Unix
/// nanoseconds: v1 and v6 to 100 ns; v7 the millisecond plus `rand_a` read as
/// 1/4096 ms (RFC 9562 §6.2 Method 3), cut to the nanosecond. `None` where
/// [`unix_us`] is.
pub fn unix_ns(b: &Bytes) -> Option<i128> {
    match layout::version(b)? {
        1 => Some(unix_ns_of_gregorian(v1_time(b))),
        6 => Some(unix_ns_of_gregorian(v6_time(b))),
        7 => {
            let rand_a = ((u128::from_be_bytes(*b) >> 64) & 0xfff) as u16;
            Some(i128::from(v7_unix_ms(b)) * 1_000_000 + i128::from(rand_a) * 1_000_000 / 4096)
        }
        _ => None,
    }
}

/// A UUIDv7's `unix_ts_ms`, the first 48 bits.
pub fn v7_unix_ms(b: &Bytes) -> u64 {
    (u128::from_be_bytes(*b) >> 80) as u64
}

/// The first 32 bits, the next 16, and the 12 after the version.
fn gregorian_fields(b: &Bytes) -> (u64, u64, u64) {
    let v = u128::from_be_bytes(*b);
    let first32 = (v >> 96) as u64;
    let next16 = ((v >> 80) & 0xffff) as u64;
    let last12 = ((v >> 64) & 0x0fff) as u64;
    (first32, next16, last12)
}

/// The 60-bit time of a UUIDv1 (time_high, time_mid, time_low reassembled).
pub fn v1_time(b: &Bytes) -> u64 {
    let (time_low, time_mid, time_high) = gregorian_fields(b);
    (time_high << 48) | (time_mid << 32) | time_low
}

/// The 60-bit time of a UUIDv6 (most significant bits first).
pub fn v6_time(b: &Bytes) -> u64 {
    let (high32, mid16, low12) = gregorian_fields(b);
    (high32 << 28) | (mid16 << 12) | low12
}

// --- from one scale to another -------------------------------------------------

/// Unix microseconds of a 60-bit Gregorian time, truncated as PostgreSQL 18's
/// `uuid_extract_timestamp` does (the count is divided by 10 before the epoch
/// moves, so times before 1970 truncate towards 1582, as core's).
pub fn unix_us_of_gregorian(time_100ns: u64) -> i64 {
    (time_100ns / 10) as i64 - (GREGORIAN_TO_UNIX_100NS / 10) as i64
}

/// Unix nanoseconds of a 60-bit Gregorian time, exactly.
pub fn unix_ns_of_gregorian(time_100ns: u64) -> i128 {
    (i128::from(time_100ns) - i128::from(GREGORIAN_TO_UNIX_100NS)) * 100
}

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

/// Unix microseconds of PostgreSQL's microseconds since 2000-01-01 (a finite
/// `timestamp` or `timestamptz`, which never reaches i64's ends).
pub fn unix_us_of_pg_us(pg_us: i64) -> i64 {
    pg_us + PG_EPOCH_UNIX_US
}

/// PostgreSQL's microseconds since 2000-01-01 of Unix microseconds.
pub fn pg_us_of_unix_us(unix_us: i64) -> i64 {
    unix_us - PG_EPOCH_UNIX_US
}

/// True for PostgreSQL's infinite `interval` (17 and later): every field at
/// its type's maximum (`infinity`) or minimum (`-infinity`), as its
/// `INTERVAL_NOT_FINITE` reads it.
pub fn interval_is_infinite(months: i32, days: i32, micros: i64) -> bool {
    (months, days, micros) == (i32::MAX, i32::MAX, i64::MAX)
        || (months, days, micros) == (i32::MIN, i32::MIN, i64::MIN)
}

// --- as text -------------------------------------------------------------------

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
    fn only_the_two_infinite_intervals_are_infinite() {
        assert!(interval_is_infinite(i32::MAX, i32::MAX, i64::MAX));
        assert!(interval_is_infinite(i32::MIN, i32::MIN, i64::MIN));
        // One field short of it is a (huge) finite interval.
        assert!(!interval_is_infinite(i32::MAX, i32::MAX, i64::MAX - 1));
        assert!(!interval_is_infinite(i32::MIN, i32::MAX, i64::MAX));
        assert!(!interval_is_infinite(0, 0, 0));
    }

    // RFC 9562 Appendix A.1, A.5 and A.6: all three 2022-02-22 19:22:22 UTC.
    const RFC_V1: Bytes = 0xC232AB00_9414_11EC_B3C8_9F6BDECED846_u128.to_be_bytes();
    const RFC_V6: Bytes = 0x1EC9414C_232A_6B00_B3C8_9F6BDECED846_u128.to_be_bytes();
    const RFC_V7: Bytes = 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F_u128.to_be_bytes();
    const RFC_TIME: u64 = 0x1EC_9414_C232_AB00;
    const RFC_US: i64 = 1_645_557_742_000_000;

    #[test]
    fn rfc_vectors() {
        assert_eq!(v1_time(&RFC_V1), RFC_TIME);
        assert_eq!(v6_time(&RFC_V6), RFC_TIME);
        assert_eq!(unix_us_of_gregorian(RFC_TIME), RFC_US);
        assert_eq!(v7_unix_ms(&RFC_V7), 0x017F22E279B0);
    }

    #[test]
    fn rfc_vectors_agree() {
        assert_eq!(unix_us(&RFC_V1), Some(RFC_US));
        assert_eq!(unix_us(&RFC_V6), Some(RFC_US));
        assert_eq!(unix_us(&RFC_V7), Some(RFC_US));
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
        for b in [v4, layout::NIL, layout::MAX, ms] {
            assert_eq!(unix_ns(&b), None);
        }
    }

    #[test]
    fn every_digit_of_the_time() {
        assert_eq!(unix_ns(&RFC_V1), Some(i128::from(RFC_US) * 1000));
        assert_eq!(unix_ns(&RFC_V6), Some(i128::from(RFC_US) * 1000));
        // 0xCC3 / 4096 ms = 797.607421875 µs
        assert_eq!(unix_ns(&RFC_V7), Some(1_645_557_742_000_797_607));
        // 100 ns precision survives in unix_ns, not in unix_us.
        let v6 = 0x1EC9414C_232A_6B0F_B3C8_9F6BDECED846_u128.to_be_bytes();
        assert_eq!(unix_ns(&v6), Some(1_645_557_742_000_001_500));
        assert_eq!(unix_us(&v6), Some(1_645_557_742_000_001));
    }

    #[test]
    fn epoch_edges() {
        assert_eq!(unix_us_of_gregorian(GREGORIAN_TO_UNIX_100NS), 0);
        assert_eq!(unix_us_of_gregorian(0), -12_219_292_800_000_000);
        assert_eq!(unix_us_of_gregorian(GREGORIAN_TO_UNIX_100NS + 19), 1);
        assert_eq!(
            unix_us_of_gregorian((1 << 60) - 1),
            ((1u64 << 60) - 1) as i64 / 10 - 12_219_292_800_000_000
        );
        assert_eq!(unix_ns_of_gregorian(GREGORIAN_TO_UNIX_100NS), 0);
        assert_eq!(unix_ns_of_gregorian(0), -12_219_292_800_000_000_000);
        assert_eq!(unix_ns_of_gregorian(GREGORIAN_TO_UNIX_100NS - 1), -100);
    }

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
    fn postgres_epoch_is_the_days_between_the_epochs() {
        // 10957 days from 1970-01-01 to 2000-01-01.
        assert_eq!(PG_EPOCH_UNIX_US, 10_957 * 86_400 * 1_000_000);
        assert_eq!(unix_us_of_pg_us(0), PG_EPOCH_UNIX_US);
        assert_eq!(pg_us_of_unix_us(0), -PG_EPOCH_UNIX_US);
        assert_eq!(pg_us_of_unix_us(unix_us_of_pg_us(-1)), -1);
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
