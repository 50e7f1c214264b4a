//! The façade's keys (docs/facade.md#keys): the table `uuid_facade_key` in
//! the extension's schema, read into a per-backend cache of expanded AES
//! key schedules, and written by the key functions.
//!
//! PUBLIC has no privilege on the table. Whoever may EXECUTE a façade
//! function reads it through that function: the reads and writes here run
//! as the table's owner (as a foreign key's checks run as the referenced
//! table's), with fixed statements that name every object and operator by
//! schema, so a caller's `search_path` chooses nothing.
//!
//! The cache is dropped whenever the table changes: a statement trigger on
//! the table sends a relcache invalidation (at once to this backend, at
//! commit to the others, and through the WAL to standbys), which the
//! callback registered here receives. The table is read with the latest
//! snapshot, not the statement's: an invalidation that arrived before the
//! read must be in what was read, or the cache would keep an old key after
//! its transaction. Inside a parallel query (where PostgreSQL gives no newer
//! snapshot) the statement's is used and the cache is kept only until the
//! transaction ends.

use std::cell::{Cell, RefCell};

use pgrx::prelude::*;
use uuid_ext_core::facade::{Facade, KEY_LEN};

use crate::error;

/// A key's state as the table spells it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum State {
    Current,
    Retired,
    Dropped,
}

impl State {
    fn parse(s: &str) -> State {
        match s {
            "current" => State::Current,
            "retired" => State::Retired,
            _ => State::Dropped,
        }
    }
}

/// One key that can still decode (current or retired).
pub struct Live {
    pub id: i32,
    pub facade: Facade,
}

/// What this backend knows of the table.
pub struct Keys {
    /// The current key (first) and the retired ones, newest first.
    pub live: Vec<Live>,
    pub has_current: bool,
    /// Read with the statement's snapshot: dropped at the transaction's end.
    provisional: bool,
    /// Every key id with its state, for errors that name a key.
    pub states: Vec<(i32, State)>,
}

impl Keys {
    pub fn current(&self) -> Option<&Live> {
        self.has_current.then(|| &self.live[0])
    }

    pub fn state(&self, id: i32) -> Option<State> {
        self.states.iter().find(|(k, _)| *k == id).map(|(_, s)| *s)
    }

    /// The key `id`, which must be live: an unknown or dropped id is 22023.
    pub fn live(&self, id: i32) -> &Live {
        match self.live.iter().find(|k| k.id == id) {
            Some(k) => k,
            None => error::facade_key_not_live(id, self.state(id) == Some(State::Dropped)),
        }
    }
}

thread_local! {
    static CACHE: RefCell<Option<Keys>> = const { RefCell::new(None) };
    static CALLBACK_REGISTERED: Cell<bool> = const { Cell::new(false) };
    /// The key table this backend last looked up, and how many
    /// invalidations of it arrived: a load during which one arrived may
    /// have read what the invalidation announced as changed, or not.
    static TABLE: Cell<pg_sys::Oid> = const { Cell::new(pg_sys::Oid::INVALID) };
    static CHANGES: Cell<u64> = const { Cell::new(0) };
}

/// Calls `f` with this backend's keys, loading them first if the table
/// changed since they were read.
pub fn with<R>(f: impl FnOnce(&Keys) -> R) -> R {
    while CACHE.with_borrow(|c| c.is_none()) {
        let before = CHANGES.get();
        let keys = load();
        // Kept only if no invalidation of the table arrived while loading;
        // else read again.
        if CHANGES.get() == before {
            CACHE.with_borrow_mut(|c| *c = Some(keys));
        }
    }
    CACHE.with_borrow(|c| f(c.as_ref().expect("loaded above")))
}

