//! Our layouts and readers against an independent implementation, the
//! `uuid` crate, on many random inputs.

use proptest::prelude::*;
use uuid::{Timestamp, Uuid};
use uuid_ext_core::{layout, timestamp, v5, v6, v7, v8};

const MAX_60: u64 = (1 << 60) - 1;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The same time, clock sequence and node give the same UUIDv6 and UUIDv1,
    /// and our conversion turns the crate's v1 into the crate's v6 and back.
    #[test]
    fn v6_and_v1_layouts_and_conversions(ticks in 0..=MAX_60, clock_seq in 0u16..0x4000, node in any::<[u8; 6]>()) {
        let ts = Timestamp::from_gregorian_time(ticks, clock_seq);
        let theirs_v6 = *Uuid::new_v6(ts, &node).as_bytes();
        let theirs_v1 = *Uuid::new_v1(ts, &node).as_bytes();
        let node_u64 = u64::from_be_bytes([0, 0, node[0], node[1], node[2], node[3], node[4], node[5]]);
        prop_assert_eq!(v6::from_parts(ticks, clock_seq, node_u64), theirs_v6);
        prop_assert_eq!(v6::from_v1(&theirs_v1), Some(theirs_v6));
        prop_assert_eq!(v6::to_v1(&theirs_v6), Some(theirs_v1));
        prop_assert_eq!(timestamp::v1_time(&theirs_v1), ticks);
        prop_assert_eq!(timestamp::v6_time(&theirs_v6), ticks);
    }

    /// The crate reads our generated UUIDv6s' time as we do.
    #[test]
    fn v6_time_read_alike(unix_ns in 0u64..=u64::MAX / 2, random in any::<u64>(), counter in 0u64..16) {
        let ours = v6::from_word(v6::candidate(unix_ns) + counter, random);
        let (ticks, clock_seq) = Uuid::from_bytes(ours).get_timestamp().unwrap().to_gregorian();
        prop_assert_eq!(ticks, v6::time_of_word(v6::word(&ours)));
        prop_assert_eq!(v6::word(&ours), v6::candidate(unix_ns) + counter);
        // clock_seq: the counter within the tick, then 10 random bits.
        prop_assert_eq!(u64::from(clock_seq), (counter << 10) | ((random >> 48) & 0x3ff));
        let (secs, nanos) = Uuid::from_bytes(ours).get_timestamp().unwrap().to_unix();
        let us = secs as i64 * 1_000_000 + i64::from(nanos / 1000);
        prop_assert_eq!(timestamp::unix_us(&ours), Some(us));
    }

    /// The crate reads our UUIDv7s' millisecond as we do.
    #[test]
    fn v7_time_read_alike(word in any::<u64>(), random in any::<u64>()) {
        let ours = v7::from_word(word, random);
        let (secs, nanos) = Uuid::from_bytes(ours).get_timestamp().unwrap().to_unix();
        let ms = secs * 1000 + u64::from(nanos / 1_000_000);
        prop_assert_eq!(ms, timestamp::v7_unix_ms(&ours));
        prop_assert_eq!(timestamp::unix_us(&ours), Some(ms as i64 * 1000));
        prop_assert_eq!(Uuid::from_bytes(ours).get_version_num(), 7);
    }

    #[test]
    fn v5_alike(namespace in any::<[u8; 16]>(), name in proptest::collection::vec(any::<u8>(), 0..200)) {
        let theirs = Uuid::new_v5(&Uuid::from_bytes(namespace), &name);
        prop_assert_eq!(v5::from_name(&namespace, &name), *theirs.as_bytes());
    }

    #[test]
    fn v8_alike(bytes in any::<[u8; 16]>()) {
        prop_assert_eq!(v8::from_bytes(bytes), *Uuid::new_v8(bytes).as_bytes());
    }

    /// Version and variant as the crate reads them.
    #[test]
    fn version_alike(bytes in any::<[u8; 16]>()) {
        let u = Uuid::from_bytes(bytes);
        let theirs = (u.get_variant() == uuid::Variant::RFC4122).then(|| u.get_version_num() as u8);
        prop_assert_eq!(layout::version(&bytes), theirs);
    }
}
