//! Durable order (docs/design.md#the-horizon): a horizon on disk that no value passes.
//!
//! A restart rebuilds the sequencer words from the clock, which may have
//! stepped back while the server was down, or may lag a word that bulk loads
//! ran ahead. So the words are never allowed above a *limit* that is already
//! durable: the value a restart can start from. The caller whose value would
//! pass the limit raises it (under a lock, one caller at a time) to that
//! value plus a margin, and makes the new limit durable before anyone uses
//! it; the others find the limit raised and go on. One write per margin of
//! generation; in the common path one more atomic load and a compare.
//!
//! This module holds the rule and the file's format; where the limit lives,
//! the lock and the file are the caller's ([`Horizon`]).

use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use crate::{timestamp, v6, v7};

/// A sequencer word's durable limit.
pub trait Horizon {
    /// Why a limit could not be made durable.
    type Error;
    /// The highest value that may be handed out now: one already on disk.
    fn limit(&self) -> u64;
    /// Returns `Ok(true)` once a limit of at least `needed` is durable and
    /// visible to [`Horizon::limit`]; `Ok(false)`, raising nothing, when the
    /// reset count is no longer `seen` (checked under the lock that orders
    /// raises and resets: a value from before a reset never reaches the disk
    /// after it); or fails leaving the limit as it was.
    fn extend(&self, needed: u64, seen: u64) -> Result<bool, Self::Error>;
    /// The reset count of the words this limit guards ([`crate::sequencer::reset`]);
    /// 0 where nothing resets them.
    #[inline]
    fn resets(&self) -> u64 {
        0
    }
}

/// No persistence: every value may be handed out (a process-local word, or
/// the margin set to 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct Unbounded;

impl Horizon for Unbounded {
    type Error = std::convert::Infallible;

    #[inline]
    fn limit(&self) -> u64 {
        u64::MAX
    }

    fn extend(&self, _needed: u64, _seen: u64) -> Result<bool, Self::Error> {
        Ok(true)
    }
}

/// The limit an extension writes for a value `needed`: a margin above it,
/// at most `max` (the word's last value).
pub fn target(needed: u64, margin: u64, max: u64) -> u64 {
    needed.saturating_add(margin).min(max)
}

/// The body of [`Horizon::extend`], run by the caller under its lock:
/// when `limit` does not cover `needed` yet (another caller may have raised
/// it while this one waited for the lock), `persist`s the new limit, a
/// margin above `needed`, then publishes it ([`raise_all_locked`] for one
/// limit). Returns whether it wrote.
pub fn extend_locked<E>(
    limit: &AtomicU64,
    needed: u64,
    margin: u64,
    max: u64,
    persist: impl FnOnce(u64) -> Result<(), E>,
) -> Result<bool, E> {
    let plan = (needed, target(needed, margin, max));
    raise_all_locked([(limit, Some(plan))], |[new]| persist(new))
}

/// What a background extender should do for one word (the horizon worker's rule): when the
/// limit is less than `headroom` ahead of both the word and the clock's
/// candidate, raise it to a full `margin` ahead, so that a call that follows
/// the clock finds its value already durable; but only while the word was
/// used within `idle` units of the clock (an idle server writes nothing).
/// Returns `(needed, new)` for [`raise_all_locked`], or None.
pub fn ahead(
    word: u64,
    clock: u64,
    limit: u64,
    margin: u64,
    headroom: u64,
    idle: u64,
    max: u64,
) -> Option<(u64, u64)> {
    if margin == 0 || word.saturating_add(idle) < clock {
        return None;
    }
    let base = word.max(clock);
    let needed = base.saturating_add(headroom.min(margin)).min(max);
    if limit >= needed {
        return None;
    }
    Some((needed, target(base, margin, max)))
}

