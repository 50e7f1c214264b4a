//! Properties of the text forms over arbitrary UUIDs and arbitrary strings.

use proptest::prelude::*;
use uuid_ext_core::text::{decode, encode, DecodeError, Format};
use uuid_ext_core::Bytes;

fn format() -> impl Strategy<Value = Format> {
    prop::sample::select(Format::ALL.to_vec())
}

fn alphabet(f: Format) -> &'static str {
    match f {
        Format::Hex => "0123456789abcdefABCDEF",
        Format::Base32Hex => "0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuv",
        Format::Crockford => "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyzIiLlOo",
        Format::Base58 => "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
        Format::Base64Url => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
    }
}

/// Characters no format accepts, or that some other format does.
const BAD: &str = "=+/- \n\0Uu0Il~é€😀";

/// What `encode(decode(s))` must give back for an accepted `s`.
fn canonical(s: &str, f: Format) -> String {
    match f {
        Format::Hex => s.to_ascii_lowercase(),
        Format::Base32Hex => s.to_ascii_uppercase(),
        Format::Crockford => s
            .to_ascii_uppercase()
            .replace(['I', 'L'], "1")
            .replace('O', "0"),
        Format::Base58 | Format::Base64Url => s.to_owned(),
    }
}

/// A format and a string of its alphabet with a few bad characters mixed in.
fn near_miss() -> impl Strategy<Value = (Format, String)> {
    format().prop_flat_map(|f| {
        let chars: Vec<char> = alphabet(f).chars().chain(BAD.chars()).collect();
        let n = alphabet(f).chars().count();
        // Mostly alphabet characters, so that some strings decode.
        let pick = prop_oneof![
            20 => prop::sample::select(chars[..n].to_vec()),
            1 => prop::sample::select(chars[n..].to_vec()),
        ];
        let len = prop_oneof![Just(f.len()), 0..40usize];
        (
            Just(f),
            len.prop_flat_map(move |len| prop::collection::vec(pick.clone(), len))
                .prop_map(|v| v.into_iter().collect()),
        )
    })
}

/// A format and one of its encodings with a few characters replaced, by
/// other characters of its alphabet (case variants and aliases among them)
/// or bad ones.
fn mutated() -> impl Strategy<Value = (Format, String)> {
    let edit = (
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        0..20u8,
    );
    (format(), any::<Bytes>(), prop::collection::vec(edit, 0..4)).prop_map(|(f, b, edits)| {
        let good: Vec<char> = alphabet(f).chars().collect();
        let bad: Vec<char> = BAD.chars().collect();
        let mut s: Vec<char> = encode(&b, f).chars().collect();
        for (at, with, odds) in edits {
            let pool = if odds == 0 { &bad } else { &good };
            s[at.index(f.len())] = *with.get(pool);
        }
        (f, s.into_iter().collect())
    })
}

fn check_string(s: &str, f: Format) -> Result<(), TestCaseError> {
    match decode(s, f) {
        Ok(b) => {
            prop_assert_eq!(s.chars().count(), f.len());
            prop_assert_eq!(encode(&b, f), canonical(s, f));
        }
        Err(e) => prop_assert!(!e.to_string().is_empty()),
    }
    Ok(())
}

proptest! {
    #[test]
    fn every_format_round_trips(b in any::<Bytes>()) {
        for f in Format::ALL {
            let s = encode(&b, f);
            prop_assert_eq!(s.len(), f.len());
            prop_assert!(s.is_ascii());
            prop_assert_eq!(decode(&s, f), Ok(b));
        }
    }

    #[test]
    fn encodings_compare_as_the_uuids(a in any::<Bytes>(), b in any::<Bytes>()) {
        for f in Format::ALL.into_iter().filter(|f| f.sorts_like_uuid()) {
            prop_assert_eq!(encode(&a, f).as_bytes().cmp(encode(&b, f).as_bytes()), a.cmp(&b), "{}", f);
        }
    }

    #[test]
    fn sorting_encodings_sorts_the_uuids(mut ids in prop::collection::vec(any::<Bytes>(), 0..50)) {
        for f in Format::ALL.into_iter().filter(|f| f.sorts_like_uuid()) {
            let mut texts: Vec<String> = ids.iter().map(|b| encode(b, f)).collect();
            texts.sort_unstable();
            ids.sort_unstable();
            let decoded: Vec<Bytes> = texts.iter().map(|s| decode(s, f).unwrap()).collect();
            prop_assert_eq!(&decoded, &ids, "{}", f);
        }
    }

    #[test]
    fn arbitrary_strings_never_panic(s in ".{0,40}", f in format()) {
        check_string(&s, f)?;
    }

    #[test]
    fn near_misses_decode_only_canonically((f, s) in near_miss()) {
        check_string(&s, f)?;
    }

    #[test]
    fn mutated_encodings_decode_only_canonically((f, s) in mutated()) {
        check_string(&s, f)?;
    }

    #[test]
    fn a_bad_character_anywhere_is_an_error(
        b in any::<Bytes>(),
        (f, c) in format().prop_flat_map(|f| {
            let bad = BAD.chars().filter(|&c| !alphabet(f).contains(c));
            (Just(f), prop::sample::select(bad.collect::<Vec<_>>()))
        }),
        i in any::<prop::sample::Index>(),
    ) {
        let mut chars: Vec<char> = encode(&b, f).chars().collect();
        let position = i.index(chars.len());
        chars[position] = c;
        let s: String = chars.into_iter().collect();
        let expected = DecodeError::Character { format: f, found: c, position: position + 1 };
        prop_assert_eq!(decode(&s, f), Err(expected));
    }

    #[test]
    fn any_other_length_is_an_error(
        (f, s) in format().prop_flat_map(|f| {
            // 0..40 without f.len().
            let c = prop_oneof![prop::char::range('0', 'z'), any::<char>()];
            let s = (0..39usize).prop_flat_map(move |n| {
                prop::collection::vec(c.clone(), n + usize::from(n >= f.len()))
            });
            (Just(f), s.prop_map(String::from_iter))
        }),
    ) {
        let found = s.chars().count();
        prop_assert_eq!(decode(&s, f), Err(DecodeError::Length { format: f, found }));
    }
}
