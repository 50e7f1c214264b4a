//! Making and ending the façade's keys (docs/facade.md#keys): each function
//! takes the key table's lock, which puts concurrent changes in a line,
//! reads the table with the latest snapshot and writes it through
//! `table.rs`, as the calling role and without SQL.

use pgrx::prelude::*;
use uuid_ext_core::facade::{fingerprint, KEY_LEN, TEST_KEY};
use zeroize::Zeroizing;

use super::cluster;
use super::error;
use super::secret::{superuser_only, SecretBytes};
use super::table::{self, NewRow, Row, State, Table};

/// A key change in progress: the table, locked against concurrent key
/// changes, its rows, and on a Citus coordinator what the change goes to
/// the workers with.
struct Change {
    table: Table,
    rows: Vec<Row>,
    sending: Option<cluster::Sending>,
}

/// Begins a key change; in a read-only transaction (a standby's too),
/// 25006 as for any write; on a Citus worker, 55000.
fn locked(function: &std::ffi::CStr) -> Change {
    // SAFETY: raises 25006 when the transaction is read-only.
    unsafe { pg_sys::PreventCommandIfReadOnly(function.as_ptr()) };
    let sending = cluster::before_change();
    let table = table::table();
    table::lock(&table);
    let (rows, _) = table.rows();
    Change {
        table,
        rows,
        sending,
    }
}

impl Change {
    /// Ends it: on a Citus coordinator every worker gets the keys.
    fn done(self) {
        cluster::after_change(&self.table, self.sending);
    }
}

/// Adds `key` as the current key, the current one (if any) becoming
/// retired; its id is one more than the largest before.
fn add_current(function: &std::ffi::CStr, key: &[u8; KEY_LEN]) -> i32 {
    let change = locked(function);
    let (table, rows) = (&change.table, &change.rows);
    if let Some(same) = rows.iter().find(|r| r.key.as_deref() == Some(key)) {
        error::facade_key_duplicate(same.id);
    }
    let id = rows
        .iter()
        .map(|r| r.id)
        .max()
        .unwrap_or(0)
        .checked_add(1)
        .unwrap_or_else(|| error::facade_key_ids_exhausted());
    table.update(|_, state| state == State::Current, State::Retired);
    table.insert(NewRow {
        id,
        state: State::Current,
        key: Some(key),
        fingerprint: &fingerprint(key),
    });
    change.done();
    id
}

/// Makes a key from the operating system's random generator (not the
/// backend's UUID generator, whose state would recompute it) and makes it
/// current; the key that was current becomes retired (it still decodes).
/// Returns the new key's id. The key appears in no SQL text, plan or log.
#[pg_extern(volatile, parallel_unsafe)]
fn uuid_facade_key_create() -> i32 {
    let mut key = Zeroizing::new([0u8; KEY_LEN]);
    getrandom::fill(&mut key[..])
        .unwrap_or_else(|e| error::facade_key_random_unavailable(&e.to_string()));
    add_current(c"uuid_facade_key_create()", &key)
}

/// The state of key `key_id`, after checking it exists.
fn existing(rows: &[Row], key_id: i32) -> State {
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
    let change = locked(c"uuid_facade_key_retire()");
    match existing(&change.rows, key_id) {
        State::Retired => {}
        State::Dropped => error::facade_key_not_live(key_id, true),
        State::Current => {
            change.table.update(|id, _| id == key_id, State::Retired);
            change.done();
        }
    }
}

/// Removes key `key_id`'s bytes from the table: faces made under it decode
/// no more (`uuid_facade_candidates` leaves it out). Its id, dates and
/// fingerprint stay in `uuid_facade_keys`. Copies of the bytes in the WAL,
/// archives, backups and earlier dumps stay until those expire
/// (docs/facade.md#keys). Dropping a dropped key does nothing.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn uuid_facade_key_drop(key_id: i32) {
    let change = locked(c"uuid_facade_key_drop()");
    if existing(&change.rows, key_id) != State::Dropped {
        change.table.update(|id, _| id == key_id, State::Dropped);
        change.done();
    }
}

/// Key `key_id`'s 32 bytes, for `uuid_facade_key_import()` in another
/// database (docs/facade.md#moving-a-key). Superusers only.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn uuid_facade_key_export(key_id: i32) -> SecretBytes {
    superuser_only("uuid_facade_key_export");
    let (rows, _) = table::table().rows();
    let row = rows
        .iter()
        .find(|r| r.id == key_id)
        .unwrap_or_else(|| error::facade_key_not_live(key_id, false));
    match &row.key {
        Some(key) if row.state != State::Dropped => SecretBytes(key.clone()),
        _ => error::facade_key_not_live(key_id, true),
    }
}

/// Adds a key exported from another database as this database's current
/// key (the current one becomes retired), so both give the same faces.
/// Returns its id here. Superusers only. The published test key is taken
/// with a WARNING: anyone can decode its faces.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn uuid_facade_key_import(key: &[u8]) -> i32 {
    superuser_only("uuid_facade_key_import");
    let key = Zeroizing::new(
        <[u8; KEY_LEN]>::try_from(key).unwrap_or_else(|_| error::facade_key_length(key.len())),
    );
    if *key == TEST_KEY {
        error::facade_test_key_warning();
    }
    add_current(c"uuid_facade_key_import()", &key)
}
