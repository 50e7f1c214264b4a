//! The sequencer's WAL records (docs/design.md#the-wal-records): a format like any
//! other, laid out here with its encoder, decoder and description; the
//! PostgreSQL glue registers the resource manager and inserts and replays
//! them.
//!
//! Three kinds, told apart by the record's info byte (its high four bits; the
//! low four are PostgreSQL's own):
//!
//! - **horizon**: the durable limits of the v7 and v6 words, as the horizon
//!   file holds them. Replaying one raises the words and the limits to at
//!   least these values, so a server that replayed it (a standby, a
//!   point-in-time restore, crash recovery) never hands out a value at or
//!   below anything the primary handed out before the record. Replaying it
//!   twice, or out of date, is harmless: redo only raises.
//! - **watermark**: the primary's commit watermark, a v7 word value, logged
//!   after every transaction it covers has ended, so by WAL order a standby
//!   that replayed it has replayed their commits.
//! - **reset**: the limits after `uuid_ext_sequencer_reset()` brought the
//!   words back to the clock. Replaying one *sets* the words and limits to
//!   these values (the one record that lowers them), forgets the replayed
//!   watermark, and counts a reset, so a standby, a restore and crash
//!   recovery follow the reset. Horizon records before it in the WAL were
//!   replayed before it; none written after it is above what the reset
//!   allowed, so nothing brings the old horizon back.
//!
//! The payload is big-endian: 16 bytes for a horizon or a reset (the v7
//! limit, then the v6 limit as its 60-bit time, [`crate::v6::persisted`], as
//! 0.8.0 and earlier wrote it), 8 for a watermark.
//! Anything else is refused, never read as a value.

use crate::sequencer::horizon::{self, Limits};
use crate::v6;
#[cfg(test)]
use crate::v7;

/// The resource manager's ID. 128 is PostgreSQL's for development; 129-140,
/// 144, 150 and 241 are taken by other projects on PostgreSQL's list of
/// custom WAL resource managers
/// (<https://wiki.postgresql.org/wiki/CustomWALResourceManagers>).
pub const RMGR_ID: u8 = 197;
/// Its name, as `pg_waldump` and `pg_walinspect` show it (a C string:
/// PostgreSQL keeps the pointer).
pub const RMGR_NAME: &std::ffi::CStr = c"uuid_ext";

/// The info byte of each kind (PostgreSQL keeps the low four bits).
pub const INFO_HORIZON: u8 = 0x10;
pub const INFO_WATERMARK: u8 = 0x20;
pub const INFO_RESET: u8 = 0x30;
/// The bits of the info byte that are ours.
pub const INFO_MASK: u8 = 0xf0;

/// One record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// The limits no value of the v7 and v6 words passes.
    Horizon(Limits),
    /// Every v7 word value below this belongs to a transaction whose end is
    /// in the WAL before this record.
    Watermark(u64),
    /// The limits (and the words) after a reset.
    Reset(Limits),
}

/// Why a record's bytes were not accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Malformed(pub &'static str);

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl Record {
    /// The info byte to insert it with.
    pub fn info(&self) -> u8 {
        match self {
            Record::Horizon(_) => INFO_HORIZON,
            Record::Watermark(_) => INFO_WATERMARK,
            Record::Reset(_) => INFO_RESET,
        }
    }

    /// The payload.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Record::Horizon(l) | Record::Reset(l) => {
                [l.v7.to_be_bytes(), v6::persisted(l.v6).to_be_bytes()].concat()
            }
            Record::Watermark(w) => w.to_be_bytes().to_vec(),
        }
    }

    /// Reads a payload back; `info` may carry PostgreSQL's low bits.
    pub fn decode(info: u8, data: &[u8]) -> Result<Record, Malformed> {
        let word = |at: usize| u64::from_be_bytes(data[at..at + 8].try_into().unwrap());
        match info & INFO_MASK {
            kind @ (INFO_HORIZON | INFO_RESET) if data.len() == 16 => {
                if word(8) > v6::MAX_TIME {
                    return Err(Malformed("UUIDv6 horizon above its 60 bits"));
                }
                let limits = Limits {
                    v7: word(0),
                    v6: v6::from_persisted(word(8)),
                };
                Ok(if kind == INFO_RESET {
                    Record::Reset(limits)
                } else {
                    Record::Horizon(limits)
                })
            }
            INFO_WATERMARK if data.len() == 8 => Ok(Record::Watermark(word(0))),
            INFO_HORIZON | INFO_WATERMARK | INFO_RESET => Err(Malformed("wrong length")),
            _ => Err(Malformed("unknown kind")),
        }
    }

    /// What `rm_desc` shows: the values and the times they mean.
    pub fn describe(&self) -> String {
        match self {
            // The v6 limit as the record holds it: its 60-bit time.
            Record::Horizon(l) | Record::Reset(l) => format!(
                "v7 {:016x} ({}); v6 {:016x} ({})",
                l.v7,
                horizon::v7_time(l.v7),
                v6::persisted(l.v6),
                horizon::v6_time(l.v6)
            ),
            Record::Watermark(w) => {
                format!("v7 {w:016x} ({})", horizon::v7_time(*w))
            }
        }
    }
}

/// What `rm_identify` shows for an info byte (None: not ours); a C string,
/// since PostgreSQL keeps the pointer.
pub fn identify(info: u8) -> Option<&'static std::ffi::CStr> {
    match info & INFO_MASK {
        INFO_HORIZON => Some(c"HORIZON"),
        INFO_WATERMARK => Some(c"WATERMARK"),
        INFO_RESET => Some(c"RESET"),
        _ => None,
    }
}

