//! Name-based UUIDv5 and UUIDv8, custom UUIDv8, and the namespace IDs
//! (docs/reference.md#generating). Pure functions of their arguments: IMMUTABLE.

use pgrx::datum::Uuid;
use pgrx::prelude::*;
use uuid_ext_core::v8::{self, Hash};
use uuid_ext_core::{namespace, v5};

use crate::error;

/// The 16 bytes given, with version 8 and the RFC 9562 variant written over.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_generate_v8(data: &[u8]) -> Uuid {
    let b: [u8; 16] = data
        .try_into()
        .unwrap_or_else(|_| error::not_16_bytes(data.len()));
    Uuid::from_bytes(v8::from_bytes(b))
}

fn hash(algorithm: &str) -> Hash {
    Hash::by_name(algorithm)
        .unwrap_or_else(|| error::unknown_value("hash algorithm", algorithm, v8::VALID_HASHES))
}

/// RFC 9562 App. B.2: the SHA-2 hash of the namespace's 16 bytes and the
/// name's UTF-8 bytes, its first 128 bits, version 8.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_generate_v8_name(
    namespace: Uuid,
    name: &str,
    algorithm: default!(&str, "'sha256'"),
) -> Uuid {
    Uuid::from_bytes(v8::from_name(
        namespace.as_bytes(),
        name.as_bytes(),
        hash(algorithm),
    ))
}

/// The same for a name given as bytes.
#[pg_extern(name = "uuid_generate_v8_name", immutable, strict, parallel_safe)]
fn uuid_generate_v8_name_bytea(
    namespace: Uuid,
    name: &[u8],
    algorithm: default!(&str, "'sha256'"),
) -> Uuid {
    Uuid::from_bytes(v8::from_name(namespace.as_bytes(), name, hash(algorithm)))
}

/// RFC 9562 §5.5: the SHA-1 name-based UUIDv5, as uuid-ossp's
/// `uuid_generate_v5` and Python's `uuid.uuid5`.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_generate_v5_name(namespace: Uuid, name: &str) -> Uuid {
    Uuid::from_bytes(v5::from_name(namespace.as_bytes(), name.as_bytes()))
}

/// The same for a name given as bytes.
#[pg_extern(name = "uuid_generate_v5_name", immutable, strict, parallel_safe)]
fn uuid_generate_v5_name_bytea(namespace: Uuid, name: &[u8]) -> Uuid {
    Uuid::from_bytes(v5::from_name(namespace.as_bytes(), name))
}

/// The namespace IDs of RFC 9562 §6.6: `dns`, `url`, `oid`, `x500`.
#[pg_extern(immutable, strict, parallel_safe)]
fn uuid_namespace(name: &str) -> Uuid {
    Uuid::from_bytes(
        namespace::by_name(name)
            .unwrap_or_else(|| error::unknown_value("namespace", name, namespace::VALID_NAMES)),
    )
}
