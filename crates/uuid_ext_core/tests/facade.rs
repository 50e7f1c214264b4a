//! The façade's mapping (docs/facade.md): its frozen vectors, round trips
//! over a million values, and what a face shows of consecutive keys.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha12Rng;
use std::sync::atomic::AtomicU64;
use uuid_ext_core::facade::{fingerprint, Facade, KEY_LEN, TEST_KEY};
use uuid_ext_core::{layout, parse, sequencer::Session, timestamp, v7};

/// The published test key: bytes 0x00 to 0x1f.
fn test_key() -> [u8; KEY_LEN] {
    let key = core::array::from_fn(|i| i as u8);
    assert_eq!(key, TEST_KEY);
    key
}

fn uuid(text: &str) -> [u8; 16] {
    parse::uuid(text.as_bytes()).unwrap()
}

/// The vectors docs/facade.md#test-vectors publishes: any change to the
/// wiring (bit order, tweak, halves) changes every user's public ids.
#[test]
fn published_vectors() {
    let f = Facade::new(&test_key());
    let vectors = [
        (
            "00000000-0000-7000-8000-000000000000",
            "",
            "18843fe7-67ac-45e0-bf30-8d43fa1e8845",
        ),
        (
            "00000000-0000-7000-8000-000000000000",
            "orders",
            "668a8c40-a245-4068-96a3-b15eaad44441",
        ),
        (
            "ffffffff-ffff-7fff-bfff-ffffffffffff",
            "",
            "b8a429f9-ac91-420a-8468-189daafbf809",
        ),
        (
            "ffffffff-ffff-7fff-bfff-ffffffffffff",
            "orders",
            "0d169ed2-e13c-4834-8a7a-abaf554f3f65",
        ),
        (
            "01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b",
            "",
            "adfa3dfb-2322-4c5e-b1b9-3bfb6996e3d0",
        ),
        (
            "01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0b",
            "orders",
            "0e8b3dc4-361c-4148-a53b-c39bd39513ee",
        ),
        (
            "01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0c",
            "",
            "f073557b-cb1b-4cb5-8d62-626e89f9bddc",
        ),
        (
            "01936f7a-1c2d-7e3f-8a4b-5c6d7e8f9a0c",
            "orders",
            "432e079b-21ff-4c9a-9893-2679721c3611",
        ),
    ];
    for (id, context, face) in vectors {
        assert_eq!(
            f.to_facade(&uuid(id), context.as_bytes()),
            Ok(uuid(face)),
            "{id} {context:?}"
        );
        assert_eq!(
            f.to_v7(&uuid(face), context.as_bytes()),
            Ok(uuid(id)),
            "{face} {context:?}"
        );
    }
    assert_eq!(fingerprint(&test_key()), "f02193d217613a27");
}

/// Both directions over a million random values: every v7 comes back from
/// its face, every v4 from its v7-shaped value, and the face is a UUIDv4
/// with no time a reader would take from it.
#[test]
fn round_trips_a_million_values_both_ways() {
    let f = Facade::new(&test_key());
    let mut rng = ChaCha12Rng::seed_from_u64(7);
    for i in 0..1_000_000u32 {
        let mut b = [0u8; 16];
        rng.fill_bytes(&mut b);
        let context: &[u8] = if i % 2 == 0 { b"" } else { b"orders" };
        let id = layout::set_version(b, 7);
        let face = f.to_facade(&id, context).unwrap();
        assert_eq!(layout::version(&face), Some(4));
        assert_eq!(timestamp::unix_us(&face), None);
        assert_eq!(f.to_v7(&face, context), Ok(id));
        let v4 = layout::set_version(b, 4);
        let back = f.to_v7(&v4, context).unwrap();
        assert_eq!(layout::version(&back), Some(7));
        assert_eq!(f.to_facade(&back, context), Ok(v4));
    }
}

/// Keys a busy sequencer gives in a row: the same millisecond and random
/// tail, consecutive words.
fn consecutive(n: u64) -> impl Iterator<Item = [u8; 16]> {
    let word = AtomicU64::new(0);
    let mut session = Session::new();
    let start = v7::candidate(1_764_000_000_000 * 1_000_000);
    (0..n).map(move |_| {
        // A clock that stands still: each value is the last one plus one.
        let w = session.next(&word, start, v7::MAX_WORD).unwrap();
        v7::from_word(w, 0x0123_4567_89ab_cdef)
    })
}

#[test]
fn ten_million_consecutive_keys_have_ten_million_faces() {
    let f = Facade::new(&test_key());
    let mut faces: Vec<u128> = consecutive(10_000_000)
        .map(|id| u128::from_be_bytes(f.to_facade(&id, b"").unwrap()))
        .collect();
    faces.sort_unstable();
    faces.dedup();
    assert_eq!(faces.len(), 10_000_000);
}

/// On a million consecutive keys each of a face's 122 free bits is set half
/// the time, and a face is greater than the one before half the time: the
/// faces show neither the time nor the order (a mask over the time field
/// alone, as uuidv47's, keeps the order of keys within a millisecond).
#[test]
fn faces_of_consecutive_keys_look_random() {
    const N: usize = 1_000_000;
    let f = Facade::new(&test_key());
    let mut set = [0u32; 128];
    let mut ascending = 0usize;
    let mut prev: Option<u128> = None;
    for id in consecutive(N as u64) {
        let face = u128::from_be_bytes(f.to_facade(&id, b"").unwrap());
        for (bit, count) in set.iter_mut().enumerate() {
            *count += ((face >> (127 - bit)) & 1) as u32;
        }
        if let Some(p) = prev {
            ascending += usize::from(face > p);
        }
        prev = Some(face);
    }
    let version_and_variant = [48, 49, 50, 51, 64, 65];
    for (bit, &count) in set.iter().enumerate() {
        if version_and_variant.contains(&bit) {
            continue;
        }
        let share = f64::from(count) / N as f64;
        assert!(
            (share - 0.5).abs() <= 0.005,
            "bit {bit} is set in {share} of the faces"
        );
    }
    let share = ascending as f64 / (N - 1) as f64;
    assert!(
        (share - 0.5).abs() <= 0.005,
        "{share} of the faces follow the one before in order"
    );
}

#[test]
fn another_key_or_context_gives_other_faces() {
    let a = Facade::new(&test_key());
    let mut other = test_key();
    other[31] ^= 1;
    let b = Facade::new(&other);
    let mut same_key = 0;
    let mut same_context = 0;
    for id in consecutive(10_000) {
        let face = a.to_facade(&id, b"").unwrap();
        same_key += usize::from(b.to_facade(&id, b"") == Ok(face));
        same_context += usize::from(a.to_facade(&id, b"orders") == Ok(face));
        // A face decoded under the wrong key or context is another value.
        assert_ne!(b.to_v7(&face, b""), Ok(id));
        assert_ne!(a.to_v7(&face, b"orders"), Ok(id));
    }
    assert_eq!((same_key, same_context), (0, 0));
    assert_ne!(fingerprint(&test_key()), fingerprint(&other));
}