/// A description of bytes that may be malformed (`rm_desc` must not fail).
pub fn describe(info: u8, data: &[u8]) -> String {
    match Record::decode(info, data) {
        Ok(r) => r.describe(),
        Err(e) => format!("malformed ({e}, {} bytes)", data.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        // v6 limits at the end of their tick: what a record reads back as.
        let records = [
            Record::Horizon(Limits {
                v7: (1_645_557_742_000u64 << 16) | 0x1234,
                v6: (0x1EC_9414_C232_AB00 << 4) | 0xf,
            }),
            Record::Horizon(Limits {
                v7: v7::MAX_WORD,
                v6: v6::MAX_WORD,
            }),
            Record::Horizon(Limits { v7: 0, v6: 0xf }),
            Record::Watermark(0),
            Record::Watermark(u64::MAX),
            Record::Watermark(1_645_557_742_000u64 << 16),
            Record::Reset(Limits {
                v7: 1_645_557_742_000u64 << 16,
                v6: (0x1EC_9414_C232_AB00 << 4) | 0xf,
            }),
        ];
        for r in records {
            let data = r.encode();
            // PostgreSQL's own low bits do not change what is read.
            for low in [0, 0x01, 0x0f] {
                assert_eq!(Record::decode(r.info() | low, &data), Ok(r));
            }
        }
        assert_eq!(Record::Watermark(5).encode(), [0, 0, 0, 0, 0, 0, 0, 5]);
    }

    #[test]
    fn a_bad_length_or_kind_is_refused() {
        let horizon = Record::Horizon(Limits { v7: 7, v6: 6 }).encode();
        for n in 0..horizon.len() + 2 {
            let data: Vec<u8> = horizon.iter().copied().cycle().take(n).collect();
            assert_eq!(
                Record::decode(INFO_HORIZON, &data).is_ok(),
                n == 16,
                "{n} bytes"
            );
            assert_eq!(
                Record::decode(INFO_WATERMARK, &data).is_ok(),
                n == 8,
                "{n} bytes"
            );
            assert_eq!(
                Record::decode(INFO_RESET, &data).is_ok(),
                n == 16,
                "{n} bytes"
            );
        }
        // A reset is not read as a horizon, nor the other way round.
        assert_eq!(
            Record::decode(INFO_RESET, &horizon),
            Ok(Record::Reset(Limits { v7: 7, v6: 0xf }))
        );
        assert_eq!(
            Record::decode(0x40, &horizon),
            Err(Malformed("unknown kind"))
        );
        assert_eq!(
            Record::decode(0x00, &[0; 8]),
            Err(Malformed("unknown kind"))
        );
        let mut above = horizon.clone();
        above[8] = 0x10; // v6 at 1 << 60
        assert_eq!(
            Record::decode(INFO_HORIZON, &above),
            Err(Malformed("UUIDv6 horizon above its 60 bits"))
        );
    }

    #[test]
    fn the_v6_limit_travels_as_its_tick_both_ways() {
        let tick = 0x1EC_9414_C232_AB00u64;
        // Written: the tick of a limit with a non-zero counter.
        let data = Record::Horizon(Limits {
            v7: 1,
            v6: (tick << 4) | 0x3,
        })
        .encode();
        assert_eq!(&data[8..], &tick.to_be_bytes());
        // Read, from this release or from 0.8.0 (which wrote its word, the
        // tick): the tick's last word, never below what was written.
        assert_eq!(
            Record::decode(INFO_HORIZON, &data),
            Ok(Record::Horizon(Limits {
                v7: 1,
                v6: (tick << 4) | 0xf
            }))
        );
        // The last tick is the last word, and it round-trips.
        let last = Record::Reset(Limits {
            v7: v7::MAX_WORD,
            v6: v6::MAX_WORD,
        });
        assert_eq!(&last.encode()[8..], &v6::MAX_TIME.to_be_bytes());
        assert_eq!(Record::decode(INFO_RESET, &last.encode()), Ok(last));
    }

    #[test]
    fn descriptions_a_person_can_read() {
        let r = Record::Horizon(Limits {
            v7: 1_645_557_742_000u64 << 16,
            v6: 0x1EC_9414_C232_AB00 << 4,
        });
        assert_eq!(
            r.describe(),
            "v7 017f22e279b00000 (2022-02-22 19:22:22.000000000+00); \
             v6 01ec9414c232ab00 (2022-02-22 19:22:22.000000000+00)"
        );
        assert_eq!(describe(INFO_HORIZON, &r.encode()), r.describe());
        assert_eq!(
            Record::Watermark(1_645_557_742_000u64 << 16).describe(),
            "v7 017f22e279b00000 (2022-02-22 19:22:22.000000000+00)"
        );
        assert_eq!(identify(INFO_HORIZON | 0x01), Some(c"HORIZON"));
        assert_eq!(identify(INFO_WATERMARK), Some(c"WATERMARK"));
        assert_eq!(identify(INFO_RESET), Some(c"RESET"));
        assert_eq!(identify(0x40), None);
        assert_eq!(
            describe(INFO_WATERMARK, &[1, 2, 3]),
            "malformed (wrong length, 3 bytes)"
        );
    }

    #[test]
    fn the_id_is_a_custom_one_no_known_project_uses() {
        let taken: Vec<u8> = (128..=140).chain([144, 150, 241]).collect();
        assert!(RMGR_ID >= 128 && !taken.contains(&RMGR_ID));
    }
}
