//! Making and ending the façade's keys (docs/facade.md#keys): each function
//! writes the key table as its owner (see [`keys::as_owner`]), after taking
//! a lock that puts concurrent changes in a line.

use pgrx::prelude::*;
use uuid_ext_core::facade::{fingerprint, KEY_LEN};

use super::keys::{self, State, Table};
use crate::{error, generate};

/// Takes the table's lock against concurrent key changes and returns it
/// with its rows.
fn locked() -> (Table, Vec<keys::Row>) {
    let table = keys::table();
    let lock = format!("LOCK TABLE {} IN SHARE ROW EXCLUSIVE MODE", table.name);
    keys::as_owner(&table, || Spi::run(&lock))
        .unwrap_or_else(|e| error::facade_table_unreadable(&e.to_string()));
    let (rows, _) = keys::rows(&table);
    (table, rows)
}

fn write(table: &Table, statement: &str, args: &[pgrx::datum::DatumWithOid]) {
    keys::as_owner(table, || {
        Spi::connect_mut(|c| c.update(statement, None, args).map(|_| ()))
    })
    .unwrap_or_else(|e| error::facade_table_unreadable(&e.to_string()));
}

/// Adds `key` as the current key, the current one (if any) becoming
/// retired; its id is one more than the largest before.
fn add_current(key: &[u8; KEY_LEN]) -> i32 {
    let (table, rows) = locked();
    let print = fingerprint(key);
    if let Some(same) = rows.iter().find(|r| r.key.as_deref() == Some(&key[..])) {
        error::facade_key_duplicate(same.id);
    }
    write(
        &table,
        &format!(
            "UPDATE {} SET state = 'retired', retired = pg_catalog.now() WHERE state OPERATOR(pg_catalog.=) 'current'",
            table.name
        ),
        &[],
    );
    let id = rows.iter().map(|r| r.id).max().unwrap_or(0) + 1;
    write(
        &table,
        &format!(
            "INSERT INTO {} (key_id, state, key, fingerprint, created) VALUES ($1, 'current', $2, $3, pg_catalog.now())",
            table.name
        ),
        &[id.into(), key.to_vec().into(), print.into()],
    );
    id
}

/// Makes a key from the server's random generator and makes it current;
/// the key that was current becomes retired (it still decodes). Returns the
/// new key's id. The key never appears in SQL text or the log.
#[pg_extern(volatile, parallel_unsafe)]
fn uuid_facade_key_create() -> i32 {
    let mut key = [0u8; KEY_LEN];
    key[..16].copy_from_slice(&generate::random_bytes());
    key[16..].copy_from_slice(&generate::random_bytes());
    add_current(&key)
}

/// The state of key `key_id`, after checking it exists.
fn existing(rows: &[keys::Row], key_id: i32) -> State {
    rows.iter()
        .find(|r| r.id == key_id)
        .map(|r| r.state)
        .unwrap_or_else(|| error::facade_key_not_live(key_id, false))
}

/// Makes key `key_id` retired: it decodes (`uuid_facade_to_v7` with its id,
/// `uuid_facade_candidates`) but makes no new faces. Retiring the current
/// key leaves none current until the next `uuid_facade_key_create()`.
/// A retired key stays retired; a dropped one is 22023.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn uuid_facade_key_retire(key_id: i32) {
    let (table, rows) = locked();
    match existing(&rows, key_id) {
        State::Retired => {}
        State::Dropped => error::facade_key_not_live(key_id, true),
        State::Current => write(
            &table,
            &format!(
                "UPDATE {} SET state = 'retired', retired = pg_catalog.now() WHERE key_id OPERATOR(pg_catalog.=) $1",
                table.name
            ),
            &[key_id.into()],
        ),
    }
}

/// Drops key `key_id`'s bytes for good: faces made under it decode no more
/// (`uuid_facade_candidates` leaves it out). Its id, dates and fingerprint
/// stay in `uuid_facade_keys`. Dropping a dropped key does nothing.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn uuid_facade_key_drop(key_id: i32) {
    let (table, rows) = locked();
    if existing(&rows, key_id) != State::Dropped {
        write(
            &table,
            &format!(
                "UPDATE {} SET state = 'dropped', key = NULL, retired = COALESCE(retired, pg_catalog.now()), \
                 dropped = pg_catalog.now() WHERE key_id OPERATOR(pg_catalog.=) $1",
                table.name
            ),
            &[key_id.into()],
        );
    }
}

fn superuser_only(function: &str) {
    // SAFETY: reads the current user's superuser flag.
    if !unsafe { pg_sys::superuser() } {
        error::facade_superuser_only(function);
    }
}

/// Key `key_id`'s 32 bytes, for `uuid_facade_key_import()` in another
/// database (docs/facade.md#moving-a-key). Superusers only.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn uuid_facade_key_export(key_id: i32) -> Vec<u8> {
    superuser_only("uuid_facade_key_export");
    let table = keys::table();
    let (rows, _) = keys::rows(&table);
    let row = rows
        .iter()
        .find(|r| r.id == key_id)
        .unwrap_or_else(|| error::facade_key_not_live(key_id, false));
    if row.state == State::Dropped {
        error::facade_key_not_live(key_id, true);
    }
    keys::key_bytes(row).to_vec()
}

/// Adds a key exported from another database as this database's current
/// key (the current one becomes retired), so both give the same faces.
/// Returns its id here. Superusers only.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn uuid_facade_key_import(key: &[u8]) -> i32 {
    superuser_only("uuid_facade_key_import");
    let key =
        <[u8; KEY_LEN]>::try_from(key).unwrap_or_else(|_| error::facade_key_length(key.len()));
    add_current(&key)
}
