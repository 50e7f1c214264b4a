//! The façade's key set as it travels from a Citus coordinator to its
//! workers (docs/facade.md#on-a-citus-cluster): one sealed message, made by
//! [`seal`] and read by [`open`], whose bytes are both what is
//! authenticated and what is parsed.
//!
//! A message holds the whole key table: each key wrapped under the
//! database's cluster key (AES-256 key wrap, RFC 3394, from the `aes-kw`
//! crate), with its id, state, fingerprint and dates, the database and the
//! role it was sealed for, and a generation that only grows; an HMAC-SHA-256
//! tag (RFC 2104, from the `hmac` crate) under a key derived from the
//! cluster key ends it. A worker opens it with its own cluster key, its own
//! database's name, the role that hands it the message and the generation
//! it holds: only a holder of the cluster key makes a message that opens,
//! and a message opens only once on each node (an older one is refused).
//!
//! ```text
//! magic      "uuid_ext/facade/keyset/1" 0x00
//! print      u8 length, the cluster key's fingerprint (hex)
//! generation i64
//! database   u32 length, UTF-8
//! sender     u32 length, UTF-8
//! rows       u32 count, then per row:
//!   id i32, state u8 length, its name (`current`, `retired`, `dropped`),
//!   key        u8 0, or u8 1 and the 40 bytes of the wrapped key,
//!   fingerprint u8 length, hex,
//!   created i64, retired u8 0 | u8 1 i64, dropped u8 0 | u8 1 i64
//! tag        32 bytes: HMAC-SHA-256 of every byte before it
//! ```
//!
//! Numbers are big-endian; dates are PostgreSQL's (microseconds since
//! 2000-01-01).

use aes_kw::{KeyInit, KwAes256};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::facade::{fingerprint, KEY_LEN};

/// A key's state, as the key table spells it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum State {
    /// Makes new faces and decodes.
    Current,
    /// Decodes only.
    Retired,
    /// Its bytes are gone.
    Dropped,
}

impl State {
    /// The table's spelling.
    pub fn name(self) -> &'static str {
        match self {
            State::Current => "current",
            State::Retired => "retired",
            State::Dropped => "dropped",
        }
    }

    /// The state spelled `s`, or None for anything else.
    pub fn parse(s: &[u8]) -> Option<State> {
        match s {
            b"current" => Some(State::Current),
            b"retired" => Some(State::Retired),
            b"dropped" => Some(State::Dropped),
            _ => None,
        }
    }
}

/// One row of the key table: what the façade reads, and what travels.
#[derive(Debug)]
pub struct Row {
    pub id: i32,
    pub state: State,
    /// None for a dropped key.
    pub key: Option<Zeroizing<[u8; KEY_LEN]>>,
    pub fingerprint: String,
    /// PostgreSQL's timestamps (microseconds since 2000).
    pub created: i64,
    pub retired: Option<i64>,
    pub dropped: Option<i64>,
}

/// A wrapped key: AES-256 key wrap of 32 bytes, 40 bytes.
pub const WRAPPED_LEN: usize = KEY_LEN + 8;
const MAGIC: &[u8] = b"uuid_ext/facade/keyset/1\0";
const TAG_LEN: usize = 32;
/// The fewest bytes a row takes: id, the shortest state's name and its
/// length, no key, an empty fingerprint, created, no retired, no dropped.
const MIN_ROW: usize = 4 + 1 + 1 + 1 + 8 + 1 + 1 + 7;

/// `key` wrapped under `cluster_key`.
pub fn wrap(cluster_key: &[u8; KEY_LEN], key: &[u8; KEY_LEN]) -> [u8; WRAPPED_LEN] {
    let mut out = [0u8; WRAPPED_LEN];
    KwAes256::new(cluster_key.into())
        .wrap_key(key, &mut out)
        .expect("32 bytes wrap into 40");
    out
}

/// The key `wrapped` holds, or None when it was not wrapped under
/// `cluster_key` (the wrap's integrity check fails) or is not 40 bytes.
pub fn unwrap(cluster_key: &[u8; KEY_LEN], wrapped: &[u8]) -> Option<Zeroizing<[u8; KEY_LEN]>> {
    if wrapped.len() != WRAPPED_LEN {
        return None;
    }
    let mut out = Zeroizing::new([0u8; KEY_LEN]);
    KwAes256::new(cluster_key.into())
        .unwrap_key(wrapped, &mut out[..])
        .ok()?;
    Some(out)
}

/// HMAC-SHA-256 of `data` under `key`.
pub fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    mac(key).chain_update(data).finalize().into_bytes().into()
}

fn mac(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length")
}

/// The tag's key: derived from the cluster key, so the tag and the wrap
/// never share one.
fn tag_key(cluster_key: &[u8; KEY_LEN]) -> Zeroizing<[u8; 32]> {
    Zeroizing::new(hmac_sha256(cluster_key, b"uuid_ext/facade/keyset-key/1"))
}

/// Why a message was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not a sealed key set, or one that does not hold together.
    Malformed,
    /// Sealed under another cluster key: its fingerprint.
    ClusterKeyDiffers(String),
    /// The tag does not verify under this node's cluster key.
    Unauthenticated,
    /// Sealed for another database: its name.
    OtherDatabase(String),
    /// Sealed for another role: its name.
    OtherRole(String),
    /// Not newer than what this node holds: the message's generation.
    Older(i64),
    /// No memory for the rows (an allocation that could not be made).
    OutOfMemory,
}

