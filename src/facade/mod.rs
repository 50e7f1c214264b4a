//! The façade (docs/facade.md): a keyed, reversible, UUIDv4-looking face of
//! a UUIDv7 for ids shown outside the database. The mapping is the core's
//! (`uuid_ext_core::facade`); the keys are this database's
//! ([`keys`]); [`manage`] makes, retires, drops, exports and imports them.
//!
//! Every function here is STABLE (its answer depends on the key table),
//! STRICT and PARALLEL SAFE; EXECUTE is revoked from PUBLIC and granted to
//! the extension's owner, who grants it on (sql/facade.sql). A `uuid7`
//! argument reaches them through its implicit cast to `uuid`.

pub mod citus;
pub mod cluster;
pub mod error;
pub mod keys;
pub mod manage;
pub mod secret;
pub mod table;

use pgrx::datum::Uuid;
use pgrx::prelude::*;
use uuid_ext_core::facade::Refused;
use uuid_ext_core::layout;

/// The face of the UUIDv7 `id` under this database's current key and
/// `context`: a UUIDv4 that shows nothing of `id`'s time.
#[pg_extern(stable, strict, parallel_safe)]
fn uuid_v7_to_facade(id: Uuid, context: default!(&str, "''")) -> Uuid {
    keys::with(|k| {
        let current = k
            .current()
            .unwrap_or_else(|| error::facade_no_current_key("uuid_v7_to_facade"));
        current
            .facade
            .to_facade(id.as_bytes(), context.as_bytes())
            .map(Uuid::from_bytes)
            .unwrap_or_else(|r| refused(r, "uuid_v7_to_facade", 7, &id))
    })
}

/// The error of a face not made: `function` takes a UUID of `version`.
fn refused(r: Refused, function: &str, version: u8, given: &Uuid) -> ! {
    match r {
        Refused::WrongVersion => {
            crate::error::wrong_version(function, version, layout::version(given.as_bytes()))
        }
        Refused::OutOfMemory => error::facade_out_of_memory(),
    }
}

fn to_v7(facade: &Uuid, context: &str, key: &keys::Live) -> Uuid {
    key.facade
        .to_v7(facade.as_bytes(), context.as_bytes())
        .map(Uuid::from_bytes)
        .unwrap_or_else(|r| refused(r, "uuid_facade_to_v7", 4, facade))
}

/// The UUIDv7 whose face under the current key and `context` is `facade`.
#[pg_extern(stable, strict, parallel_safe, name = "uuid_facade_to_v7")]
fn uuid_facade_to_v7(facade: Uuid, context: default!(&str, "''")) -> Uuid {
    keys::with(|k| {
        let current = k
            .current()
            .unwrap_or_else(|| error::facade_no_current_key("uuid_facade_to_v7"));
        to_v7(&facade, context, current)
    })
}

/// The UUIDv7 whose face under key `key_id` (current or retired) and
/// `context` is `facade`.
#[pg_extern(stable, strict, parallel_safe, name = "uuid_facade_to_v7")]
fn uuid_facade_to_v7_with_key(facade: Uuid, context: &str, key_id: i32) -> Uuid {
    keys::with(|k| to_v7(&facade, context, k.live(key_id)))
}

/// `facade` decoded under each key that can still decode: the current key's
/// first, then the retired ones, newest first. Empty when there is none.
/// `WHERE id = ANY (uuid_facade_candidates($1))` finds a row whose face was
/// made under any of them.
#[pg_extern(stable, strict, parallel_safe)]
fn uuid_facade_candidates(facade: Uuid, context: default!(&str, "''")) -> Vec<Uuid> {
    if layout::version(facade.as_bytes()) != Some(4) {
        crate::error::wrong_version(
            "uuid_facade_candidates",
            4,
            layout::version(facade.as_bytes()),
        );
    }
    keys::with(|k| {
        k.live
            .iter()
            .map(|key| to_v7(&facade, context, key))
            .collect()
    })
}

// The key table, its trigger and view, and who may call what.
extension_sql_file!(
    "../../sql/facade.sql",
    name = "facade",
    requires = [
        uuid_v7_to_facade,
        uuid_facade_to_v7,
        uuid_facade_to_v7_with_key,
        uuid_facade_candidates,
        keys::uuid_facade_key_changed,
        keys::uuid_facade_key_guard,
        manage::uuid_facade_key_create,
        manage::uuid_facade_key_retire,
        manage::uuid_facade_key_drop,
        manage::uuid_facade_key_export,
        manage::uuid_facade_key_import,
        cluster::uuid_facade_cluster_key_create,
        cluster::uuid_facade_cluster_key_export,
        cluster::uuid_facade_cluster_key_import,
        cluster::uuid_facade_cluster_sync,
    ],
);
