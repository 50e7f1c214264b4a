//! UUID text, read exactly as PostgreSQL's `uuid` input reads it
//! (`string_to_uuid` in `src/backend/utils/adt/uuid.c`, unchanged since 9.4):
//! 32 hex digits in either case, a hyphen allowed after any group of four
//! (one at most, not after the last), the whole optionally in braces, and
//! nothing else: no spaces, no `urn:uuid:` prefix.
//!
//! The `uuid7` and `uuid6` types read text with this, so they accept what a
//! `uuid` column accepts, and say so in their own error message.

use crate::Bytes;

/// The longest text core's `uuid` accepts, in bytes: 32 hex digits, a
/// hyphen after each of the first seven groups of four, and braces.
/// Anything longer is refused unread.
pub const LONGEST: usize = 32 + 7 + 2;

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

pub fn uuid(text: &[u8]) -> Option<Bytes> {
    if text.len() > LONGEST {
        return None;
    }
    let (braces, mut s) = match text.split_first() {
        Some((b'{', rest)) => (true, rest),
        _ => (false, text),
    };
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        let (&[high, low], rest) = s.split_first_chunk::<2>()?;
        *byte = (hex(high)? << 4) | hex(low)?;
        s = rest;
        if i % 2 == 1 && i < 15 {
            if let Some((b'-', rest)) = s.split_first() {
                s = rest;
            }
        }
    }
    if braces {
        s = s.strip_prefix(b"}")?;
    }
    s.is_empty().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V7: Bytes = 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F_u128.to_be_bytes();

    #[test]
    fn what_core_uuid_accepts() {
        for s in [
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            "017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
            "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}",
            "017f22e279b07cc398c4dc0c0c07398f",
            "{017f22e279b07cc398c4dc0c0c07398f}",
            "017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f",
            "017f22e279b0-7cc398c4-dc0c0c07398f",
            "{017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f}",
        ] {
            assert_eq!(uuid(s.as_bytes()), Some(V7), "{s}");
        }
    }

    #[test]
    fn the_longest_form() {
        let longest = "{017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f}";
        assert_eq!(longest.len(), LONGEST);
        assert_eq!(uuid(longest.as_bytes()), Some(V7));
        // One byte more is refused, wherever it goes.
        for s in [
            "{017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f-}",
            "{-017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f}",
            "{017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f}}",
        ] {
            assert_eq!(uuid(s.as_bytes()), None, "{s}");
        }
    }

    #[test]
    fn what_core_uuid_refuses() {
        for s in [
            "",
            "{}",
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398",
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f0",
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f-",
            "-017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            "017f22e2--79b0-7cc3-98c4-dc0c0c07398f",
            "017f2-2e2-79b0-7cc3-98c4-dc0c0c07398f",
            "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f}",
            " 017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f ",
            "017g22e2-79b0-7cc3-98c4-dc0c0c07398f",
            "urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            "{{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}}",
            "０17f22e2-79b0-7cc3-98c4-dc0c0c07398f",
        ] {
            assert_eq!(uuid(s.as_bytes()), None, "{s:?}");
        }
    }
}