/// The message that carries `rows` to the workers of `database`, to be
/// opened by `sender`, at `generation`.
pub fn seal(
    cluster_key: &[u8; KEY_LEN],
    database: &str,
    sender: &str,
    generation: i64,
    rows: &[Row],
) -> Vec<u8> {
    let print = fingerprint(cluster_key);
    let mut m = Vec::with_capacity(
        MAGIC.len() + 64 + database.len() + sender.len() + rows.len() * 96 + TAG_LEN,
    );
    m.extend_from_slice(MAGIC);
    m.push(print.len() as u8);
    m.extend_from_slice(print.as_bytes());
    m.extend_from_slice(&generation.to_be_bytes());
    for name in [database, sender] {
        m.extend_from_slice(&(name.len() as u32).to_be_bytes());
        m.extend_from_slice(name.as_bytes());
    }
    m.extend_from_slice(&(rows.len() as u32).to_be_bytes());
    let time = |m: &mut Vec<u8>, t: Option<i64>| match t {
        None => m.push(0),
        Some(t) => {
            m.push(1);
            m.extend_from_slice(&t.to_be_bytes());
        }
    };
    for r in rows {
        m.extend_from_slice(&r.id.to_be_bytes());
        m.push(r.state.name().len() as u8);
        m.extend_from_slice(r.state.name().as_bytes());
        match &r.key {
            None => m.push(0),
            Some(k) => {
                m.push(1);
                m.extend_from_slice(&wrap(cluster_key, k));
            }
        }
        m.push(r.fingerprint.len() as u8);
        m.extend_from_slice(r.fingerprint.as_bytes());
        m.extend_from_slice(&r.created.to_be_bytes());
        time(&mut m, r.retired);
        time(&mut m, r.dropped);
    }
    let tag = mac(&tag_key(cluster_key)[..])
        .chain_update(&m)
        .finalize()
        .into_bytes();
    m.extend_from_slice(&tag);
    m
}

/// What an opened message holds.
#[derive(Debug)]
pub struct Opened {
    pub generation: i64,
    /// Each key unwrapped.
    pub rows: Vec<Row>,
}

/// Reads fields off the front of a byte string; None past its end.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.array::<1>()?[0])
    }
    /// A string of a length in `len_bytes` (1 or 4) bytes before it.
    fn text(&mut self, len_bytes: usize) -> Option<&'a str> {
        let len = match len_bytes {
            1 => usize::from(self.u8()?),
            _ => u32::from_be_bytes(self.array()?) as usize,
        };
        std::str::from_utf8(self.take(len)?).ok()
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_be_bytes(self.array()?))
    }
    fn maybe_i64(&mut self) -> Option<Option<i64>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.i64()?)),
            _ => None,
        }
    }
}

/// The rows of `message`, if it was sealed under `cluster_key` for
/// `database` and `role` at a generation above `held`; each key unwrapped.
pub fn open(
    cluster_key: &[u8; KEY_LEN],
    database: &str,
    role: &str,
    held: i64,
    message: &[u8],
) -> Result<Opened, Refused> {
    use Refused::*;
    let mut r = Reader(message);
    if r.take(MAGIC.len()) != Some(MAGIC) {
        return Err(Malformed);
    }
    let print = r.text(1).ok_or(Malformed)?;
    if print != fingerprint(cluster_key) {
        return Err(ClusterKeyDiffers(print.to_string()));
    }
    let body_len = message.len().checked_sub(TAG_LEN).ok_or(Malformed)?;
    let header = MAGIC.len() + 1 + print.len();
    if body_len < header {
        return Err(Malformed);
    }
    let (body, tag) = message.split_at(body_len);
    mac(&tag_key(cluster_key)[..])
        .chain_update(body)
        .verify_slice(tag)
        .map_err(|_| Unauthenticated)?;
    // Authenticated: what follows parses the same bytes.
    let mut r = Reader(&body[header..]);
    let generation = r.i64().ok_or(Malformed)?;
    let sent_database = r.text(4).ok_or(Malformed)?;
    let sent_role = r.text(4).ok_or(Malformed)?;
    let count = u32::from_be_bytes(r.array().ok_or(Malformed)?) as usize;
    if count > r.0.len() / MIN_ROW {
        return Err(Malformed);
    }
    let mut rows = Vec::new();
    rows.try_reserve_exact(count).map_err(|_| OutOfMemory)?;
    for _ in 0..count {
        let mut row = || -> Option<Row> {
            let id = i32::from_be_bytes(r.array()?);
            let state = State::parse(r.text(1)?.as_bytes())?;
            let key = match r.u8()? {
                0 => None,
                1 => Some(unwrap(cluster_key, r.take(WRAPPED_LEN)?)?),
                _ => return None,
            };
            let print = r.text(1)?.to_string();
            let (created, retired, dropped) = (r.i64()?, r.maybe_i64()?, r.maybe_i64()?);
            // A dropped key has no bytes, a live one its own fingerprint.
            let holds_together = match &key {
                None => state == State::Dropped,
                Some(k) => state != State::Dropped && fingerprint(k) == print,
            };
            (holds_together && id > 0).then_some(Row {
                id,
                state,
                key,
                fingerprint: print,
                created,
                retired,
                dropped,
            })
        };
        let row = row().ok_or(Malformed)?;
        if rows.iter().any(|x: &Row| x.id == row.id) {
            return Err(Malformed);
        }
        rows.push(row);
    }
    if !r.0.is_empty() || rows.iter().filter(|x| x.state == State::Current).count() > 1 {
        return Err(Malformed);
    }
    if sent_database != database {
        return Err(OtherDatabase(sent_database.to_string()));
    }
    if sent_role != role {
        return Err(OtherRole(sent_role.to_string()));
    }
    if generation <= held {
        return Err(Older(generation));
    }
    Ok(Opened { generation, rows })
}
