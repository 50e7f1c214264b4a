//! Compact text forms of a UUID:
//!
//! | format      | length | alphabet                          | the 16 bytes read as                       | sorts like the UUID |
//! |-------------|--------|-----------------------------------|--------------------------------------------|---------------------|
//! | `hex`       | 32     | `0-9a-f`                          | a bit stream                               | yes                 |
//! | `base32hex` | 26     | `0-9A-V` (RFC 4648 §7)            | a bit stream, 2 zero pad bits at the end   | yes                 |
//! | `crockford` | 26     | Crockford's base32, as ULIDs      | a number, so 2 zero bits at the start      | yes                 |
//! | `base58`    | 22     | Bitcoin's                         | a number, left-padded with `1` (zero)      | yes                 |
//! | `base64url` | 22     | `A-Za-z0-9-_` (RFC 4648 §5)       | a bit stream, 4 zero pad bits at the end   | no                  |
//!
//! Every form is fixed-width, and every alphabet but base64url's is in ASCII
//! order, so those strings compare bytewise (`COLLATE "C"`) as the UUIDs do.
//!
//! Decoding accepts exactly the strings [`encode`] writes, except that hex,
//! base32hex and crockford ignore case and crockford reads `I` and `L` as `1`
//! and `O` as `0` (Crockford's spec). Nothing else is forgiven: no padding,
//! whitespace, dashes or Crockford check symbols, and no non-zero pad bits
//! (RFC 4648 §3.5), so each accepted string names one UUID.

use std::fmt;
use std::sync::LazyLock;

use data_encoding::{
    DecodeKind, Encoding, Specification, BASE32HEX_NOPAD, BASE64URL_NOPAD, HEXLOWER,
    HEXLOWER_PERMISSIVE,
};

use crate::Bytes;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Hex,
    Base32Hex,
    Crockford,
    Base58,
    Base64Url,
}

/// The format names, for error messages.
pub const VALID_FORMATS: &str = "hex, base32hex, crockford, base58, base64url";

impl Format {
    pub const ALL: [Format; 5] = [
        Format::Hex,
        Format::Base32Hex,
        Format::Crockford,
        Format::Base58,
        Format::Base64Url,
    ];