/// Under the caller's lock, for limits that are written together (the file
/// and the WAL record hold both words'): every limit whose plan's `needed`
/// it does not cover is raised to the plan's `new`. `persist` gets every
/// limit's new value (raised, or as it is) and runs once, before any is
/// published. Returns whether it wrote.
///
/// The new limits are stored with `Release` after `persist` returned, and
/// read with `Acquire` by [`Horizon::limit`]: a caller that sees one hands
/// out values only below a limit that was on disk first.
pub fn raise_all_locked<const N: usize, E>(
    plans: [(&AtomicU64, Option<(u64, u64)>); N],
    persist: impl FnOnce([u64; N]) -> Result<(), E>,
) -> Result<bool, E> {
    let now = plans.map(|(limit, _)| limit.load(Ordering::Acquire));
    let mut new = now;
    for (i, (_, plan)) in plans.iter().enumerate() {
        if let Some((needed, target)) = *plan {
            if now[i] < needed {
                debug_assert!(target >= needed);
                new[i] = target;
            }
        }
    }
    if new == now {
        return Ok(false);
    }
    persist(new)?;
    for (i, (limit, _)) in plans.iter().enumerate() {
        limit.fetch_max(new[i], Ordering::Release);
    }
    Ok(true)
}

/// A margin in milliseconds as UUIDv7 word units (48-bit ms, 12-bit
/// fraction, 4-bit counter).
pub fn v7_margin(margin_ms: u64) -> u64 {
    margin_ms.saturating_mul(v7::WORD_UNITS_PER_MS)
}

/// A margin in milliseconds as UUIDv6 word units (16 a 100 ns tick).
pub fn v6_margin(margin_ms: u64) -> u64 {
    margin_ms.saturating_mul(10_000 * v6::WORD_UNITS_PER_TICK)
}

/// The limits of both words, in word units. The file and a WAL record hold
/// them too, the v6 limit there as its 60-bit time ([`v6::persisted`]): the
/// unit of 0.8.0 and earlier, so that a file or a record either release
/// wrote is read right by the other. A kept time is read back as the last
/// word of its tick ([`v6::from_persisted`]), never below the limit written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub v7: u64,
    pub v6: u64,
}

impl Limits {
    /// Each word's larger limit: what replaying `other` over `self` leaves.
    /// Redo only raises, so replaying records twice, out of order, or an
    /// old one over a newer file, ends at the largest of each.
    pub fn max(self, other: Limits) -> Limits {
        Limits {
            v7: self.v7.max(other.v7),
            v6: self.v6.max(other.v6),
        }
    }
}

const MAGIC: &str = "uuid_ext sequencer horizon 1";

