//! UUIDv8 (RFC 9562 §5.8): 122 bits of the caller's choosing, with version 8
//! and the variant written over; and the name-based UUIDv8 of Appendix B.2,
//! the first 128 bits of a SHA-2 hash of the namespace ID's 16 bytes
//! followed by the name's bytes.

use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};

use crate::{layout, Bytes};

pub const VERSION: u8 = 8;

/// The 16 bytes given, version 8 and variant written over.
pub fn from_bytes(b: Bytes) -> Bytes {
    layout::set_version(b, VERSION)
}

/// The hash of a name-based UUIDv8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hash {
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

/// The algorithm names [`Hash::by_name`] knows, for error messages.
pub const VALID_HASHES: &str = "sha224, sha256, sha384, sha512";

impl Hash {
    /// `sha224`, `sha256`, `sha384` or `sha512`, in any case, compared
    /// where it is: a name of any length is never copied.
    pub fn by_name(name: &str) -> Option<Hash> {
        [
            ("sha224", Hash::Sha224),
            ("sha256", Hash::Sha256),
            ("sha384", Hash::Sha384),
            ("sha512", Hash::Sha512),
        ]
        .into_iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name))
        .map(|(_, hash)| hash)
    }
}

fn first_128<D: Digest>(namespace: &Bytes, name: &[u8]) -> Bytes {
    let digest = D::new()
        .chain_update(namespace)
        .chain_update(name)
        .finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b
}

pub fn from_name(namespace: &Bytes, name: &[u8], hash: Hash) -> Bytes {
    let b = match hash {
        Hash::Sha224 => first_128::<Sha224>(namespace, name),
        Hash::Sha256 => first_128::<Sha256>(namespace, name),
        Hash::Sha384 => first_128::<Sha384>(namespace, name),
        Hash::Sha512 => first_128::<Sha512>(namespace, name),
    };
    from_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::namespace;

    #[test]
    fn rfc_9562_custom_vector() {
        // Appendix B.1: the 16 bytes, version and variant already in place.
        let v = 0x2489E9AD_2EE2_8E00_8EC9_32D5F69181C0_u128.to_be_bytes();
        assert_eq!(from_bytes(v), v);
        // Any 16 bytes: only version and variant change.
        let all = from_bytes([0xff; 16]);
        assert_eq!(
            all,
            0xffffffff_ffff_8fff_bfff_ffffffffffff_u128.to_be_bytes()
        );
        assert_eq!(
            from_bytes([0; 16]),
            0x00000000_0000_8000_8000_000000000000_u128.to_be_bytes()
        );
    }

    #[test]
    fn rfc_9562_name_based_vector() {
        // Appendix B.2: DNS namespace, www.example.com, SHA-256.
        assert_eq!(
            from_name(&namespace::DNS, b"www.example.com", Hash::Sha256),
            0x5c146b14_3c52_8afd_938a_375d0df1fbf6_u128.to_be_bytes()
        );
    }

    #[test]
    fn every_hash_gives_a_v8_of_its_own() {
        let all: Vec<Bytes> = [Hash::Sha224, Hash::Sha256, Hash::Sha384, Hash::Sha512]
            .iter()
            .map(|&h| from_name(&namespace::URL, b"https://example.com", h))
            .collect();
        for (i, a) in all.iter().enumerate() {
            assert_eq!(layout::version(a), Some(8));
            assert!(all[i + 1..].iter().all(|b| b != a));
        }
    }

    #[test]
    fn hash_names() {
        assert_eq!(Hash::by_name("SHA512"), Some(Hash::Sha512));
        assert_eq!(Hash::by_name("sha-256"), None);
        assert_eq!(Hash::by_name("sha1"), None);
    }
}