    /// The format called `name`, ignoring ASCII case.
    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Hex => "hex",
            Format::Base32Hex => "base32hex",
            Format::Crockford => "crockford",
            Format::Base58 => "base58",
            Format::Base64Url => "base64url",
        }
    }

    /// The length of every string of this format, in characters (all ASCII).
    #[allow(clippy::len_without_is_empty, reason = "no format is empty")]
    pub fn len(self) -> usize {
        match self {
            Format::Hex => 32,
            Format::Base32Hex | Format::Crockford => 26,
            Format::Base58 | Format::Base64Url => 22,
        }
    }

    /// Whether strings of this format compare bytewise as the UUIDs do.
    pub fn sorts_like_uuid(self) -> bool {
        self != Format::Base64Url
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// `found` characters (not bytes) instead of `format.len()`.
    Length { format: Format, found: usize },
    /// `found` is not in the alphabet; `position` counts characters from 1,
    /// as SQL's `strpos` does.
    Character {
        format: Format,
        found: char,
        position: usize,
    },
    /// The last character, `found`, sets pad bits (base32hex, base64url).
    Trailing { format: Format, found: char },
    /// The number is 2^128 or more (crockford, base58).
    Overflow { format: Format },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeError::Length { format, found } => write!(
                f,
                "a {format} UUID is {} characters, not {found}",
                format.len()
            ),
            DecodeError::Character {
                format,
                found,
                position,
            } => write!(
                f,
                "'{}' at position {position} is not in the {format} alphabet",
                found.escape_debug()
            ),
            DecodeError::Trailing { format, found } => {
                // The symbols whose pad bits (2 in base32hex, 4 in base64url) are zero.
                let last = match format {
                    Format::Base64Url => "A, Q, g, w",
                    _ => "0, 4, 8, C, G, K, O, S",
                };
                write!(
                    f,
                    "the last character, '{}', sets bits past the 128th; it must be one of {last}",
                    found.escape_debug()
                )
            }
            DecodeError::Overflow { format } => {
                f.write_str("value is larger than 128 bits")?;
                match format {
                    Format::Crockford => f.write_str("; the first character must be 0-7"),
                    Format::Base58 => f.write_str("; the largest is YcVfxkQb6JRzqk5kF2tNLv"),
                    _ => Ok(()),
                }
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// RFC 4648 §7, reading lowercase too.
static BASE32HEX: LazyLock<Encoding> = LazyLock::new(|| {
    let mut spec = BASE32HEX_NOPAD.specification();
    spec.translate.from = "abcdefghijklmnopqrstuv".into();
    spec.translate.to = "ABCDEFGHIJKLMNOPQRSTUV".into();
    spec.encoding().expect("a valid specification")
});

/// Crockford's base32 (<https://www.crockford.com/base32.html>): lowercase
/// reads as uppercase, `I` and `L` as `1`, `O` as `0`.
static CROCKFORD: LazyLock<Encoding> = LazyLock::new(|| {
    let mut spec = Specification::new();
    spec.symbols.push_str("0123456789ABCDEFGHJKMNPQRSTVWXYZ");
    spec.translate.from = "abcdefghjkmnpqrstvwxyzIiLlOo".into();
    spec.translate.to = "ABCDEFGHJKMNPQRSTVWXYZ111100".into();
    spec.encoding().expect("a valid specification")
});

/// Zero digits put in front of a crockford string. A base-32 numeral is its
/// number's bits, 5 a digit, but 26 digits (130 bits) are not whole bytes;
/// 32 digits are 160 bits, 20 bytes whose last 16 are the number. So the
/// crate's bit-stream codec, with its alias tables, reads and writes the ULID
/// form (a number, ULID spec) with no bit shifting by hand.
const CROCKFORD_PAD: usize = 6;

pub fn encode(b: &Bytes, f: Format) -> String {
    match f {
        Format::Hex => HEXLOWER.encode(b),
        Format::Base32Hex => BASE32HEX.encode(b),
        Format::Crockford => {
            let mut wide = [0; 20];
            wide[4..].copy_from_slice(b);
            CROCKFORD.encode(&wide)[CROCKFORD_PAD..].to_owned()
        }
        Format::Base58 => {
            // bs58 writes each leading zero byte as a `1`, which is not the
            // numeral's width: drop them and pad the number to 22 digits.
            let digits = bs58::encode(b).into_string();
            format!("{:1>22}", digits.trim_start_matches('1'))
        }
        Format::Base64Url => BASE64URL_NOPAD.encode(b),
    }
}

pub fn decode(s: &str, f: Format) -> Result<Bytes, DecodeError> {
    let found = s.chars().count();
    if found != f.len() {
        return Err(DecodeError::Length { format: f, found });
    }
    // Every alphabet is ASCII. NUL, in none of them, stands in for other
    // characters so that the crates' byte positions are character positions.
    let ascii: Vec<u8> = s
        .chars()
        .map(|c| if c.is_ascii() { c as u8 } else { 0 })
        .collect();
    let at = |index: usize| s.chars().nth(index).unwrap_or(char::REPLACEMENT_CHARACTER);
    let character = |index: usize| DecodeError::Character {
        format: f,
        found: at(index),
        position: index + 1,
    };
    let bits = |encoding: &Encoding, input: &[u8], skip: usize| {
        encoding.decode(input).map_err(|e| {
            let index = e.position.saturating_sub(skip);
            match e.kind {
                DecodeKind::Trailing => DecodeError::Trailing {
                    format: f,
                    found: at(index),
                },
                // Symbol; Length and Padding cannot happen at these lengths
                // without padding.
                _ => character(index),
            }
        })
    };
    let number = match f {
        Format::Hex => bits(&HEXLOWER_PERMISSIVE, &ascii, 0)?,
        Format::Base32Hex => bits(&BASE32HEX, &ascii, 0)?,
        Format::Crockford => {
            let mut input = vec![b'0'; CROCKFORD_PAD];
            input.extend_from_slice(&ascii);
            bits(&CROCKFORD, &input, CROCKFORD_PAD)?
        }
        Format::Base58 => {
            // Without its leading zero digits bs58 returns the number's
            // minimal bytes, so more than 16 is an overflow.
            let zeros = ascii.iter().take_while(|&&c| c == b'1').count();
            bs58::decode(&ascii[zeros..])
                .into_vec()
                .map_err(|e| match e {
                    bs58::decode::Error::InvalidCharacter { index, .. }
                    | bs58::decode::Error::NonAsciiCharacter { index } => character(zeros + index),
                    _ => DecodeError::Overflow { format: f },
                })?
        }
        Format::Base64Url => bits(&BASE64URL_NOPAD, &ascii, 0)?,
    };
    fit(&number, f)
}

/// The big-endian number `v` as 16 bytes, if it fits.
fn fit(v: &[u8], f: Format) -> Result<Bytes, DecodeError> {
    let (high, low) = v.split_at(v.len().saturating_sub(16));
    if high.iter().any(|&x| x != 0) {
        return Err(DecodeError::Overflow { format: f });
    }
    let mut b = [0; 16];
    b[16 - low.len()..].copy_from_slice(low);
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{MAX, NIL};

    /// RFC 9562 Appendix A.6, UUIDv7 `017F22E2-79B0-7CC3-98C4-DC0C0C07398F`.
    const V7: Bytes = 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F_u128.to_be_bytes();

    /// Each format's string for `b`, computed independently with Python's
    /// `base64` module and `int.from_bytes` digit arithmetic.
    fn check(b: &Bytes, expected: [&str; 5]) {
        for (f, s) in Format::ALL.into_iter().zip(expected) {
            assert_eq!(encode(b, f), s, "{f}");
            assert_eq!(decode(s, f), Ok(*b), "{f}");
        }
    }

    #[test]
    fn rfc_v7_in_every_format() {
        check(
            &V7,
            [
                "017f22e279b07cc398c4dc0c0c07398f",
                "05VI5OJPM1UC7664RG60O1PPHS",
                "01FWHE4YDGFK1SHH6W1G60EECF",
                "1BihbxwwQ4NZZpKRH9JDCz",
                "AX8i4nmwfMOYxNwMDAc5jw",
            ],
        );
    }

    #[test]
    fn nil_and_max_in_every_format() {
        check(
            &NIL,
            [
                "00000000000000000000000000000000",
                "00000000000000000000000000",
                "00000000000000000000000000",
                "1111111111111111111111",
                "AAAAAAAAAAAAAAAAAAAAAA",
            ],
        );
        check(
            &MAX,
            [
                "ffffffffffffffffffffffffffffffff",
                "VVVVVVVVVVVVVVVVVVVVVVVVVS",
                "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
                "YcVfxkQb6JRzqk5kF2tNLv",
                "_____________________w",
            ],
        );
    }

    #[test]
    fn ulid_spec_vector() {
        let b = 0x01563E3A_B5D3_D676_4C61_EFB99302BD5B_u128.to_be_bytes();
        assert_eq!(
            decode("01ARZ3NDEKTSV4RRFFQ69G5FAV", Format::Crockford),
            Ok(b)
        );
        assert_eq!(encode(&b, Format::Crockford), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    }

    #[test]
    fn base58_pads_the_number_not_the_bytes() {
        // A zero first byte is not a `1` digit of its own: 2^120 - 1 needs 21 digits.
        let mut b = MAX;
        b[0] = 0;
        assert_eq!(encode(&b, Format::Base58), "18AQGAut7N92awznwCnjuQ");
        assert_eq!(decode("18AQGAut7N92awznwCnjuQ", Format::Base58), Ok(b));
    }

    #[test]
    fn case_and_crockford_aliases() {
        let hex = "017F22E279B07CC398C4DC0C0C07398F";
        assert_eq!(decode(hex, Format::Hex), Ok(V7));
        assert_eq!(
            decode("05vi5ojpm1uc7664rg60o1pphs", Format::Base32Hex),
            Ok(V7)
        );
        assert_eq!(
            decode("01fwhe4ydgfk1shh6w1g60eecf", Format::Crockford),
            Ok(V7)
        );
        assert_eq!(
            decode("OIFWHE4YDGFKLSHH6W1G60EECF", Format::Crockford),
            Ok(V7)
        );
        assert_eq!(
            decode("oiFWHE4YDGFKlSHH6W1G6oEECF", Format::Crockford),
            Ok(V7)
        );
        // Case matters in base58 and base64url: another UUID.
        assert_ne!(decode("1bihbxwwq4nzzpkrh9jdcz", Format::Base58), Ok(V7));
        assert_ne!(decode("ax8i4nmwfmoyxnwmdac5jw", Format::Base64Url), Ok(V7));
    }

    #[test]
    fn format_names() {
        for f in Format::ALL {
            assert_eq!(Format::parse(f.name()), Some(f));
            assert_eq!(Format::parse(&f.name().to_uppercase()), Some(f));
            assert!(VALID_FORMATS.contains(f.name()));
            assert_eq!(encode(&V7, f).len(), f.len());
        }
        assert_eq!(Format::parse("Base32Hex"), Some(Format::Base32Hex));
        assert_eq!(Format::parse("base32"), None);
        assert_eq!(Format::parse(""), None);
    }

    #[test]
    fn length_errors_count_characters() {
        let e = decode("1BihbxwwQ4NZZpKRH9JDC", Format::Base58).unwrap_err();
        assert_eq!(
            e,
            DecodeError::Length {
                format: Format::Base58,
                found: 21
            }
        );
        assert_eq!(e.to_string(), "a base58 UUID is 22 characters, not 21");
        // 22 characters in 23 bytes.
        assert_eq!(
            decode("é1ihbxwwQ4NZZpKRH9JDCz", Format::Base58),
            Err(DecodeError::Character {
                format: Format::Base58,
                found: 'é',
                position: 1
            })
        );
        assert_eq!(
            decode("017f22e2-79b0-7cc3-98c4-dc0c0c07398f", Format::Hex),
            Err(DecodeError::Length {
                format: Format::Hex,
                found: 36
            })
        );
        assert!(matches!(
            decode("AX8i4nmwfMOYxNwMDAc5jw==", Format::Base64Url),
            Err(DecodeError::Length { found: 24, .. })
        ));
    }

    #[test]
    fn character_errors_name_the_first_bad_character() {
        let e = decode("1Bi0bxwwQ4NZZpKRH9JDCz", Format::Base58).unwrap_err();
        assert_eq!(
            e.to_string(),
            "'0' at position 4 is not in the base58 alphabet"
        );
        let e = decode("01FWHE4YDGFK1SHH6W1G60EECU", Format::Crockford).unwrap_err();
        assert_eq!(
            e,
            DecodeError::Character {
                format: Format::Crockford,
                found: 'U',
                position: 26
            }
        );
        // The first of several, after a multi-byte character.
        let e = decode("0€VI5OJPM1UC7664RG60O1PPH=", Format::Base32Hex).unwrap_err();
        assert_eq!(
            e.to_string(),
            "'€' at position 2 is not in the base32hex alphabet"
        );
        let e = decode("017f22e279b07cc398c4dc0c0c0739\n ", Format::Hex).unwrap_err();
        assert_eq!(
            e.to_string(),
            "'\\n' at position 31 is not in the hex alphabet"
        );
        for (s, f, c) in [
            ("11111111111111111111l1", Format::Base58, 'l'),
            ("AX8i4nmwfMOYxNwMDAc5j=", Format::Base64Url, '='),
            ("AX8i4nmwfMOYxNwMDAc5j+", Format::Base64Url, '+'),
            ("05VI5OJPM1UC7664RG60O1PPHW", Format::Base32Hex, 'W'),
        ] {
            assert!(
                matches!(decode(s, f), Err(DecodeError::Character { found, .. }) if found == c),
                "{s}"
            );
        }
    }

    #[test]
    fn pad_bits_must_be_zero() {
        let e = decode("AX8i4nmwfMOYxNwMDAc5jx", Format::Base64Url).unwrap_err();
        assert_eq!(
            e,
            DecodeError::Trailing {
                format: Format::Base64Url,
                found: 'x'
            }
        );
        assert_eq!(
            e.to_string(),
            "the last character, 'x', sets bits past the 128th; it must be one of A, Q, g, w"
        );
        assert!(matches!(
            decode("VVVVVVVVVVVVVVVVVVVVVVVVVV", Format::Base32Hex),
            Err(DecodeError::Trailing { found: 'V', .. })
        ));
        assert!(matches!(
            decode("0000000000000000000000000t", Format::Base32Hex),
            Err(DecodeError::Trailing { found: 't', .. })
        ));
    }

    #[test]
    fn numbers_above_128_bits_overflow() {
        let crockford = DecodeError::Overflow {
            format: Format::Crockford,
        };
        for s in ["80000000000000000000000000", "zZZZZZZZZZZZZZZZZZZZZZZZZZ"] {
            assert_eq!(decode(s, Format::Crockford), Err(crockford));
        }
        assert_eq!(
            crockford.to_string(),
            "value is larger than 128 bits; the first character must be 0-7"
        );
        let base58 = DecodeError::Overflow {
            format: Format::Base58,
        };
        // 2^128, and the largest 22 digits.
        for s in ["YcVfxkQb6JRzqk5kF2tNLw", "zzzzzzzzzzzzzzzzzzzzzz"] {
            assert_eq!(decode(s, Format::Base58), Err(base58));
        }
        assert_eq!(
            base58.to_string(),
            "value is larger than 128 bits; the largest is YcVfxkQb6JRzqk5kF2tNLv"
        );
        // A bad character is reported before the overflow.
        assert!(matches!(
            decode("Z000000000000000000000000U", Format::Crockford),
            Err(DecodeError::Character { position: 26, .. })
        ));
    }
}