fn check(body: &str) -> String {
    let digest = Sha256::digest(body.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The file's text: a header, the two limits in hex (the v7 word, the v6
/// word's 60-bit time) with the times they mean (for a person reading it;
/// ignored when read back), and a checksum of the lines above it.
pub fn encode(limits: &Limits) -> String {
    let (v7_time, v6_time) = (v7_time(limits.v7), v6_time(limits.v6));
    let body = format!(
        "{MAGIC}\nv7 {:016x} {v7_time}\nv6 {:016x} {v6_time}\n",
        limits.v7,
        v6::persisted(limits.v6)
    );
    let sum = check(&body);
    format!("{body}check {sum}\n")
}

/// The millisecond a UUIDv7 word carries, as UTC text.
pub fn v7_time(word: u64) -> String {
    timestamp::format_unix_ns(i128::from(word / v7::WORD_UNITS_PER_MS) * 1_000_000)
}

/// The time a UUIDv6 word (its tick of 100 ns since 1582) carries, as UTC text.
pub fn v6_time(word: u64) -> String {
    timestamp::format_unix_ns(timestamp::unix_ns_of_gregorian(v6::time_of_word(word)))
}

/// Why a file's contents were not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corrupt(pub &'static str);

impl std::fmt::Display for Corrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// Reads what [`encode`] wrote; anything else (truncated, edited, another
/// format) is [`Corrupt`].
pub fn decode(data: &[u8]) -> Result<Limits, Corrupt> {
    let text = std::str::from_utf8(data).map_err(|_| Corrupt("not text"))?;
    let body_end = text
        .rfind("check ")
        .ok_or(Corrupt("no checksum line (truncated?)"))?;
    let (body, tail) = text.split_at(body_end);
    if tail != format!("check {}\n", check(body)) {
        return Err(Corrupt("checksum mismatch"));
    }
    let mut lines = body.lines();
    if lines.next() != Some(MAGIC) {
        return Err(Corrupt("unknown header"));
    }
    let mut field = |name: &str, max: u64| -> Result<u64, Corrupt> {
        let line = lines.next().ok_or(Corrupt("missing line"))?;
        let mut words = line.split(' ');
        if words.next() != Some(name) {
            return Err(Corrupt("lines out of order"));
        }
        let hex = words.next().ok_or(Corrupt("missing value"))?;
        match u64::from_str_radix(hex, 16) {
            Ok(v) if hex.len() == 16 && v <= max => Ok(v),
            _ => Err(Corrupt("value out of range")),
        }
    };
    let limits = Limits {
        v7: field("v7", v7::MAX_WORD)?,
        v6: v6::from_persisted(field("v6", v6::MAX_TIME)?),
    };
    if lines.next().is_some() {
        return Err(Corrupt("extra lines"));
    }
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sequencer::{Session, Stop};
    use std::sync::Mutex;

    /// A horizon whose "disk" is a vector of the limits written, in order.
    struct Recorded {
        limit: AtomicU64,
        margin: u64,
        disk: Mutex<Vec<u64>>,
        fail: bool,
    }

    impl Recorded {
        fn new(margin: u64) -> Self {
            Recorded {
                limit: AtomicU64::new(0),
                margin,
                disk: Mutex::new(Vec::new()),
                fail: false,
            }
        }
        fn on_disk(&self) -> u64 {
            self.disk.lock().unwrap().last().copied().unwrap_or(0)
        }
        fn writes(&self) -> usize {
            self.disk.lock().unwrap().len()
        }
    }

    impl Horizon for Recorded {
        type Error = &'static str;
        fn limit(&self) -> u64 {
            self.limit.load(Ordering::Acquire)
        }
        fn extend(&self, needed: u64, _seen: u64) -> Result<bool, &'static str> {
            let mut disk = self.disk.lock().unwrap();
            extend_locked(&self.limit, needed, self.margin, u64::MAX, |new| {
                if self.fail {
                    return Err("disk full");
                }
                disk.push(new);
                Ok(())
            })
            .map(|_| true)
        }
    }

    #[test]
    fn a_raise_never_passes_what_is_on_disk_either() {
        let word = AtomicU64::new(0);
        let h = Recorded::new(1_000);
        for floor in [10u64, 5_000, 4_000, 123_456] {
            let v = crate::sequencer::word::raise(&word, &h, 0, floor).unwrap();
            assert_eq!(v, v.max(floor));
            assert!(
                v <= h.on_disk(),
                "{v} raised above the durable {}",
                h.on_disk()
            );
        }
        let mut failing = Recorded::new(1_000);
        failing.fail = true;
        let before = AtomicU64::new(7);
        assert_eq!(
            crate::sequencer::word::raise(&before, &failing, 0, 9_999_999),
            Err(Stop::Horizon("disk full"))
        );
        assert_eq!(
            before.load(Ordering::Relaxed),
            7,
            "a failed raise leaves the word"
        );
    }

    #[test]
    fn no_value_passes_what_is_on_disk() {
        let word = AtomicU64::new(0);
        let h = Recorded::new(1_000);
        let mut s = Session::new();
        for i in 0..10_000u64 {
            let v = s.next_within(&word, &h, i * 7, u64::MAX).unwrap();
            assert!(
                v <= h.on_disk(),
                "{v} given above the durable {}",
                h.on_disk()
            );
        }
    }

    #[test]
    fn one_write_per_margin() {
        // 100,000 values one unit apart with a margin of 1,000 units: 100
        // writes (the first, then one each time the values pass the limit).
        let word = AtomicU64::new(0);
        let h = Recorded::new(1_000);
        let mut s = Session::new();
        for i in 1..=100_000u64 {
            s.next_within(&word, &h, i, u64::MAX).unwrap();
        }
        assert_eq!(h.writes(), 100);
        // A clock far ahead of the limit: the next value writes once, at
        // that value plus the margin.
        let v = s.next_within(&word, &h, 5_000_000, u64::MAX).unwrap();
        assert_eq!((v, h.on_disk(), h.writes()), (5_000_000, 5_001_000, 101));
    }

    #[test]
    fn threads_share_the_writes_and_never_pass_the_disk() {
        let word = AtomicU64::new(0);
        let h = Recorded::new(500);
        let per_thread = 20_000u64;
        let given: Vec<Vec<u64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        let mut s = Session::new();
                        (0..per_thread)
                            .map(|i| {
                                let v = s.next_within(&word, &h, i, u64::MAX).unwrap();
                                // Read after the value was given: the disk only grows.
                                assert!(v <= h.on_disk());
                                v
                            })
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let top = given.iter().flatten().copied().max().unwrap();
        assert_eq!(top, 4 * per_thread, "values are dense: one per call");
        // 80,000 values, a write per 500: about 160, never one per value.
        let writes = h.writes();
        assert!((150..=170).contains(&writes), "{writes} writes");
        let disk = h.disk.lock().unwrap();
        assert!(disk.windows(2).all(|w| w[0] < w[1]), "the disk only grows");
    }

    #[test]
    fn a_failed_write_gives_nothing_and_leaves_the_word() {
        let word = AtomicU64::new(41);
        let mut h = Recorded::new(1_000);
        h.fail = true;
        let mut s = Session::new();
        assert_eq!(
            s.next_within(&word, &h, 0, u64::MAX),
            Err(Stop::Horizon("disk full"))
        );
        assert_eq!(word.load(Ordering::Relaxed), 41);
        assert_eq!(s.last(), 0);
        h.fail = false;
        assert_eq!(s.next_within(&word, &h, 0, u64::MAX), Ok(42));
        assert_eq!(h.on_disk(), 1_042);
    }

    #[test]
    fn the_limit_stops_at_the_words_maximum() {
        assert_eq!(
            target(v6::MAX_WORD - 5, v6_margin(1_000), v6::MAX_WORD),
            v6::MAX_WORD
        );
        assert_eq!(v6::MAX_WORD, u64::MAX);
        assert_eq!(target(u64::MAX - 1, v7_margin(1_000), u64::MAX), u64::MAX);
        assert_eq!(target(100, 10, u64::MAX), 110);
        // A margin of 0 still covers the value asked for.
        let limit = AtomicU64::new(0);
        assert_eq!(
            extend_locked::<()>(&limit, 7, 0, u64::MAX, |_| Ok(())),
            Ok(true)
        );
        assert_eq!(limit.load(Ordering::Relaxed), 7);
        assert_eq!(
            extend_locked::<()>(&limit, 7, 0, u64::MAX, |_| Err(())),
            Ok(false)
        );
    }

    #[test]
    fn the_extender_keeps_half_a_margin_ahead_of_the_clock_and_the_word() {
        let (margin, half, idle, max) = (1_000, 500, 60_000, u64::MAX);
        // Far enough ahead of both: nothing to do.
        assert_eq!(ahead(10_000, 10_000, 10_600, margin, half, idle, max), None);
        // Under half a margin ahead of the clock: a full margin above it.
        assert_eq!(
            ahead(9_000, 10_000, 10_400, margin, half, idle, max),
            Some((10_500, 11_000))
        );
        // With a full margin of headroom asked for (the companion of a word
        // being raised), the same limit is raised too.
        assert_eq!(
            ahead(9_000, 10_000, 10_600, margin, margin, idle, max),
            Some((11_000, 11_000))
        );
        // A word that ran ahead of the clock (a burst) counts from the word.
        assert_eq!(
            ahead(20_000, 10_000, 20_100, margin, half, idle, max),
            Some((20_500, 21_000))
        );
        // A word last used longer than `idle` ago: an idle server writes nothing.
        assert_eq!(ahead(1_000, 70_001, 2_000, margin, half, idle, max), None);
        assert_eq!(
            ahead(1_000, 61_000, 2_000, margin, half, idle, max),
            Some((61_500, 62_000))
        );
        // Persistence off.
        assert_eq!(ahead(9_000, 10_000, 0, 0, 0, idle, max), None);
        // At the word's maximum: never past it, and nothing once there.
        assert_eq!(ahead(95, 90, 95, 10, 5, idle, 100), Some((100, 100)));
        assert_eq!(ahead(95, 90, 100, 10, 5, idle, 100), None);
    }

    #[test]
    fn limits_written_together_are_written_once_before_any_is_published() {
        let (v7, v6) = (AtomicU64::new(10_400), AtomicU64::new(7_000));
        let plan7 = ahead(9_000, 10_000, 10_400, 1_000, 500, 60_000, u64::MAX);
        let plan6 = ahead(6_500, 6_600, 7_000, 1_000, 1_000, 60_000, u64::MAX);
        let mut disk = Vec::new();
        let wrote = raise_all_locked([(&v7, plan7), (&v6, plan6)], |new| {
            assert_eq!(
                (v7.load(Ordering::Relaxed), v6.load(Ordering::Relaxed)),
                (10_400, 7_000),
                "published before written"
            );
            disk.push(new);
            Ok::<_, ()>(())
        });
        assert_eq!(wrote, Ok(true));
        assert_eq!(disk, vec![[11_000, 7_600]]);
        assert_eq!(
            (v7.load(Ordering::Relaxed), v6.load(Ordering::Relaxed)),
            (11_000, 7_600)
        );
        // Someone else raised them meanwhile: nothing is written.
        assert_eq!(
            raise_all_locked([(&v7, plan7), (&v6, plan6)], |_| -> Result<(), ()> {
                panic!("wrote twice")
            }),
            Ok(false)
        );
        // Only one needs it: the other is written as it is.
        let mut disk = Vec::new();
        raise_all_locked([(&v7, Some((12_000, 12_500))), (&v6, None)], |new| {
            disk.push(new);
            Ok::<_, ()>(())
        })
        .unwrap();
        assert_eq!(disk, vec![[12_500, 7_600]]);
        // A failed write leaves both as they were.
        assert_eq!(
            raise_all_locked(
                [(&v7, Some((13_000, 13_500))), (&v6, Some((8_000, 8_500)))],
                |_| Err("full")
            ),
            Err("full")
        );
        assert_eq!(
            (v7.load(Ordering::Relaxed), v6.load(Ordering::Relaxed)),
            (12_500, 7_600)
        );
    }

    #[test]
    fn replay_only_raises_so_twice_or_out_of_order_is_harmless() {
        let records = [
            Limits { v7: 5, v6: 90 },
            Limits { v7: 9, v6: 40 },
            Limits { v7: 7, v6: 70 },
        ];
        let file = Limits { v7: 6, v6: 50 };
        let in_order = records.iter().fold(file, |l, r| l.max(*r));
        assert_eq!(in_order, Limits { v7: 9, v6: 90 });
        let twice_reversed = records
            .iter()
            .chain(records.iter())
            .rev()
            .fold(file, |l, r| l.max(*r));
        assert_eq!(twice_reversed, in_order);
        // An old record never lowers what is there.
        assert_eq!(in_order.max(Limits::default()), in_order);
    }

    #[test]
    fn margins_in_word_units() {
        assert_eq!(v7_margin(1_000), 1_000 << 16);
        // 10,000,000 ticks of 16 counter steps.
        assert_eq!(v6_margin(1_000), 10_000_000 << 4);
    }

    #[test]
    fn the_file_round_trips() {
        // A v6 limit at the end of its tick reads back exactly.
        let limits = Limits {
            v7: (1_645_557_742_000u64 << 16) | 0x1234,
            v6: (0x1EC_9414_C232_AB00 << 4) | 0xf,
        };
        let text = encode(&limits);
        assert!(text.starts_with(
            "uuid_ext sequencer horizon 1\nv7 017f22e279b01234 2022-02-22 19:22:22.000000000+00\n\
             v6 01ec9414c232ab00 2022-02-22 19:22:22.000000000+00\n"
        ));
        assert_eq!(decode(text.as_bytes()), Ok(limits));
        let zero = decode(encode(&Limits::default()).as_bytes()).unwrap();
        assert_eq!(zero, Limits { v7: 0, v6: 0xf });
    }

    #[test]
    fn a_v6_limit_is_kept_as_its_tick_and_read_back_never_lower() {
        // A limit with a non-zero counter: the file keeps its tick, read
        // back as the tick's last word, at or above the limit.
        let tick = 0x1EC_9414_C232_AB00u64;
        for counter in [0, 1, 7, 0xf] {
            let limits = Limits {
                v7: 0,
                v6: (tick << 4) | counter,
            };
            let text = encode(&limits);
            assert!(text.contains("\nv6 01ec9414c232ab00 "), "{text}");
            let back = decode(text.as_bytes()).unwrap();
            assert_eq!(back.v6, (tick << 4) | 0xf);
            assert!(back.v6 >= limits.v6);
        }
        // The last word: the last tick, read back as the last word.
        let text = encode(&Limits {
            v7: v7::MAX_WORD,
            v6: v6::MAX_WORD,
        });
        assert!(text.contains("\nv6 0fffffffffffffff "), "{text}");
        assert_eq!(
            decode(text.as_bytes()),
            Ok(Limits {
                v7: v7::MAX_WORD,
                v6: v6::MAX_WORD
            })
        );
    }

    #[test]
    fn a_file_of_0_8_0_is_read_as_it_meant() {
        // 0.8.0 wrote the 60-bit time as the v6 limit (its word): the words
        // start at the end of that tick, so the next UUIDv6 is above every
        // UUIDv6 of it, whatever random clock sequence 0.8.0 gave it.
        let tick = 0x1EC_9414_C232_AB00u64;
        let body = format!(
            "{MAGIC}\nv7 017f22e279b01234 x\nv6 {tick:016x} 2022-02-22 19:22:22.000000000+00\n"
        );
        let file = format!("{body}check {}\n", check(&body));
        let limits = decode(file.as_bytes()).unwrap();
        assert_eq!(limits.v6, (tick << 4) | 0xf);
        let made_by_0_8_0 = v6::from_parts(tick, 0x3fff, 0xffff_ffff_ffff);
        assert!(v6::from_word(limits.v6 + 1, 0) > made_by_0_8_0);
        // And what this release writes, 0.8.0 reads as a tick at or above
        // every UUIDv6 handed out up to the limit.
        let written = encode(&Limits {
            v7: 0,
            v6: (tick << 4) | 0x9,
        });
        assert!(written.contains(&format!("\nv6 {tick:016x} ")));
    }

    #[test]
    fn a_damaged_file_is_refused() {
        let text = encode(&Limits {
            v7: 1 << 40,
            v6: 1 << 50,
        });
        assert!(decode(b"").is_err());
        assert!(decode(&[0xff, 0xfe, 0]).is_err());
        // Truncated anywhere.
        for n in 0..text.len() {
            assert!(decode(&text.as_bytes()[..n]).is_err(), "accepted {n} bytes");
        }
        // One digit changed.
        let edited = text.replacen("v7 0000010000000000", "v7 0000020000000000", 1);
        assert_ne!(edited, text);
        assert_eq!(decode(edited.as_bytes()), Err(Corrupt("checksum mismatch")));
        // Extra bytes after the checksum.
        assert!(decode(format!("{text}x").as_bytes()).is_err());
        // A consistent checksum over a v6 value above its 60 bits.
        let body = format!("{MAGIC}\nv7 0000000000000000 x\nv6 ffffffffffffffff x\n");
        let forged = format!("{body}check {}\n", check(&body));
        assert_eq!(
            decode(forged.as_bytes()),
            Err(Corrupt("value out of range"))
        );
    }
}
