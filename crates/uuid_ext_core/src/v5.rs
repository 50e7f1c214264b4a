//! Name-based UUIDv5 (RFC 9562 §5.5): the first 128 bits of the SHA-1 of
//! the namespace ID's 16 bytes followed by the name's bytes, with version 5
//! and the variant written over.

use sha1::{Digest, Sha1};

use crate::{layout, Bytes};

pub const VERSION: u8 = 5;

pub fn from_name(namespace: &Bytes, name: &[u8]) -> Bytes {
    let digest = Sha1::new()
        .chain_update(namespace)
        .chain_update(name)
        .finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    layout::set_version(b, VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::namespace;

    #[test]
    fn python_uuid5_of_www_example_com() {
        // python3 -c 'import uuid; print(uuid.uuid5(uuid.NAMESPACE_DNS, "www.example.com"))'
        assert_eq!(
            from_name(&namespace::DNS, b"www.example.com"),
            0x2ed6657d_e927_568b_95e1_2665a8aea6a2_u128.to_be_bytes()
        );
    }
}
