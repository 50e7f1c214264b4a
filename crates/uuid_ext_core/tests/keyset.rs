//! The façade's key set as it travels to a Citus cluster's workers
//! (docs/facade.md#on-a-citus-cluster): the published vectors of the
//! primitives through our wiring, then what a sealed message opens to and
//! every way it is refused.

use uuid_ext_core::facade::{fingerprint, KEY_LEN};
use uuid_ext_core::keyset::{
    hmac_sha256, open, seal, unwrap, wrap, Refused, Row, State, WRAPPED_LEN,
};
use zeroize::Zeroizing;

/// Bytes from hex digits (a test vector's notation).
fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// RFC 3394's vector for a 256-bit key under a 256-bit key-encryption key
/// (section 4.6), both ways; a wrong cluster key, a changed byte and a
/// wrong length unwrap to nothing.
#[test]
fn key_wrap_rfc3394() {
    let kek: [u8; KEY_LEN] =
        hex("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F")
            .try_into()
            .unwrap();
    let key: [u8; KEY_LEN] =
        hex("00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F")
            .try_into()
            .unwrap();
    let wrapped =
        hex("28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21");
    assert_eq!(wrapped.len(), WRAPPED_LEN);
    assert_eq!(wrap(&kek, &key).to_vec(), wrapped);
    assert_eq!(unwrap(&kek, &wrapped).map(|k| *k), Some(key));
    let mut other = kek;
    other[0] ^= 1;
    assert!(unwrap(&other, &wrapped).is_none());
    let mut changed = wrapped.clone();
    changed[20] ^= 1;
    assert!(unwrap(&kek, &changed).is_none());
    assert!(unwrap(&kek, &wrapped[..39]).is_none());
}

/// RFC 4231's test cases 1 and 2 (HMAC-SHA-256) through our wiring.
#[test]
fn hmac_rfc4231() {
    assert_eq!(
        hmac_sha256(&[0x0b; 20], b"Hi There").to_vec(),
        hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    );
    assert_eq!(
        hmac_sha256(b"Jefe", b"what do ya want for nothing?").to_vec(),
        hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    );
}

const CK: [u8; KEY_LEN] = [7u8; KEY_LEN];

fn row(id: i32, state: State, key: Option<u8>) -> Row {
    let key = key.map(|b| Zeroizing::new([b; KEY_LEN]));
    Row {
        id,
        state,
        fingerprint: key
            .as_ref()
            .map_or("00112233aabbccdd".into(), |k| fingerprint(k)),
        key,
        created: 100 + i64::from(id),
        retired: (state != State::Current).then_some(200),
        dropped: (state == State::Dropped).then_some(300),
    }
}

fn rows() -> Vec<Row> {
    vec![
        row(3, State::Current, Some(3)),
        row(2, State::Retired, Some(2)),
        row(1, State::Dropped, None),
    ]
}

/// A row as a line of text, key and all, to compare rows.
fn summary(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            format!(
                "{} {:?} {:?} {} {} {:?} {:?}",
                r.id,
                r.state,
                r.key.as_deref(),
                r.fingerprint,
                r.created,
                r.retired,
                r.dropped
            )
        })
        .collect()
}

#[test]
fn opens_to_what_was_sealed() {
    let m = seal(&CK, "app", "keeper", 1_000, &rows());
    let opened = open(&CK, "app", "keeper", 999, &m).unwrap();
    assert_eq!(opened.generation, 1_000);
    assert_eq!(summary(&opened.rows), summary(&rows()));
    // No key travels in the clear: no key's bytes are in the message.
    for b in [2u8, 3] {
        assert!(!m.windows(KEY_LEN).any(|w| w == [b; KEY_LEN]));
    }
    // An empty table travels too.
    let empty = seal(&CK, "app", "keeper", 5, &[]);
    assert!(open(&CK, "app", "keeper", 0, &empty)
        .unwrap()
        .rows
        .is_empty());
}

#[test]
fn refuses_what_it_should() {
    let m = seal(&CK, "app", "keeper", 1_000, &rows());
    let mut other = CK;
    other[31] ^= 1;
    assert_eq!(
        open(&other, "app", "keeper", 0, &m).unwrap_err(),
        Refused::ClusterKeyDiffers(fingerprint(&CK))
    );
    assert_eq!(
        open(&CK, "app_copy", "keeper", 0, &m).unwrap_err(),
        Refused::OtherDatabase("app".into())
    );
    assert_eq!(
        open(&CK, "app", "app", 0, &m).unwrap_err(),
        Refused::OtherRole("keeper".into())
    );
    // Not newer than what the node holds: a replay.
    assert_eq!(
        open(&CK, "app", "keeper", 1_000, &m).unwrap_err(),
        Refused::Older(1_000)
    );
    assert!(open(&CK, "app", "keeper", 999, &m).is_ok());
    // Any changed byte after the fingerprint: the tag fails (or, in the
    // header, the message is not one); any truncation or addition too.
    let header = b"uuid_ext/facade/keyset/1\0".len() + 1 + 16;
    for i in 0..m.len() {
        let mut changed = m.clone();
        changed[i] ^= 0x01;
        let e = open(&CK, "app", "keeper", 0, &changed).unwrap_err();
        if i >= header {
            assert_eq!(e, Refused::Unauthenticated, "byte {i}");
        }
    }
    for n in 0..m.len() {
        assert!(
            open(&CK, "app", "keeper", 0, &m[..n]).is_err(),
            "first {n} bytes"
        );
    }
    let mut longer = m.clone();
    longer.push(0);
    assert_eq!(
        open(&CK, "app", "keeper", 0, &longer).unwrap_err(),
        Refused::Unauthenticated
    );
    assert_eq!(
        open(&CK, "app", "keeper", 0, b"").unwrap_err(),
        Refused::Malformed
    );
    assert_eq!(
        open(&CK, "app", "keeper", 0, b"not a message").unwrap_err(),
        Refused::Malformed
    );
}

/// What the holder of the cluster key seals, a worker still checks: a
/// table with two current keys, a live key without bytes, a fingerprint
/// that is not its key's, an id given twice, or an id below 1 is refused.
#[test]
fn refuses_a_table_that_does_not_hold_together() {
    let bad = [
        vec![
            row(2, State::Current, Some(2)),
            row(1, State::Current, Some(1)),
        ],
        vec![row(1, State::Retired, None)],
        vec![row(1, State::Dropped, Some(1))],
        vec![Row {
            fingerprint: "0000000000000000".into(),
            ..row(1, State::Current, Some(1))
        }],
        vec![
            row(1, State::Retired, Some(1)),
            row(1, State::Dropped, None),
        ],
        vec![row(0, State::Current, Some(1))],
    ];
    for rows in bad {
        let m = seal(&CK, "app", "keeper", 1, &rows);
        assert_eq!(
            open(&CK, "app", "keeper", 0, &m).unwrap_err(),
            Refused::Malformed
        );
    }
}

#[test]
fn states_parse_only_their_names() {
    for s in [State::Current, State::Retired, State::Dropped] {
        assert_eq!(State::parse(s.name().as_bytes()), Some(s));
    }
    for other in [&b""[..], b"Current", b"gone", b"current "] {
        assert_eq!(State::parse(other), None);
    }
}
