//! The clock every UUID and every lead over it is read from.

/// Nanoseconds since the Unix epoch (0 before it). `clock_gettime` itself,
/// as core's `uuidv7()` reads it: `SystemTime::now().duration_since()` cost
/// another 15 ns a UUID here in checks and `Duration` arithmetic.
#[inline]
pub fn clock_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write; CLOCK_REALTIME always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    match (u64::try_from(ts.tv_sec), u64::try_from(ts.tv_nsec)) {
        (Ok(s), Ok(ns)) => s.saturating_mul(1_000_000_000).saturating_add(ns),
        _ => 0,
    }
}