#[pg_guard]
unsafe extern "C-unwind" fn relcache_changed(_arg: pg_sys::Datum, relid: pg_sys::Oid) {
    // InvalidOid: every relation's cache entry was dropped.
    if relid == pg_sys::InvalidOid || relid == TABLE.get() {
        CHANGES.set(CHANGES.get() + 1);
        CACHE.with_borrow_mut(|c| *c = None);
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn transaction_ended(
    event: pg_sys::XactEvent::Type,
    _arg: *mut std::ffi::c_void,
) {
    if matches!(
        event,
        pg_sys::XactEvent::XACT_EVENT_COMMIT
            | pg_sys::XactEvent::XACT_EVENT_ABORT
            | pg_sys::XactEvent::XACT_EVENT_PARALLEL_COMMIT
            | pg_sys::XactEvent::XACT_EVENT_PARALLEL_ABORT
    ) {
        CACHE.with_borrow_mut(|c| {
            if c.as_ref().is_some_and(|k| k.provisional) {
                *c = None;
            }
        });
    }
}

fn register_callbacks() {
    if !CALLBACK_REGISTERED.get() {
        // SAFETY: registers plain functions for the life of the backend,
        // once (PostgreSQL has a fixed number of relcache callback slots).
        unsafe {
            pg_sys::CacheRegisterRelcacheCallback(Some(relcache_changed), pg_sys::Datum::from(0));
            pg_sys::RegisterXactCallback(Some(transaction_ended), std::ptr::null_mut());
        }
        CALLBACK_REGISTERED.set(true);
    }
}

/// The key table of the installed extension: its OID, its name qualified
/// and quoted, and its owner.
pub struct Table {
    pub oid: pg_sys::Oid,
    pub name: String,
    pub owner: pg_sys::Oid,
}

pub fn table() -> Table {
    let found = Spi::connect(|c| {
        let rows = c.select(
            "SELECT c.oid, c.oid::pg_catalog.regclass::pg_catalog.text, c.relowner
             FROM pg_catalog.pg_extension e
             JOIN pg_catalog.pg_class c ON c.relnamespace OPERATOR(pg_catalog.=) e.extnamespace
             WHERE e.extname OPERATOR(pg_catalog.=) 'uuid_ext'
               AND c.relname OPERATOR(pg_catalog.=) 'uuid_facade_key'",
            None,
            &[],
        )?;
        let mut out = None;
        for row in rows {
            out = Some((
                row.get::<pg_sys::Oid>(1)?,
                row.get::<String>(2)?,
                row.get::<pg_sys::Oid>(3)?,
            ));
        }
        Ok::<_, pgrx::spi::Error>(out)
    });
    match found {
        Ok(Some((Some(oid), Some(name), Some(owner)))) => Table { oid, name, owner },
        Ok(_) => error::facade_table_missing(),
        Err(e) => error::facade_table_unreadable(&e.to_string()),
    }
}

/// Runs `f` as the role that owns the key table, then as the caller again
/// (an ERROR inside is undone by the transaction's own cleanup).
pub fn as_owner<R>(table: &Table, f: impl FnOnce() -> R) -> R {
    let mut user = pg_sys::Oid::INVALID;
    let mut context = 0;
    // SAFETY: saves and sets the current user id as PostgreSQL's own
    // maintenance commands do; restored below, or by abort on ERROR.
    unsafe {
        pg_sys::GetUserIdAndSecContext(&mut user, &mut context);
        pg_sys::SetUserIdAndSecContext(
            table.owner,
            context
                | pg_sys::SECURITY_LOCAL_USERID_CHANGE as i32
                | pg_sys::SECURITY_RESTRICTED_OPERATION as i32,
        );
    }
    let out = f();
    // SAFETY: restores what was saved above.
    unsafe { pg_sys::SetUserIdAndSecContext(user, context) };
    out
}

/// One row of the table as the cache needs it.
pub struct Row {
    pub id: i32,
    pub state: State,
    pub key: Option<Vec<u8>>,
}

/// Every row, newest key first, as the latest snapshot shows them (the
/// statement's inside a parallel query: then `latest` is false).
pub fn rows(table: &Table) -> (Vec<Row>, bool) {
    let query = format!(
        "SELECT key_id, state, key FROM {} ORDER BY key_id DESC",
        table.name
    );
    // SAFETY: reads PostgreSQL's state; the snapshot pushed here is popped
    // below, or by the transaction's cleanup on ERROR.
    let latest = unsafe { !pg_sys::IsInParallelMode() };
    if latest {
        // Invalidations first: every change whose invalidation arrived
        // before the snapshot is in it (a commit is visible before it
        // sends its invalidations), and any arriving later is counted.
        unsafe {
            pg_sys::AcceptInvalidationMessages();
            pg_sys::PushActiveSnapshot(pg_sys::GetLatestSnapshot());
        }
    }
    let rows = as_owner(table, || {
        Spi::connect(|c| {
            let mut out = Vec::new();
            for row in c.select(query.as_str(), None, &[])? {
                out.push(Row {
                    id: row.get::<i32>(1)?.unwrap_or(0),
                    state: State::parse(&row.get::<String>(2)?.unwrap_or_default()),
                    key: row.get::<Vec<u8>>(3)?,
                });
            }
            Ok::<_, pgrx::spi::Error>(out)
        })
    });
    if latest {
        // SAFETY: pops the snapshot pushed above.
        unsafe { pg_sys::PopActiveSnapshot() };
    }
    (
        rows.unwrap_or_else(|e| error::facade_table_unreadable(&e.to_string())),
        latest,
    )
}

pub fn key_bytes(row: &Row) -> [u8; KEY_LEN] {
    row.key
        .as_deref()
        .and_then(|k| <[u8; KEY_LEN]>::try_from(k).ok())
        .unwrap_or_else(|| error::facade_key_corrupt(row.id))
}

fn load() -> Keys {
    register_callbacks();
    let table = table();
    TABLE.set(table.oid);
    let (rows, latest) = rows(&table);
    // The current key first, then the retired ones (rows come newest first).
    let decoding = |state| rows.iter().filter(move |r: &&Row| r.state == state);
    let live: Vec<Live> = decoding(State::Current)
        .chain(decoding(State::Retired))
        .map(|row| Live {
            id: row.id,
            facade: Facade::new(&key_bytes(row)),
        })
        .collect();
    let has_current = decoding(State::Current).next().is_some();
    Keys {
        live,
        has_current,
        provisional: !latest,
        states: rows.iter().map(|r| (r.id, r.state)).collect(),
    }
}

/// The trigger on the key table: every statement that changes it drops
/// every backend's cache of it (this one's at the next command, the others'
/// when the change commits).
#[pg_trigger]
fn uuid_facade_key_changed<'a>(
    trigger: &'a pgrx::PgTrigger<'a>,
) -> Result<Option<PgHeapTuple<'a, AllocatedByPostgres>>, pgrx::PgTriggerError> {
    let rel = trigger.relation()?;
    // SAFETY: queues an invalidation of a relation the trigger has open.
    unsafe { pg_sys::CacheInvalidateRelcacheByRelid(rel.oid()) };
    Ok(None)
}
